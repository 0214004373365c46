'use strict';
'require baseclass';
'require reterm.grade as grade';
'require reterm.units as units';
'require reterm.guided as testrun';

/*
 * Small pure helpers of the setup wizard view (view/reterm/wizard.js) on
 * top of reterm.wizard.state (the step machine): what survives LuCI's apply
 * reload, when the grade hint and the "resumed" note make sense, why a
 * test cannot be used, the wait reterm-latencyd asks for between tests, whether
 * the router reports the applied shaping and whether the shaper works.
 * Use as: 'require reterm.wizard.steps as steps';
 *
 * Extra keys of the wizard state (kept by reterm.wizard.state's clone-based
 * record()/go()/restore()):
 *   failure: { kind: 'before'|'after', message, code } a failed guided
 *     test, shown again after the page reload until a retry or a move;
 *   reloadAt: ms (Date.now()) when the view started an apply with
 *     rollback (LuCI reloads the page once it is confirmed);
 *   shaper: { rx, tx } bit/s the wizard applied (the "after" check).
 */

/* a reload within this time after an apply is LuCI's, not the user's */
const RELOAD_WINDOW_MS = 5 * 60 * 1000;

/* measured above this many times the shaper rate: shaping is not active */
const UNSHAPED_RATIO = 1.5;

/* how long the view waits for the router to report an applied change:
 * LuCI's rollback window (90 s by default) and some */
const CONFIRM_TIMEOUT_S = 120;

const num = (v) => (typeof v === 'number' && isFinite(v)) ? v : null;
const clone = (v) => (v == null) ? v : JSON.parse(JSON.stringify(v));
const round1 = (v) => Math.round(v * 10) / 10;
const dir = (result, name) => (result && typeof result === 'object' && result[name] && typeof result[name] === 'object') ? result[name] : null;

return baseclass.extend({
	__name__: 'reterm.wizard.steps',

	RELOAD_WINDOW_MS,
	UNSHAPED_RATIO,
	CONFIRM_TIMEOUT_S,

	/* ---- a failed test, kept over a reload ------------------------------ */

	/**
	 * The state with a failure recorded (failure null: forgotten).
	 * @param {{kind: string, text: string, code: string|null}|null} failed
	 * @returns {Object} a new state
	 */
	setFailure(state, failed) {
		const s = clone(state);

		s.failure = (failed && failed.text)
			? { kind: String(failed.kind || ''), message: String(failed.text), code: (failed.code == null) ? null : String(failed.code) }
			: null;

		return s;
	},

	/**
	 * The failure to show from a (restored) state, as the view keeps it.
	 * @returns {{kind, text, code}|null}
	 */
	failure(state) {
		const f = state && state.failure;

		return (f && typeof f === 'object' && f.message && (f.kind === 'before' || f.kind === 'after'))
			? { kind: f.kind, text: String(f.message), code: (f.code == null) ? null : String(f.code) } : null;
	},

	/**
	 * Why a finished test cannot be used.
	 * @param {Object|null} r the result
	 * @param {string|null} err test_status could not be read
	 * @returns {string|null} a translated message, null = usable
	 */
	testProblem(r, err) {
		if (err)
			return _('The test status could not be read: %s').format(err);

		if (!r)
			return _('The test ended without a result.');

		if (r.stopped)
			return _('The test was stopped before it finished.');

		if (r.error === 'no_idle_rtt')
			return _('No reflector answered the latency probes, so nothing could be measured. Check that the router can ping the Internet (the reflectors are in the monitor settings) and retry.');

		const dn = r.download && r.download.throughput_bps, up = r.upload && r.upload.throughput_bps;

		if (!dn && !up)
			return _('The test URL could not be reached: no data moved during the test%s. Check the download and upload URL and retry.')
				.format((r.errors && r.errors.length) ? ' (' + r.errors.map((e) => (e && e.message) || String(e)).join('; ') + ')' : '');

		return null;
	},

	/** The code a failed test is kept with (see testProblem()). */
	problemCode(r, err) {
		return (r && r.error) || (err ? 'status' : !r ? 'no_result' : r.stopped ? 'stopped' : 'no_data');
	},

	/* ---- LuCI's reload after an apply ----------------------------------- */

	/** The state noting that an apply (and so a page reload) is under way. */
	expectReload(state, now) {
		const s = clone(state);

		s.reloadAt = num(now);

		return s;
	},

	/**
	 * A state read back when the page loads.
	 * @returns {{state: Object, resumed: boolean}} resumed: the user came
	 *   back (no apply of the wizard's asked for this reload); the state
	 *   loses the reload mark (one reload per apply)
	 */
	arrive(state, now) {
		const at = num(state && state.reloadAt), t = num(now),
		      reload = at !== null && t !== null && t >= at && t - at <= RELOAD_WINDOW_MS,
		      s = clone(state);

		if (s)
			delete s.reloadAt;

		return { state: s, resumed: !!s && !reload };
	},

	/* ---- the router's word on an applied change -------------------------- */

	/**
	 * What reterm-latencyd's status (reterm monitor_status) says about shaping.
	 * @returns {{on: boolean, shaper: Object|null}|null} on: an sqm queue
	 *   shapes (shaper { rx, tx } bit/s) or a CAKE queue runs; null when
	 *   the reply does not tell (error, no shaper/cake fields)
	 */
	shapingReport(reply) {
		if (!reply || typeof reply !== 'object' || reply.error || !('shaper' in reply || 'cake' in reply))
			return null;

		return { on: reply.shaper != null || reply.cake != null, shaper: reply.shaper || null };
	},

	/**
	 * Whether the router reports the shaper rates an apply should have set.
	 * @param {{rx, tx}} want the shaper rates in bit/s (null = any)
	 * @param {Object} reply monitor_status reply
	 * @param {number} waitedMs how long the view has waited
	 * @returns {string} 'confirmed', 'wait' or 'timeout'
	 *   (CONFIRM_TIMEOUT_S passed)
	 */
	confirmWait(want, reply, waitedMs) {
		const r = this.shapingReport(reply),
		      ok = !!(r && r.shaper && want) && [ 'rx', 'tx' ].every((k) => want[k] == null || r.shaper[k] === want[k]);

		return ok ? 'confirmed' : (waitedMs >= CONFIRM_TIMEOUT_S * 1000) ? 'timeout' : 'wait';
	},

	/* ---- before/after ---------------------------------------------------- */

	/**
	 * Before/after numbers.
	 * @returns {{grade: {before, after}, download: {before, after,
	 *   gradeBefore, gradeAfter, throughputBefore, throughputAfter,
	 *   costPct}, upload: {...}, better: boolean|null}} before/after:
	 *   added latency in ms; costPct: throughput lost in % (100 × (1 −
	 *   after / before), one decimal; negative = gained), null when
	 *   either is missing; better: the overall grade improved (null when
	 *   a grade is missing)
	 */
	compare(before, after) {
		const side = (name) => {
			const b = dir(before, name) || {}, a = dir(after, name) || {},
			      tb = num(b.throughput_bps), ta = num(a.throughput_bps);

			return {
				before: num(b.added_ms), after: num(a.added_ms),
				gradeBefore: b.grade || null, gradeAfter: a.grade || null,
				throughputBefore: tb, throughputAfter: ta,
				costPct: (tb !== null && tb > 0 && ta !== null) ? round1(100 * (1 - ta / tb)) : null
			};
		};

		const gb = (before && before.grade) || null, ga = (after && after.grade) || null,
		      ib = grade.GRADES.indexOf(gb), ia = grade.GRADES.indexOf(ga);

		return { grade: { before: gb, after: ga }, download: side('download'), upload: side('upload'),
			better: (ib >= 0 && ia >= 0) ? ia < ib : null };
	},

	/**
	 * The before/after table without its titles.
	 * @returns {string[][]} [label, before, after] per row
	 */
	compareRows(before, after) {
		const c = this.compare(before, after), ms = testrun.ms, rate = testrun.rate,
		      cost = (v) => (v === null) ? '–' : (v >= 0) ? _('%s %% less').format(v) : _('%s %% more').format(-v);

		return [
			[ _('Grade'), c.grade.before || '–', c.grade.after || '–' ],
			[ _('Added latency, download'), ms(c.download.before), ms(c.download.after) ],
			[ _('Added latency, upload'), ms(c.upload.before), ms(c.upload.after) ],
			[ _('Download'), rate(c.download.throughputBefore), _('%s (%s)').format(rate(c.download.throughputAfter), cost(c.download.costPct)) ],
			[ _('Upload'), rate(c.upload.throughputBefore), _('%s (%s)').format(rate(c.upload.throughputAfter), cost(c.upload.costPct)) ]
		];
	},

	/**
	 * Whether "the grade did not improve" is worth saying: only when the
	 * after grade is worse than the best one and not better than before.
	 */
	gradeNotImproved(before, after) {
		const ib = grade.GRADES.indexOf(before && before.grade),
		      ia = grade.GRADES.indexOf(after && after.grade);

		return ib >= 0 && ia > 0 && ia >= ib;
	},

	/**
	 * The directions measured far above the applied shaper rate.
	 * @param {Object} after the "after" result
	 * @param {{rx, tx}} shaper bit/s (0/null: direction unshaped)
	 * @returns {{dir: string, measured: number, shaper: number}[]}
	 */
	unshaped(after, shaper) {
		const out = [];

		[ [ 'download', 'rx' ], [ 'upload', 'tx' ] ].forEach((d) => {
			const r = after && after[d[0]], m = num(r && r.throughput_bps), s = num(shaper && shaper[d[1]]);

			if (m !== null && s !== null && s > 0 && m > s * UNSHAPED_RATIO)
				out.push({ dir: d[0], measured: m, shaper: s });
		});

		return out;
	},

	/** The translated warning for unshaped() directions, null if none. */
	unshapedText(list) {
		if (!list || !list.length)
			return null;

		const parts = list.map((u) => (u.dir === 'download')
			? _('the download measured %s with the shaper at %s').format(units.formatRate(u.measured, 3), units.formatRate(u.shaper, 3))
			: _('the upload measured %s with the shaper at %s').format(units.formatRate(u.measured, 3), units.formatRate(u.shaper, 3)));

		return _('Shaping does not seem to be active: %s. Check on the router that sqm is running ("/etc/init.d/sqm enabled", "tc qdisc show") and that CAKE is installed (kmod-sched-cake), then measure again.')
			.format(parts.join('; '));
	},

	/* ---- reterm-latencyd's gap between tests ------------------------------------ */

	/**
	 * Seconds to wait before test_start again, from its error reply
	 * (too_soon with wait_s); null for any other reply.
	 */
	waitSeconds(r) {
		const w = num(r && r.error === 'too_soon' ? +r.wait_s : null);

		return (w !== null && w > 0) ? Math.min(Math.ceil(w), 600) : null;
	},

	/** Whole seconds left until `until` (ms), never below 0. */
	secondsLeft(until, now) {
		const ms = num(until) - num(now);

		return (ms > 0) ? Math.ceil(ms / 1000) : 0;
	},

	/** The countdown text. */
	countdownText(left) {
		return N_(left, 'The router starts a new test only a little while after the last one ended. The test starts by itself in %d second…',
			'The router starts a new test only a little while after the last one ended. The test starts by itself in %d seconds…').format(left);
	}
});
