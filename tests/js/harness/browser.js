/**
 * A browser tab for LuCI in node: a jsdom window whose network is
 * the test router (router.js) and whose timers run on a test clock.
 *
 *   const tab = openTab({ router, url, storage });
 *   tab.window, tab.document        the page (LuCI's scripts run inside it)
 *   await tab.settle()              until no request is in flight and no
 *                                   timer is due: what "the page is idle"
 *                                   means here
 *   await tab.advance(ms)           the clock moves on; timers fire in
 *                                   order, the page settles after each
 *   tab.navigations                 URLs the page tried to load
 *                                   (window.location = ..., LuCI's reload
 *                                   after an apply)
 *   tab.close()
 *
 * Timers: setTimeout/setInterval/Date.now of the page follow the test
 * clock (starting at `now`, else the real time); requestAnimationFrame runs on the
 * next turn, so LuCI's batched RPC goes out while the page settles. XMLHttpRequest is the router: each send() is answered
 * after the current task, as the network would.
 */

import { JSDOM, VirtualConsole } from 'jsdom';

function createClock(start) {
	let now = start, seq = 0;
	const timers = new Map();

	const add = (fn, ms, args, every) => {
		const id = ++seq, delay = Math.max(0, Number(ms) || 0);
		timers.set(id, { fn, args, at: now + delay, every: every ? Math.max(1, delay) : 0, seq: id });
		return id;
	};

	return {
		get now() { return now; },
		set now(t) { now = t; },
		setTimeout: (fn, ms, ...args) => add(fn, ms, args, false),
		setInterval: (fn, ms, ...args) => add(fn, ms, args, true),
		clear: id => { timers.delete(id); },
		/* the next timer due at or before `limit`, or null */
		due(limit) {
			let best = null;
			for (const [id, t] of timers)
				if (t.at <= limit && (!best || t.at < best[1].at || (t.at === best[1].at && t.seq < best[1].seq)))
					best = [id, t];
			return best;
		},
		fire([id, t]) {
			if (t.every) {
				t.at += t.every;
				t.seq = ++seq;
			}
			else
				timers.delete(id);
			if (typeof t.fn === 'function')
				t.fn(...t.args);
		}
	};
}

const turn = () => new Promise(resolve => setImmediate(resolve));

/*
 * jsdom's selector engine walks the whole subtree through its wrapper
 * objects: ~0.4 ms a call on a form page, where a browser takes
 * microseconds. LuCI's form.js finds each widget and each row with
 * querySelectorAll('[id="cbid…"]') and '[data-field="cbid…"]'
 * (Map.findElement), thousands of times a save; pages and tests look for
 * '.a-class'. Such `[attribute="value"]` and `.class` selectors are
 * answered from an index per tree (the document, or the top node of a
 * detached subtree): value (or class) -> its elements in document order,
 * built by one querySelectorAll('[attribute]') the first time it is asked
 * for, then kept by a MutationObserver on the tree, whose records are read
 * (takeRecords(), synchronous) before each lookup: added and removed
 * subtrees add and drop their elements, an element whose attribute
 * changed moves to its new value. Any other selector (pseudo-classes
 * follow state no mutation shows) is jsdom's own.
 */
const ATTR_SELECTOR = /^\[([A-Za-z-]+)="([^"\\]*)"\]$/, CLASS_SELECTOR = /^\.([A-Za-z_][A-Za-z0-9_-]*)$/;

function cachedAttributeQueries(window) {
	/* tree top -> { top, observer, index: key -> its index } */
	const trees = new WeakMap();
	const original = new Map([window.Element, window.Document, window.DocumentFragment]
		.map(C => [C, C.prototype.querySelectorAll]));
	const selectAll = (node, sel) => {
		for (const [C, fn] of original)
			if (node instanceof C)
				return fn.call(node, sel);
		return [];
	};

	/* an index of attribute `attr`, by its value or (tokens) by each of
	 * its words (class): value -> its elements in document order, and
	 * each element's values as indexed */
	const newIndex = (attr, tokens) => ({ attr, tokens, byValue: new Map(), at: new WeakMap() });
	const valuesOf = (ix, el) => {
		const v = el.getAttribute(ix.attr);
		return v === null ? [] : ix.tokens ? [...new Set(v.split(/[ \t\n\f\r]+/).filter(Boolean))] : [v];
	};
	const add = (ix, el) => {
		drop(ix, el);
		const vals = valuesOf(ix, el);
		if (!vals.length)
			return;
		ix.at.set(el, vals);
		for (const v of vals) {
			const list = ix.byValue.get(v);
			if (!list) {
				ix.byValue.set(v, [el]);
				continue;
			}
			let i = list.length;
			while (i > 0 && (list[i - 1].compareDocumentPosition(el) & window.Node.DOCUMENT_POSITION_PRECEDING))
				i--;
			list.splice(i, 0, el);
		}
	};
	const drop = (ix, el) => {
		const vals = ix.at.get(el);
		if (!vals)
			return;
		ix.at.delete(el);
		for (const v of vals) {
			const list = ix.byValue.get(v);
			list.splice(list.indexOf(el), 1);
			if (!list.length)
				ix.byValue.delete(v);
		}
	};
	/* node and the elements under it that carry the index's attribute */
	const carriers = (node, ix) => node.nodeType !== 1 ? [] :
		(node.hasAttribute(ix.attr) ? [node] : []).concat(Array.from(selectAll(node, `[${ix.attr}]`)));

	/* the records come to the observer's callback after each task, and
	 * to takeRecords() before that */
	const changed = (t, records) => {
		if (!t.index.size)
			return;
		for (const r of records) {
			if (r.type === 'attributes') {
				for (const ix of t.index.values())
					if (ix.attr === r.attributeName) {
						if (r.target.getRootNode() === t.top)
							add(ix, r.target);
						else
							drop(ix, r.target);
					}
			}
			else if (r.type === 'childList')
				for (const ix of t.index.values()) {
					for (const n of r.removedNodes)
						for (const el of carriers(n, ix))
							drop(ix, el);
					for (const n of r.addedNodes)
						if (n.getRootNode() === t.top)
							for (const el of carriers(n, ix))
								add(ix, el);
				}
		}
	};

	const treeOf = root => {
		const top = root.getRootNode();
		let t = trees.get(top);
		if (!t) {
			t = { top, index: new Map() };
			t.observer = new window.MutationObserver(records => changed(t, records));
			t.observer.observe(top, { subtree: true, childList: true, attributes: true });
			trees.set(top, t);
		}
		changed(t, t.observer.takeRecords());
		return t;
	};

	const lookup = (root, sel) => {
		const m = ATTR_SELECTOR.exec(sel), c = m ? null : CLASS_SELECTOR.exec(sel);
		if (!m && !c)
			return null;
		const [key, attr, tokens, value] = m ? [m[1], m[1], false, m[2]] : ['.class', 'class', true, c[1]];
		const t = treeOf(root);
		let ix = t.index.get(key);
		if (!ix) {
			t.index.set(key, ix = newIndex(attr, tokens));
			for (const el of selectAll(t.top, `[${attr}]`))
				add(ix, el);
		}
		const list = ix.byValue.get(value) || [];
		return root === t.top ? list : list.filter(el => el !== root && root.contains(el));
	};

	for (const proto of [window.Element.prototype, window.Document.prototype]) {
		const all = proto.querySelectorAll, one = proto.querySelector;
		proto.querySelectorAll = function(sel) {
			const hit = lookup(this, sel);
			if (!hit)
				return all.call(this, sel);
			/* a static list, as querySelectorAll's NodeList is */
			const list = hit.slice();
			return Object.assign(list, { item: i => list[i] ?? null });
		};
		proto.querySelector = function(sel) {
			const hit = lookup(this, sel);
			return hit ? (hit[0] ?? null) : one.call(this, sel);
		};
	}
}

/* the fragment the page is opened with: LuCI reloads a page by
 * `window.location = location.href.split('#')[0]`, which jsdom (unlike a
 * browser) ignores for the URL it is on; with a fragment it becomes a
 * fragment change that the tab sees */
const WATCH = '#reload-watch';

export function openTab({ router, url, storage, now }) {
	const navigations = [], errors = [];
	const console_ = new VirtualConsole();
	/* jsdom does not navigate: window.location = ..., reload() land here */
	console_.on('jsdomError', e => {
		if (/navigation/i.test(e.message))
			navigations.push(e.message);
		else
			errors.push(e);
	});
	const dom = new JSDOM('<!doctype html><html><head></head><body></body></html>',
		{ url: url + WATCH, runScripts: 'outside-only', virtualConsole: console_ });
	const window = dom.window;
	window.addEventListener('hashchange', () => {
		if (window.location.href.includes('#'))
			return;
		navigations.push(window.location.href);
		window.history.replaceState(null, '', WATCH);
	});
	const clock = createClock(now ?? Date.now());
	let inFlight = 0, closed = false;

	/* the page's timers and clock */
	const RealDate = window.Date;
	class PageDate extends RealDate {
		constructor(...args) { if (args.length) super(...args); else super(clock.now); }
		static now() { return clock.now; }
	}
	Object.assign(window, {
		Date: PageDate,
		setTimeout: clock.setTimeout, setInterval: clock.setInterval,
		clearTimeout: clock.clear, clearInterval: clock.clear,
		/* a frame as soon as the page is idle */
		requestAnimationFrame: fn => setImmediate(() => { if (!closed) fn(clock.now); }),
		cancelAnimationFrame: () => {}
	});

	/* the session storage survives a reload of the tab */
	if (storage)
		for (const [k, v] of Object.entries(storage))
			window.sessionStorage.setItem(k, v);

	class RouterXHR {
		constructor() {
			this.readyState = 0;
			this.status = 0;
			this.statusText = '';
			this.responseText = '';
			this.response = '';
			this.responseType = '';
			this.responseURL = '';
			this.timeout = 0;
			this.withCredentials = false;
			this.onreadystatechange = null;
			this.upload = { addEventListener() {} };
			this._headers = {};
		}
		open(method, target) {
			this._method = String(method).toUpperCase();
			this._url = new URL(target, window.location.href).href;
			this.readyState = 1;
		}
		setRequestHeader(k, v) { this._headers[k.toLowerCase()] = v; }
		addEventListener() {}
		getAllResponseHeaders() {
			return Object.entries(this._resHeaders || {}).map(([k, v]) => `${k}: ${v}`).join('\r\n');
		}
		abort() { this._aborted = true; }
		send(body) {
			inFlight++;
			const req = { method: this._method, url: this._url, headers: this._headers, body: body == null ? null : String(body) };
			const done = res => {
				if (this._aborted || closed || this.readyState === 4)
					return;
				this.readyState = 4;
				if (res) {
					this.status = res.status;
					this.statusText = res.statusText;
					this.responseText = this.response = res.body;
					this.responseURL = req.url;
					this._resHeaders = res.headers;
				}
				if (typeof this.onreadystatechange === 'function')
					this.onreadystatechange({ type: 'readystatechange', target: this });
			};
			turn().then(() => router.request(req)).then(res => {
				inFlight--;
				/* no answer: the browser gives up after the XHR's timeout (status 0) */
				if (res && res.hang) {
					if (this.timeout > 0)
						clock.setTimeout(() => done(null), this.timeout);
					return;
				}
				done(res);
			});
		}
	}
	window.XMLHttpRequest = RouterXHR;
	cachedAttributeQueries(window);

	const tab = {
		window,
		document: window.document,
		clock,
		navigations,
		/** errors jsdom reported (not navigations) */
		errors,

		/** Run `source` as a classic script of the page. */
		run(source, file) {
			return window.eval(`${source}\n//# sourceURL=${file}`);
		},

		/** Until nothing is in flight and no timer is due (at most `turns` turns). */
		async settle(turns = 2000) {
			for (let idle = 0, n = 0; idle < 3; n++) {
				if (n > turns)
					throw new Error(`the page did not settle within ${turns} turns (${inFlight} requests in flight)`);
				await turn();
				const t = clock.due(clock.now);
				if (t) {
					clock.fire(t);
					idle = 0;
				}
				else if (inFlight > 0)
					idle = 0;
				else
					idle++;
			}
		},

		/** Move the clock on by `ms`: timers fire in order, the page settles after each. */
		async advance(ms) {
			const until = clock.now + ms;
			await this.settle();
			for (let t; (t = clock.due(until)); ) {
				clock.now = Math.max(clock.now, t[1].at);
				clock.fire(t);
				await this.settle();
			}
			clock.now = until;
			await this.settle();
		},

		/** The session storage, to carry over to a reloaded tab. */
		storage() {
			const out = {};
			for (let i = 0; i < window.sessionStorage.length; i++) {
				const k = window.sessionStorage.key(i);
				out[k] = window.sessionStorage.getItem(k);
			}
			return out;
		},

		close() {
			closed = true;
			/* jsdom's close() empties the body node by node first (50 ms on
			 * a page with the charts' tables); the page is dropped whole
			 * instead: its timers stopped, its document no longer its */
			delete window._document;
			window.close();
		}
	};

	return tab;
}
