/**
 * The JS tier's LuCI: OpenWrt's own luci.js, cbi.js, ui.js, form.js,
 * uci.js, rpc.js, fs.js (luci-base as tools/owrt/build.sh installs it in
 * $RETERM_OWRT/root, default /opt/owrt) booted in a jsdom tab as
 * LuCI's header template boots them, with our htdocs served beside them.
 * Only the router behind HTTP is the test's (router.js).
 *
 *   import { createHarness } from './harness/luci.js';
 *   const h = createHarness();                  // a router and a tab
 *   h.uci.seed('sqm', { q: { '.type': 'queue', enabled: '1' } });
 *   h.rpc.handle('reterm', 'wan_info', params => ({ ... }));
 *   h.fs.files['/usr/lib/sqm/defaults.sh'] = '';
 *   const v = await h.require('view.reterm.shaping');   // L.require: boots
 *   const root = await h.rendered(v);           // #view once the page is idle
 *   await h.click(root.querySelector('.cbi-button-save'));
 *   h.uci.changes()                             // rpcd's `uci changes`
 *
 * Without the LuCI tree every test is skipped, saying where it looked
 * (setup.js, vitest's setup file, runs lifecycle's hooks for every file).
 */

import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRouter } from './router.js';
import { luciEnv, luciMissing, LUCI_ROOT } from './dispatcher.js';
export { ubusStatus, rpcError, httpStatus, noAnswer } from './router.js';
import { openTab } from './browser.js';
import { createFormHelpers } from './formhelpers.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export { OWRT, luciMissing } from './dispatcher.js';
const RESOURCES = `${LUCI_ROOT}/www/luci-static/resources`;

const byDocument = new WeakMap();
const harnessOf = node => {
	const h = node && byDocument.get(node.nodeType === 9 ? node : node.ownerDocument);
	if (!h)
		throw new Error('not a node of a harness page');
	return h;
};

/** Click `el` like a user; resolves when its page is idle again. */
export function click(el) {
	return harnessOf(el).click(el);
}

/** Dispatch event `type` (bubbling) on `el` at once; resolves when the page is idle. */
export function fire(el, type) {
	return harnessOf(el).fire(el, type);
}

/** Until every open page is idle. */
export async function settleAll() {
	for (const h of [...inTest, ...inFile])
		await h.settle();
}

/**
 * A browser session for pages opened one after another (a reload, the
 * next page): `data` is the sessionStorage of the page open in it (of the
 * last one, once closed), carried to the next page opened with it.
 */
export function memoryStorage(init = {}) {
	let saved = Object.assign({}, init), tab = null;
	return {
		get data() { return tab ? tab.storage() : saved; },
		attach(t) { saved = this.data; tab = t; },
		detach(t) {
			if (tab === t) {
				saved = t.storage();
				tab = null;
			}
		}
	};
}

/* a harness made in a test closes after it, one made in beforeAll or at
 * the top of a file after the file */
const inTest = new Set(), inFile = new Set();
let testRunning = false;

/*
 * A promise of a page rejected with no handler (what a browser's console
 * shows as "Uncaught (in promise)") is recorded in h.pageErrors; a test
 * that leaves one there fails. vitest.config.js leaves these errors to
 * the harness (their stacks are in the page's scripts).
 */
const PAGES = Symbol.for('reterm.harness.pages');
if (!globalThis[PAGES]) {
	globalThis[PAGES] = new Set();
	process.on('unhandledRejection', (reason, promise) => {
		for (const h of globalThis[PAGES])
			if (promise instanceof h.window.Promise)
				return void h.pageErrors.push(reason);
	});
}

function closeAll(set) {
	const left = [];
	for (const h of set) {
		left.push(...h.pageErrors.map(e => (e && e.message) || String(e)));
		h.close();
	}
	if (left.length)
		throw new Error(`unhandled errors in the page (take the expected ones from h.pageErrors):\n${left.join('\n')}`);
}

/**
 * The hooks of every test file (tests/js/harness/setup.js registers them):
 * each test of a file is skipped, saying why, without the LuCI tree; a
 * harness made in a test closes after it, one made in beforeAll or at
 * the top of a file after the file.
 */
export const lifecycle = {
	said: false,
	beforeEach(ctx) {
		if (luciMissing) {
			if (!this.said)
				console.warn(`js: skipped: ${luciMissing}`);
			this.said = true;
			return ctx.skip();
		}
		testRunning = true;
	},
	async afterEach() {
		testRunning = false;
		await new Promise(resolve => setImmediate(resolve));
		closeAll(inTest);
	},
	afterAll() {
		closeAll(inFile);
	}
};

const SCRIPTS = new Map();
function script(name) {
	if (!SCRIPTS.has(name))
		SCRIPTS.set(name, readFileSync(`${RESOURCES}/${name}`, 'utf8'));
	return SCRIPTS.get(name);
}

/** Whitespace-normalised text of a node (or of a list of nodes). */
export function text(node) {
	const raw = (node != null && typeof node === 'object' && typeof node.length === 'number' && !('textContent' in node))
		? Array.from(node).map(text).join(' ')
		: (node && typeof node === 'object' && 'textContent' in node) ? node.textContent
		: (node == null ? '' : String(node));
	return raw.replace(/\s+/g, ' ').trim();
}

/**
 * A router and a LuCI tab on it.
 * @param {Object} [opts]
 * @param {string} [opts.path] the page's request path (admin/network/reterm/...)
 * @param {Object} [opts.env] merged into L.env after the header's values
 * @param {Object} [opts.storage] the tab's session storage at start
 * @param {Object} [opts.session] a memoryStorage(): the browser session
 *   the page opens in
 */
export function createHarness(opts = {}) {
	const router = opts.router || createRouter({ htdocs: `${REPO_ROOT}/htdocs`, luciRoot: LUCI_ROOT });
	const path = opts.path || 'admin/network/reterm';
	const session = opts.session || null;
	const tab = openTab({ router, url: `http://router.test/cgi-bin/luci/${path}`, storage: session ? session.data : opts.storage,
		now: opts.now });
	if (session)
		session.attach(tab);
	const settle = () => tab.settle();
	const { window, document } = tab;
	let booted = null, bootCalls = 0, modals = [];

	function boot() {
		document.documentElement.innerHTML = '<head><script src="/luci-static/resources/luci.js?v=test"></script></head>' +
			'<body><div id="maincontent" class="container"><div id="view"><div class="spinning">Loading view…</div></div></div></body>';
		tab.run(script('cbi.js'), `http://router.test/luci-static/resources/cbi.js`);
		tab.run(script('luci.js'), `http://router.test/luci-static/resources/luci.js`);
		/* as luci's header.ut does */
		window.L = new window.LuCI(luciEnv({ path, luci: router.uci.dump('luci') || {}, overrides: opts.env }));
		document.dispatchEvent(new window.Event('DOMContentLoaded'));
		return settle().then(() => window.L.require('ui')).then(ui => {
			if (!window.L.loaded)
				throw new Error('LuCI did not finish loading');
			/* a record of every modal shown (LuCI keeps only the open one) */
			const show = ui.showModal;
			ui.showModal = function(title, children, ...classes) {
				const node = show.call(this, title, children, ...classes);
				modals.push({ title: title == null ? '' : String(title), text: text(node), node });
				return node;
			};
			bootCalls = router.calls.length;
			router.calls.splice(0);
			router.fileCalls.splice(0);
			router.loads.splice(0);
			return window.L;
		});
	}

	const L = () => booted || (booted = boot());
	/* the notification banners LuCI's ui shows in #maincontent */
	/* children are walked, not selected: jsdom's selector engine walks the
	 * whole subtree for '>' and ':scope' (30 ms on a page with the charts'
	 * tables) */
	const childrenOf = (el, cls) => (el ? Array.from(el.children) : []).filter(c => c.classList.contains(cls));
	const notifications = () => childrenOf(document.getElementById('maincontent'), 'alert-message').filter(n => !n.classList.contains('fade-out')).map(n => {
		const h4 = n.querySelector('h4');
		return { title: h4 ? text(h4) : null, text: text(n.firstElementChild).replace(h4 ? text(h4) : '', '').trim(),
			classes: Array.from(n.classList).filter(c => c !== 'alert-message' && c !== 'fade-in'), node: n };
	});
	const lucireq = name => L().then(l => l.require(name));

	const h = {
		server: router, window, document, tab, text,

		get L() { return window.L; },
		get modals() { return modals; },

		/** L.require(name) after LuCI booted; settles the page first. */
		async require(name) {
			const m = await lucireq(name);
			await settle();
			return m;
		},

		/** The #view element once the page is idle; rejects if the view failed
		 * (LuCI leaves its spinner and shows the error as a notification). */
		async rendered() {
			await L();
			await settle();
			const vp = document.getElementById('view');
			if (childrenOf(vp, 'spinning').length) {
				const n = notifications().filter(x => x.classes.includes('danger')).map(x => `${x.title}: ${x.text}`);
				throw new Error(`the view did not render${n.length ? `: ${n.join('; ')}` : ''}`);
			}
			return vp;
		},

		/** Open view `name` ('reterm/shaping') as LuCI's view template does. */
		async view(name) {
			await (await lucireq('ui')).instantiateView(name);
			return this.rendered();
		},

		settle,
		/** Let `seconds` of page time pass (poll steps, apply, countdowns). */
		tick: async (seconds = 1) => { await tab.advance(seconds * 1000); await settle(); },

		/** Click like a user; resolves when the page is idle again. While
		 * LuCI's modal is open (applying, a save error) it covers the page:
		 * only what is in it can be clicked. */
		async click(el) {
			if (!el)
				throw new Error('click: no element');
			if (document.body.classList.contains('modal-overlay-active') && !el.closest('#modal_overlay'))
				throw new Error(`click: LuCI's modal covers the page (${text(document.querySelector('#modal_overlay .modal')).slice(0, 120)})`);
			el.click();
			await settle();
		},

		/** Type `value` into an input (input, keyup, change, blur events). */
		async type(el, value) {
			if (!el)
				throw new Error('type: no element');
			el.value = value;
			for (const t of ['input', 'keyup', 'change', 'blur'])
				el.dispatchEvent(new window.Event(t, { bubbles: true }));
			await settle();
		},

		/** Dispatch event `type` on el at once; resolves when the page is idle. */
		fire(el, type) {
			el.dispatchEvent(new window.Event(type, { bubbles: true }));
			return settle();
		},

		/** The page becomes 'hidden' or 'visible' (a tab switch): visibilitychange. */
		setVisibility(state) {
			Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => state });
			Object.defineProperty(document, 'hidden', { configurable: true, get: () => state === 'hidden' });
			return this.fire(document, 'visibilitychange');
		},

		/** querySelectorAll as an array. */
		all: (root, sel) => Array.from(root.querySelectorAll(sel)),

		uci: {
			seed: (conf, sections) => { router.uci.seed(conf, sections); return h.uci; },
			/** the config as the session reads it (staged changes included) */
			dump: conf => router.uci.dump(conf),
			/** rpcd's `uci changes`: saved, not applied */
			changes: () => router.uci.changes(),
			stagedChanges: () => router.uci.changes(),
			/** the page's unsaved edits (LuCI's uci.js state) as change records,
			 * but sets to the value loaded */
			pendingChanges: () => pendingOf(window.L && window.L.uci),
			/** LuCI's uci.load() in the page (boots it first) */
			load: async (...a) => { const l = await L(); const r = await l.uci.load(...a); await settle(); return r; },
			/** the page's working copy (LuCI's uci.js): get, sections */
			get: (...a) => window.L.uci.get(...a),
			sections: (...a) => window.L.uci.sections(...a),
			/** what the page asked rpcd to write: [{ method, params }] */
			get writes() { return router.uciWrites; },
			/** configs the page read (`uci get`) */
			get loads() { return router.loads; },
			/** what each Save & Apply committed: [{ conf: [changes] }] */
			get commits() { return router.commits; }
		},

		rpc: {
			handle(object, method, fn) { router.handle(object, method, fn); return h.rpc; },
			unhandle(object, method) { router.unhandle(object, method); return h.rpc; },
			status: router.status, error: router.error, http: router.http,
			/** ubus calls since the page loaded (but uci, file, session) */
			get calls() { return router.calls; },
			callsTo: (object, method) => router.calls.filter(c => c.object === object && (method == null || c.method === method))
		},

		fs: {
			files: router.files,
			get calls() { return router.fileCalls; }
		},

		ui: {
			/** Save & Apply requests as { checked } */
			get applied() { return router.applies; },
			/** the notification banners shown: [{ title, text, classes, node }] */
			get notifications() { return notifications(); },
			get modals() { return modals; },
			/** the modal open now, or null */
			modal: () => document.body.classList.contains('modal-overlay-active') ? childrenOf(document.getElementById('modal_overlay'), 'modal')[0] || null : null
		},

		poll: {
			/** LuCI's poll queue ({ fn, i: interval, r: ready }) */
			get queue() { return window.L ? window.L.Poll.queue : []; },
			active: () => !!(window.L && window.L.Poll.active()),
			tick: (seconds = 1) => h.tick(seconds)
		},

		form: createFormHelpers(() => window),

		/** the URLs the page navigated to (LuCI reloads it after an apply) */
		get navigations() { return tab.navigations; },

		/** The page loaded again (as after LuCI's reload): a new tab on the same
		 * router, with this tab's session storage and clock. */
		reload(more = {}) {
			const storage = tab.storage(), now = tab.clock.now;
			this.close();
			return createHarness(Object.assign({}, opts, session ? {} : { storage }, { router, now }, more));
		},

		/** the page's unhandled rejections, oldest first (take the expected ones) */
		pageErrors: [],

		close() {
			inTest.delete(h);
			inFile.delete(h);
			globalThis[PAGES].delete(h);
			if (session)
				session.detach(tab);
			tab.close();
		}
	};

	(testRunning ? inTest : inFile).add(h);
	globalThis[PAGES].add(h);
	byDocument.set(document, h);
	return h;
}

/* LuCI uci.js's unsaved state as rpcd-style change records; a set to the
 * value loaded is left out (LuCI's Flag writes its value on every save;
 * libuci records no change for it) */
function pendingOf(uci) {
	const out = {};
	if (!uci || !uci.state)
		return out;
	const { creates, changes, deletes, values } = uci.state;
	const push = (c, op) => (out[c] = out[c] || []).push(op);
	const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
	for (const c in creates)
		for (const sid in creates[c]) {
			push(c, ['add', sid, creates[c][sid]['.type']]);
			for (const k in creates[c][sid])
				if (k.charAt(0) !== '.')
					push(c, ['set', sid, k, creates[c][sid][k]]);
		}
	for (const c in changes)
		for (const sid in changes[c])
			for (const k in changes[c][sid])
				if (!(values[c] && values[c][sid] && same(values[c][sid][k], changes[c][sid][k])))
					push(c, ['set', sid, k, changes[c][sid][k]]);
	for (const c in deletes)
		for (const sid in deletes[c])
			if (deletes[c][sid] === true)
				push(c, ['remove', sid]);
			else
				for (const k in deletes[c][sid])
					push(c, ['remove', sid, k]);
	return out;
}
