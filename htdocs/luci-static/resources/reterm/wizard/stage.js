'use strict';
'require baseclass';
'require uci';
'require reterm.wizard.state as wizard';
'require reterm.wizard.propose as propose';
'require reterm.wizard.autorate as wizardautorate';

/*
 * What the wizard's apply steps and its cancel stage in LuCI's uci (never
 * saved or applied here: the view saves, then applies with rollback).
 * Use as: 'require reterm.wizard.stage as stage';
 *
 *   stage.shaping(proposal, queue | null)
 *       -> { sid, autorate: { sid, values } | null } | { error }
 *   the sqm queue's options that differ from the proposal, a new queue
 *   named after its device, and adaptive shaping's section
 *   (reterm.wizard.autorate ops(); autorate: the section as it was, for
 *   cancel, or null when the wizard leaves it alone)
 *
 *   stage.devices(offers, chosen)  -> { added, enabled } | null (none chosen)
 *   reterm.wizard.state's devicePlan(): new device sections (their MACs in
 *   added), existing ones switched on (their sections in enabled), and
 *   `main` when missing
 *
 *   stage.cancel(c, queueSid, queues)
 *   reterm.wizard.state's cancelOps() for cancel c (wizard.cancel()): what the
 *   wizard applied, put back as it was
 */

const run = (op) => (op[0] === 'remove') ? uci.remove(op[1], op[2])
	: (op[0] === 'add') ? uci.add(op[1], op[2], op[3])
	: uci.set(op[1], op[2], op[3], op[4]);

return baseclass.extend({
	__name__: 'reterm.wizard.stage',

	shaping(p, q) {
		const values = propose.sqmValues(p, q);

		if (!values)
			return { error: propose.validateProposal(p) || _('Invalid settings') };

		/* a new queue is named: adaptive shaping's section carries its name */
		const sid = q ? q['.name'] : uci.add('sqm', 'queue', wizardautorate.queueName(p.device, uci.sections('sqm').map((s) => s['.name']))),
		      ar = uci.get('reterm', sid) || null, arOps = wizardautorate.ops(p, sid, ar);

		for (const k in values)
			if (k.charAt(0) !== '.' && (!q || String(q[k] == null ? '' : q[k]) !== values[k]))
				uci.set('sqm', sid, k, values[k]);

		arOps.forEach(run);

		return { sid, autorate: arOps.length ? { sid, values: ar } : null };
	},

	devices(offers, chosen) {
		const ops = wizard.devicePlan(offers, chosen, uci.sections('reterm', 'device')), added = [], enabled = [];

		if (!ops.length)
			return null;

		if (!uci.get('reterm', 'main'))
			uci.add('reterm', 'reterm', 'main');

		ops.forEach((op) => {
			const sid = (op.op === 'add') ? uci.add('reterm', 'device') : op.section;

			if (op.op === 'add')
				added.push(op.values.mac);
			else if (sid !== 'main')
				enabled.push(sid);

			for (const k in op.values)
				uci.set('reterm', sid, k, op.values[k]);
		});

		return { added, enabled };
	},

	cancel(c, queueSid, queues) {
		wizard.cancelOps(c, { queueSid, queues, devices: uci.sections('reterm', 'device'), main: !!uci.get('reterm', 'main'),
			autorate: (c.autorate && uci.get('reterm', c.autorate.sid)) || null }).forEach(run);
	}
});
