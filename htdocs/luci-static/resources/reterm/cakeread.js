'use strict';
'require baseclass';
'require reterm.caketokens as caketokens';

/*
 * Reading one side of sqm's CAKE option strings (iqdisc_opts: ingress,
 * eqdisc_opts: egress) into the fields of the model reterm.cake keeps,
 * and the tokens it does not manage; the keyword tables that reading
 * needs. Pure, no DOM. Use as: 'require reterm.cakeread as cakeread';
 *
 *   cakeread.side('rtt 45ms nat foo', 'egress')
 *     → {fields: {rtt: 45, nat: true, …}, unknown: ['foo'], invalid: []}
 */

const { ARG_KEYWORDS, ARG_CHECK, has, toInt, timeMs, tokenize, isToken } = caketokens;

const RTT_KEYWORDS = { datacentre: 0.1, lan: 1, metro: 10, regional: 30, internet: 100, oceanic: 300,
	satellite: 1000, interplanetary: 3600000 };

/* framing keywords and what they set (tc-cake(8), "Overhead compensation") */
const FRAMING = {
	'raw': 'no compensation (default)', 'conservative': 'overhead 48 atm',
	'ethernet': 'overhead 38 mpu 84 noatm', 'docsis': 'overhead 18 mpu 64 noatm',
	'pppoe-ptm': 'overhead 30 ptm', 'bridged-ptm': 'overhead 22 ptm',
	'pppoa-vcmux': 'overhead 10 atm', 'pppoa-llc': 'overhead 14 atm',
	'pppoe-vcmux': 'overhead 32 atm', 'pppoe-llcsnap': 'overhead 40 atm',
	'bridged-vcmux': 'overhead 24 atm', 'bridged-llcsnap': 'overhead 32 atm',
	'ipoa-vcmux': 'overhead 8 atm', 'ipoa-llcsnap': 'overhead 16 atm',
	'atm': 'ATM cell framing', 'ptm': 'PTM 64b/65b framing', 'noatm': 'no ATM/PTM framing'
};

const DIFFSERV = [ 'besteffort', 'diffserv3', 'diffserv4', 'diffserv8', 'precedence' ];

/* keyword -> [logical value, written for the other direction?] */
const ISOLATION_PARSE = {
	egress: { 'dual-srchost': [ 'dual', false ], 'srchost': [ 'host', false ],
		'dual-dsthost': [ 'dual', true ], 'dsthost': [ 'host', true ] },
	ingress: { 'dual-dsthost': [ 'dual', false ], 'dsthost': [ 'host', false ],
		'dual-srchost': [ 'dual', true ], 'srchost': [ 'host', true ] },
	both: { 'triple-isolate': 'triple-isolate', 'flows': 'flows', 'hosts': 'hosts', 'flowblind': 'flowblind' }
};

/* one side: classify tokens. Managed keywords end up in `fields` (the
 * last one of each group wins, as in CAKE); the overhead family is
 * collected in order; everything else goes to `unknown`. */
function parseSide(str, side) {
	let tokens = tokenize(str),
	    fields = { reversed: false },
	    family = [],
	    unknown = [],
	    invalid = [];

	for (let i = 0; i < tokens.length; i++) {
		let t = tokens[i], arg = null, n;

		if (!isToken(t)) {
			invalid.push(t);
			unknown.push(t);
			continue;
		}

		if (has(ARG_KEYWORDS, t)) {
			arg = (i + 1 < tokens.length) ? tokens[i + 1] : null;

			let ok = (arg !== null && isToken(arg));

			if (ok && t === 'rtt' && (n = timeMs(arg)) !== null) {
				fields.rtt = n;
			}
			else if (ok && (t === 'overhead' || t === 'mpu') && (n = toInt(arg)) !== null) {
				family.push({ kind: (t === 'overhead') ? 'O' : 'M', value: n, tokens: [ t, arg ] });
			}
			else if (ok && has(ARG_CHECK, t) && ARG_CHECK[t].test(arg)) {
				unknown.push(t, arg);
			}
			else {
				/* keyword without a usable argument: keep it, flag it */
				invalid.push(arg === null ? t : t + ' ' + arg);
				unknown.push(t);

				if (arg !== null)
					unknown.push(arg);
			}

			if (arg !== null)
				i++;

			continue;
		}

		if (has(RTT_KEYWORDS, t)) {
			fields.rtt = t;
		}
		else if (has(FRAMING, t)) {
			family.push({ kind: 'F', value: t, tokens: [ t ] });
		}
		else if (t === 'ether-vlan') {
			family.push({ kind: 'V', value: 1, tokens: [ t ] });
		}
		else if (t === 'nat' || t === 'nonat') {
			fields.nat = (t === 'nat');
		}
		else if (has(ISOLATION_PARSE.both, t)) {
			fields.isolation = ISOLATION_PARSE.both[t];
			fields.reversed = false;
		}
		else if (has(ISOLATION_PARSE[side], t)) {
			fields.isolation = ISOLATION_PARSE[side][t][0];
			fields.reversed = ISOLATION_PARSE[side][t][1];
		}
		else if (side === 'egress' && DIFFSERV.indexOf(t) > -1) {
			fields.diffserv = t;
		}
		else if (side === 'egress' && (t === 'ack-filter' || t === 'ack-filter-aggressive' || t === 'no-ack-filter')) {
			fields.ackFilter = (t === 'ack-filter') ? true : (t === 'no-ack-filter') ? false : 'aggressive';
		}
		else if (side === 'ingress' && (t === 'ingress' || t === 'egress')) {
			fields.ingress = (t === 'ingress');
		}
		else {
			unknown.push(t);
		}
	}

	/* canonical overhead family: [framing] [overhead N] [mpu N] [ether-vlan]{0,2} */
	let kinds = family.map((f) => f.kind).join('');

	if (family.length && /^F?O?M?V{0,2}$/.test(kinds)) {
		family.forEach((f) => {
			if (f.kind === 'F') fields.overhead = f.value;
			else if (f.kind === 'O') fields.overheadBytes = f.value;
			else if (f.kind === 'M') fields.mpu = f.value;
			else fields.vlan = (fields.vlan || 0) + 1;
		});
	}
	else if (family.length) {
		fields.overhead = 'custom';
		fields.overheadTokens = [];
		family.forEach((f) => { fields.overheadTokens.push.apply(fields.overheadTokens, f.tokens) });
	}

	return { fields: fields, unknown: unknown, invalid: invalid };
}

/* check one side's extra tokens: grammar, arguments, nothing managed */
function checkExtra(side, tokens) {
	for (let i = 0; i < tokens.length; i++) {
		let t = tokens[i];

		if (!isToken(t))
			return _('"%s" is not allowed: use only letters, digits, ".", "_" and "-"').format(String(t).substring(0, 40));

		if (has(ARG_KEYWORDS, t)) {
			let arg = tokens[i + 1];

			if (!has(ARG_CHECK, t))
				return _('"%s" has its own field above; remove it here').format(t);

			if (!isToken(arg) || !ARG_CHECK[t].test(arg))
				return (t === 'fwmark')
					? _('"fwmark" needs a mask, e.g. "fwmark 0xff"')
					: _('"%s" needs a size or rate, e.g. "%s 32mb"').format(t, t);

			i++;
			continue;
		}

		let probe = parseSide(t, side);

		if (probe.unknown.length === 0)
			return _('"%s" has its own field above; remove it here').format(t);
	}

	return null;
}

return baseclass.extend({
	__name__: 'reterm.cakeread',

	RTT_KEYWORDS: RTT_KEYWORDS,
	FRAMING: FRAMING,
	DIFFSERV: DIFFSERV,
	side: parseSide,
	checkExtra: checkExtra
});
