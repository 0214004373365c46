'use strict';
'require baseclass';
'require reterm.shaping.sqm as shaping';

/*
 * The wizard's adaptive-shaping choice, pure: the proposal and UCI values
 * in, UCI operations out. The wizard proposes adaptive shaping when the
 * throughput it measured moved by more than 30 % (reterm.wizard.propose)
 * or when the queue has it on already; ticked, the apply step writes
 * `config autorate '<queue>'` in /etc/config/reterm in the same apply
 * with rollback as the sqm queue, its rates derived from the proposal as
 * reterm-latencyd derives them from sqm's (reterm.shaping.sqm's autorateDefaults()).
 *
 * The section carries the queue's section name, and LuCI names an
 * anonymous section only when it is saved: a queue the wizard adds is
 * therefore named after its device (queueName()).
 *
 *   wizardautorate.queueName('pppoe-wan', [ 'eth1' ])  -> 'pppoe_wan'
 *   wizardautorate.ops(proposal, 'eth1', section | null) -> [ op, ... ]
 * ops are [ 'add', 'reterm', 'autorate', sid ] and [ 'set', 'reterm',
 * sid, option, value ]; what cancel writes back is reterm.wizard.state's
 * cancelOps() (the section as it was is kept in the wizard's state).
 */

const KEYS = [ 'dl_min', 'dl_base', 'dl_max', 'ul_min', 'ul_base', 'ul_max' ];

const str = (v) => (v == null) ? '' : String(v);

return baseclass.extend({
	__name__: 'reterm.wizard.autorate',

	/**
	 * A UCI section name for a new sqm queue on `device`: its letters,
	 * digits and underscores (others become _), not one of `taken`.
	 */
	queueName(device, taken) {
		const base = str(device).replace(/[^A-Za-z0-9_]/g, '_') || 'wan';
		let name = base;

		for (let n = 2; (taken || []).indexOf(name) > -1; n++)
			name = base + '_' + n;

		return name;
	},

	/** Whether reterm's section of a queue (or null) has adaptive shaping on. */
	isOn(section) {
		return !!section && section['.type'] === 'autorate' && section.enabled === '1';
	},

	/**
	 * The rates adaptive shaping gets from a proposal (kbit/s numbers), or
	 * null when a direction is left unshaped (it moves both or none).
	 */
	rates(p) {
		const dl = shaping.autorateDefaults(p && p.download), ul = shaping.autorateDefaults(p && p.upload);

		if (!dl || !ul)
			return null;

		return { dl_min: dl.min, dl_base: dl.base, dl_max: dl.max, ul_min: ul.min, ul_base: ul.base, ul_max: ul.max };
	},

	/**
	 * What applying the proposal writes for queue `sid`.
	 * @param {Object} p the proposal (adaptive: the box's state)
	 * @param {string} sid the sqm queue's section name
	 * @param {Object|null} existing reterm's section of that name (any type)
	 * @returns {Array[]} ticked: the section added when missing, enabled 1
	 *   and the rates; not ticked: enabled 0 where it was 1; nothing when a
	 *   section of that name is not an autorate one (not ours to change)
	 */
	ops(p, sid, existing) {
		const r = this.rates(p), ops = [];

		if (existing && existing['.type'] !== 'autorate')
			return ops;

		if (p && p.adaptive && r) {
			const want = Object.assign({ enabled: '1' }, r);

			if (!existing)
				ops.push([ 'add', 'reterm', 'autorate', sid ]);

			for (const k of [ 'enabled' ].concat(KEYS))
				if (str((existing || {})[k]) !== str(want[k]))
					ops.push([ 'set', 'reterm', sid, k, str(want[k]) ]);
		}
		else if (existing && existing.enabled === '1')
			ops.push([ 'set', 'reterm', sid, 'enabled', '0' ]);

		return ops;
	}
});
