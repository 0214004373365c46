'use strict';
'require baseclass';
'require reterm.grade as grade';
'require reterm.cake as cake';
'require reterm.shaping as shaping';
'require reterm.devices as devices';
'require reterm.units as units';

/*
 * Setup wizard logic, pure (no DOM, no RPC, no UCI): the step state
 * machine and the proposal math. The view (view/reterm/wizard.js) keeps
 * the state in sessionStorage through serialize()/restore().
 * Use as: 'require reterm.wizard as wizard';
 *
 * Steps: look → measure → propose → apply → devices.
 *
 * State (a plain, JSON-safe object):
 *   { v: 1, step: 'look', reached: index of the furthest step reached,
 *     snapshot: { sqm: { sid, values } | null, retermEnabled: '0'|'1' }
 *       the configuration before the wizard (what cancel returns to),
 *     before: test result (shaping off) | null,
 *     measuredAsIs: true when the user chose to measure with shaping on,
 *     proposal: propose() result (possibly edited) | null,
 *     applied: { shaping: bool, devices: bool },
 *     applyWait: { rx, tx } bit/s | null: shaping is applied, but the
 *       router has not yet reported these shaper rates (no "after" test),
 *     after: test result with the proposal applied | null,
 *     paused: { sids, phase: 'pausing'|'off'|'restoring', testId } | null
 *       the sqm queues the wizard turned off to measure without shaping,
 *     urls: { download, upload } test URLs the user typed ('' = use
 *       the monitor settings' URL), kept so a reload does not lose them,
 *     devicesAdded: MACs of the device sections the wizard added,
 *     devicesEnabled: device sections it switched from enabled 0 to 1,
 *     done: bool }
 *
 * Measuring with shaping off (step 2): when sqm queues are enabled, the
 * view stages enabled 0 on them (pausePlan()), records "pausing" and
 * applies with rollback. LuCI's apply only starts there: it confirms in
 * the background and then reloads the page. So once UCI shows the change
 * (pauseStatus() "off") the view polls retermd's status until the router
 * reports no shaper and no CAKE queue (confirmWait(); the state survives
 * the reload), records "paused" and runs the test. When the test ends,
 * fails, is stopped or the wizard is cancelled it stages enabled 1 again
 * (resumeChanges()), records "restoring", applies, and once the router
 * reports shaping on again records "restored". No later step can be
 * entered while a pause is recorded. Step 4 likewise waits for the
 * router to report the applied rates (applyWait) before the "after" test.
 *
 * Apart from that pause, nothing is staged before the apply step. Step 4
 * stages the sqm section and applies it in one go (LuCI's apply with
 * rollback); step 5 likewise for the reterm device sections. cancel()
 * therefore has nothing to undo before step 4; after it, cancelChanges()
 * gives the UCI values that restore the snapshot.
 */

var VERSION = 1;
var STEPS = [ 'look', 'measure', 'propose', 'apply', 'devices' ];

/* fraction of the measured throughput the shaper gets */
var SHARE = 0.9;

/* sanity limits of a measured rate (checkRate()) */
var MAX_PLAUSIBLE_BPS = 10e9, MAX_RATIO = 20, LINK_SLACK = 1.05, MIN_SECS = 3, MIN_BYTES = 100000, RAMP_SECS = 2;

/* how long the view waits for the router to report an applied change:
 * LuCI's rollback window (90 s by default) and some */
var CONFIRM_TIMEOUT_S = 120;

/* sqm stores whole kbit/s; the Shaping page allows up to 100000 Mbit/s */
var MAX_KBIT = 100000000;

/* the rtt presets the proposal chooses from, in ms */
var RTT_STEPS = [ [ 'internet', 100 ], [ 'oceanic', 300 ], [ 'satellite', 1000 ] ];
var RTT_FLOOR_MS = 30;
var RTT_PERCENTILE = 98;

var PPP_PROTOS = { pppoe: true, pppoa: true };

function num(v) {
	return (typeof v === 'number' && isFinite(v)) ? v : null;
}

function str(v) {
	return (v == null) ? '' : String(v);
}

function clone(v) {
	return (v == null) ? v : JSON.parse(JSON.stringify(v));
}

function dir(result, name) {
	return (result && typeof result === 'object' && result[name] && typeof result[name] === 'object') ? result[name] : null;
}

function round1(v) {
	return Math.round(v * 10) / 10;
}

return baseclass.extend({
	__name__: 'reterm.wizard',

	VERSION: VERSION,
	STEPS: STEPS,
	SHARE: SHARE,
	MAX_KBIT: MAX_KBIT,
	RTT_FLOOR_MS: RTT_FLOOR_MS,
	CONFIRM_TIMEOUT_S: CONFIRM_TIMEOUT_S,

	/* ---- state machine ---------------------------------------------- */

	/**
	 * A fresh state at step "look".
	 * @param {Object} snapshot { sqm: { sid, values } | null,
	 *   retermEnabled: '0'|'1' } the configuration before the wizard
	 * @returns {Object}
	 */
	create: function(snapshot) {
		return {
			v: VERSION, step: 'look', reached: 0, snapshot: clone(snapshot || { sqm: null, retermEnabled: '0' }),
			before: null, measuredAsIs: false, proposal: null,
			applied: { shaping: false, devices: false }, applyWait: null, after: null, paused: null,
			urls: { download: '', upload: '' }, devicesAdded: [], devicesEnabled: [], done: false
		};
	},

	/** index of a step name, -1 if unknown */
	index: function(step) {
		return STEPS.indexOf(step);
	},

	/**
	 * Whether `step` may be shown: every earlier step must have what the
	 * step needs (measure: none; propose: a "before" result; apply: a
	 * proposal; devices: the apply step done or skipped, i.e. reached).
	 */
	canEnter: function(state, step) {
		var i = this.index(step);

		if (!state || i < 0)
			return false;

		/* never go on while shaping is off for a measurement */
		if (state.paused && i > this.index('measure'))
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
	go: function(state, step) {
		var s = clone(state), i = this.index(step);

		if (i < 0 || !this.canEnter(state, step))
			return s;

		s.step = step;
		s.reached = Math.max(s.reached, i);

		return s;
	},

	/** the next step, if allowed (else unchanged) */
	next: function(state) {
		var i = this.index(state.step);

		return (i + 1 < STEPS.length) ? this.go(state, STEPS[i + 1]) : clone(state);
	},

	/** the previous step */
	back: function(state) {
		var i = this.index(state.step);

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
	 *   { type: 'verified', result }          → after = result
	 *   { type: 'skipApply' }                 → devices step reachable
	 *   { type: 'devicesApplied', added, enabled } → applied.devices,
	 *       done; added: MACs of new device sections, enabled: sections
	 *       switched on (what cancel undoes)
	 *   { type: 'pausing', sids }             → paused (queues being
	 *       turned off for the measurement)
	 *   { type: 'paused' }                    → the pause is applied
	 *   { type: 'testStarted', id }           → paused.testId (the
	 *       test run with shaping off)
	 *   { type: 'restoring' }                 → queues being turned on
	 *   { type: 'restored' }                  → paused = null
	 *   { type: 'finish' }                    → done
	 * A new "before" measurement drops the proposal and the "after"
	 * result (they belong to the old one).
	 * @returns {Object} new state
	 */
	record: function(state, ev) {
		var s = clone(state);

		switch (ev && ev.type) {
		case 'measured':
			s.before = clone(ev.result);
			s.measuredAsIs = !!ev.asIs && !s.paused;
			s.proposal = null;
			s.after = null;
			break;

		case 'proposed':
			s.proposal = clone(ev.proposal);
			break;

		case 'applied':
			s.applied.shaping = true;
			s.applyWait = { rx: num(ev.rx), tx: num(ev.tx) };
			s.after = null;
			break;

		case 'applyConfirmed':
			s.applyWait = null;
			break;

		case 'urls':
			s.urls = { download: str(ev.download).trim(), upload: str(ev.upload).trim() };
			break;

		case 'verified':
			s.after = clone(ev.result);
			break;

		case 'skipApply':
			s.reached = Math.max(s.reached, this.index('devices'));
			break;

		case 'devicesApplied':
			s.applied.devices = true;
			s.devicesAdded = (s.devicesAdded || []).concat((ev.added || []).map(function(m) { return devices.normalizeMac(m) }).filter(Boolean));
			s.devicesEnabled = (s.devicesEnabled || []).concat((ev.enabled || []).map(str).filter(Boolean));
			s.done = true;
			break;

		case 'pausing':
			s.paused = { sids: (ev.sids || []).map(str), phase: 'pausing', testId: null };
			break;

		case 'paused':
			if (s.paused)
				s.paused.phase = 'off';
			break;

		case 'testStarted':
			if (s.paused)
				s.paused.testId = (ev.id == null) ? null : str(ev.id);
			break;

		case 'restoring':
			if (s.paused)
				s.paused.phase = 'restoring';
			break;

		case 'restored':
			s.paused = null;
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
	 *   string|null, resume: string[], devices: Object|null}} restore
	 *   false: nothing was applied, just forget the state. Otherwise the
	 *   values to put back: sqm { sid, values } (values null = remove the
	 *   section the wizard created) when shaping was applied;
	 *   retermEnabled and devices { remove: MACs of the sections to
	 *   remove, disable: sections to set enabled 0 } when devices were;
	 *   resume: queues turned off for a measurement, to turn on again.
	 */
	cancel: function(state) {
		var snap = (state && state.snapshot) || {},
		    out = { restore: false, sqm: null, retermEnabled: null, resume: [], devices: null };

		if (state && state.paused && state.paused.sids && state.paused.sids.length) {
			out.restore = true;
			out.resume = state.paused.sids.slice();
		}

		if (state && state.applied && state.applied.shaping) {
			out.restore = true;
			out.sqm = snap.sqm ? clone(snap.sqm) : { sid: null, values: null };
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
	restoreChanges: function(snapshot, current) {
		if (snapshot == null)
			return null;

		var out = [], k;

		for (k in current || {})
			if (k.charAt(0) !== '.' && !Object.prototype.hasOwnProperty.call(snapshot, k))
				out.push([ k, null ]);

		for (k in snapshot)
			if (k.charAt(0) !== '.' && JSON.stringify(snapshot[k]) !== JSON.stringify((current || {})[k]))
				out.push([ k, snapshot[k] ]);

		return out;
	},

	/**
	 * The UCI operations a cancel() result means, against the
	 * configuration as it is now.
	 * @param {Object} c cancel() result
	 * @param {{queueSid: string, queues: Object[], devices: Object[],
	 *   main: boolean}} now the sqm queue section to restore (when the
	 *   snapshot had none), uci.sections('sqm', 'queue'),
	 *   uci.sections('reterm', 'device'), whether reterm.main exists
	 * @returns {Array[]} [ 'set', conf, sid, option, value (null =
	 *   unset) ] and [ 'remove', conf, sid ]
	 */
	cancelOps: function(c, now) {
		var ops = [], q = {}, sid = c && c.sqm && (c.sqm.sid || now.queueSid);

		(now.queues || []).forEach(function(s) { q[s['.name']] = s });

		if (c && c.sqm && sid && c.sqm.values == null)
			ops.push([ 'remove', 'sqm', sid ]);
		else if (c && c.sqm && sid)
			(this.restoreChanges(c.sqm.values, q[sid] || {}) || []).forEach(function(kv) { ops.push([ 'set', 'sqm', sid, kv[0], kv[1] ]) });

		/* queues turned off for a measurement: on again (unless the
		 * snapshot restore above already sets them) */
		((c && c.resume) || []).forEach(function(s) {
			if (q[s] && str(q[s].enabled) !== '1' && !(c.sqm && c.sqm.sid === s))
				ops.push([ 'set', 'sqm', s, 'enabled', '1' ]);
		});

		if (c && c.devices)
			(now.devices || []).forEach(function(s) {
				if (c.devices.remove.indexOf(devices.normalizeMac(s.mac)) > -1)
					ops.push([ 'remove', 'reterm', s['.name'] ]);
				else if (c.devices.disable.indexOf(s['.name']) > -1)
					ops.push([ 'set', 'reterm', s['.name'], 'enabled', '0' ]);
			});

		if (c && c.retermEnabled != null && now.main)
			ops.push([ 'set', 'reterm', 'main', 'enabled', c.retermEnabled ]);

		return ops;
	},

	/* ---- measuring with shaping off -------------------------------------- */

	/**
	 * The sqm queues to turn off for a measurement: the enabled ones.
	 * @param {Object[]} queues uci.sections('sqm', 'queue')
	 * @returns {string[]} section names
	 */
	pausePlan: function(queues) {
		return (Array.isArray(queues) ? queues : []).filter(function(q) {
			return q && str(q.enabled) === '1' && q['.name'];
		}).map(function(q) { return q['.name'] });
	},

	/**
	 * Where the pause stands, from the state and the queues as UCI shows
	 * them now (staged values included).
	 * @returns {string} 'none' (no pause), 'rolledBack' (the queues are
	 *   still on after "pausing": the change did not take, nothing to
	 *   restore), 'off' (shaping is off: measure), 'restoring' (not all
	 *   back on yet: stage resumeChanges() again), 'restored' (all back
	 *   on, or the sections are gone)
	 */
	pauseStatus: function(state, queues) {
		var p = state && state.paused;

		if (!p)
			return 'none';

		var cur = {};

		(Array.isArray(queues) ? queues : []).forEach(function(q) {
			if (q && q['.name'])
				cur[q['.name']] = str(q.enabled);
		});

		var live = (p.sids || []).filter(function(sid) { return cur.hasOwnProperty(sid) }),
		    on = live.filter(function(sid) { return cur[sid] === '1' });

		switch (p.phase) {
		case 'pausing': return (live.length && on.length === live.length) ? 'rolledBack' : 'off';
		case 'off': return 'off';
		case 'restoring': return (on.length === live.length) ? 'restored' : 'restoring';
		}

		return 'none';
	},

	/**
	 * The queues to switch back on after a measurement: the paused ones
	 * that still exist and are not on.
	 * @returns {string[]} section names (set enabled 1 on each)
	 */
	resumeChanges: function(state, queues) {
		var p = state && state.paused, cur = {};

		if (!p)
			return [];

		(Array.isArray(queues) ? queues : []).forEach(function(q) {
			if (q && q['.name'])
				cur[q['.name']] = str(q.enabled);
		});

		return (p.sids || []).filter(function(sid) { return cur.hasOwnProperty(sid) && cur[sid] !== '1' });
	},

	/**
	 * What retermd's status (reterm monitor_status) says about shaping.
	 * @returns {{on: boolean, shaper: Object|null}|null} on: an sqm queue
	 *   shapes (shaper { rx, tx } bit/s) or a CAKE queue runs; null when
	 *   the reply does not tell (error, no shaper/cake fields)
	 */
	shapingReport: function(reply) {
		if (!reply || typeof reply !== 'object' || reply.error || !('shaper' in reply || 'cake' in reply))
			return null;

		return { on: reply.shaper != null || reply.cake != null, shaper: reply.shaper || null };
	},

	/**
	 * Whether the router reports what an apply should have done.
	 * @param {string|Object} want 'off' (no shaper, no CAKE), 'on', or
	 *   { rx, tx } the shaper rates in bit/s (null = any)
	 * @param {Object} reply monitor_status reply
	 * @param {number} waitedMs how long the view has waited
	 * @returns {string} 'confirmed', 'wait' or 'timeout'
	 *   (CONFIRM_TIMEOUT_S passed)
	 */
	confirmWait: function(want, reply, waitedMs) {
		var r = this.shapingReport(reply), ok = false;

		if (r && want === 'off')
			ok = !r.on;
		else if (r && want === 'on')
			ok = r.on;
		else if (r && want && typeof want === 'object')
			ok = !!r.shaper && [ 'rx', 'tx' ].every(function(k) { return want[k] == null || r.shaper[k] === want[k] });

		return ok ? 'confirmed' : (waitedMs >= CONFIRM_TIMEOUT_S * 1000) ? 'timeout' : 'wait';
	},

	/** a plain object for sessionStorage */
	serialize: function(state) {
		return clone(state);
	},

	/**
	 * A state back from sessionStorage (object or JSON text).
	 * @returns {Object|null} null when it is not a state of this version
	 */
	restore: function(obj) {
		if (typeof obj === 'string') {
			try { obj = JSON.parse(obj) } catch (e) { return null }
		}

		if (!obj || typeof obj !== 'object' || obj.v !== VERSION || this.index(obj.step) < 0 ||
		    !obj.applied || typeof obj.applied !== 'object' || num(obj.reached) === null)
			return null;

		var s = Object.assign(this.create(obj.snapshot), clone(obj));

		/* never resume into a step whose input is missing */
		while (!this.canEnter(s, s.step))
			s.step = STEPS[this.index(s.step) - 1];

		return s;
	},

	/* ---- proposal ----------------------------------------------------- */

	/**
	 * Shaper rate for one direction: 90 % of the measured throughput.
	 * kbit/s = round(bps × 0.9 / 1000), at least 1 (a measured direction
	 * is never proposed as 0 = unshaped), at most 100000000 (100 Gbit/s,
	 * the Shaping page's limit).
	 * @param {number} bps measured throughput in bit/s
	 * @returns {number|null} null when not measured (null, NaN, ≤ 0, not
	 *   a number)
	 */
	bandwidthKbit: function(bps) {
		if (num(bps) === null || bps <= 0)
			return null;

		return Math.min(MAX_KBIT, Math.max(1, Math.round(bps * SHARE / 1000)));
	},

	/**
	 * Sanity check of a measured rate: is it a rate the line can have?
	 * Not when it comes from a loaded phase of under 3 s or 100 kB
	 * (short), is above the WAN port's link speed (link, +5 %), above
	 * 10 Gbit/s (max: beyond what CAKE shapes on a router; e.g. 11 Gbit/s
	 * counted on a line shaped at 9 Mbit/s, issue 12), or more than 20
	 * times the rate the shaper had (ratio).
	 * @param {number} bps measured rate
	 * @param {{secs, bytes, linkMbit, currentKbit}} ctx what is known:
	 *   the phase's measured window and volume (phaseVolume()), the link
	 *   speed in Mbit/s, the enabled shaper's rate in kbit/s
	 * @returns {{reason: string, limit: number}|null} null = plausible;
	 *   limit in bit/s (short: the bytes, limit = ctx.secs)
	 */
	checkRate: function(bps, ctx) {
		var c = ctx || {}, link = num(c.linkMbit), cur = num(c.currentKbit);

		if (num(bps) === null || bps <= 0)
			return null;

		if (num(c.secs) !== null && (c.secs < MIN_SECS || num(c.bytes) !== null && c.bytes < MIN_BYTES))
			return { reason: 'short', limit: c.secs };

		if (link !== null && link > 0 && bps > link * 1e6 * LINK_SLACK)
			return { reason: 'link', limit: link * 1e6 };

		if (bps > MAX_PLAUSIBLE_BPS)
			return { reason: 'max', limit: MAX_PLAUSIBLE_BPS };

		if (cur !== null && cur > 0 && bps > cur * 1000 * MAX_RATIO)
			return { reason: 'ratio', limit: cur * 1000 * MAX_RATIO };

		return null;
	},

	/**
	 * The measured window of a loaded phase and what moved in it: the
	 * first phase of that name in result.phases, minus the 2 s ramp the
	 * router leaves out (at most half the phase).
	 * @returns {{secs: number, bytes: number|null}|null} null without
	 *   phase data
	 */
	phaseVolume: function(result, name, bps) {
		var ph = (result && Array.isArray(result.phases) ? result.phases : []).filter(function(p) {
			return p && p.name === name && num(p.start) !== null && num(p.end) !== null;
		})[0];

		if (!ph)
			return null;

		var len = Math.max(0, ph.end - ph.start), secs = len - Math.min(RAMP_SECS, len / 2);

		return { secs: secs, bytes: (num(bps) !== null) ? Math.round(bps * secs / 8) : null };
	},

	/**
	 * The rtt to propose.
	 *
	 * Inputs: RTTs in ms the router measured while the link was idle —
	 * `reflectors` (each reflector's idle median from the test,
	 * result.reflector_idle[].rtt, and result.idle_rtt) and `servers`
	 * (RTTs of connections to the servers the consoles talk to, when the
	 * router knows them). Non-finite and ≤ 0 values are ignored.
	 *
	 * Rule: P = 98th percentile (nearest rank, grade.percentile) of all
	 * inputs together.
	 *   - no inputs, or P ≤ 100 ms → internet (100 ms, CAKE's default);
	 *   - P > 100 ms → the next preset up that covers P: oceanic (300 ms)
	 *     for P ≤ 300, satellite (1000 ms) above;
	 *   - never below 30 ms (regional): the proposal never goes under
	 *     100, and a value the user edits is raised to 30 (clampRtt()),
	 *     because anycast reflectors are closer than game and download
	 *     servers.
	 * @param {{reflectors: number[], servers: number[]}} input
	 * @returns {{rtt: string, ms: number, p98: number|null, samples: number}}
	 */
	proposeRtt: function(input) {
		var all = [].concat((input && input.reflectors) || [], (input && input.servers) || [])
			.filter(function(v) { return num(v) !== null && v > 0 });

		var p = all.length ? grade.percentile(all, RTT_PERCENTILE) : null,
		    pick = RTT_STEPS[0];

		if (p !== null && p > RTT_STEPS[0][1])
			pick = RTT_STEPS.filter(function(s) { return s[1] >= p })[0] || RTT_STEPS[RTT_STEPS.length - 1];

		return { rtt: pick[0], ms: pick[1], p98: p, samples: all.length };
	},

	/**
	 * An rtt as the user set it, raised to at least 30 ms.
	 * @param {string|number} rtt preset name or ms
	 * @returns {string|number|null} the preset name / ms to use; null if
	 *   not an rtt
	 */
	clampRtt: function(rtt) {
		var ms = cake.rttMs(rtt);

		if (ms == null || !isFinite(ms))
			return null;

		return (ms < RTT_FLOOR_MS) ? 'regional' : rtt;
	},

	/**
	 * CAKE overhead keyword from the WAN protocol.
	 *   docsis hint (the user says: cable modem) → docsis
	 *   pppoe, pppoa                                → pppoe-ptm (PPPoE over VDSL2)
	 *   anything else (dhcp, static, …)             → ethernet
	 * The user can change it in the proposal (e.g. bridged-ptm for VDSL2
	 * without PPPoE; PPPoE over fibre is close to ethernet).
	 * @returns {string}
	 */
	overheadFor: function(proto, docsis) {
		if (docsis)
			return 'docsis';

		return PPP_PROTOS[str(proto)] ? 'pppoe-ptm' : 'ethernet';
	},

	/**
	 * Server RTTs (ms) from the server_rtts reply: the finite values > 0.
	 * @param {Object} reply { rtts: [ms, ...], source } or an error reply
	 * @returns {number[]}
	 */
	serverRtts: function(reply) {
		return (reply && Array.isArray(reply.rtts) ? reply.rtts : []).filter(function(v) { return num(v) !== null && v > 0 });
	},

	/** idle RTTs (ms) of a test result: per reflector, else the idle_rtt */
	reflectorRtts: function(result) {
		var out = [];

		if (result && Array.isArray(result.reflector_idle))
			result.reflector_idle.forEach(function(r) {
				if (r && num(r.rtt) !== null)
					out.push(r.rtt);
			});

		if (!out.length && result && num(result.idle_rtt) !== null)
			out.push(result.idle_rtt);

		return out;
	},

	/* why a measured rate is not proposed, and what the field holds instead */
	rejectNote: function(name, bps, why, vol, currentKbit) {
		var d = (name === 'download') ? _('download') : _('upload'), rate = units.formatRate(bps, 3), text;

		switch (why.reason) {
		case 'short': text = _('The measured %s rate of %s rests on too little data (%s in %s s), so it is not proposed.').format(d, rate, units.formatBytes(vol.bytes, 2), round1(vol.secs)); break;
		case 'link': text = _('The measured %s rate of %s is more than the WAN port\'s link speed (%s), so it is not proposed.').format(d, rate, units.formatRate(why.limit, 3)); break;
		case 'max': text = _('The measured %s rate of %s is above 10 Gbit/s, beyond what CAKE can shape on a router, so it is not proposed.').format(d, rate); break;
		default: text = _('The measured %s rate of %s is more than %d times the current shaper rate (%s), so it is not proposed.').format(d, rate, MAX_RATIO, units.formatRate(currentKbit * 1000, 3));
		}

		return text + ' ' + (currentKbit > 0
			? _('The %s field keeps the current rate (%s). Measure again with nothing else using the line, or type the rate your line can do.').format(d, units.formatRate(currentKbit * 1000, 3))
			: _('The %s field stays at 0 (unshaped). Measure again with nothing else using the line, or type the rate your line can do.').format(d));
	},

	/**
	 * The proposal.
	 * @param {Object} input
	 * @param {Object} input.result the "before" test result
	 * @param {string} input.device the WAN device to shape
	 * @param {string} input.proto WAN protocol
	 * @param {boolean} [input.docsis] cable modem
	 * @param {number[]} [input.servers] server RTTs in ms
	 * @param {Object} [input.queue] the sqm queue's values before the
	 *   wizard (its rates are the current ones; when it is enabled, the
	 *   shaper rate for checkRate())
	 * @param {number} [input.linkMbit] the WAN port's link speed
	 * @returns {{device, download, upload, rtt, overhead, rttInfo,
	 *   notes: string[], rejected: {download, upload}, ok: boolean}}
	 *   download/upload kbit/s (0 = not measured, left unshaped; a rate
	 *   that fails checkRate() is not proposed: the queue's current rate
	 *   or 0 instead, rejected names the reason); ok false when neither
	 *   direction was measured
	 */
	propose: function(input) {
		input = input || {};

		var self = this, r = input.result, q = input.queue || {}, notes = [], rejected = {}, rates = {}, measured = false,
		    rtt = this.proposeRtt({ reflectors: this.reflectorRtts(r), servers: input.servers });

		[ 'download', 'upload' ].forEach(function(name) {
			var bps = (dir(r, name) || {}).throughput_bps, kbit = self.bandwidthKbit(bps),
			    cur = /^[0-9]+$/.test(str(q[name])) ? +q[name] : 0,
			    vol = self.phaseVolume(r, name, bps) || {},
			    why = (kbit === null) ? null : self.checkRate(bps, { secs: vol.secs, bytes: vol.bytes, linkMbit: input.linkMbit,
			    	currentKbit: str(q.enabled) === '1' ? cur : null });

			rejected[name] = why ? why.reason : null;
			rates[name] = why ? cur : (kbit || 0);
			measured = measured || kbit !== null;

			if (kbit === null)
				notes.push(name === 'download' ? _('The download throughput was not measured, so the download is left unshaped (0).')
					: _('The upload throughput was not measured, so the upload is left unshaped (0).'));
			else if (why)
				notes.push(self.rejectNote(name, bps, why, vol, cur));
		});

		if (r && (r.inconclusive || dir(r, 'download') && dir(r, 'download').inconclusive || dir(r, 'upload') && dir(r, 'upload').inconclusive))
			notes.push(_('The measurement was inconclusive; check the rates before applying.'));

		return {
			device: str(input.device), download: rates.download, upload: rates.upload,
			rtt: rtt.rtt, overhead: this.overheadFor(input.proto, input.docsis),
			rttInfo: rtt, notes: notes, rejected: rejected, ok: measured
		};
	},

	/**
	 * What the proposal's fields are based on, for their descriptions.
	 * @param {Object} p propose() result
	 * @param {Object} before the "before" test result
	 * @param {number} servers how many server RTTs went into the rtt rule
	 * @returns {{download: string, upload: string, rtt: string}}
	 */
	explain: function(p, before, servers) {
		var ri = (p && p.rttInfo) || {}, rej = (p && p.rejected) || {},
		    to = servers ? N_(servers, 'to the test reflectors and to %d server of open connections', 'to the test reflectors and to %d servers of open connections').format(servers)
		    	: _('to the test reflectors'),
		    rate = function(name) {
		    	var bps = (dir(before, name) || {}).throughput_bps, m = (num(bps) !== null) ? units.formatRate(bps, 3) : '–';

		    	return rej[name] ? _('Not proposed: the measured %s is not plausible (see above). 0 leaves this direction unshaped.').format(m)
		    		: (name === 'download') ? _('90 %% of the measured %s; 0 leaves the download unshaped.').format(m)
		    		: _('90 %% of the measured %s; 0 leaves the upload unshaped.').format(m);
		    };

		return {
			download: rate('download'), upload: rate('upload'),
			rtt: (ri.p98 != null)
				? N_(ri.samples, 'The %d round-trip time the router measured (%s) is %s; proposed: the smallest preset from 100 ms up that covers it.',
					'98 %% of the %d round-trip times the router measured (%s) are at most %s; proposed: the smallest preset from 100 ms up that covers them.')
					.format(ri.samples, to, _('%s ms').format(round1(ri.p98)))
				: _('No round-trip times were measured; CAKE\'s default.')
		};
	},

	/* ---- the test ------------------------------------------------------- */

	/** why test_start refused (an error reply), translated */
	startError: function(r) {
		switch (r && r.error) {
		case 'busy': return _('A test is already running; wait for it to finish and retry.');
		case 'not_running': return _('The latency monitor (retermd) is not running, so the router cannot measure. Start retermd (System → Startup → retermd) and retry.');
		case 'target_refused': return _('The router refused the test server: test servers must be public Internet addresses on port 80, 443 or 8080. A server on the local network can only be allowed by the router\'s administrator (option test_server in /etc/config/reterm_admin).');
		case 'too_soon': return _('The last test ended only a moment ago; the router starts the next one in %d s.').format(+r.wait_s || 0);
		}

		return _('The test did not start: %s').format((r && (r.message || r.error)) || '?');
	},

	/**
	 * Why a finished test cannot be used.
	 * @param {Object|null} r the result
	 * @param {string|null} err test_status could not be read
	 * @returns {string|null} a translated message, null = usable
	 */
	testProblem: function(r, err) {
		if (err)
			return _('The test status could not be read: %s').format(err);

		if (!r)
			return _('The test ended without a result.');

		if (r.stopped)
			return _('The test was stopped before it finished.');

		if (r.error === 'no_idle_rtt')
			return _('No reflector answered the latency probes, so nothing could be measured. Check that the router can ping the Internet (the reflectors are in the monitor settings) and retry.');

		var dn = r.download && r.download.throughput_bps, up = r.upload && r.upload.throughput_bps;

		if (!dn && !up)
			return _('The test URL could not be reached: no data moved during the test%s. Check the download and upload URL and retry.')
				.format((r.errors && r.errors.length) ? ' (' + r.errors.map(function(e) { return (e && e.message) || String(e) }).join('; ') + ')' : '');

		return null;
	},

	/**
	 * Check an edited proposal.
	 * @returns {string|null} a translated message or null
	 */
	validateProposal: function(p) {
		if (!p || typeof p !== 'object')
			return _('No proposal');

		var e = shaping.validateDevice(p.device);

		if (e)
			return e;

		for (var k of [ 'download', 'upload' ])
			if (num(p[k]) === null || p[k] < 0 || p[k] > MAX_KBIT || p[k] % 1)
				return _('The %s rate must be a whole number of kbit/s from 0 to %d').format(k === 'download' ? _('download') : _('upload'), MAX_KBIT);

		if (!p.download && !p.upload)
			return _('Download and upload are 0: nothing would be shaped.');

		if (this.clampRtt(p.rtt) === null)
			return _('Unknown round-trip time "%s"').format(p.rtt);

		if (cake.OVERHEAD_PRESETS.indexOf(p.overhead) < 0)
			return _('Unknown link overhead "%s"').format(p.overhead);

		return null;
	},

	/**
	 * The sqm values for a proposal: the existing queue section's values
	 * (or a new section for the device) with enabled, interface, rates and
	 * the CAKE options (recommended defaults + proposed rtt and overhead)
	 * set. Words of the existing option strings we do not manage stay.
	 * @param {Object} p proposal (validated)
	 * @param {Object|null} current values of the queue section, or null
	 * @returns {Object<string,string>|null} the full section values
	 */
	sqmValues: function(p, current) {
		if (this.validateProposal(p) !== null)
			return null;

		var base = current ? clone(current) : shaping.newSection(p.device),
		    st = shaping.sectionState(base) || shaping.sectionState({}),
		    m = Object.assign(cake.defaults(), {});

		/* keep what the user set on the Shaping page, except what we propose */
		if (current && st) {
			[ 'nat', 'isolation', 'diffserv', 'ackFilter' ].forEach(function(k) {
				if (st.model[k] != null)
					m[k] = st.model[k];
			});
		}

		m.rtt = this.clampRtt(p.rtt);
		m.overhead = p.overhead === 'none' ? null : p.overhead;
		m.ingress = true;

		var ch = shaping.changes(base, m, current && st ? st.unknown : undefined);

		if (ch === null)
			return null;

		var out = Object.assign(base, ch, {
			enabled: '1', interface: p.device, download: String(p.download), upload: String(p.upload)
		});

		/* what the view will write (the values that differ): only what
		 * sqm may source as root (shaping.sqmValueError) */
		for (var k in out)
			if (k.charAt(0) !== '.' && (!current || str(current[k]) !== out[k]) && shaping.sqmValueError(k, out[k]) !== null)
				return null;

		return out;
	},

	/* ---- before / after ---------------------------------------------- */

	/**
	 * Before/after numbers.
	 * @returns {{grade: {before, after}, download: {before, after,
	 *   gradeBefore, gradeAfter, throughputBefore, throughputAfter,
	 *   costPct}, upload: {...}, better: boolean|null}} better: the
	 *   overall grade improved (null when a grade is missing) added latency in ms; costPct = throughput
	 *   lost in % (100 × (1 − after / before), one decimal; negative =
	 *   gained), null when either is missing
	 */
	compare: function(before, after) {
		function side(name) {
			var b = dir(before, name) || {}, a = dir(after, name) || {},
			    tb = num(b.throughput_bps), ta = num(a.throughput_bps);

			return {
				before: num(b.added_ms), after: num(a.added_ms),
				gradeBefore: b.grade || null, gradeAfter: a.grade || null,
				throughputBefore: tb, throughputAfter: ta,
				costPct: (tb !== null && tb > 0 && ta !== null) ? round1(100 * (1 - ta / tb)) : null
			};
		}

		var gb = (before && before.grade) || null, ga = (after && after.grade) || null,
		    ib = grade.GRADES.indexOf(gb), ia = grade.GRADES.indexOf(ga);

		return {
			grade: { before: gb, after: ga },
			download: side('download'),
			upload: side('upload'),
			better: (ib >= 0 && ia >= 0) ? ia < ib : null
		};
	},

	/**
	 * The before/after table without its titles.
	 * @returns {string[][]} [label, before, after] per row
	 */
	compareRows: function(before, after) {
		var c = this.compare(before, after),
		    ms = function(v) { return (v === null) ? '–' : _('%s ms').format(round1(v)) },
		    rate = function(v) { return (v === null) ? '–' : units.formatRate(v, 3) },
		    cost = function(v) { return (v === null) ? '–' : (v >= 0) ? _('%s %% less').format(v) : _('%s %% more').format(-v) };

		return [
			[ _('Grade'), c.grade.before || '–', c.grade.after || '–' ],
			[ _('Added latency, download'), ms(c.download.before), ms(c.download.after) ],
			[ _('Added latency, upload'), ms(c.upload.before), ms(c.upload.after) ],
			[ _('Download'), rate(c.download.throughputBefore), _('%s (%s)').format(rate(c.download.throughputAfter), cost(c.download.costPct)) ],
			[ _('Upload'), rate(c.upload.throughputBefore), _('%s (%s)').format(rate(c.upload.throughputAfter), cost(c.upload.costPct)) ]
		];
	},

	/**
	 * The WAN interface to shape: the first one with a device of
	 * reterm.shaping wanInfo().wan (interfaces with the default route
	 * first, then the firewall's wan zone).
	 * @param {Object[]} nets { name, proto, device, l3device, speed }
	 * @returns {Object|null}
	 */
	wan: function(nets) {
		return (Array.isArray(nets) ? nets : []).filter(function(n) { return shaping.wanDevice(n) !== null })[0] || null;
	},

	/* ---- devices ------------------------------------------------------ */

	/** consoles and handhelds first, then by name / MAC */
	sortHosts: function(hosts) {
		var rank = function(h) { return (h && (h['class'] === 'console' || h['class'] === 'handheld')) ? 0 : 1 };

		return (Array.isArray(hosts) ? hosts.slice() : []).sort(function(a, b) {
			return rank(a) - rank(b) || str(a.name || a.mac).localeCompare(str(b.name || b.mac));
		});
	},

	/**
	 * Devices to offer re-termination to: consoles, handhelds and every
	 * host whose audit recommends it; each with the evidence text.
	 * @param {Object[]} hosts the "hosts" reply
	 * @returns {Array<{mac, name, class, reason: 'console'|'handheld'|
	 *   'audit', evidence: string, active: boolean, section}>} active: it
	 *   is re-terminated already
	 */
	offers: function(hosts) {
		var out = [];

		this.sortHosts(hosts).forEach(function(h) {
			if (!h || devices.normalizeMac(h.mac) === null)
				return;

			var cls = h['class'], flagged = h.audit && h.audit.recommendation === 'reterm';

			if (cls !== 'console' && cls !== 'handheld' && !flagged)
				return;

			var ev = devices.auditHint(h.audit);

			/* without an audit nothing is known about this device's window */
			if (!ev)
				ev = (cls === 'handheld')
					? _('Some handhelds download with a small TCP receive window, so far servers can only send slowly. An audit on the Devices page shows whether this one does.')
					: _('Some game consoles download with a small TCP receive window, so far servers can only send slowly. An audit on the Devices page shows whether this one does.');

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
	devicePlan: function(offers, macs, sections) {
		var ops = [], chosen = (macs || []).map(function(m) { return devices.normalizeMac(m) });

		(offers || []).forEach(function(o) {
			if (chosen.indexOf(o.mac) < 0)
				return;

			var secs = (sections || []).filter(function(s) { return devices.normalizeMac(s.mac) === o.mac });

			if (!secs.length)
				ops.push({ op: 'add', values: { name: devices.deviceName(o), mac: o.mac, enabled: '1', ports: 'all' } });
			else
				secs.forEach(function(s) {
					if (str(s.enabled) === '0')
						ops.push({ op: 'set', section: s['.name'], values: { enabled: '1' } });
				});
		});

		if (chosen.length)
			ops.push({ op: 'set', section: 'main', values: { enabled: '1' } });

		return ops;
	}
});
