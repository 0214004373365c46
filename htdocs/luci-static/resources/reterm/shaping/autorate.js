'use strict';
'require baseclass';
'require form';
'require uci';
'require reterm.shaping.sqm as shaping';

/*
 * Adaptive shaping's settings for one sqm queue, as fields of the Shaping
 * page's queue section. They live in /etc/config/reterm, not in sqm's
 * config: `config autorate '<sqm queue section>'` with enabled, dl_min,
 * dl_base, dl_max, ul_min, ul_base, ul_max (kbit/s) and delay_ms. Typed
 * in Mbit/s like the queue's rates. reterm-latencyd checks them again
 * (reterm.latency.autorate check_settings) and refuses the whole set with
 * a clear error when one is wrong; these checks say so before saving.
 *
 *   autorateform.addOptions(section, { onchange })
 *   autorateform.check({ dl_min, ... } Mbit/s texts) -> null | error text
 */

const MIN_KBIT = shaping.AUTORATE_MIN_KBIT, MAX_KBIT = shaping.AUTORATE_MAX_KBIT;
const KINDS = [ 'min', 'base', 'max' ];
const DIRS = [ 'dl', 'ul' ];

const label = (d, k) => ({
	dl_min: _('Download minimum (Mbit/s)'), dl_base: _('Download base (Mbit/s)'), dl_max: _('Download maximum (Mbit/s)'),
	ul_min: _('Upload minimum (Mbit/s)'), ul_base: _('Upload base (Mbit/s)'), ul_max: _('Upload maximum (Mbit/s)')
})[d + '_' + k];

const help = (d, k) => ({
	min: _('Never shape below this, however bad the delay gets. About the lowest rate the line gives on a bad day.'),
	base: _('The rate used at start and returned to when the line is idle. About the rate the line gives most of the time.'),
	max: _('Never shape above this. About the best rate the line has given.')
})[k];

/* Mbit/s text -> kbit/s number, or null */
function kbit(text) {
	const k = shaping.kbitText(text);

	return (k === null) ? null : +k;
}

/* uci's kbit/s -> the form's Mbit/s text */
function mbit(v) {
	return shaping.mbitText(v);
}

/**
 * The error of a whole set (Mbit/s texts as typed; empty = not given), or
 * null. Rules as reterm-latencyd's: each rate 0.064–10000 Mbit/s, minimum <= base
 * <= maximum per direction, delay 5–200 ms.
 */
function check(v) {
	for (const d of DIRS) {
		const k = {};

		for (const x of KINDS) {
			const t = String(v[d + '_' + x] == null ? '' : v[d + '_' + x]).trim();

			if (t === '')
				return _('%s is needed').format(label(d, x));

			k[x] = kbit(t);

			if (k[x] === null)
				return '%s: %s'.format(label(d, x), shaping.validateMbit(t) || _('not a rate'));

			if (k[x] < MIN_KBIT || k[x] > MAX_KBIT)
				return _('%s must be between 0.064 and 10000 Mbit/s').format(label(d, x));
		}

		if (k.min > k.base || k.base > k.max)
			return (d === 'dl')
				? _('Download: the minimum must not be above the base, nor the base above the maximum')
				: _('Upload: the minimum must not be above the base, nor the base above the maximum');
	}

	const ms = String(v.delay_ms == null ? '' : v.delay_ms).trim();

	if (ms !== '' && (!/^[0-9]{1,3}$/.test(ms) || +ms < 5 || +ms > 200))
		return _('Delay threshold: whole milliseconds, 5 to 200');

	return null;
}

/* what reterm-latencyd takes when a rate is not given, from the sqm queue sid's
 * rate (kbit/s, or null; shaping.autorateDefaults()) */
function derived(sid, d, x) {
	const r = shaping.autorateDefaults(uci.get('sqm', sid, (d === 'dl') ? 'download' : 'upload'));

	return r ? r[x] : null;
}

/* a queue added on this page and not saved yet: LuCI names it new<hex>
 * until the save gives it its name, which ours must carry */
function unsaved(sid) {
	return /^new[0-9a-f]+$/.test(String(sid));
}

/* the reterm section of sqm queue sid, created when first written */
function ensure(sid) {
	if (!uci.get('reterm', sid))
		uci.add('reterm', 'autorate', sid);
}

function addOptions(s, opts) {
	const onchange = (opts && opts.onchange) || null, fields = {};

	/* a field's check: the whole set as typed, and not on a queue the
	 * save has not named yet (the fields show only while the box is
	 * ticked; LuCI's checkbox itself has no check of its own that runs
	 * with the box's state) */
	const valid = (sid) => (unsaved(sid)
		? _('Save the new queue first, then switch on adaptive shaping: its settings are stored under the queue\'s name, which the save gives it.')
		: check(typed(sid))) || true;

	/* every field's value as typed now, for the cross-field check */
	const typed = (sid) => {
		const v = {};

		for (const d of DIRS)
			for (const x of KINDS)
				v[d + '_' + x] = fields[d + '_' + x].formvalue(sid);

		v.delay_ms = fields.delay_ms.formvalue(sid);

		return v;
	};

	let o = fields.enabled = s.option(form.Flag, '_autorate', _('Adaptive shaping'),
		_('Let reterm-latencyd move CAKE\'s rates with the line: up while the line is busy and the delay stays low, down quickly when the delay rises, back to the base rate when idle. For lines whose speed changes (LTE/5G, Starlink, busy cable). It probes latency 5 times a second only while the line is busy (at most once a second otherwise) and never writes the changing rates to flash. It drives the queue that the live monitor watches.'));
	o.load = (sid) => (uci.get('reterm', sid, 'enabled') === '1') ? '1' : '0';
	/* off writes only where a section exists: saving the page made one
	 * saying "off" for every queue, and for a new queue one named after
	 * its temporary id, which matched no queue after the save */
	o.remove = (sid) => {
		if (uci.get('reterm', sid))
			uci.set('reterm', sid, 'enabled', '0');
	};
	o.write = (sid, v) => {
		if (v !== '1' || unsaved(sid))	/* unsaved: the fields' check refuses the save */
			return fields.enabled.remove(sid);

		ensure(sid);
		uci.set('reterm', sid, 'enabled', '1');
	};
	o.rmempty = false;
	o.onchange = onchange;

	for (const d of DIRS)
		for (const x of KINDS) {
			const name = d + '_' + x;

			o = fields[name] = s.option(form.Value, '_ar_' + name, label(d, x), help(d, x));
			o.depends('_autorate', '1');
			o.retain = true;	/* switched off: the values stay for next time */
			/* proposed values are written too, so that reterm-latencyd never
			 * derives them from a later sqm change */
			o.forcewrite = true;
			o.load = (sid) => mbit(uci.get('reterm', sid, name) || derived(sid, d, x));
			o.write = (sid, v) => {
				ensure(sid);

				if (uci.get('reterm', sid, name) !== String(kbit(v)))
					uci.set('reterm', sid, name, String(kbit(v)));
			};
			o.remove = (sid) => {
				if (uci.get('reterm', sid))
					uci.unset('reterm', sid, name);
			};
			o.validate = valid;
			o.onchange = onchange;
		}

	o = fields.delay_ms = s.option(form.Value, '_ar_delay_ms', _('Delay threshold (ms)'),
		_('Added delay that counts as bufferbloat and makes the rate go down (default 15 ms). Lower keeps latency tighter and costs throughput.'));
	o.depends('_autorate', '1');
	o.retain = true;
	o.placeholder = '15';
	o.load = (sid) => uci.get('reterm', sid, 'delay_ms') || '';
	o.write = (sid, v) => {
		ensure(sid);
		uci.set('reterm', sid, 'delay_ms', String(v).trim());
	};
	o.remove = (sid) => {
		if (uci.get('reterm', sid))
			uci.unset('reterm', sid, 'delay_ms');
	};
	o.validate = valid;

	return fields;
}

return baseclass.extend({
	__name__: 'reterm.shaping.autorate',
	check,
	addOptions
});
