'use strict';
'require baseclass';

/*
 * Client side of the `reterm samples {since}` ubus method: a ring buffer
 * of per-second (or per-minute) points that merges the daemon's compact
 * replies. Pure logic, no DOM. Use as: 'require reterm.ring as ring';
 *
 *   var live = ring.create({ step: 1, span: 600 });      // 10 minutes
 *   callSamples(live.since()).then(function(reply) {
 *       live.merge(reply);
 *       strip.update(live.points(), live.info);
 *   });
 *
 * ------------------------------------------------------------------
 * Wire format: reply of `samples {since}` (version 1)
 * ------------------------------------------------------------------
 *   {
 *     "v": 1,                       format version (this file reads 1)
 *     "id": "5f3a9c01",             daemon ring instance; changes when
 *                                   the daemon restarts or its clock
 *                                   steps (the client then may reset)
 *     "now": 1718000123,            daemon clock, epoch seconds
 *     "step": 1,                    seconds per row: 1 (10-minute ring)
 *                                   or 60 (24-hour ring)
 *     "t0": 1718000121,             time of rows[0], epoch seconds;
 *                                   row i is the interval starting at
 *                                   t0 + i * step
 *     "cols": ["min","med","max","rx","tx"],
 *     "rows": [[23.1,24,30.2,18012000,812000], null, [...]],
 *     "base": 22.8,                 optional scalars describing "now":
 *     "shaper": {"rx": 18000000, "tx": 4500000},
 *     "probe": "fping"
 *   }
 *
 * - `since` (request): the t of the newest row the client holds (0 or
 *   absent: everything). The daemon sends rows with t > since, only
 *   completed intervals, oldest first, at most one ring's worth.
 * - rows are contiguous in time. A row is an array with one cell per
 *   column, or null for an interval without any data (daemon asleep,
 *   no sample); leading null rows are not sent (t0 moves instead).
 * - a cell is a number >= 0 or null (no value, e.g. all probes lost in
 *   that second but the throughput is known).
 * - columns (units), a reply sends those it has, in any order:
 *     min, med, max  RTT of the interval's answered probes, ms
 *     base           baseline RTT (slow-rising/fast-falling min), ms
 *     sent, lost     probes sent / lost in the interval
 *     rx, tx         WAN download / upload rate, bit/s (stored as
 *                    rx_bps / tx_bps in points)
 *     dl_pk, dl_av   CAKE download (ingress/IFB) peak / average delay,
 *     ul_pk, ul_av   upload (egress), ms — worst tin
 *     dl_drop, ul_drop, dl_ecn, ul_ecn   drops / ECN marks in the interval
 *     dl_bl, ul_bl   CAKE backlog, bytes
 *   Unknown columns named [a-z][a-z0-9_]{0,15} are kept under their own
 *   name (forward compatible); other names are ignored.
 * - numbers: ms with at most 1 decimal, bit/s and counts as integers.
 *   One second of new data with every column is about 300 bytes; the
 *   reply for one new second must stay <= 4 KB.
 *
 * Client rules (merge):
 * - a reply that is not an object of this shape (bad v/step/t0/cols/
 *   rows) is ignored as a whole; a bad row (wrong length, not an array)
 *   is skipped like a null row; a bad cell becomes null.
 * - points arrive in time order: a row at or before the newest held
 *   point is a duplicate or out of order and is ignored.
 * - gaps stay gaps: missing intervals (null rows, skipped rows, time
 *   holes) are not stored and not interpolated; graphs break lines
 *   there.
 * - the buffer covers [end − span, end), end = max(now, newest row +
 *   step): older points are dropped, so it never holds more than
 *   span / step points (600 for 10 minutes of seconds).
 * - clock step: a reply with a different `id` whose `now` is before the
 *   newest held point empties the buffer first (the daemon restarted
 *   with an earlier clock). A same-id reply with an earlier `now` is a
 *   stale answer and is ignored.
 */

const VERSION = 1;

/* wire column → point field */
const FIELD = { rx: 'rx_bps', tx: 'tx_bps' };

const NAME_RE = /^[a-z][a-z0-9_]{0,15}$/;

const MAX_COLS = 32;

/* reply scalars copied into ring.info */
const INFO = ['now', 'id', 'base', 'probe'];

function isInt(v) {
	return typeof v === 'number' && isFinite(v) && Math.floor(v) === v && v >= 0;
}

function cell(v) {
	return (typeof v === 'number' && isFinite(v) && v >= 0) ? v : null;
}

/* field names for a cols array, or null when it is unusable; an ignored
 * column maps to null */
function fields(cols) {
	if (!Array.isArray(cols) || cols.length === 0 || cols.length > MAX_COLS)
		return null;

	const out = [];

	for (let i = 0; i < cols.length; i++) {
		const c = cols[i];

		if (typeof c !== 'string' || !NAME_RE.test(c) || c === 't' || out.indexOf(FIELD[c] || c) >= 0)
			out.push(null);
		else
			out.push(FIELD[c] || c);
	}

	return out;
}

function shaper(s) {
	if (s === null || typeof s !== 'object')
		return null;

	return { rx: cell(s.rx), tx: cell(s.tx) };
}

const Ring = baseclass.extend({
	__name__: 'reterm.ring.Ring',

	/**
	 * @param {Object} [opts]
	 * @param {number} [opts.step=1] seconds per point (a positive integer)
	 * @param {number} [opts.span=600] seconds of history to keep
	 */
	__init__(opts) {
		opts = opts || {};

		this.step = (isInt(opts.step) && opts.step > 0) ? opts.step : 1;
		this.span = (isInt(opts.span) && opts.span >= this.step) ? opts.span : 600;
		this.capacity = Math.floor(this.span / this.step);
		this.clear();
	},

	/** Drop every point and the reply info. */
	clear() {
		this.buf = new Array(this.capacity);
		this.head = 0;          /* index of the oldest point */
		this.length = 0;
		this.last = 0;          /* t of the newest row seen (also null rows) */
		/** scalars of the last accepted reply: now, id, base, probe, shaper */
		this.info = {};
	},

	_at(i) {
		return this.buf[(this.head + i) % this.capacity];
	},

	_push(p) {
		if (this.length === this.capacity) {
			this.buf[this.head] = p;
			this.head = (this.head + 1) % this.capacity;
		}
		else {
			this.buf[(this.head + this.length) % this.capacity] = p;
			this.length++;
		}
	},

	/* end of the covered window: the daemon's now, or after the newest row */
	_end() {
		return Math.max(this.last ? this.last + this.step : 0, isInt(this.info.now) ? this.info.now : 0);
	},

	/* drop points before end − span */
	_trim() {
		const limit = this._end() - this.span;

		while (this.length && this.buf[this.head].t < limit) {
			this.buf[this.head] = undefined;
			this.head = (this.head + 1) % this.capacity;
			this.length--;
		}
	},

	/**
	 * Merge a `samples` reply (format above).
	 *
	 * @param {Object} reply
	 * @returns {number} points added (and kept); 0 for a bad, stale or
	 *   empty reply (never throws)
	 */
	merge(reply) {
		if (reply === null || typeof reply !== 'object' || Array.isArray(reply))
			return 0;

		if ((reply.v !== undefined && reply.v !== VERSION) || reply.step !== this.step ||
		    !isInt(reply.t0) || !Array.isArray(reply.rows) || (reply.now !== undefined && !isInt(reply.now)))
			return 0;

		const names = fields(reply.cols);

		if (names === null)
			return 0;

		const now = reply.now;

		if (now !== undefined && now < this.last) {
			if (reply.id === undefined || reply.id === this.info.id)
				return 0;   /* stale answer from the same daemon */

			this.clear();   /* daemon restarted with an earlier clock */
		}

		/* this.last >= the newest point: rows up to it are duplicates */
		let floor = this.last,
		    added = 0, rows = reply.rows, t;

		/* only the last span of a long reply can survive the trim */
		const first = Math.max(0, rows.length - this.capacity);

		for (let i = first; i < rows.length; i++) {
			t = reply.t0 + i * this.step;

			const row = rows[i];

			if (t <= floor || !Array.isArray(row) || row.length !== names.length)
				continue;

			const p = { t: t };

			for (let j = 0; j < names.length; j++)
				if (names[j] !== null)
					p[names[j]] = cell(row[j]);

			this._push(p);
			added++;
		}

		if (rows.length) {
			t = reply.t0 + (rows.length - 1) * this.step;
			this.last = Math.max(this.last, t);
		}

		for (let k = 0; k < INFO.length; k++)
			if (reply[INFO[k]] !== undefined)
				this.info[INFO[k]] = (INFO[k] === 'base') ? cell(reply.base) : reply[INFO[k]];

		if (reply.shaper !== undefined)
			this.info.shaper = shaper(reply.shaper);

		this._trim();

		/* new points are the newest: only they can survive the trim */
		return Math.min(added, this.length);
	},

	/**
	 * The `since` argument for the next `samples` call: t of the newest
	 * row seen (null rows count), 0 when empty.
	 * @returns {number}
	 */
	since() {
		return this.last;
	},

	/**
	 * Held points, oldest first. Each is {t, <field>: number|null, …};
	 * missing intervals are simply absent.
	 * @returns {Object[]} a new array (the point objects are shared)
	 */
	points() {
		const out = new Array(this.length);

		for (let i = 0; i < this.length; i++)
			out[i] = this._at(i);

		return out;
	},

	/** Newest point or null. */
	latest() {
		return this.length ? this._at(this.length - 1) : null;
	},

	/**
	 * Time window to plot: from = end − span, to = end, where end is the
	 * daemon's `now` or, when later or unknown, the newest row + step.
	 * A point at t covers [t, t + step).
	 * @returns {{from: number, to: number}}
	 */
	range() {
		const end = this._end();

		return { from: end - this.span, to: end };
	}
});

return baseclass.extend({
	__name__: 'reterm.ring',

	VERSION: VERSION,

	/** The ring class, for `new ring.Ring({step, span})`. */
	Ring: Ring,

	/**
	 * New ring buffer.
	 * @param {Object} [opts] {step: seconds per point (1), span: seconds (600)}
	 * @returns {Ring}
	 */
	create(opts) {
		return new Ring(opts);
	}
});
