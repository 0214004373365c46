'use strict';
'require baseclass';
'require reterm.shaping.wan as wandetect';
'require reterm.devices.rows as devices';

/*
 * Setup wizard logic, pure (no DOM, no RPC, no UCI): the step state
 * machine, what cancel undoes, the devices to offer. The proposal math is
 * reterm.wizard.propose, the router's shaping pause reterm.wizardpause.
 * The view (view/reterm/wizard.js) keeps the state in sessionStorage
 * through serialize()/restore() (reterm.wizard.pause.migrate() first: a
 * state of the previous version).
 * Use as: 'require reterm.wizard.state as wizard';
 *
 * Steps: look → measure → propose → apply → devices.
 *
 * State (a plain, JSON-safe object):
 *   { v: 2, step: 'look', reached: index of the furthest step reached,
 *     snapshot: { sqm: { sid, values } | null, retermEnabled: '0'|'1' }
 *       the configuration before the wizard (what cancel returns to),
 *     before: test result | null,
 *     measuredAsIs: true when the user chose to measure with shaping on,
 *     proposal: a reterm.wizard.propose proposal (possibly edited) | null,
 *     applied: { shaping: bool, devices: bool },
 *     applyWait: { rx, tx } bit/s | null: shaping is applied, but the
 *       router has not yet reported these shaper rates (no "after" test),
 *     after: test result with the proposal applied | null,
 *     test: { kind: 'before'|'after', id, paused: [ifaces] | null } | null
 *       the guided test this wizard started and follows (a reload picks
 *       it up); paused: what the router paused for it (pause_shaping),
 *     urls: { download, upload } test URLs the user typed ('' = use
 *       the monitor settings' URL), kept so a reload does not lose them,
 *     devicesAdded: MACs of the device sections the wizard added,
 *     devicesEnabled: device sections it switched from enabled 0 to 1,
 *     autorate: { sid, values } | null: adaptive shaping's section of the
 *       queue before the first apply that changed it (values null: there
 *       was none; reterm.wizard.autorate),
 *     done: bool }
 *
 * Measuring with shaping off (step 2) is the router's job: test_start
 * with pause_shaping stops the sqm queue and starts it again when the
 * test ends (reterm.wizard.pause); nothing is staged for it. Step 4
 * stages the sqm section and applies it in one go (LuCI's apply with
 * rollback); step 5 likewise for the reterm device sections. cancel()
 * therefore has nothing to undo before step 4; after it, cancelOps()
 * gives the UCI operations that restore the snapshot.
 */

const VERSION = 2;
const STEPS = [ 'look', 'measure', 'propose', 'apply', 'devices' ];

const num = (v) => (typeof v === 'number' && isFinite(v)) ? v : null;
const str = (v) => (v == null) ? '' : String(v);
const clone = (v) => (v == null) ? v : JSON.parse(JSON.stringify(v));

return baseclass.extend({
	__name__: 'reterm.wizard.state',

	VERSION,
	STEPS,

	/* ---- state machine ---------------------------------------------- */

	/**
	 * A fresh state at step "look".
	 * @param {Object} snapshot { sqm: { sid, values } | null,
	 *   retermEnabled: '0'|'1' } the configuration before the wizard
	 */
	create(snapshot) {
		return {
			v: VERSION, step: 'look', reached: 0, snapshot: clone(snapshot || { sqm: null, retermEnabled: '0' }),
			before: null, measuredAsIs: false, proposal: null,
			applied: { shaping: false, devices: false }, applyWait: null, after: null, test: null,
			urls: { download: '', upload: '' }, devicesAdded: [], devicesEnabled: [], autorate: null, done: false
		};
	},

	/** index of a step name, -1 if unknown */
	index(step) {
		return STEPS.indexOf(step);
	},

	/**
	 * Whether `step` may be shown: every earlier step must have what the
	 * step needs (measure: none; propose: a "before" result; apply: a
	 * proposal; devices: the apply step done or skipped, i.e. reached).
	 */
	canEnter(state, step) {
		const i = this.index(step);

		if (!state || i < 0)
			return false;

		switch (step) {
		case 'look': case 'measure': return true;
		case 'propose': return state.before != null;
		case 'apply': return state.proposal != null;
		case 'devices': return state.reached >= i;
		}

		return false;
	},

	/**
	 * Move to a step (forward only when canEnter(); back always).
	 * @returns {Object} a new state (the old one is not changed); the
	 *   same step when the move is not allowed
	 */
	go(state, step) {
		const s = clone(state), i = this.index(step);

		if (i < 0 || !this.canEnter(state, step))
			return s;

		s.step = step;
		s.reached = Math.max(s.reached, i);

		return s;
	},

	/** the next step, if allowed (else unchanged) */
	next(state) {
		const i = this.index(state.step);

		return (i + 1 < STEPS.length) ? this.go(state, STEPS[i + 1]) : clone(state);
	},

	/** the previous step */
	back(state) {
		const i = this.index(state.step);

		return (i > 0) ? this.go(state, STEPS[i - 1]) : clone(state);
	},

	/**
	 * Record a step's outcome. Events:
	 *   { type: 'measured', result, asIs }    → before = result, proposal reset
	 *   { type: 'proposed', proposal }        → proposal (user edits)
	 *   { type: 'applied', rx, tx }           → applied.shaping = true,
	 *       applyWait = the shaper rates (bit/s) the router should report
	 *   { type: 'applyConfirmed' }            → applyWait = null
	 *   { type: 'urls', download, upload }    → urls (typed test URLs)
	 *   { type: 'testStarted', kind, id, paused } → test (paused: the
	 *       ifaces the router paused, null when not asked)
	 *   { type: 'testEnded' }                 → test = null
	 *   { type: 'verified', result }          → after = result
	 *   { type: 'skipApply' }                 → devices step reachable
	 *   { type: 'devicesApplied', added, enabled } → applied.devices,
	 *       done; added: MACs of new device sections, enabled: sections
	 *       switched on (what cancel undoes)
	 *   { type: 'finish' }                    → done
	 * A new "before" measurement drops the proposal and the "after"
	 * result (they belong to the old one); a result ends the test.
	 * @returns {Object} new state
	 */
	record(state, ev) {
		const s = clone(state);

		switch (ev && ev.type) {
		case 'measured':
			s.before = clone(ev.result);
			s.measuredAsIs = !!ev.asIs;
			s.proposal = null;
			s.after = null;
			s.test = null;
			break;

		case 'proposed':
			s.proposal = clone(ev.proposal);
			break;

		case 'applied':
			s.applied.shaping = true;
			/* the section as it was before the first apply that changed it */
			if (ev.autorate && !s.autorate)
				s.autorate = { sid: str(ev.autorate.sid), values: clone(ev.autorate.values) };
			s.applyWait = { rx: num(ev.rx), tx: num(ev.tx) };
			s.after = null;
			break;

		case 'applyConfirmed':
			s.applyWait = null;
			break;

		case 'urls':
			s.urls = { download: str(ev.download).trim(), upload: str(ev.upload).trim() };
			break;

		case 'testStarted':
			s.test = { kind: (ev.kind === 'after') ? 'after' : 'before', id: (ev.id == null) ? null : str(ev.id),
				paused: Array.isArray(ev.paused) ? ev.paused.map(str) : null };
			break;

		case 'testEnded':
			s.test = null;
			break;

		case 'verified':
			s.after = clone(ev.result);
			s.test = null;
			break;

		case 'skipApply':
			s.reached = Math.max(s.reached, this.index('devices'));
			break;

		case 'devicesApplied':
			s.applied.devices = true;
			s.devicesAdded = (s.devicesAdded || []).concat((ev.added || []).map((m) => devices.normalizeMac(m)).filter(Boolean));
			s.devicesEnabled = (s.devicesEnabled || []).concat((ev.enabled || []).map(str).filter(Boolean));
			s.done = true;
			break;

		case 'finish':
			s.done = true;
			break;
		}

		if (s.applied.shaping)
			s.reached = Math.max(s.reached, this.index('devices'));

		return s;
	},

	/**
	 * What cancelling means now.
	 * @returns {{restore: boolean, sqm: Object|null, retermEnabled:
	 *   string|null, devices: Object|null, autorate: Object|null}}
	 *   autorate: state.autorate when shaping was applied; restore false: nothing was
	 *   applied, just forget the state. Otherwise the values to put back:
	 *   sqm { sid, values } (values null = remove the section the wizard
	 *   created) when shaping was applied; retermEnabled and devices
	 *   { remove: MACs of the sections to remove, disable: sections to
	 *   set enabled 0 } when devices were
	 */
	cancel(state) {
		const snap = (state && state.snapshot) || {},
		      out = { restore: false, sqm: null, retermEnabled: null, devices: null, autorate: null };

		if (state && state.applied && state.applied.shaping) {
			out.restore = true;
			out.sqm = snap.sqm ? clone(snap.sqm) : { sid: null, values: null };
			out.autorate = clone(state.autorate) || null;
		}

		if (state && state.applied && state.applied.devices) {
			out.restore = true;
			out.retermEnabled = str(snap.retermEnabled) || '0';
			out.devices = { remove: (state.devicesAdded || []).slice(), disable: (state.devicesEnabled || []).slice() };
		}

		return out;
	},

	/**
	 * Set/unset operations that turn the current section back into the
	 * snapshot values.
	 * @param {Object|null} snapshot values before the wizard (null: the
	 *   section did not exist → remove it)
	 * @param {Object} current values now
	 * @returns {Array<[string, string|null]>|null} [option, value] pairs
	 *   (value null = unset); null = remove the whole section
	 */
	restoreChanges(snapshot, current) {
		if (snapshot == null)
			return null;

		const out = [];

		for (const k in current || {})
			if (k.charAt(0) !== '.' && !Object.prototype.hasOwnProperty.call(snapshot, k))
				out.push([ k, null ]);

		for (const k in snapshot)
			if (k.charAt(0) !== '.' && JSON.stringify(snapshot[k]) !== JSON.stringify((current || {})[k]))
				out.push([ k, snapshot[k] ]);

		return out;
	},

	/**
	 * The UCI operations a cancel() result means, against the
	 * configuration as it is now.
	 * @param {Object} c cancel() result
	 * @param {{queueSid: string, queues: Object[], devices: Object[],
	 *   main: boolean, autorate: Object|null}} now the sqm queue section
	 *   to restore (when the snapshot had none), uci.sections('sqm',
	 *   'queue'), uci.sections('reterm', 'device'), whether reterm.main
	 *   exists, reterm's section named c.autorate.sid (null: none)
	 * @returns {Array[]} [ 'set', conf, sid, option, value (null =
	 *   unset) ] and [ 'remove', conf, sid ]
	 */
	cancelOps(c, now) {
		const ops = [], q = {}, sid = c && c.sqm && (c.sqm.sid || now.queueSid);

		(now.queues || []).forEach((s) => { q[s['.name']] = s });

		if (c && c.sqm && sid && c.sqm.values == null)
			ops.push([ 'remove', 'sqm', sid ]);
		else if (c && c.sqm && sid)
			(this.restoreChanges(c.sqm.values, q[sid] || {}) || []).forEach((kv) => ops.push([ 'set', 'sqm', sid, kv[0], kv[1] ]));

		/* adaptive shaping's section: removed when the wizard added it */
		if (c && c.autorate && c.autorate.sid && now.autorate) {
			if (c.autorate.values == null)
				ops.push([ 'remove', 'reterm', c.autorate.sid ]);
			else
				(this.restoreChanges(c.autorate.values, now.autorate) || []).forEach((kv) => ops.push([ 'set', 'reterm', c.autorate.sid, kv[0], kv[1] ]));
		}

		if (c && c.devices)
			(now.devices || []).forEach((s) => {
				if (c.devices.remove.indexOf(devices.normalizeMac(s.mac)) > -1)
					ops.push([ 'remove', 'reterm', s['.name'] ]);
				else if (c.devices.disable.indexOf(s['.name']) > -1)
					ops.push([ 'set', 'reterm', s['.name'], 'enabled', '0' ]);
			});

		if (c && c.retermEnabled != null && now.main)
			ops.push([ 'set', 'reterm', 'main', 'enabled', c.retermEnabled ]);

		return ops;
	},

	/** a plain object for sessionStorage */
	serialize(state) {
		return clone(state);
	},

	/**
	 * A state back from sessionStorage (object or JSON text).
	 * @returns {Object|null} null when it is not a state of this version
	 */
	restore(obj) {
		if (typeof obj === 'string') {
			try { obj = JSON.parse(obj) } catch (e) { return null }
		}

		if (!obj || typeof obj !== 'object' || obj.v !== VERSION || this.index(obj.step) < 0 ||
		    !obj.applied || typeof obj.applied !== 'object' || num(obj.reached) === null)
			return null;

		const s = Object.assign(this.create(obj.snapshot), clone(obj));

		/* never resume into a step whose input is missing */
		while (!this.canEnter(s, s.step))
			s.step = STEPS[this.index(s.step) - 1];

		return s;
	},

	/**
	 * The WAN interface to shape: the first one with a device of
	 * reterm.shaping.sqm wanInfo().wan (interfaces with the default route
	 * first, then the firewall's wan zone).
	 * @param {Object[]} nets { name, proto, device, l3device, speed }
	 * @returns {Object|null}
	 */
	wan(nets) {
		return (Array.isArray(nets) ? nets : []).filter((n) => wandetect.wanDevice(n) !== null)[0] || null;
	},

	/* ---- devices ------------------------------------------------------ */

	/** consoles and handhelds first, then by name / MAC */
	sortHosts(hosts) {
		const rank = (h) => (h && (h['class'] === 'console' || h['class'] === 'handheld')) ? 0 : 1;

		return (Array.isArray(hosts) ? hosts.slice() : []).sort((a, b) =>
			rank(a) - rank(b) || str(a.name || a.mac).localeCompare(str(b.name || b.mac)));
	},

	/**
	 * Devices to offer re-termination to: consoles, handhelds and every
	 * host whose audit recommends it; each with the evidence text.
	 * @param {Object[]} hosts the "hosts" reply
	 * @returns {Array<{mac, name, class, reason: 'console'|'handheld'|
	 *   'audit', evidence: string, active: boolean, section}>} active: it
	 *   is re-terminated already
	 */
	offers(hosts) {
		const out = [];

		this.sortHosts(hosts).forEach((h) => {
			if (!h || devices.normalizeMac(h.mac) === null)
				return;

			const cls = h['class'], flagged = h.audit && h.audit.recommendation === 'reterm';

			if (cls !== 'console' && cls !== 'handheld' && !flagged)
				return;

			/* without an audit nothing is known about this device's window */
			const ev = devices.auditHint(h.audit) || ((cls === 'handheld')
				? _('Some handhelds download with a small TCP receive window, so far servers can only send slowly. An audit on the Devices page shows whether this one does.')
				: _('Some game consoles download with a small TCP receive window, so far servers can only send slowly. An audit on the Devices page shows whether this one does.'));

			out.push({
				mac: devices.normalizeMac(h.mac), name: str(h.name), 'class': cls || 'other',
				reason: (cls === 'console' || cls === 'handheld') ? cls : 'audit',
				evidence: ev, active: !!(h.reterm && h.enabled), section: h.section || null
			});
		});

		return out;
	},

	/**
	 * UCI operations for the chosen offers, and main.enabled.
	 * @param {Object[]} offers offers()
	 * @param {string[]} macs the chosen ones
	 * @param {Object[]} sections uci.sections('reterm', 'device')
	 * @returns {Array<{op: 'add'|'set', section?, values}>} "set" with
	 *   section 'main' enables the service; empty when nothing to do
	 */
	devicePlan(offers, macs, sections) {
		const ops = [], chosen = (macs || []).map((m) => devices.normalizeMac(m));

		(offers || []).forEach((o) => {
			if (chosen.indexOf(o.mac) < 0)
				return;

			const secs = (sections || []).filter((s) => devices.normalizeMac(s.mac) === o.mac);

			if (!secs.length)
				ops.push({ op: 'add', values: { name: devices.deviceName(o), mac: o.mac, enabled: '1', ports: 'all' } });
			else
				secs.forEach((s) => {
					if (str(s.enabled) === '0')
						ops.push({ op: 'set', section: s['.name'], values: { enabled: '1' } });
				});
		});

		if (chosen.length)
			ops.push({ op: 'set', section: 'main', values: { enabled: '1' } });

		return ops;
	}
});
