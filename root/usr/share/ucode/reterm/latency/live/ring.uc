// SPDX-License-Identifier: Apache-2.0
//
// Ring buffers of the sampler and the encoder of the `samples` reply.
// Pure: no clock, no I/O; the caller passes times (epoch seconds).
//
//   let r = create({ step: 1, size: 600 });     // 10 minutes of seconds
//   r.put(t, { min: 23.1, med: 24, max: 30.2, rx: 18012000 });
//   r.samples(since, now)   -> reply body (wire format below)
//
// Wire format: the one documented at the top of
// htdocs/luci-static/resources/reterm/ring.js (version 1):
//   { v: 1, id, now, step, t0, cols: [...], rows: [[...]|null, ...] }
// rows are the completed intervals with t > since, oldest first,
// contiguous from t0 (row i is t0 + i * step), at most one ring's worth;
// leading null rows are not sent (t0 moves instead); a cell is a number
// or null.  Columns: COLS below; a reply names min, med, max and every
// other column that has a value in at least one of its rows, so an idle
// reply without CAKE stays small.  The caller adds base, shaper, probe.
//
// Rows are stored as arrays in COLS order in a fixed array of `size`
// slots (slot = (t / step) % size) together with their t; a slot whose t
// is not the wanted one is an interval without data (null row).

'use strict';

// Column order of stored rows; units as ring.js: ms with one decimal,
// bit/s, counts and bytes as integers.
const COLS = [
	'min', 'med', 'max', 'base', 'sent', 'lost', 'rx', 'tx',
	'dl_pk', 'dl_av', 'ul_pk', 'ul_av', 'dl_drop', 'ul_drop', 'dl_ecn', 'ul_ecn', 'dl_bl', 'ul_bl',
	'sh_rx', 'sh_tx'
];

// always sent, so that cols is never empty
const ALWAYS = { min: true, med: true, max: true };

export const VERSION = 1;

function cell(v) {
	let t = type(v);

	return ((t == 'int' || t == 'double') && v == v && v >= 0 && v != Infinity) ? v : null;
}

// opts: step (seconds per row, >= 1), size (rows kept), id (string)
export function create(opts) {
	let step = opts?.step ?? 1, size = opts?.size ?? 600;
	let slots = [], times = [], last = null, self;

	function slot(t) {
		return int(t / step) % size;
	}

	self = {
		step, size,
		id: opts?.id ?? 'ring',

		// Store the interval starting at t (a multiple of step).  An object
		// with COLS keys (missing = null) or null (interval known empty).
		put: function(t, row) {
			let i = slot(t), a = null;

			if (row != null) {
				a = [];
				for (let c in COLS)
					push(a, cell(row[c]));
			}

			slots[i] = a;
			times[i] = t;

			if (last == null || t > last)
				last = t;
		},

		// Stored row of interval t as an object, or null.
		get: function(t) {
			let i = slot(t);

			if (times[i] !== t || slots[i] == null)
				return null;

			let o = {};

			for (let j = 0; j < length(COLS); j++)
				o[COLS[j]] = slots[i][j];

			return o;
		},

		// t of the newest stored interval, or null
		last: () => last,

		clear: function() {
			slots = [];
			times = [];
			last = null;
		},

		// The reply to `samples {since}` for this ring; `now` is the
		// daemon clock (epoch seconds, an integer).
		samples: function(since, now) {
			let reply = { v: VERSION, id: self.id, now, step, t0: now, cols: [ 'min', 'med', 'max' ], rows: [] };

			if (last == null)
				return reply;

			// first interval after `since`, not older than the ring holds
			let first = (since > 0) ? (int(since / step) + 1) * step : 0;
			let oldest = last - (size - 1) * step;

			if (first < oldest)
				first = oldest;

			// leading intervals without data are not sent
			while (first <= last && (times[slot(first)] !== first || slots[slot(first)] == null))
				first += step;

			if (first > last) {
				reply.t0 = last + step;
				return reply;
			}

			let used = {}, rows = [];

			for (let t = first; t <= last; t += step) {
				let i = slot(t);

				if (times[i] !== t || slots[i] == null) {
					push(rows, null);
					continue;
				}

				push(rows, slots[i]);

				for (let j = 0; j < length(COLS); j++)
					if (slots[i][j] != null)
						used[COLS[j]] = true;
			}

			let idx = [];

			for (let j = 0; j < length(COLS); j++)
				if (ALWAYS[COLS[j]] || used[COLS[j]])
					push(idx, j);

			reply.t0 = first;
			reply.cols = map(idx, j => COLS[j]);
			reply.rows = map(rows, r => (r == null) ? null : map(idx, j => r[j]));

			return reply;
		}
	};

	return self;
};

// Combine the stored rows of one longer interval (e.g. the 60 seconds of a
// minute) into one row: min of min, median of med, max of max, last base,
// sums of counts (sent, lost, drops, ECN marks), means of rates and CAKE
// average delays, max of peaks and backlogs.  rows: objects or nulls;
// returns null when none has data.
export function combine(rows) {
	let got = filter(rows ?? [], r => r != null);

	if (!length(got))
		return null;

	let out = {};

	function vals(c) {
		return filter(map(got, r => cell(r[c])), v => v != null);
	}

	function mean(v) {
		let s = 0.0;

		for (let x in v)
			s += x;

		return length(v) ? s / length(v) : null;
	}

	function maxof(v) {
		return length(v) ? max(...v) : null;
	}

	function sum(v) {
		let s = 0;

		for (let x in v)
			s += x;

		return length(v) ? s : null;
	}

	let meds = sort(vals('med'), (a, b) => (a < b) ? -1 : (a > b) ? 1 : 0), n = length(meds);

	out.min = length(vals('min')) ? min(...vals('min')) : null;
	out.med = n ? ((n % 2) ? meds[n >> 1] : +sprintf('%.1f', (meds[(n >> 1) - 1] + meds[n >> 1]) / 2.0)) : null;
	out.max = maxof(vals('max'));

	let bases = vals('base');
	out.base = length(bases) ? bases[-1] : null;

	for (let c in [ 'sent', 'lost', 'dl_drop', 'ul_drop', 'dl_ecn', 'ul_ecn' ])
		out[c] = sum(vals(c));

	for (let c in [ 'rx', 'tx', 'sh_rx', 'sh_tx' ]) {
		let m = mean(vals(c));
		out[c] = (m == null) ? null : int(m + 0.5);
	}

	for (let c in [ 'dl_av', 'ul_av' ]) {
		let m = mean(vals(c));
		out[c] = (m == null) ? null : +sprintf('%.1f', m);
	}

	for (let c in [ 'dl_pk', 'ul_pk', 'dl_bl', 'ul_bl' ])
		out[c] = maxof(vals(c));

	return out;
};
