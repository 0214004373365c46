'use strict';
'require baseclass';
'require reterm.caketokens as caketokens';
'require reterm.cakeread as cakeread';

/*
 * Checks of the CAKE model (see reterm.cake) and of its number fields as
 * typed: each gives null when valid, else a translated message; nothing
 * throws. Pure, no DOM. Use as: 'require reterm.cakecheck as cakecheck';
 */

const { has, toInt } = caketokens;
const { RTT_KEYWORDS, FRAMING, DIFFSERV } = cakeread;
const parseSide = cakeread.side;

const ISOLATION = [ 'dual', 'host', 'triple-isolate', 'flows', 'hosts', 'flowblind' ];

function same(a, b) {
	return JSON.stringify(a == null ? null : a) === JSON.stringify(b == null ? null : b);
}

function validInt(v, min, max) {
	return typeof v === 'number' && isFinite(v) && v % 1 === 0 && v >= min && v <= max;
}

function checkModel(m) {
	if (m == null || typeof m !== 'object' || Array.isArray(m))
		return _('Invalid CAKE settings');

	if (m.rtt != null && !has(RTT_KEYWORDS, m.rtt) && !validInt(m.rtt, 1, 1000))
		return _('The RTT must be a whole number of milliseconds between 1 and 1000, or a preset');

	if (m.overhead != null && m.overhead !== 'none' && m.overhead !== 'custom' && !has(FRAMING, m.overhead))
		return _('Unknown link overhead preset');

	if (m.overhead === 'custom') {
		if (!Array.isArray(m.overheadTokens) || !m.overheadTokens.length)
			return _('Custom overhead keywords are missing');

		let side = parseSide(m.overheadTokens.join(' '), 'egress');

		if (side.invalid.length || side.unknown.length || side.fields.overhead !== 'custom' ||
		    !same(side.fields.overheadTokens, m.overheadTokens))
			return _('Custom overhead keywords must be CAKE framing keywords, "overhead N", "mpu N" or "ether-vlan"');
	}

	if (m.overheadBytes != null && !validInt(m.overheadBytes, -64, 256))
		return _('The per-packet overhead must be a whole number of bytes between -64 and 256');

	if (m.mpu != null && !validInt(m.mpu, 0, 256))
		return _('The minimum packet unit (MPU) must be a whole number of bytes between 0 and 256');

	if (m.vlan != null && !validInt(m.vlan, 0, 2))
		return _('The number of VLAN tags must be 0, 1 or 2');

	if (m.nat != null && typeof m.nat !== 'boolean')
		return _('Invalid NAT setting');

	if (m.isolation != null && ISOLATION.indexOf(m.isolation) < 0)
		return _('Unknown flow isolation mode');

	if (m.diffserv != null && DIFFSERV.indexOf(m.diffserv) < 0)
		return _('Unknown priority (diffserv) mode');

	if (m.ackFilter != null && typeof m.ackFilter !== 'boolean' && m.ackFilter !== 'aggressive')
		return _('Invalid ACK filter setting');

	if (m.ingress != null && typeof m.ingress !== 'boolean')
		return _('Invalid ingress setting');

	return null;
}

/* a typed whole number within min…max: null, else `enter` (not a whole
 * number) or `range` (outside) */
function wholeIn(value, min, max, enter, range) {
	const n = toInt(value);

	return n === null ? enter : (n < min || n > max) ? range : null;
}

/* custom RTT in milliseconds, 1…1000 */
const rtt = (value) => wholeIn(value, 1, 1000,
	_('Enter the RTT as a whole number of milliseconds'), _('The RTT must be between 1 and 1000 ms'));

/* per-packet overhead in bytes, -64…256 (tc-cake(8)) */
const overhead = (value) => wholeIn(value, -64, 256,
	_('Enter the overhead as a whole number of bytes'), _('The overhead must be between -64 and 256 bytes'));

/* minimum packet unit in bytes, 0…256 (tc-cake(8)) */
const mpu = (value) => wholeIn(value, 0, 256,
	_('Enter the MPU as a whole number of bytes'), _('The MPU must be between 0 and 256 bytes'));

return baseclass.extend({
	__name__: 'reterm.cakecheck',

	ISOLATION: ISOLATION,
	same: same,
	validInt: validInt,
	model: checkModel,
	rtt: rtt,
	overhead: overhead,
	mpu: mpu
});
