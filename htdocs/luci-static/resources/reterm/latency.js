'use strict';
'require baseclass';
'require reterm.grade as grade';
'require reterm.units as units';
'require reterm.httpurl as httpurl';
'require reterm.testresult as testresult';

/*
 * The latency monitor and guided test, client side: the pure logic the
 * Overview view (and later the wizard) needs around the reterm-latencyd replies
 * (`samples`, `test_start`, `test_status`, `results`; see
 * /usr/share/ucode/reterm/latency/service.uc and latency/test/). No DOM, no
 * RPC. Use as: 'require reterm.latency as latency';
 *
 *   latency.validateUrl('http://192.0.2.10/bytes/1000000000')  → null
 *   latency.progress(testStatusReply)   → {fraction, label, …}
 *   latency.summary(result)             → grades, RPM, reasons, …
 *   latency.compare(before, after)      → rows of the before/after table
 *
 * Conventions: as reterm.grade (ms, bit/s, fractions 0…1; bad input
 * gives null or an empty result, nothing throws). Messages are _().
 */

const MAX_STREAMS = 16, DEFAULT_STREAMS = 4;

/* a live point older than this (s, after the newest row's interval)
 * means the daemon was asleep; rows normally lag ~3.6 s */
const STALE_SECS = 10;

const finite = (v) => typeof v === 'number' && isFinite(v);
const num = (v) => (finite(v) && v >= 0 ? v : null);
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/* ---- replies ---------------------------------------------------------- */

/* index of the grade, 0 = A+ … 5 = F, -1 unknown */
function gradeRank(g) {
	return grade.GRADES.indexOf(g);
}

function phaseByName(result, name) {
	const ph = (isObject(result) && Array.isArray(result.phases)) ? result.phases : [];

	for (let i = 0; i < ph.length; i++)
		if (isObject(ph[i]) && ph[i].name === name)
			return ph[i];

	return null;
}

return baseclass.extend({
	__name__: 'reterm.latency',

	MAX_STREAMS: MAX_STREAMS,
	DEFAULT_STREAMS: DEFAULT_STREAMS,
	STALE_SECS: STALE_SECS,

	/* the result's side, kept here for the views that use both */
	phaseLabel: testresult.phaseLabel,
	phaseName: testresult.phaseName,
	when: testresult.when,
	summary: testresult.summary,
	phaseRows: testresult.phaseRows,
	cdfSeries: testresult.cdfSeries,
	parseUrl: httpurl.parse,

	/**
	 * Check a test URL. @returns {string|null} null when reterm-latencyd will
	 * accept it, else the message to show
	 */
	validateUrl(s) {
		if (s == null || String(s).trim() === '')
			return _('Enter the URL of a test server.');

		s = String(s);

		if (/^https:\/\/(\[|[0-9.]+[:\/]|[0-9.]+$)/i.test(s))
			return _('An https:// URL needs a host name, not an IP address: the certificate is checked against the name.');

		if (httpurl.parse(s) === null)
			return _('Expecting an http:// or https:// URL: a host name or IP address ([…] for IPv6), an optional port and a path of letters, digits and - . _ ~ / ? = & % + , : @ (at most 256 characters, no spaces).');

		return null;
	},

	/** @returns {string|null} null for a whole number 1–16 */
	validateStreams(v) {
		const s = (v == null) ? '' : String(v).trim();

		if (!/^[1-9][0-9]?$/.test(s) || +s > MAX_STREAMS)
			return _('Expecting a whole number from 1 to %d.').format(MAX_STREAMS);

		return null;
	},

	/**
	 * State of the live graphs: 'no_daemon' (reterm-latencyd absent),
	 * 'error' (another failure), 'waking' (the daemon answered but has
	 * no recent rows: it was asleep and this poll woke it), 'live'.
	 *
	 * @param {Object|null} err the error of the last samples reply (reterm.guided settle())
	 * @param {Object|null} last the ring's newest point ({t})
	 * @param {number} now the daemon clock of the last reply (epoch s)
	 * @param {number} [step=1]
	 */
	liveState(err, last, now, step) {
		if (err)
			return err.error === 'no_daemon' ? 'no_daemon' : 'error';

		if (!last || !finite(last.t))
			return 'waking';

		if (finite(now) && now - (last.t + (step || 1)) > STALE_SECS)
			return 'waking';

		return 'live';
	},

	/**
	 * The shaper of the WAN from sqm's queue sections, chosen as reterm-latencyd
	 * does: the first enabled queue (with an interface), the one on
	 * `wanDevice` when given.
	 * @param {Object[]} queues uci sections of type queue
	 * @param {string} [wanDevice] reterm.latency.wan_device
	 * @returns {{enabled: boolean, iface, rx, tx}|null} rates in bit/s
	 *   (null = 0 = not shaped); enabled false when queues exist but none
	 *   is enabled; null without queues
	 */
	shaperFromSqm(queues, wanDevice) {
		const list = Array.isArray(queues) ? queues.filter(isObject) : [];

		if (!list.length)
			return null;

		const kbit = (v) => {
			return /^[0-9]{1,9}$/.test(String(v == null ? '' : v)) && +v > 0 ? +v * 1000 : null;
		};

		for (let i = 0; i < list.length; i++) {
			const q = list[i];

			if (q.enabled !== '1' || !q.interface || (wanDevice && q.interface !== wanDevice))
				continue;

			return { enabled: true, iface: q.interface, rx: kbit(q.download), tx: kbit(q.upload) };
		}

		return { enabled: false, iface: null, rx: null, tx: null };
	},

	/**
	 * Progress of a test from a `test_status` reply: what reterm-latencyd
	 * says (its schedule is its own: total, phase, phase_index).
	 * @returns {{state, running, fraction, percent, elapsed, total,
	 *   remaining, phase, phaseIndex, label}} fraction 0…1, percent an
	 *   integer; label the current phase (running) or the end state;
	 *   total and remaining null when the reply has no total
	 */
	progress(st) {
		let s = isObject(st) ? st : {},
		    state = typeof s.state === 'string' ? s.state : 'idle',
		    total = (num(s.total) && s.total > 0) ? s.total : null,
		    elapsed = num(s.elapsed) !== null ? (total ? Math.min(s.elapsed, total) : s.elapsed) : 0,
		    fraction = num(s.progress) !== null ? Math.min(1, s.progress) : (total ? elapsed / total : 0),
		    running = (state === 'running'),
		    idx = (finite(s.phase_index) && s.phase_index >= 0) ? s.phase_index : null,
		    phase = (running && typeof s.phase === 'string' && s.phase) ? s.phase : null,
		    label;

		if (state === 'done')
			fraction = 1;

		if (running) {
			label = phase ? testresult.phaseLabel(phase, idx) : _('Running');
		}
		else {
			label = {
				idle: _('No test running'), done: _('Finished'),
				stopped: _('Stopped'), failed: _('Failed')
			}[state] || String(state);
		}

		return {
			state: state, running: running, fraction: fraction,
			percent: Math.round(fraction * 100), elapsed: elapsed, total: total,
			remaining: total ? Math.max(0, Math.ceil(total - elapsed)) : null,
			phase: phase, phaseIndex: running ? idx : null,
			label: label
		};
	},

	/**
	 * A select label for a result summary: "2024-06-10 10:00 · D".
	 */
	resultLabel(r) {
		const s = this.summary(r);

		if (!s)
			return '–';

		const parts = [testresult.when(s.time), s.grade || (s.failed ? _('failed') : '–')];

		if (s.stopped)
			parts.push(_('stopped'));
		else if (s.loadFailed)
			parts.push(_('load failed'));
		else if (s.inconclusive)
			parts.push(_('inconclusive'));

		if (isObject(r) && isObject(r.shaper) && (num(r.shaper.rx) || num(r.shaper.tx)))
			parts.push(_('shaped %s / %s').format(testresult.rate(r.shaper.rx), testresult.rate(r.shaper.tx)));
		else if (isObject(r) && r.shaper === null)
			parts.push(_('unshaped'));

		return parts.join(' · ');
	},

	/**
	 * Default pair for the before/after comparison of a results list
	 * (oldest first): "after" is the newest result; "before" the newest
	 * older one measured with other shaper settings (shaping switched on
	 * or rates changed), else the one before the newest.
	 * @returns {string[]|null} [beforeId, afterId]
	 */
	defaultPair(list) {
		const rs = (Array.isArray(list) ? list : []).filter((r) => isObject(r) && r.id != null);

		if (rs.length < 2)
			return null;

		const after = rs[rs.length - 1],
		    key = (r) => JSON.stringify(isObject(r.shaper) ? [r.shaper.rx || 0, r.shaper.tx || 0] : null);

		for (let i = rs.length - 2; i >= 0; i--)
			if (key(rs[i]) !== key(after) && !rs[i].error)
				return [String(rs[i].id), String(after.id)];

		return [String(rs[rs.length - 2].id), String(after.id)];
	},

	/**
	 * Before/after comparison of two results.
	 * @returns {Object|null} {before, after (summaries), grades: [{key,
	 *   label, before, after, steps (> 0: better by that many grades)}],
	 *   latency: [{phase, label, before, after, change (ms, < 0 better)}],
	 *   throughput: [{dir, label, before, after, change (fraction, < 0
	 *   = cost)}], rpm: {before, after}, baseline: {before, after}}
	 */
	compare(a, b) {
		const sa = this.summary(a), sb = this.summary(b);

		if (!sa || !sb)
			return null;

		const steps = (x, y) => {
			const i = gradeRank(x), j = gradeRank(y);
			return (i < 0 || j < 0) ? null : i - j;
		};

		const grades = [
			{ key: 'overall', label: _('Overall grade'), before: sa.grade, after: sb.grade },
			{ key: 'download', label: _('Download grade'), before: sa.download && sa.download.grade, after: sb.download && sb.download.grade },
			{ key: 'upload', label: _('Upload grade'), before: sa.upload && sa.upload.grade, after: sb.upload && sb.upload.grade }
		].map((g) => {
			g.before = g.before || null;
			g.after = g.after || null;
			g.steps = steps(g.before, g.after);
			return g;
		});

		const latency = ['download', 'upload', 'both'].map((name) => {
			const pa = phaseByName(a, name), pb = phaseByName(b, name),
			    x = pa ? num(pa.mean) : null, y = pb ? num(pb.mean) : null;

			return { phase: name, label: testresult.phaseLabel(name, 1), before: x, after: y,
			         change: (x !== null && y !== null) ? Math.round((y - x) * 10) / 10 : null };
		});

		const throughput = [['download', _('Download throughput')], ['upload', _('Upload throughput')]].map((d) => {
			const x = sa[d[0]] ? sa[d[0]].throughput : null, y = sb[d[0]] ? sb[d[0]].throughput : null;

			return { dir: d[0], label: d[1], before: x, after: y,
			         change: (x && y !== null) ? (y - x) / x : null };
		});

		return {
			before: sa, after: sb, grades: grades, latency: latency, throughput: throughput,
			rpm: { before: sa.rpm, after: sb.rpm },
			baseline: { before: sa.baseline, after: sb.baseline }
		};
	},

	/**
	 * One sentence on a comparison: what changed in latency under load
	 * and what it cost in throughput.
	 */
	compareText(c) {
		if (!isObject(c))
			return '';

		const g = c.grades[0], out = [];

		if (g.before && g.after)
			out.push(g.steps > 0 ? _('The grade improved from %s to %s.').format(g.before, g.after)
				: g.steps < 0 ? _('The grade got worse: %s, was %s.').format(g.after, g.before)
				: _('The grade stayed %s.').format(g.after));

		const signed = (v, digits, unit) => {
			return (v > 0 ? '+' : v < 0 ? '−' : '±') + Math.abs(v).toFixed(digits) + ' ' + unit;
		};

		const lat = c.latency.filter((l) => l.change !== null).map((l) => {
			return _('%s %s').format(testresult.phaseName(l.phase), units.formatMs(l.change, true));
		});

		if (lat.length)
			out.push(_('Added latency under load: %s.').format(lat.join(', ')));

		const tp = c.throughput.filter((t) => t.change !== null).map((t) => {
			return _('%s %s').format(t.dir === 'download' ? _('Download') : _('Upload'), signed(t.change * 100, 1, '%'));
		});

		if (tp.length)
			out.push(_('Throughput: %s.').format(tp.join(', ')));

		return out.join(' ');
	},

	/** How to get reterm-latencyd going. */
	notRunningText() {
		return _('The latency monitor (reterm-latencyd) is not running. Start it on the router with "/etc/init.d/reterm-latencyd start", and "/etc/init.d/reterm-latencyd enable" to start it at boot. It stays off while option enabled is \'0\' in the monitor section of /etc/config/reterm.');
	},

	/** Why there are no live points yet. */
	wakingText() {
		return _('The latency monitor was asleep: it sleeps while no page shows its graphs, and this page has just woken it. The first points appear within a few seconds.');
	}
});
