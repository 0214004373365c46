import { describe, it, expect, beforeAll } from 'vitest';
import { createHarness } from './harness/luci.js';

let ring, page;

beforeAll(async () => {
	page = createHarness();
	ring = await page.require('reterm.ring');
});

const T = 1718000000;
const COLS = ['min', 'med', 'max', 'rx', 'tx'];

/* a reply with rows for t0 … t0 + n - 1 (row i = [i, i + 1, i + 2, …]) */
function reply(t0, n, extra = {}) {
	const rows = Array.from({ length: n }, (_, i) => [20 + i, 21 + i, 25 + i, 1e6 * (i + 1), 1e5 * (i + 1)]);
	return Object.assign({ v: 1, id: 'a', now: t0 + n, step: 1, t0, cols: COLS, rows }, extra);
}

const times = r => r.points().map(p => p.t - T);

describe('ring.merge', () => {
	it('stores rows as points named after the columns (rx/tx → rx_bps/tx_bps)', () => {
		const r = ring.create();
		expect(r.merge(reply(T, 3))).toBe(3);
		expect(r.points()).toEqual([
			{ t: T, min: 20, med: 21, max: 25, rx_bps: 1e6, tx_bps: 1e5 },
			{ t: T + 1, min: 21, med: 22, max: 26, rx_bps: 2e6, tx_bps: 2e5 },
			{ t: T + 2, min: 22, med: 23, max: 27, rx_bps: 3e6, tx_bps: 3e5 }
		]);
		expect(r.since()).toBe(T + 2);
		expect(r.latest().t).toBe(T + 2);
		expect(r.length).toBe(3);
	});

	it('defaults to 10 minutes of seconds', () => {
		const r = ring.create();
		expect([r.step, r.span, r.capacity]).toEqual([1, 600, 600]);
		const m = new ring.Ring({ step: 60, span: 86400 });
		expect(m.capacity).toBe(1440);
	});

	it('ignores duplicates and points out of order', () => {
		const r = ring.create();
		r.merge(reply(T, 5));
		expect(r.merge(reply(T, 5))).toBe(0);             /* the same reply again */
		expect(r.merge(reply(T + 2, 5))).toBe(2);         /* overlaps: only T+5, T+6 are new */
		expect(r.merge(reply(T - 10, 3, { now: T + 7 }))).toBe(0);  /* older than held */
		expect(times(r)).toEqual([0, 1, 2, 3, 4, 5, 6]);
	});

	it('keeps gaps as gaps: null rows and time holes are not stored or interpolated', () => {
		const r = ring.create();
		const rep = reply(T, 6);
		rep.rows[2] = null;
		rep.rows[3] = [1, 2];                              /* wrong length: skipped like a gap */
		r.merge(rep);
		r.merge(reply(T + 10, 2));                         /* 4 missing seconds */
		expect(times(r)).toEqual([0, 1, 4, 5, 10, 11]);
		expect(r.points().every(p => p.med !== undefined)).toBe(true);
	});

	it('does not re-request null rows: since() counts them', () => {
		const r = ring.create();
		const rep = reply(T, 3);
		rep.rows[2] = null;
		r.merge(rep);
		expect(r.latest().t).toBe(T + 1);
		expect(r.since()).toBe(T + 2);
		/* a later reply that repeats the null second with data is ignored there */
		expect(r.merge(reply(T + 2, 2))).toBe(1);
		expect(times(r)).toEqual([0, 1, 3]);
	});

	it('turns bad cells into null without dropping the row', () => {
		const r = ring.create();
		const rep = reply(T, 1);
		rep.rows[0] = [null, 'x', -1, Infinity, NaN];
		r.merge(rep);
		expect(r.points()).toEqual([{ t: T, min: null, med: null, max: null, rx_bps: null, tx_bps: null }]);
	});

	it('keeps unknown well-named columns, ignores odd names and duplicates', () => {
		const r = ring.create();
		r.merge({ step: 1, t0: T, cols: ['med', 'dl_pk', 'Bad-Name', 't', '__proto__', 'med', 7],
		          rows: [[21, 4.5, 1, 2, 3, 99, 5]] });
		expect(r.points()).toEqual([{ t: T, med: 21, dl_pk: 4.5 }]);
		/* a plain object of the page's realm */
		expect(Object.getPrototypeOf(r.points()[0])).toBe(page.window.Object.prototype);
	});

	it('trims to capacity across wrap-around, oldest first', () => {
		const r = ring.create({ step: 1, span: 10 });
		r.merge(reply(T, 7));
		r.merge(reply(T + 7, 7));                          /* 14 seconds into 10 slots */
		expect(times(r)).toEqual([4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
		r.merge(reply(T + 14, 3));
		expect(times(r)).toEqual([7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
		expect(r.length).toBe(10);
		expect(r.points()[0].med).toBe(21 + 0);            /* T+7 was row 0 of its reply */
	});

	it('a reply longer than the ring keeps its newest span', () => {
		const r = ring.create({ step: 1, span: 10 });
		expect(r.merge(reply(T, 25))).toBe(10);
		expect(times(r)).toEqual([15, 16, 17, 18, 19, 20, 21, 22, 23, 24]);
	});

	it('holds 600 points of 10 minutes after many merges (every second for an hour)', () => {
		const r = ring.create();
		let added = 0;
		for (let s = 0; s < 3600; s += 3)
			added += r.merge(reply(T + s, 3));
		expect(added).toBe(3600);
		expect(r.length).toBe(600);
		expect(times(r)[0]).toBe(3000);
		expect(times(r)[599]).toBe(3599);
	});

	it('drops points that fall out of the window when the daemon clock moved on', () => {
		const r = ring.create({ step: 1, span: 10 });
		r.merge(reply(T, 5));
		r.merge({ v: 1, id: 'a', now: T + 12, step: 1, t0: T + 11, cols: COLS, rows: [] });
		expect(times(r)).toEqual([2, 3, 4]);
		expect(r.range()).toEqual({ from: T + 2, to: T + 12 });
		r.merge({ v: 1, id: 'a', now: T + 100, step: 1, t0: T + 99, cols: COLS, rows: [] });
		expect(r.length).toBe(0);
	});

	it('range(): the last span up to the daemon clock, else after the newest row', () => {
		const r = ring.create();
		expect(r.range()).toEqual({ from: -600, to: 0 });
		r.merge(reply(T, 3, { now: undefined }));
		expect(r.range()).toEqual({ from: T + 3 - 600, to: T + 3 });
		r.merge(reply(T + 3, 1, { now: T + 9 }));
		expect(r.range()).toEqual({ from: T + 9 - 600, to: T + 9 });
	});

	it('keeps the scalars of the last reply in info', () => {
		const r = ring.create();
		r.merge(reply(T, 2, { base: 22.5, shaper: { rx: 18e6, tx: 'x' }, probe: 'fping' }));
		expect(r.info).toEqual({ now: T + 2, id: 'a', base: 22.5, probe: 'fping', shaper: { rx: 18e6, tx: null } });
	});

	it('ignores a stale answer of the same daemon, resets after a restart with an earlier clock', () => {
		const r = ring.create();
		r.merge(reply(T, 5));
		expect(r.merge(reply(T - 100, 3, { id: 'a' }))).toBe(0);
		expect(r.length).toBe(5);
		/* a new daemon whose clock is behind (no NTP yet) */
		expect(r.merge(reply(T - 100, 3, { id: 'b' }))).toBe(3);
		expect(times(r)).toEqual([-100, -99, -98]);
		expect(r.info.id).toBe('b');
		expect(r.since()).toBe(T - 98);
	});

	it.each([
		['null', null], ['a string', 'rows'], ['an array', [[1]]], ['a wrong version', reply(T, 1, { v: 2 })],
		['another step', reply(T, 1, { step: 60 })], ['a missing step', reply(T, 1, { step: undefined })],
		['a fractional t0', reply(T + 0.5, 1)], ['a negative t0', reply(-5, 1)], ['a string t0', reply(T, 1, { t0: String(T) })],
		['rows not an array', reply(T, 1, { rows: 'x' })], ['no cols', reply(T, 1, { cols: [] })],
		['cols not an array', reply(T, 1, { cols: 'min,med' })], ['too many cols', reply(T, 1, { cols: Array(40).fill('med') })],
		['a bad now', reply(T, 1, { now: 'soon' })]
	])('ignores a bad reply: %s', (_, bad) => {
		const r = ring.create();
		r.merge(reply(T - 10, 2));
		const before = r.points();
		expect(() => r.merge(bad)).not.toThrow();
		expect(r.merge(bad)).toBe(0);
		expect(r.points()).toEqual(before);
	});

	it('clear() empties the ring', () => {
		const r = ring.create();
		r.merge(reply(T, 3));
		r.clear();
		expect([r.length, r.since(), r.points(), r.latest(), r.info]).toEqual([0, 0, [], null, {}]);
	});

	it('works with a per-minute ring (step 60)', () => {
		const r = ring.create({ step: 60, span: 86400 });
		expect(r.merge(reply(T, 3, { step: 60, now: T + 180 }))).toBe(3);
		expect(times(r)).toEqual([0, 60, 120]);
		expect(r.merge(reply(T, 3))).toBe(0);             /* step 1 reply: not for this ring */
	});
});

describe('samples wire format', () => {
	it('a reply for one new second with every column stays far below 4 KB', () => {
		const cols = ['min', 'med', 'max', 'base', 'sent', 'lost', 'rx', 'tx', 'dl_pk', 'dl_av', 'ul_pk', 'ul_av',
			'dl_drop', 'ul_drop', 'dl_ecn', 'ul_ecn', 'dl_bl', 'ul_bl'];
		const worst = {
			v: 1, id: 'ffffffffffffffff', now: 4102444800, step: 1, t0: 4102444799, cols,
			rows: [[9999.9, 9999.9, 9999.9, 9999.9, 99, 99, 99999999999, 99999999999, 9999.9, 9999.9, 9999.9, 9999.9,
				999999, 999999, 999999, 999999, 99999999, 99999999]],
			base: 9999.9, shaper: { rx: 99999999999, tx: 99999999999 }, probe: 'busybox-ping'
		};
		const bytes = Buffer.byteLength(JSON.stringify(worst));
		expect(bytes).toBeLessThan(600);
		expect(bytes).toBeLessThanOrEqual(4096);
		const r = ring.create();
		expect(r.merge(worst)).toBe(1);
		expect(r.latest()).toMatchObject({ rx_bps: 99999999999, dl_bl: 99999999, med: 9999.9 });
	});

	it('ten minutes with the common columns is a few tens of KB', () => {
		const rows = Array.from({ length: 600 }, () => [23.4, 24.1, 31.7, 22.1, 5, 0, 17234567, 812345, 4.3, 2.1, 1.2, 0.4, 3, 0, 1, 0]);
		const bytes = JSON.stringify({ v: 1, id: 'a', now: T + 600, step: 1, t0: T,
			cols: ['min', 'med', 'max', 'base', 'sent', 'lost', 'rx', 'tx', 'dl_pk', 'dl_av', 'ul_pk', 'ul_av', 'dl_drop', 'ul_drop', 'dl_ecn', 'ul_ecn'], rows }).length;
		expect(bytes).toBeLessThan(64 * 1024);
	});
});
