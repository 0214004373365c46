'use strict';
'require baseclass';
'require reterm.grade as grade';
'require reterm.units as units';

/*
 * The latency monitor and guided test, client side: the pure logic the
 * Overview view (and later the wizard) needs around the retermd replies
 * (`samples`, `test_start`, `test_status`, `results`; see
 * /usr/share/ucode/reterm/monitor/service.uc and test.uc). No DOM, no
 * RPC. Use as: 'require reterm.monitor as monitor';
 *
 *   monitor.validateUrl('http://192.0.2.10/bytes/1000000000')  → null
 *   monitor.progress(testStatusReply)   → {fraction, label, …}
 *   monitor.summary(result)             → grades, RPM, reasons, …
 *   monitor.compare(before, after)      → rows of the before/after table
 *
 * Conventions: as reterm.grade (ms, bit/s, fractions 0…1; bad input
 * gives null or an empty result, nothing throws). Messages are _().
 */

/* the test's phase schedule (test.uc SCHEDULE): name, seconds */
var SCHEDULE = [
	['idle', 5], ['download', 10], ['idle', 2], ['upload', 10], ['idle', 2], ['both', 10], ['cooldown', 5]
];

var MAX_URL = 256, MAX_STREAMS = 16, DEFAULT_STREAMS = 4;

/* a live point older than this (s, after the newest row's interval)
 * means the daemon was asleep; rows normally lag ~3.6 s */
var STALE_SECS = 10;

function finite(v) {
	return typeof v === 'number' && isFinite(v);
}

function num(v) {
	return (finite(v) && v >= 0) ? v : null;
}

function isObject(v) {
	return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/* ---- URLs (grammar of monitor/args.uc http_url) --------------------- */

function ipv4(s) {
	var parts = s.split('.');

	if (parts.length !== 4)
		return false;

	return parts.every(function(p) {
		return /^(0|[1-9][0-9]{0,2})$/.test(p) && +p <= 255;
	});
}

function ipv6(s) {
	if (s.length > 45 || !/^[0-9A-Fa-f:.]+$/.test(s))
		return false;

	var halves = s.split('::');

	if (halves.length > 2)
		return false;

	var groups = function(h) { return h === '' ? [] : h.split(':'); },
	    head = groups(halves[0]),
	    tail = halves.length === 2 ? groups(halves[1]) : [],
	    all = head.concat(tail),
	    count = 0;

	for (var i = 0; i < all.length; i++) {
		if (i === all.length - 1 && all[i].indexOf('.') >= 0) {
			if (!ipv4(all[i]))
				return false;

			count += 2;
		}
		else if (/^[0-9A-Fa-f]{1,4}$/.test(all[i])) {
			count++;
		}
		else {
			return false;
		}
	}

	return halves.length === 2 ? count <= 7 : count === 8;
}

function hostname(s) {
	if (s.length > 253 || !/[A-Za-z]/.test(s))
		return false;

	return s.split('.').every(function(l) {
		return /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(l);
	});
}

var URL_RE = /^http:\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?(\/[A-Za-z0-9._~\/?=&%+,:@-]*)?$/;

/**
 * Parse a test URL as retermd does (monitor/args.uc http_url): http://
 * only, host (IPv4, [IPv6] or a hostname), optional port 1-65535, a path
 * of safe characters; printable ASCII without spaces, at most 256
 * characters.
 * @param {string} s
 * @returns {{url, host, port, path, family}|null} family 4, 6 or null (a name)
 */
function parseUrl(s) {
	if (typeof s !== 'string' || s.length < 1 || s.length > MAX_URL || !/^[\x21-\x7e]+$/.test(s))
		return null;

	var m = URL_RE.exec(s);

	if (!m)
		return null;

	var host = m[1], family = null, port = 80;

	if (host.charAt(0) === '[') {
		host = host.slice(1, -1);

		if (!ipv6(host))
			return null;

		family = 6;
	}
	else if (/^[0-9.]+$/.test(host)) {
		if (!ipv4(host))
			return null;

		family = 4;
	}
	else if (hostname(host)) {
		host = host.toLowerCase();
	}
	else {
		return null;
	}

	if (m[2] != null) {
		var p = m[2].slice(1);

		if (!/^[1-9][0-9]*$/.test(p) || +p > 65535)
			return null;

		port = +p;
	}

	return { url: s, host: host, port: port, path: m[3] || '/', family: family };
}

/* ---- replies ---------------------------------------------------------- */

/* phase label by name and position in the schedule */
function phaseLabel(name, index) {
	switch (name) {
	case 'idle':
		return (index === 0) ? _('Idle: measuring the baseline') : _('Pause');
	case 'download': return _('Download load');
	case 'upload': return _('Upload load');
	case 'both': return _('Download and upload');
	case 'cooldown': return _('Cool-down');
	}

	return String(name);
}

/* short phase name for tables */
function phaseName(name) {
	switch (name) {
	case 'idle': return _('Idle');
	case 'download': return _('Download');
	case 'upload': return _('Upload');
	case 'both': return _('Both');
	case 'cooldown': return _('Cool-down');
	}

	return String(name);
}

function rate(bps) {
	return num(bps) === null ? '–' : units.formatRate(bps);
}

/* reason code of a result ("download_throughput", "upload_loss") → text */
function reasonText(reason, result) {
	var m = /^(download|upload)_(throughput|loss)$/.exec(String(reason)),
	    r = isObject(result) ? result : {};

	if (!m)
		return String(reason);

	var dir = isObject(r[m[1]]) ? r[m[1]] : {},
	    who = (m[1] === 'download') ? _('Download') : _('Upload');

	if (m[2] === 'throughput') {
		var share = (num(dir.throughput_bps) !== null && num(dir.shaper_bps)) ? Math.floor(dir.throughput_bps / dir.shaper_bps * 100) : null;

		return _('%s: the load reached only %s of the %s shaper rate (%s; at least 80 %% needed). The test server or its path is too slow to fill the line, so the grade may look better than the line is.')
			.format(who, rate(dir.throughput_bps), rate(dir.shaper_bps), share === null ? '–' : share + ' %');
	}

	return _('%s: %s of the probes were lost (at most 2.5 %% allowed); latency numbers miss what the lost probes would have shown.')
		.format(who, num(dir.loss) === null ? '–' : (dir.loss * 100).toFixed(1) + ' %');
}

function direction(d) {
	if (!isObject(d))
		return null;

	var g = grade.GRADES.indexOf(d.grade) >= 0 ? d.grade : null,
	    tp = num(d.throughput_bps), sh = num(d.shaper_bps);

	return {
		grade: g, key: g ? grade.gradeKey(g) : null,
		added: num(d.added_ms), p95: num(d.p95_ms), peak: num(d.peak_ms),
		throughput: tp, shaper: sh || null,
		share: (tp !== null && sh) ? tp / sh : null,
		loss: num(d.loss)
	};
}

/* index of the grade, 0 = A+ … 5 = F, -1 unknown */
function gradeRank(g) {
	return grade.GRADES.indexOf(g);
}

function phaseByName(result, name) {
	var ph = (isObject(result) && Array.isArray(result.phases)) ? result.phases : [];

	for (var i = 0; i < ph.length; i++)
		if (isObject(ph[i]) && ph[i].name === name)
			return ph[i];

	return null;
}

function pad2(n) {
	return (n < 10 ? '0' : '') + n;
}

/* epoch seconds → local "YYYY-MM-DD HH:MM" */
function when(t) {
	if (!finite(t))
		return '–';

	var d = new Date(t * 1000);

	return '%d-%s-%s %s:%s'.format(d.getFullYear(), pad2(d.getMonth() + 1), pad2(d.getDate()),
		pad2(d.getHours()), pad2(d.getMinutes()));
}

return baseclass.extend({
	__name__: 'reterm.monitor',

	MAX_STREAMS: MAX_STREAMS,
	DEFAULT_STREAMS: DEFAULT_STREAMS,
	STALE_SECS: STALE_SECS,

	/** [{name, start, end}] of the test schedule, seconds from its start. */
	schedule: function() {
		var t = 0;

		return SCHEDULE.map(function(p) {
			var o = { name: p[0], start: t, end: t + p[1] };
			t += p[1];
			return o;
		});
	},

	/** Total test duration in seconds (44). */
	totalSecs: function() {
		return SCHEDULE.reduce(function(a, p) { return a + p[1]; }, 0);
	},

	phaseLabel: phaseLabel,
	phaseName: phaseName,
	parseUrl: parseUrl,
	when: when,

	/**
	 * Check a test URL. @returns {string|null} null when retermd will
	 * accept it, else the message to show
	 */
	validateUrl: function(s) {
		if (s == null || String(s).trim() === '')
			return _('Enter the URL of a plain-HTTP test server.');

		s = String(s);

		if (/^https:\/\//i.test(s))
			return _('Use http://, not https://: the router\'s test client has no TLS (the test data is junk anyway).');

		if (parseUrl(s) === null)
			return _('Expecting an http:// URL: a host name or IP address ([…] for IPv6), an optional port and a path of letters, digits and - . _ ~ / ? = & %% + , : @ (at most 256 characters, no spaces).');

		return null;
	},

	/** @returns {string|null} null for a whole number 1–16 */
	validateStreams: function(v) {
		var s = (v == null) ? '' : String(v).trim();

		if (!/^[1-9][0-9]?$/.test(s) || +s > MAX_STREAMS)
			return _('Expecting a whole number from 1 to %d.').format(MAX_STREAMS);

		return null;
	},

	/**
	 * A ubus reply's error, or null when it is a usable object:
	 * a number (ubus status without data) → {error: 'ubus', code}; an
	 * object with `error` → {error, message}; anything else → {error:
	 * 'invalid'}.
	 */
	replyError: function(reply) {
		if (typeof reply === 'number')
			return { error: 'ubus', code: reply, message: null };

		if (!isObject(reply))
			return { error: 'invalid', message: null };

		if (reply.error != null)
			return { error: String(reply.error), message: reply.message != null ? String(reply.message) : null };

		return null;
	},

	/**
	 * State of the live graphs: 'not_running' (retermd absent),
	 * 'error' (another failure), 'waking' (the daemon answered but has
	 * no recent rows: it was asleep and this poll woke it), 'live'.
	 *
	 * @param {Object|null} err replyError() of the last samples reply
	 * @param {Object|null} last the ring's newest point ({t})
	 * @param {number} now the daemon clock of the last reply (epoch s)
	 * @param {number} [step=1]
	 */
	liveState: function(err, last, now, step) {
		if (err)
			return err.error === 'not_running' ? 'not_running' : 'error';

		if (!last || !finite(last.t))
			return 'waking';

		if (finite(now) && now - (last.t + (step || 1)) > STALE_SECS)
			return 'waking';

		return 'live';
	},

	/**
	 * The shaper of the WAN from sqm's queue sections, chosen as retermd
	 * does: the first enabled queue (with an interface), the one on
	 * `wanDevice` when given.
	 * @param {Object[]} queues uci sections of type queue
	 * @param {string} [wanDevice] reterm.monitor.wan_device
	 * @returns {{enabled: boolean, iface, rx, tx}|null} rates in bit/s
	 *   (null = 0 = not shaped); enabled false when queues exist but none
	 *   is enabled; null without queues
	 */
	shaperFromSqm: function(queues, wanDevice) {
		var list = Array.isArray(queues) ? queues.filter(isObject) : [];

		if (!list.length)
			return null;

		var kbit = function(v) {
			return /^[0-9]{1,9}$/.test(String(v == null ? '' : v)) && +v > 0 ? +v * 1000 : null;
		};

		for (var i = 0; i < list.length; i++) {
			var q = list[i];

			if (q.enabled !== '1' || !q.interface || (wanDevice && q.interface !== wanDevice))
				continue;

			return { enabled: true, iface: q.interface, rx: kbit(q.download), tx: kbit(q.upload) };
		}

		return { enabled: false, iface: null, rx: null, tx: null };
	},

	/**
	 * Progress of a test from a `test_status` reply.
	 * @returns {{state, running, fraction, percent, elapsed, total,
	 *   remaining, phase, phaseIndex, label}} fraction 0…1, percent an
	 *   integer; label the current phase (running) or the end state
	 */
	progress: function(st) {
		var s = isObject(st) ? st : {},
		    state = typeof s.state === 'string' ? s.state : 'idle',
		    total = (num(s.total) && s.total > 0) ? s.total : this.totalSecs(),
		    elapsed = num(s.elapsed) !== null ? Math.min(s.elapsed, total) : 0,
		    fraction = num(s.progress) !== null ? Math.min(1, s.progress) : elapsed / total,
		    running = (state === 'running'),
		    idx = (finite(s.phase_index) && s.phase_index >= 0) ? s.phase_index : null,
		    label;

		if (state === 'done')
			fraction = 1;

		if (running) {
			if (idx === null) {
				var sch = this.schedule();

				for (idx = 0; idx < sch.length - 1 && elapsed >= sch[idx].end; idx++);
			}

			label = phaseLabel(s.phase || SCHEDULE[Math.min(idx, SCHEDULE.length - 1)][0], idx);
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
			remaining: Math.max(0, Math.ceil(total - elapsed)),
			phase: running ? (s.phase || null) : null, phaseIndex: running ? idx : null,
			label: label
		};
	},

	/**
	 * What to show of a test result.
	 * @param {Object} r a result (test_status .result or results {id} .result)
	 * @returns {Object|null} {id, time, grade, key, download, upload
	 *   (direction(): grade, key, added, p95, peak, throughput, shaper,
	 *   share, loss), rpm, rpmClass, rpmLabel, baseline, inconclusive,
	 *   reasons: [text], errors: [text], stopped, duration, failed (the
	 *   daemon's message when no result could be computed), loadFailed}
	 */
	summary: function(r) {
		if (!isObject(r))
			return null;

		var g = grade.GRADES.indexOf(r.grade) >= 0 ? r.grade : null,
		    rpm = num(r.rpm),
		    rc = (typeof r.rpm_class === 'string') ? r.rpm_class : grade.rpmClass(rpm),
		    dl = direction(r.download), ul = direction(r.upload),
		    reasons = Array.isArray(r.reasons) ? r.reasons : [],
		    errors = (Array.isArray(r.errors) ? r.errors : []).filter(function(e) { return typeof e === 'string' && e; });

		return {
			id: r.id != null ? String(r.id) : null,
			time: finite(r.time) ? r.time : null,
			grade: g, key: g ? grade.gradeKey(g) : null,
			download: dl, upload: ul,
			rpm: rpm === null ? null : Math.round(rpm),
			rpmClass: rc || null, rpmLabel: rc ? grade.rpmLabel(rc) : null,
			baseline: num(r.baseline),
			inconclusive: !!r.inconclusive || reasons.length > 0,
			reasons: reasons.map(function(x) { return reasonText(x, r); }),
			errors: errors,
			stopped: !!r.stopped,
			duration: num(r.duration),
			failed: r.error ? String(r.message || r.error) : null,
			/* load errors and a direction that moved (almost) nothing */
			loadFailed: errors.length > 0 && [dl, ul].some(function(d) {
				return !d || d.throughput === null || d.throughput < 1e6 && (!d.shaper || d.share < 0.5);
			})
		};
	},

	/**
	 * Per-phase table rows of a result: [{name, label, mean, p95, peak,
	 * loss, rx, tx}] for each phase with statistics (all idle phases
	 * included, in test order).
	 */
	phaseRows: function(r) {
		var ph = (isObject(r) && Array.isArray(r.phases)) ? r.phases : [];

		return ph.filter(isObject).map(function(p, i) {
			return {
				name: p.name, label: phaseLabel(p.name, i), start: p.start, end: p.end,
				mean: num(p.mean), p95: num(p.p95), peak: num(p.peak), loss: num(p.loss),
				rx: num(p.rx_bps), tx: num(p.tx_bps)
			};
		});
	},

	/**
	 * CDF series for graph.cdf(): added latency (ms above the result's
	 * baseline) of the answered probes in the first idle phase and in
	 * the download, upload and both phases.
	 * @returns {Array<{name, label, values}>} empty without samples
	 */
	cdfSeries: function(r) {
		if (!isObject(r) || !Array.isArray(r.samples) || !Array.isArray(r.phases) || num(r.baseline) === null)
			return [];

		var base = r.baseline, out = [], seenIdle = false;

		r.phases.forEach(function(p) {
			if (!isObject(p) || !finite(p.start) || !finite(p.end))
				return;

			if (p.name === 'idle') {
				if (seenIdle)
					return;
				seenIdle = true;
			}
			else if (['download', 'upload', 'both'].indexOf(p.name) < 0) {
				return;
			}

			var values = [];

			r.samples.forEach(function(s) {
				var t = Array.isArray(s) ? s[0] : (s ? s.t : null),
				    rtt = Array.isArray(s) ? s[1] : (s ? s.rtt : null);

				if (finite(t) && num(rtt) !== null && t >= p.start * 1000 && t < p.end * 1000)
					values.push(Math.max(0, Math.round((rtt - base) * 10) / 10));
			});

			if (values.length)
				out.push({ name: p.name, label: phaseName(p.name), values: values });
		});

		return out;
	},

	/**
	 * A select label for a result summary: "2024-06-10 10:00 · D".
	 */
	resultLabel: function(r) {
		var s = this.summary(r);

		if (!s)
			return '–';

		var parts = [when(s.time), s.grade || (s.failed ? _('failed') : '–')];

		if (s.stopped)
			parts.push(_('stopped'));
		else if (s.loadFailed)
			parts.push(_('load failed'));
		else if (s.inconclusive)
			parts.push(_('inconclusive'));

		if (isObject(r) && isObject(r.shaper) && (num(r.shaper.rx) || num(r.shaper.tx)))
			parts.push(_('shaped %s / %s').format(rate(r.shaper.rx), rate(r.shaper.tx)));
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
	defaultPair: function(list) {
		var rs = (Array.isArray(list) ? list : []).filter(function(r) { return isObject(r) && r.id != null; });

		if (rs.length < 2)
			return null;

		var after = rs[rs.length - 1],
		    key = function(r) { return JSON.stringify(isObject(r.shaper) ? [r.shaper.rx || 0, r.shaper.tx || 0] : null); };

		for (var i = rs.length - 2; i >= 0; i--)
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
	compare: function(a, b) {
		var sa = this.summary(a), sb = this.summary(b);

		if (!sa || !sb)
			return null;

		var steps = function(x, y) {
			var i = gradeRank(x), j = gradeRank(y);
			return (i < 0 || j < 0) ? null : i - j;
		};

		var grades = [
			{ key: 'overall', label: _('Overall grade'), before: sa.grade, after: sb.grade },
			{ key: 'download', label: _('Download grade'), before: sa.download && sa.download.grade, after: sb.download && sb.download.grade },
			{ key: 'upload', label: _('Upload grade'), before: sa.upload && sa.upload.grade, after: sb.upload && sb.upload.grade }
		].map(function(g) {
			g.before = g.before || null;
			g.after = g.after || null;
			g.steps = steps(g.before, g.after);
			return g;
		});

		var latency = ['download', 'upload', 'both'].map(function(name) {
			var pa = phaseByName(a, name), pb = phaseByName(b, name),
			    x = pa ? num(pa.mean) : null, y = pb ? num(pb.mean) : null;

			return { phase: name, label: phaseLabel(name, 1), before: x, after: y,
			         change: (x !== null && y !== null) ? Math.round((y - x) * 10) / 10 : null };
		});

		var throughput = [['download', _('Download throughput')], ['upload', _('Upload throughput')]].map(function(d) {
			var x = sa[d[0]] ? sa[d[0]].throughput : null, y = sb[d[0]] ? sb[d[0]].throughput : null;

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
	compareText: function(c) {
		if (!isObject(c))
			return '';

		var g = c.grades[0], out = [];

		if (g.before && g.after)
			out.push(g.steps > 0 ? _('The grade improved from %s to %s.').format(g.before, g.after)
				: g.steps < 0 ? _('The grade got worse: %s, was %s.').format(g.after, g.before)
				: _('The grade stayed %s.').format(g.after));

		var signed = function(v, digits, unit) {
			return (v > 0 ? '+' : v < 0 ? '−' : '±') + Math.abs(v).toFixed(digits) + ' ' + unit;
		};

		var lat = c.latency.filter(function(l) { return l.change !== null; }).map(function(l) {
			return _('%s %s').format(phaseName(l.phase), signed(l.change, 1, _('ms')));
		});

		if (lat.length)
			out.push(_('Added latency under load: %s.').format(lat.join(', ')));

		var tp = c.throughput.filter(function(t) { return t.change !== null; }).map(function(t) {
			return _('%s %s').format(t.dir === 'download' ? _('Download') : _('Upload'), signed(t.change * 100, 1, '%'));
		});

		if (tp.length)
			out.push(_('Throughput: %s.').format(tp.join(', ')));

		return out.join(' ');
	},

	/**
	 * The message for a failed test_start / test_stop reply (replyError()).
	 */
	startError: function(err) {
		if (!err)
			return null;

		switch (err.error) {
		case 'not_running':
			return this.notRunningText();
		case 'busy':
			return _('A test is already running; its progress is shown below.');
		case 'invalid_argument':
			return _('The router refused the test settings: %s').format(err.message || err.error);
		case 'target_refused':
			return _('The router refused the test server: test servers must be public Internet addresses on port 80, 443 or 8080. A server on the local network can only be allowed by the router\'s administrator (option test_server in /etc/config/reterm_admin).');
		case 'too_soon':
			return _('The last test ended only a moment ago: wait %d s and start again.').format(+err.wait_s || 0);
		case 'ubus':
			return _('The router\'s reterm API is not available (ubus status %d). Is luci-app-reterm installed completely, and rpcd restarted after installing it?').format(err.code);
		}

		return err.message || String(err.error);
	},

	/** How to get retermd going. */
	notRunningText: function() {
		return _('The latency monitor (retermd) is not running. Start it on the router with "/etc/init.d/retermd start", and "/etc/init.d/retermd enable" to start it at boot. It stays off while option enabled is \'0\' in the monitor section of /etc/config/reterm.');
	},

	/** Why there are no live points yet. */
	wakingText: function() {
		return _('The latency monitor was asleep: it sleeps while no page shows its graphs, and this page has just woken it. The first points appear within a few seconds.');
	}
});
