'use strict';
'require baseclass';
'require reterm.grade as grade';
'require reterm.units as units';

/*
 * What a finished test shows: the summary of a reterm-latencyd result (grades,
 * RPM, the reasons it is inconclusive), its per-phase rows, its CDF
 * series and the phase names. Pure, no DOM, no RPC. Use as:
 * 'require reterm.testresult as testresult';
 *
 *   testresult.summary(result)   → grades, RPM, reasons, …
 *   testresult.phaseRows(result) → [{name, label, mean, p95, …}]
 *
 * Conventions: as reterm.grade (ms, bit/s, fractions 0…1; bad input
 * gives null or an empty result, nothing throws). Messages are _().
 */

const finite = (v) => typeof v === 'number' && isFinite(v);
const num = (v) => (finite(v) && v >= 0 ? v : null);
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/* ---- phases and results ---------------------------------------------- */

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
	const m = /^(download|upload)_(throughput|loss)$/.exec(String(reason)),
	    r = isObject(result) ? result : {};

	if (!m)
		return String(reason);

	const dir = isObject(r[m[1]]) ? r[m[1]] : {},
	    who = (m[1] === 'download') ? _('Download') : _('Upload');

	if (m[2] === 'throughput') {
		const share = (num(dir.throughput_bps) !== null && num(dir.shaper_bps)) ? Math.floor(dir.throughput_bps / dir.shaper_bps * 100) : null;

		return _('%s: the load reached only %s of the %s shaper rate (%s; at least 80 %% needed). The test server or its path is too slow to fill the line, so the grade may look better than the line is.')
			.format(who, rate(dir.throughput_bps), rate(dir.shaper_bps), share === null ? '–' : share + ' %');
	}

	return _('%s: %s of the probes were lost (at most 2.5 %% allowed); latency numbers miss what the lost probes would have shown.')
		.format(who, num(dir.loss) === null ? '–' : (dir.loss * 100).toFixed(1) + ' %');
}

function direction(d) {
	if (!isObject(d))
		return null;

	const g = grade.GRADES.indexOf(d.grade) >= 0 ? d.grade : null,
	    tp = num(d.throughput_bps), sh = num(d.shaper_bps);

	return {
		grade: g, key: g ? grade.gradeKey(g) : null,
		added: num(d.added_ms), p95: num(d.p95_ms), peak: num(d.peak_ms),
		throughput: tp, shaper: sh || null,
		share: (tp !== null && sh) ? tp / sh : null,
		loss: num(d.loss)
	};
}

function pad2(n) {
	return (n < 10 ? '0' : '') + n;
}

/* epoch seconds → local "YYYY-MM-DD HH:MM" */
function when(t) {
	if (!finite(t))
		return '–';

	const d = new Date(t * 1000);

	return '%d-%s-%s %s:%s'.format(d.getFullYear(), pad2(d.getMonth() + 1), pad2(d.getDate()),
		pad2(d.getHours()), pad2(d.getMinutes()));
}

return baseclass.extend({
	__name__: 'reterm.testresult',

	phaseLabel: phaseLabel,
	phaseName: phaseName,
	rate: rate,
	when: when,

	/**
	 * What to show of a test result.
	 * @param {Object} r a result (test_status .result or results {id} .result)
	 * @returns {Object|null} {id, time, grade, key, download, upload
	 *   (direction(): grade, key, added, p95, peak, throughput, shaper,
	 *   share, loss), rpm, rpmClass, rpmLabel, baseline, inconclusive,
	 *   reasons: [text], errors: [text], stopped, duration, failed (the
	 *   daemon's message when no result could be computed), loadFailed}
	 */
	summary(r) {
		if (!isObject(r))
			return null;

		const g = grade.GRADES.indexOf(r.grade) >= 0 ? r.grade : null,
		    rpm = num(r.rpm),
		    rc = (typeof r.rpm_class === 'string') ? r.rpm_class : null,
		    dl = direction(r.download), ul = direction(r.upload),
		    reasons = Array.isArray(r.reasons) ? r.reasons : [],
		    errors = (Array.isArray(r.errors) ? r.errors : []).filter((e) => typeof e === 'string' && e);

		return {
			id: r.id != null ? String(r.id) : null,
			time: finite(r.time) ? r.time : null,
			grade: g, key: g ? grade.gradeKey(g) : null,
			download: dl, upload: ul,
			rpm: rpm === null ? null : Math.round(rpm),
			rpmClass: rc || null, rpmLabel: rc ? grade.rpmLabel(rc) : null,
			baseline: num(r.baseline),
			inconclusive: !!r.inconclusive || reasons.length > 0,
			reasons: reasons.map((x) => reasonText(x, r)),
			errors: errors,
			stopped: !!r.stopped,
			duration: num(r.duration),
			failed: r.error ? String(r.message || r.error) : null,
			/* load errors and a direction that moved (almost) nothing */
			loadFailed: errors.length > 0 && [dl, ul].some((d) => {
				return !d || d.throughput === null || d.throughput < 1e6 && (!d.shaper || d.share < 0.5);
			})
		};
	},

	/**
	 * Per-phase table rows of a result: [{name, label, mean, p95, peak,
	 * loss, rx, tx}] for each phase with statistics (all idle phases
	 * included, in test order).
	 */
	phaseRows(r) {
		const ph = (isObject(r) && Array.isArray(r.phases)) ? r.phases : [];

		return ph.filter(isObject).map((p, i) => {
			return {
				name: p.name, label: phaseLabel(p.name, i), start: p.start, end: p.end,
				mean: num(p.mean), p95: num(p.p95), peak: num(p.peak), loss: num(p.loss),
				rx: num(p.rx_bps), tx: num(p.tx_bps)
			};
		});
	},

	/**
	 * CDF series for graphresult's CDF chart: added latency (ms above the result's
	 * baseline) of the answered probes in the first idle phase and in
	 * the download, upload and both phases.
	 * @returns {Array<{name, label, values}>} empty without samples
	 */
	cdfSeries(r) {
		if (!isObject(r) || !Array.isArray(r.samples) || !Array.isArray(r.phases) || num(r.baseline) === null)
			return [];

		const base = r.baseline, out = [];
		let seenIdle = false;

		r.phases.forEach((p) => {
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

			const values = [];

			r.samples.forEach((s) => {
				const t = Array.isArray(s) ? s[0] : (s ? s.t : null),
				    rtt = Array.isArray(s) ? s[1] : (s ? s.rtt : null);

				if (finite(t) && num(rtt) !== null && t >= p.start * 1000 && t < p.end * 1000)
					values.push(Math.max(0, Math.round((rtt - base) * 10) / 10));
			});

			if (values.length)
				out.push({ name: p.name, label: phaseName(p.name), values: values });
		});

		return out;
	}
});
