'use strict';
'require baseclass';
'require reterm.guided as testrun';

/*
 * The router's shaping pause for the wizard's "before" measurement, pure
 * (no DOM, no RPC, no UCI): what test_start's reply and reterm-latencyd's pause
 * record mean, what to tell the user, and what a state stored by the
 * previous wizard version needs.
 * Use as: 'require reterm.wizard.pause as pause';
 *
 * The router does the pause (README, "The guided test"): test_start with
 * pause_shaping: true stops the sqm queue on the monitored WAN with
 * sqm-scripts' own run.sh (nothing in UCI or flash changes), runs the
 * test unshaped and starts the queue again when the test ends, is
 * stopped or fails, at the latest a minute after the test's planned end,
 * and when reterm-latencyd starts and finds a pause left over. Its reply names
 * the paused ifaces (paused: [] when nothing was shaped); test_status and
 * monitor_status carry the pause record:
 *   pause: null | { ifaces, state: 'paused'|'restoring'|'restored'|'failed',
 *                   until: epoch s, message? }
 * test_start fails with error 'pause_failed' when sqm could not be
 * stopped (the test did not start; what was stopped runs again;
 * reterm.guided has its text).
 *
 * The previous wizard version paused by staging sqm enabled 0 and
 * applying it from the browser, with state.paused = { sids, phase,
 * testId } (state v 1). migrate() turns such a state into this version's,
 * keeping the sections it had turned off in legacyPause; legacyResume()
 * names those still off, for the view to switch on again.
 */

const STATES = [ 'paused', 'restoring', 'restored', 'failed' ];
const IFACE_RE = /^[A-Za-z0-9_.@-]{1,15}$/;

const clone = (v) => (v == null) ? v : JSON.parse(JSON.stringify(v));
const ifaces = (v) => Array.isArray(v) ? v.filter((d) => typeof d === 'string' && IFACE_RE.test(d)) : [];
/* testrun's sentence and the wizard's next one */
const then = (first, next) => (/[.!?…]$/.test(first) ? first : first + '.') + ' ' + next;

return baseclass.extend({
	__name__: 'reterm.wizard.pause',

	/**
	 * The ifaces test_start paused for the test.
	 * @param {Object} reply test_start's (successful) reply
	 * @returns {string[]|null} [] when nothing was shaped; null when the
	 *   reply does not say (the pause was not asked for)
	 */
	paused(reply) {
		return (reply && Array.isArray(reply.paused)) ? ifaces(reply.paused) : null;
	},

	/**
	 * reterm-latencyd's pause record from a test_status, test_stop or
	 * monitor_status reply.
	 * @returns {{ifaces: string[], state: string, until: number|null,
	 *   message: string|null}|null} null: no record, or not one of ours
	 */
	status(reply) {
		const p = reply && typeof reply === 'object' && !reply.error ? reply.pause : null;

		if (!p || typeof p !== 'object' || STATES.indexOf(p.state) < 0)
			return null;

		return {
			ifaces: ifaces(p.ifaces), state: p.state,
			until: (typeof p.until === 'number' && isFinite(p.until)) ? p.until : null,
			message: (typeof p.message === 'string' && p.message) ? p.message : null
		};
	},

	/** Whether the router is done with the pause (no record, restored, failed). */
	settled(p) {
		return !p || p.state === 'restored' || p.state === 'failed';
	},

	/**
	 * What to tell about a pause record (the words are
	 * reterm.testrun.pauseText()'s, with what the wizard adds).
	 * @param {Object|null} p status()
	 * @param {boolean} [seen] the view followed this pause (its own test):
	 *   only then "back on" is worth saying
	 * @returns {{level: string, text: string, failed: boolean}|null}
	 *   failed: shaping is off; the view offers a way forward
	 */
	note(p, seen) {
		if (!p || !p.ifaces.length)
			return null;

		switch (p.state) {
		case 'paused':
			return { level: 'info', failed: false, text: then(testrun.pauseText(p),
				_('It does so also when this page is closed, at the latest a minute after the test\'s planned end; nothing in the configuration changes.')) };

		case 'restoring':
			return { level: 'info', failed: false, text: _('The router is turning shaping on %s back on…').format(p.ifaces.join(', ')) };

		case 'restored':
			return seen ? { level: 'success', failed: false, text: testrun.pauseText(p) } : null;

		case 'failed':
			return { level: 'danger', failed: true, text: then(testrun.pauseText(p),
				_('Restart sqm on the router ("/etc/init.d/sqm restart"), or save the queue again on the Shaping page.')) };
		}

		return null;
	},

	/**
	 * A state stored by the previous wizard version (v 1) in this
	 * version's form (v 2): its browser-made pause becomes legacyPause
	 * (the sqm sections it had turned off). Anything else is returned as
	 * it is (reterm.wizard.restore() checks it).
	 */
	migrate(obj) {
		if (typeof obj === 'string') {
			try { obj = JSON.parse(obj) } catch (e) { return null }
		}

		if (!obj || typeof obj !== 'object' || obj.v !== 1)
			return obj;

		const s = clone(obj), p = s.paused;

		delete s.paused;
		s.v = 2;
		s.test = null;

		if (p && typeof p === 'object' && Array.isArray(p.sids) && p.sids.length)
			s.legacyPause = p.sids.map(String);

		return s;
	},

	/**
	 * The sqm sections the previous version turned off and that are off
	 * still: switch them on again (enabled 1).
	 * @param {Object} state a migrated state
	 * @param {Object[]} queues uci.sections('sqm', 'queue')
	 * @returns {string[]}
	 */
	legacyResume(state, queues) {
		const sids = (state && Array.isArray(state.legacyPause)) ? state.legacyPause : [];

		return (Array.isArray(queues) ? queues : []).filter((q) =>
			q && sids.indexOf(q['.name']) > -1 && String(q.enabled) !== '1').map((q) => q['.name']);
	},

	/** The state without the previous version's pause. */
	legacyDone(state) {
		const s = clone(state);

		delete s.legacyPause;

		return s;
	},

	/** What the view says after switching those sections on again. */
	legacyText(sids) {
		return N_(sids.length,
			'An earlier version of this wizard had turned shaping off for a measurement (%s); it is turned back on now, with LuCI\'s apply with rollback.',
			'An earlier version of this wizard had turned shaping off for a measurement (%s); they are turned back on now, with LuCI\'s apply with rollback.').format(sids.join(', '));
	}
});
