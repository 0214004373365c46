import { describe, it, expect, beforeAll } from 'vitest';
import { createHarness } from './harness/luci.js';

/* Geometry is pure and tested directly; the charts are built on the
 * harness' tiny DOM (no createElementNS there: graphchart.js falls back to
 * createElement, so the structure can be checked, not the rendering —
 * tests/browser/graph.browser.mjs does that in Chromium). */

let geom, live, result, h;

beforeAll(async () => {
	h = createHarness();
	geom = await h.require('reterm.graph.geom');
	live = await h.require('reterm.graph.live');
	result = await h.require('reterm.graph.result');
});

const T = 1718000000;

/* per-second points for t = T+from … T+to-1, median 20 + i % 7 */
function points(from, to, skip = []) {
	const out = [];
	for (let i = from; i < to; i++)
		if (!skip.includes(i))
			out.push({ t: T + i, min: 18 + (i % 7), med: 20 + (i % 7), max: 25 + (i % 7), base: 19, rx_bps: 1e6 * (i % 20), tx_bps: 2e5 });
	return out;
}

const id = v => v;

describe('scale', () => {
	it('maps the domain linearly onto the range, and back', () => {
		const s = geom.scale([0, 100], [200, 0]);
		expect(s(0)).toBe(200);
		expect(s(25)).toBe(150);
		expect(s(100)).toBe(0);
		expect(s(150)).toBe(-100);
		expect(s.invert(150)).toBe(25);
		expect(s.domain).toEqual([0, 100]);
		expect(s.range).toEqual([200, 0]);
	});

	it('a zero-width domain maps to the middle of the range', () => {
		const s = geom.scale([5, 5], [0, 100]);
		expect(s(5)).toBe(50);
		expect(s(99)).toBe(50);
		expect(s.ticks()).toEqual([5]);
	});

	it('replaces an invalid domain or range by [0, 1]', () => {
		expect(geom.scale([NaN, 3], [0, 10])(0.5)).toBe(5);
		expect(geom.scale(null, [0, 10])(1)).toBe(10);
		expect(geom.scale([0, 10], 'x')(5)).toBe(0.5);
	});

	it('nice() widens the domain to tick multiples', () => {
		expect(geom.scale([0, 87], [0, 1]).nice(4).domain).toEqual([0, 100]);
		expect(geom.scale([0, 263], [0, 1]).nice(4).domain).toEqual([0, 300]);
		expect(geom.scale([0, 0.27], [0, 1]).nice(4).domain).toEqual([0, 0.3]);
		expect(geom.scale([13, 47], [0, 1]).nice(4).domain).toEqual([10, 50]);
		expect(geom.scale([0, 100], [0, 1]).nice(4).domain).toEqual([0, 100]);
		expect(geom.scale([7, 7], [0, 1]).nice(4).domain).toEqual([7, 7]);
	});
});

describe('ticks', () => {
	it.each([
		[0, 100, 5, [0, 20, 40, 60, 80, 100]],
		[0, 400, 4, [0, 100, 200, 300, 400]],
		[0, 1, 4, [0, 0.2, 0.4, 0.6, 0.8, 1]],
		[0, 0.3, 3, [0, 0.1, 0.2, 0.3]],
		[3, 97, 4, [20, 40, 60, 80]],
		[100, 0, 5, [0, 20, 40, 60, 80, 100]],
		[-10, 10, 4, [-10, -5, 0, 5, 10]],
		[0, 25e6, 5, [0, 5e6, 10e6, 15e6, 20e6, 25e6]]
	])('ticks(%d, %d, %d)', (lo, hi, n, want) => {
		expect(geom.ticks(lo, hi, n)).toEqual(want);
	});

	it('steps are 1, 2 or 5 × 10^k', () => {
		for (const span of [0.003, 0.7, 3, 17, 99, 450, 1234, 987654]) {
			const step = geom.tickStep(0, span, 5);
			const mant = step / Math.pow(10, Math.floor(Math.log10(step)));
			expect([1, 2, 5, 10]).toContain(Math.round(mant * 1e9) / 1e9);
			expect(span / step).toBeGreaterThanOrEqual(2);
			expect(span / step).toBeLessThanOrEqual(10);
		}
	});

	it('empty and invalid intervals', () => {
		expect(geom.ticks(4, 4)).toEqual([4]);
		expect(geom.ticks(NaN, 4)).toEqual([]);
		expect(geom.tickStep(1, 1, 5)).toBe(0);
	});

	it('timeTicks: a 10-minute live strip gets 2-minute ticks anchored at now', () => {
		expect(geom.timeTicks(T - 600, T, 6)).toEqual({ step: 120, values: [T - 600, T - 480, T - 360, T - 240, T - 120, T] });
		expect(geom.timeTicks(T - 60, T, 6).step).toBe(10);
		expect(geom.timeTicks(T - 3600, T, 6).step).toBe(600);
		expect(geom.timeTicks(T - 86400, T, 6).step).toBe(21600);
		expect(geom.timeTicks(0, 44, 8, 0)).toEqual({ step: 10, values: [0, 10, 20, 30, 40] });
		expect(geom.timeTicks(5, 5, 6)).toEqual({ step: 0, values: [] });
	});

	it('labels relative times', () => {
		expect([0, 30, 90, 120, 600, 3600, 5400, 7200, 21600].map(s => geom.agoLabel(s)))
			.toEqual(['now', '−30 s', '−90 s', '−2 min', '−10 min', '−60 min', '−90 min', '−2 h', '−6 h']);
		expect(geom.clock(T)).toMatch(/^\d\d:\d\d:\d\d$/);
	});
});

describe('paths', () => {
	const pts = [{ x: 0, y: 0 }, { x: 1, y: 10 }, { x: 2, y: null }, { x: 3, y: 30 }, { x: 4, y: 40 }, { x: 7, y: 70 }, { x: 8, y: 80 }];

	it('runs() splits at missing values and at gaps above maxGap', () => {
		expect(geom.runs(pts, 'x', ['y'], 1.5)).toEqual([[0, 1], [3, 4], [5, 6]]);
		expect(geom.runs(pts, 'x', ['y'])).toEqual([[0, 1], [3, 6]]);
		expect(geom.runs([{ x: 0, y: NaN }, { x: 1 }, { x: 'a', y: 1 }], 'x', ['y'], 1.5)).toEqual([]);
		expect(geom.runs(null, 'x', ['y'])).toEqual([]);
	});

	it('linePath() starts a new subpath after each gap', () => {
		expect(geom.linePath(pts, 'x', 'y', id, id, 1.5)).toBe('M0,0L1,10M3,30L4,40M7,70L8,80');
	});

	it('linePath() rounds to 0.1 px and draws a lone point as a dot (h0)', () => {
		const sx = v => v / 3, sy = v => 100 - v;
		expect(geom.linePath([{ x: 1, y: 1 }, { x: 2, y: 2.26 }], 'x', 'y', sx, sy)).toBe('M0.3,99L0.7,97.7');
		expect(geom.linePath([{ x: 1, y: 5 }, { x: 9, y: 6 }], 'x', 'y', id, id, 1.5)).toBe('M1,5h0M9,6h0');
	});

	it('linePath() of nothing is empty', () => {
		expect(geom.linePath([], 'x', 'y', id, id)).toBe('');
		expect(geom.linePath([{ x: 0, y: null }], 'x', 'y', id, id)).toBe('');
		expect(geom.linePath(undefined, 'x', 'y', id, id)).toBe('');
	});

	it('bandPath() closes one polygon per run: high forwards, low backwards', () => {
		const band = [{ t: 0, lo: 1, hi: 5 }, { t: 1, lo: 2, hi: 6 }, { t: 2, lo: null, hi: 7 }, { t: 3, lo: 3, hi: 8 },
			{ t: 4, lo: 4, hi: 9 }, { t: 5, lo: 5, hi: 9 }, { t: 9, lo: 1, hi: 2 }];
		expect(geom.bandPath(band, 't', 'lo', 'hi', id, id, 1.5)).toBe('M0,5L1,6L1,2L0,1ZM3,8L4,9L5,9L5,5L4,4L3,3Z');
	});

	it('accessors may be functions', () => {
		expect(geom.linePath([{ a: [0, 1] }, { a: [1, 2] }], p => p.a[0], p => p.a[1], id, id)).toBe('M0,1L1,2');
	});

	it('stepPath() draws a CDF as a staircase from 0', () => {
		const sx = v => v, sy = p => 100 - 100 * p;
		expect(geom.stepPath([{ x: 1, p: 0.25 }, { x: 2, p: 0.75 }, { x: 3, p: 1 }], sx, sy)).toBe('M1,100V75H2V25H3V0');
		expect(geom.stepPath(null, sx, sy)).toBe('');
	});
});

describe('gradeBands', () => {
	it('places each band at baseline + bounds, clipped to the y domain', () => {
		const sy = geom.scale([0, 100], [100, 0]);
		expect(geom.gradeBands(sy, 20).map(b => [b.grade, b.y, b.height])).toEqual([
			['A+', 75, 5], ['A', 50, 25], ['B', 20, 30], ['C', 0, 20], ['D', 0, 0], ['F', 0, 0]
		]);
	});

	it('uses the chart scale with a baseline above part of the domain', () => {
		const sy = geom.scale([0, 500], [156, 12]);
		const bands = geom.gradeBands(sy, 22);
		expect(bands.map(b => b.key)).toEqual(['aplus', 'a', 'b', 'c', 'd', 'f']);
		/* contiguous from the baseline up to the top of the plot */
		expect(bands[0].y + bands[0].height).toBeCloseTo(sy(22), 0);
		for (let i = 1; i < bands.length; i++)
			expect(bands[i].y + bands[i].height).toBeCloseTo(bands[i - 1].y, 0);
		expect(bands[4].y).toBeCloseTo(sy(422), 0);
		expect(bands[5]).toMatchObject({ from: 422, to: 500 });
		expect(bands[5].y).toBe(12);
	});
});

describe('latency strip (structure)', () => {
	const q = (chart, sel) => chart.node.querySelector(sel);
	const qa = (chart, sel) => [...chart.node.querySelectorAll(sel)];

	it('builds svg, legend and a visually hidden table', () => {
		const c = live.latencyStrip();
		const svg = q(c, 'svg');
		expect(c.node.classList.contains('reterm-graph')).toBe(true);
		expect(svg.getAttribute('role')).toBe('img');
		expect(svg.getAttribute('viewBox')).toBe('0 0 720 180');
		expect(q(c, '.reterm-sr-table > table > caption').textContent).toBe('Latency');
		expect(qa(c, 'thead th').map(th => th.textContent)).toEqual(['Time', 'Min (ms)', 'Median (ms)', 'Max (ms)']);
		expect(qa(c, '.reterm-legend .reterm-key').length).toBe(4);
		expect(qa(c, 'rect.reterm-band').map(r => r.getAttribute('class'))).toEqual(
			['aplus', 'a', 'b', 'c', 'd', 'f'].map(k => `reterm-band reterm-band-${k}`));
		expect(q(c, 'g.reterm-data').getAttribute('clip-path')).toMatch(/^url\(#reterm-graph-\d+-clip\)$/);
	});

	it('empty data draws the empty state, not a crash', () => {
		const c = live.latencyStrip();
		for (const bad of [[], null, undefined, 'x', [null, 5, {}, { t: 'x' }], [{ t: T }]]) {
			expect(() => c.update(bad, {})).not.toThrow();
			expect(c.node.classList.contains('reterm-graph-empty')).toBe(true);
			expect(q(c, 'text.reterm-empty').getAttribute('display')).toBe('inline');
			expect(q(c, 'path.reterm-s-med').getAttribute('d')).toBe('');
			expect(q(c, 'svg').getAttribute('aria-label')).toBe('Latency: no data yet');
		}
		expect(() => c.update([], { from: NaN, to: 'x', base: -5, step: 0 })).not.toThrow();
		expect(qa(c, 'tbody tr').length).toBe(1);
		expect(q(c, 'tbody td').textContent).toBe('No data yet');
	});

	it('draws median, band, baseline and grade bands; the line breaks at gaps', () => {
		const c = live.latencyStrip();
		const pts = points(0, 600, [100, 101, 102, 300]);
		pts[400].med = null;                      /* all probes lost that second */
		c.update(pts, { from: T, to: T + 600 });

		const d = q(c, 'path.reterm-s-med').getAttribute('d');
		expect(d.match(/M/g).length).toBe(4);
		expect(d.match(/[ML]/g).length).toBe(pts.length - 1);
		expect(q(c, 'path.reterm-s-range').getAttribute('d').match(/Z/g).length).toBe(3);
		expect(c.node.classList.contains('reterm-graph-empty')).toBe(false);

		/* y domain: 0 … nice(max(31, 19 + 40)) = 60; plot 22…156 */
		const base = q(c, 'line.reterm-s-base');
		const sy = geom.scale([0, 60], [156, 22]);
		expect(+base.getAttribute('y1')).toBeCloseTo(sy(19), 1);
		expect(base.getAttribute('display')).toBe('inline');
		const rects = qa(c, 'rect.reterm-band');
		expect(+rects[0].getAttribute('y')).toBeCloseTo(sy(24), 1);
		expect(+rects[0].getAttribute('height')).toBeCloseTo(sy(19) - sy(24), 1);
		expect(+rects[2].getAttribute('y')).toBeCloseTo(22, 1);          /* B reaches the top */
		expect(+rects[3].getAttribute('height')).toBe(0);

		expect(qa(c, 'tbody tr').length).toBe(pts.length);
		expect(q(c, 'svg').getAttribute('aria-label')).toBe('Latency: median now 24.0 ms, baseline 19.0 ms, highest 31.0 ms');
		expect(qa(c, 'text.reterm-tick-x').map(t => t.textContent)).toEqual(['−10 min', '−8 min', '−6 min', '−4 min', '−2 min', 'now']);
		expect(qa(c, 'text.reterm-tick-y').map(t => t.textContent)).toEqual(['0', '20', '40', '60']);
	});

	it('falls back to the lowest RTT as baseline and takes opts.base first', () => {
		const c = live.latencyStrip();
		const pts = points(0, 10).map(p => Object.assign(p, { base: undefined }));
		c.update(pts, {});
		expect(q(c, 'svg').getAttribute('aria-label')).toMatch(/baseline 18\.0 ms/);
		c.update(pts, { base: 30 });
		expect(q(c, 'svg').getAttribute('aria-label')).toMatch(/baseline 30\.0 ms/);
	});

	it('reuses its elements across redraws', () => {
		const c = live.latencyStrip();
		c.update(points(0, 600), { from: T, to: T + 600 });
		const med = q(c, 'path.reterm-s-med'), first = qa(c, 'tbody tr')[1];
		const count = c.node.querySelectorAll('*').length;
		c.update(points(1, 601), { from: T + 1, to: T + 601 });
		expect(q(c, 'path.reterm-s-med')).toBe(med);
		expect(qa(c, 'tbody tr')[0]).toBe(first);           /* shifted, not rebuilt */
		expect(c.node.querySelectorAll('*').length).toBe(count);
	});

	it('the table diff gives the same rows as a fresh render', () => {
		const strip = live.latencyStrip();
		for (const [a, b, skip] of [[0, 600, []], [5, 605, [300]], [5, 605, [300, 301]], [300, 900, []], [320, 330, []], [0, 50, [10]]]) {
			const pts = points(a, b, skip);
			strip.update(pts, { from: T + a, to: T + b });
			const fresh = live.latencyStrip();
			fresh.update(pts, { from: T + a, to: T + b });
			expect(strip.tbody.textContent).toBe(fresh.tbody.textContent);
			expect(strip.tbody.children.length).toBe(pts.length);
		}
	});
});

describe('other charts (structure)', () => {
	it('throughput: dashed shaper lines only when a rate is set, in the axis unit', () => {
		const c = live.throughput();
		const pts = points(0, 600);
		c.update(pts, { from: T, to: T + 600 });
		const lines = [...c.node.querySelectorAll('line.reterm-s-shaper')];
		expect(lines.map(l => l.getAttribute('display'))).toEqual(['none', 'none']);
		expect(c.yUnit.textContent).toBe('Mbit/s');

		c.update(pts, { from: T, to: T + 600, shaper: { rx: 18e6, tx: 4.5e6 } });
		expect(lines.map(l => l.getAttribute('display'))).toEqual(['inline', 'inline']);
		/* y: 0 … nice(19e6 × 1.08 in Mbit/s) = 25 */
		const sy = geom.scale([0, 25], [156, 22]);
		expect(+lines[0].getAttribute('y1')).toBeCloseTo(sy(18), 1);
		expect(+lines[1].getAttribute('y1')).toBeCloseTo(sy(4.5), 1);
		expect([...c.node.querySelectorAll('text.reterm-shaper-label')].map(t => t.textContent)).toEqual(['Shaper ↓ 18 Mbit/s', 'Shaper ↑ 4.5 Mbit/s']);
		expect(c.node.querySelector('path.reterm-s-rx').getAttribute('d')).not.toBe('');
		expect(c.node.querySelector('path.reterm-s-tx').getAttribute('d')).not.toBe('');
		expect(c.node.querySelectorAll('tbody tr').length).toBe(600);
		expect(c.node.querySelector('tbody td').textContent).toBe('0 bit/s');
		expect([...c.node.querySelectorAll('tbody tr')[15].children].map(td => td.textContent).slice(1)).toEqual(['15 Mbit/s', '200 kbit/s']);

		c.update([], { shaper: { rx: 18e6 } });
		expect(c.node.classList.contains('reterm-graph-empty')).toBe(true);
	});

	it('throughput: adaptive shaping draws the shaper rate as it moved, labelled with the newest', () => {
		const c = live.throughput();
		const pts = points(0, 60).map((q, i) => ({ ...q, sh_rx: (i < 30 ? 20e6 : 8e6), sh_tx: 5e6 }));
		c.update(pts, { from: T, to: T + 60, shaper: { rx: 18e6, tx: 4.5e6 } });
		const lines = [...c.node.querySelectorAll('line.reterm-s-shaper')];
		expect(lines.map(l => l.getAttribute('display'))).toEqual(['none', 'none']);
		const rx = c.node.querySelector('path.reterm-s-moving.reterm-s-shaper-rx').getAttribute('d');
		const ys = new Set(rx.match(/[ML][0-9.]+,([0-9.]+)/g).map(m => m.split(',')[1]));
		expect(ys.size).toBe(2);
		expect([...c.node.querySelectorAll('text.reterm-shaper-label')].map(t => t.textContent)).toEqual(['Shaper ↓ 8 Mbit/s', 'Shaper ↑ 5 Mbit/s']);

		c.update(points(0, 60), { from: T, to: T + 60, shaper: { rx: 18e6, tx: 4.5e6 } });
		expect(c.node.querySelector('path.reterm-s-moving').getAttribute('d')).toBe('');
		expect(lines.map(l => l.getAttribute('display'))).toEqual(['inline', 'inline']);
	});

	it('throughput picks kbit/s for small rates', () => {
		const c = live.throughput();
		c.update([{ t: T, rx_bps: 300e3, tx_bps: 100e3 }], {});
		expect(c.yUnit.textContent).toBe('kbit/s');
	});

	it('cake: delay lines and one bar per second with drops', () => {
		const c = live.cake();
		const pts = [{ t: T, dl_pk: 5, ul_pk: 1, dl_drop: 0, ul_drop: 0 }, { t: T + 1, dl_pk: 7, ul_pk: 2, dl_drop: 3, ul_drop: 1, dl_ecn: 2 },
			{ t: T + 2, dl_pk: null, ul_pk: null }, { t: T + 3, dl_pk: 6, ul_pk: 2, dl_drop: 2 }];
		c.update(pts, { from: T, to: T + 10 });
		expect(c.node.querySelector('path.reterm-s-dl').getAttribute('d').match(/M/g).length).toBe(2);
		expect(c.node.querySelector('path.reterm-s-drops').getAttribute('d').match(/V/g).length).toBe(2);
		expect([...c.node.querySelectorAll('tbody tr')[1].children].map(td => td.textContent).slice(1)).toEqual(['7.0', '2.0', '4', '2']);
		expect([...c.node.querySelectorAll('tbody tr')[2].children].map(td => td.textContent).slice(1)).toEqual(['–', '–', '–', '–']);
		c.update(null);
		expect(c.node.classList.contains('reterm-graph-empty')).toBe(true);
	});

	it('phases: one shaded rect per phase on a shared time axis, the daemon\'s figures per phase in the table', () => {
		const c = result.phases();
		/* the result's phase figures are reterm-latencyd's: shown as given, not computed from the samples */
		const phases = [{ name: 'idle', start: 0, end: 5, mean: 0, p95: 0.4, peak: 0.2, loss: 0 },
			{ name: 'download', start: 5, end: 15, mean: 30, p95: 31.5, peak: 33.2, loss: 0.005 },
			{ name: 'upload', start: 15, end: 20, mean: 30, p95: 30, peak: 30, loss: 0 }];
		const samples = [];
		for (let t = 0; t < 20000; t += 50)
			samples.push({ t, rtt: t < 5000 ? 20 : (t === 7000 ? null : 50) });
		c.update({ phases, samples, baseline: 20 });

		const rects = [...c.node.querySelectorAll('rect.reterm-phase')];
		expect(rects.map(r => r.getAttribute('class'))).toEqual(['reterm-phase reterm-phase-idle', 'reterm-phase reterm-phase-download', 'reterm-phase reterm-phase-upload']);
		const sx = geom.scale([0, 20], [46, 706]);
		expect(rects.map(r => +r.getAttribute('x'))).toEqual([sx(0), sx(5), sx(15)]);
		expect(+rects[1].getAttribute('width')).toBeCloseTo(sx(15) - sx(5), 1);
		expect(c.node.querySelector('path.reterm-s-probe').getAttribute('d').match(/M/g).length).toBe(2);
		const rows = [...c.node.querySelectorAll('tbody tr')].map(tr => [...tr.children].map(td => td.textContent));
		expect(rows[1]).toEqual(['Download', '5–15', '30.0', '31.5', '33.2', '0.5%']);
		c.update({ phases: [{ name: 'download', start: 5, end: 15 }], samples, baseline: 20 });
		expect([...c.node.querySelectorAll('tbody tr')][0].textContent).toBe('Download5–15––––');
		c.update({ phases, samples, baseline: 20 });
		expect(c.svg.getAttribute('aria-label')).toBe('Latency during the test: idle baseline 20.0 ms; mean added latency: Download +30.0 ms, Upload +30.0 ms');

		c.update({ phases: [{ name: 'x', start: 3, end: 1 }], samples: 'no', baseline: NaN });
		expect(c.node.classList.contains('reterm-graph-empty')).toBe(true);
		expect(c.node.querySelectorAll('rect.reterm-phase').length).toBe(0);
	});

	it('cdf: one staircase per phase with values, a percentile table row per phase', () => {
		const c = result.cdf();
		c.update([{ name: 'download', values: [1, 2, 3, 4] }, { name: 'upload', values: [] }, { name: 'both', values: [10, 20] }, null]);
		const lines = [...c.node.querySelectorAll('path.reterm-s-cdf')];
		expect(lines.map(l => l.getAttribute('class'))).toEqual(['reterm-s-cdf reterm-s-cdf-download', 'reterm-s-cdf reterm-s-cdf-both']);
		expect(lines.every(l => /^M[\d.,]+V/.test(l.getAttribute('d')))).toBe(true);
		expect([...c.node.querySelectorAll('tbody tr')].map(tr => tr.children[0].textContent)).toEqual(['Download', 'Upload', 'Both']);
		expect([...c.node.querySelectorAll('tbody tr')[0].children].map(td => td.textContent).slice(1)).toEqual(['2.0', '4.0', '4.0', '4.0', '4.0']);
		expect([...c.node.querySelectorAll('text.reterm-tick-y')].map(t => t.textContent)).toEqual(['0%', '25%', '50%', '75%', '100%']);
		c.update([]);
		expect(c.node.classList.contains('reterm-graph-empty')).toBe(true);
		expect(c.node.querySelectorAll('path.reterm-s-cdf').length).toBe(0);
	});

	it('every chart has a unique clip path id', () => {
		const ids = [live.latencyStrip(), live.throughput(), live.cake(), result.phases(), result.cdf()]
			.map(c => c.node.querySelector('clipPath').getAttribute('id'));
		expect(new Set(ids).size).toBe(5);
	});
});
