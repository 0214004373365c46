'use strict';
'require baseclass';
'require reterm.grade as grade';
'require reterm.units as units';

/*
 * Small pure helpers of the setup wizard view (view/reterm/wizard.js) on
 * top of reterm.wizard (the step machine): what survives LuCI's apply
 * reload, when the grade hint and the "resumed" note make sense, the
 * wait retermd asks for between tests and whether the shaper works.
 * Use as: 'require reterm.wizardsteps as steps';
 *
 * Extra keys of the wizard state (kept by reterm.wizard's clone-based
 * record()/go()/restore()):
 *   failure: { kind: 'before'|'after', message, code } a failed guided
 *     test, shown again after the page reload until a retry or a move;
 *   reloadAt: ms (Date.now()) when the view started an apply with
 *     rollback (LuCI reloads the page once it is confirmed);
 *   shaper: { rx, tx } bit/s the wizard applied (the "after" check).
 */

/* a reload within this time after an apply is LuCI's, not the user's */
var RELOAD_WINDOW_MS = 5 * 60 * 1000;

/* measured above this many times the shaper rate: shaping is not active */
var UNSHAPED_RATIO = 1.5;

function num(v) {
	return (typeof v === 'number' && isFinite(v)) ? v : null;
}

function clone(v) {
	return (v == null) ? v : JSON.parse(JSON.stringify(v));
}

return baseclass.extend({
	__name__: 'reterm.wizardsteps',

	RELOAD_WINDOW_MS: RELOAD_WINDOW_MS,
	UNSHAPED_RATIO: UNSHAPED_RATIO,

	/* ---- a failed test, kept over a reload ------------------------------ */

	/**
	 * The state with a failure recorded (failure null: forgotten).
	 * @param {Object} state
	 * @param {{kind: string, text: string, code: string|null}|null} failed
	 * @returns {Object} a new state
	 */
	setFailure: function(state, failed) {
		var s = clone(state);

		s.failure = (failed && failed.text)
			? { kind: String(failed.kind || ''), message: String(failed.text), code: (failed.code == null) ? null : String(failed.code) }
			: null;

		return s;
	},

	/**
	 * The failure to show from a (restored) state, as the view keeps it.
	 * @returns {{kind, text, code}|null}
	 */
	failure: function(state) {
		var f = state && state.failure;

		return (f && typeof f === 'object' && f.message && (f.kind === 'before' || f.kind === 'after'))
			? { kind: f.kind, text: String(f.message), code: (f.code == null) ? null : String(f.code) } : null;
	},

	/* ---- LuCI's reload after an apply ----------------------------------- */

	/** The state noting that an apply (and so a page reload) is under way. */
	expectReload: function(state, now) {
		var s = clone(state);

		s.reloadAt = num(now);

		return s;
	},

	/**
	 * A state read back when the page loads.
	 * @returns {{state: Object, resumed: boolean}} resumed: the user came
	 *   back (no apply of the wizard's asked for this reload); the state
	 *   loses the reload mark (one reload per apply)
	 */
	arrive: function(state, now) {
		var at = num(state && state.reloadAt), t = num(now),
		    reload = at !== null && t !== null && t >= at && t - at <= RELOAD_WINDOW_MS,
		    s = clone(state);

		if (s)
			delete s.reloadAt;

		return { state: s, resumed: !!s && !reload };
	},

	/* ---- before/after ---------------------------------------------------- */

	/**
	 * Whether "the grade did not improve" is worth saying: only when the
	 * after grade is worse than the best one and not better than before.
	 */
	gradeNotImproved: function(before, after) {
		var ib = grade.GRADES.indexOf(before && before.grade),
		    ia = grade.GRADES.indexOf(after && after.grade);

		return ib >= 0 && ia > 0 && ia >= ib;
	},

	/**
	 * The directions measured far above the applied shaper rate.
	 * @param {Object} after the "after" result
	 * @param {{rx, tx}} shaper bit/s (0/null: direction unshaped)
	 * @returns {{dir: string, measured: number, shaper: number}[]}
	 */
	unshaped: function(after, shaper) {
		var out = [];

		[ [ 'download', 'rx' ], [ 'upload', 'tx' ] ].forEach(function(d) {
			var r = after && after[d[0]], m = num(r && r.throughput_bps), s = num(shaper && shaper[d[1]]);

			if (m !== null && s !== null && s > 0 && m > s * UNSHAPED_RATIO)
				out.push({ dir: d[0], measured: m, shaper: s });
		});

		return out;
	},

	/** The translated warning for unshaped() directions, null if none. */
	unshapedText: function(list) {
		if (!list || !list.length)
			return null;

		var parts = list.map(function(u) {
			return (u.dir === 'download')
				? _('the download measured %s with the shaper at %s').format(units.formatRate(u.measured, 3), units.formatRate(u.shaper, 3))
				: _('the upload measured %s with the shaper at %s').format(units.formatRate(u.measured, 3), units.formatRate(u.shaper, 3));
		});

		return _('Shaping does not seem to be active: %s. Check on the router that sqm is running ("/etc/init.d/sqm enabled", "tc qdisc show") and that CAKE is installed (kmod-sched-cake), then measure again.')
			.format(parts.join('; '));
	},

	/* ---- retermd's gap between tests ------------------------------------ */

	/**
	 * Seconds to wait before test_start again, from its error reply
	 * (too_soon with wait_s); null for any other reply.
	 */
	waitSeconds: function(r) {
		var w = num(r && r.error === 'too_soon' ? +r.wait_s : null);

		return (w !== null && w > 0) ? Math.min(Math.ceil(w), 600) : null;
	},

	/** Whole seconds left until `until` (ms), never below 0. */
	secondsLeft: function(until, now) {
		var ms = num(until) - num(now);

		return (ms > 0) ? Math.ceil(ms / 1000) : 0;
	},

	/** The countdown text. */
	countdownText: function(left) {
		return N_(left, 'The router starts a new test only a little while after the last one ended. The test starts by itself in %d second…',
			'The router starts a new test only a little while after the last one ended. The test starts by itself in %d seconds…').format(left);
	}
});
