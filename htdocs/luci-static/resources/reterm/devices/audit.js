'use strict';
'require baseclass';
'require reterm.units as units';

/*
 * A device's window audit and live numbers in words: the class badge,
 * the audit hint and its level, the lines of the live cell. Pure, no DOM.
 * Use as: 'require reterm.devices.audit as deviceaudit';
 */

const DEFAULT_RTT_MS = 130;
const MAX_RTT_MS = 2000;

/* the most an unscaled TCP window can ever be */
const MAX_UNSCALED_WINDOW = 65535;

function isCount(v) {
	return typeof v === 'number' && isFinite(v) && v >= 0 && v % 1 === 0 && v <= Number.MAX_SAFE_INTEGER;
}

function isPct(v) {
	return typeof v === 'number' && isFinite(v) && v >= 0 && v <= 100;
}

return baseclass.extend({
	__name__: 'reterm.devices.audit',

	DEFAULT_RTT_MS: DEFAULT_RTT_MS,
	isCount: isCount,
	isPct: isPct,

	/** { text, cls } of the class badge, or null for other devices. */
	badge(cls) {
		if (cls === 'console')
			return { text: _('Console'), cls: 'label reterm-badge reterm-badge-console' };

		if (cls === 'handheld')
			return { text: _('Handheld'), cls: 'label reterm-badge reterm-badge-handheld' };

		return null;
	},

	/**
	 * The window audit in words, from its numbers (not the router's
	 * English summary), e.g. "16 KiB window, no scaling: at most 1 Mbit/s
	 * at 130 ms. Re-termination helps."
	 *
	 * @param {Object|null} audit the `audit` of a host
	 * @param {number} [rttMs] RTT for the ceiling (1–2000 ms); default
	 *   the audit's rtt_ms, else 130
	 * @returns {string|null} null without audit data
	 */
	auditHint(audit, rttMs) {
		if (!audit || typeof audit !== 'object')
			return null;

		let rtt = [ rttMs, audit.rtt_ms, DEFAULT_RTT_MS ].filter((v) => {
			return isCount(v) && v >= 1 && v <= MAX_RTT_MS;
		})[0];

		let win = isCount(audit.window) ? audit.window : null,
		    syn = isCount(audit.syn_count) ? audit.syn_count : 0,
		    noscale = isCount(audit.noscale_syns) ? audit.noscale_syns : 0,
		    pct = isPct(audit.rwnd_limited_pct) ? audit.rwnd_limited_pct : null,
		    out = [];

		if (audit.scaling === false) {
			if (win !== null)
				out.push(_('%s window, no scaling: at most %s at %d ms.').format(
					units.formatBytes(win, 2), units.formatRate(units.maxThroughput(win, rtt), 2), rtt));
			else
				out.push(_('No window scaling: at most %s at %d ms.').format(
					units.formatRate(units.maxThroughput(MAX_UNSCALED_WINDOW, rtt), 2), rtt));
		}
		else if (audit.scaling === true) {
			if (win !== null && pct !== null)
				out.push(_('%s window with scaling.').format(units.formatBytes(win, 2)));
			else if (syn > 0)
				out.push(_('Uses window scaling.'));
		}

		if (syn > 0 && noscale > 0 && noscale < syn)
			out.push(_('%d of %d connections without window scaling.').format(noscale, syn));

		if (pct !== null)
			out.push(_('Its receive window held the router back %d%% of the busy time.').format(Math.round(pct)));

		if (audit.recommendation === 'reterm')
			out.push(_('Re-termination helps.'));
		else if (audit.recommendation === 'ok')
			out.push(_('The TCP window is not what limits it.'));
		else
			out.push(_('Not enough data yet: run an audit while the device downloads.'));

		return out.join(' ');
	},

	/** CSS level of the audit: 'warning' (re-terminate), 'success', 'info' or null. */
	auditLevel(audit) {
		if (!audit || typeof audit !== 'object')
			return null;

		return { reterm: 'warning', ok: 'success' }[audit.recommendation] || 'info';
	},

	/** Lines for the live cell of one device (liveStats() entry or null). */
	liveLines(st) {
		if (!st || st.sessions === 0)
			return [ _('No open connections') ];

		let out = [];

		if (st.sessions !== null)
			out.push(N_(st.sessions, '%d open connection', '%d open connections').format(st.sessions));

		if (st.bytesTo !== null || st.bytesFrom !== null)
			out.push(_('%s to the device, %s from it').format(
				(st.bytesTo !== null) ? units.formatBytes(st.bytesTo) : '?',
				(st.bytesFrom !== null) ? units.formatBytes(st.bytesFrom) : '?'));

		if (st.rwndPct !== null)
			out.push(_('Window-limited %d%% of the busy time').format(Math.round(st.rwndPct)));

		return out.length ? out : [ _('No busy connection right now') ];
	}
});
