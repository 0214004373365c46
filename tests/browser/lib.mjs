/**
 * What the real-Chromium checks (graph, overview and wizard .browser.mjs)
 * share: the ok/not ok reporter and summary line, and a Chromium tab on
 * OpenWrt's own LuCI (luci-base and the bootstrap theme as
 * tools/owrt/build.sh installs them in $RETERM_OWRT/root) with our htdocs
 * beside it. Only the router behind HTTP is the check's: the JS tier's
 * router (tests/js/harness/router.js: LuCI's dispatcher pages, /ubus
 * JSON-RPC with rpcd's uci, file and session, the handlers a check sets,
 * LuCI's apply and confirm) answers every request of the tab through
 * playwright's page.route. Pages load as on a router: the view's page
 * from the menu.d entry (header.ut, view.ut, footer.ut), luci.js and the
 * modules through L.require, LuCI's own reload after an apply.
 */

import { chromium } from 'playwright-core';
import { mkdirSync, existsSync } from 'node:fs';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRouter } from '../js/harness/router.js';
import { LUCI_ROOT, luciMissing } from '../js/harness/dispatcher.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const ORIGIN = 'http://router.test';
export const OUT = join(REPO_ROOT, 'tests/browser/out');
export const EXECUTABLE = process.env.CHROMIUM || '/usr/bin/chromium';

/* "ok - …" / "not ok - …" lines and "<label>: N passed, N failed[, N skipped]" */
export function reporter(label) {
	let passed = 0, failed = 0, skipped = 0;

	function check(name, cond, detail) {
		if (cond) {
			passed++;
			console.log(`ok - ${name}`);
		}
		else {
			failed++;
			console.log(`not ok - ${name}${detail !== undefined ? ` (${typeof detail === 'string' ? detail : JSON.stringify(detail)})` : ''}`);
		}
	}

	function skip(name, why) {
		skipped++;
		console.log(`skip - ${name} (${why})`);
	}

	function finish(code) {
		console.log(`${label}: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
		process.exit(code !== undefined ? code : (failed ? 1 : 0));
	}

	return { check, skip, finish };
}

/** A router with OpenWrt's LuCI and our htdocs (its uci holds /etc/config/luci). */
export function luciRouter() {
	return createRouter({ htdocs: join(REPO_ROOT, 'htdocs'), luciRoot: LUCI_ROOT });
}

/* a request of the tab, answered by the router */
async function serve(router, fetched, route) {
	const req = route.request(), url = new URL(req.url());
	if (url.origin !== ORIGIN)
		return route.abort();
	if (req.method() === 'GET' && url.pathname.startsWith('/luci-static/resources/'))
		fetched.push(url.pathname.slice('/luci-static/resources/'.length));
	const res = await router.request({ method: req.method(), url: req.url(), body: req.postData() });
	if (res == null)
		return route.abort('connectionreset');
	if (res.hang)
		return;	/* no answer: the page's XHR times out */
	return route.fulfill({ status: res.status, headers: res.headers, body: res.body });
}

/** Until LuCI replaced the view's "Loading view…" spinner. */
export function viewReady(page) {
	return page.waitForFunction(() => {
		const v = document.querySelector('#view');
		return !!(window.L && v && v.firstElementChild && !v.querySelector(':scope > .spinning'));
	}, null, { timeout: 30000 });
}

/**
 * Until `cond()` (sync or async) holds, at most `ms` of real time;
 * whether it did. With `page` (a page on playwright's clock, runPage's
 * `clock`), the page's time jumps 1 s on whenever 300 ms passed without
 * it: LuCI's poll and apply wait on timers, not on the network.
 */
export async function until(cond, { ms = 20000, page = null } = {}) {
	for (let end = Date.now() + ms, idle = 0; Date.now() < end; idle += 50) {
		if (await cond())
			return true;
		if (page && idle >= 300) {
			/* not while the page navigates */
			await page.clock.fastForward(1000).catch(() => {});
			idle = 0;
		}
		await new Promise(r => setTimeout(r, 50));
	}
	return !!await cond();
}

/** Until `fn` (run in the page) is true, the page's time hurried as by until(). */
export function pageUntil(page, fn, opts = {}) {
	return until(() => page.evaluate(fn).catch(() => false), Object.assign({ page }, opts));
}

/**
 * Until the page has had `n` answers of ubus `object`.`method` from
 * the router since now: LuCI's poll asks again only after the page
 * handled the last answer, so the n-th call means the one before it was
 * shown.
 */
export async function answered(router, object, method, { n = 2, page = null } = {}) {
	const count = () => router.calls.filter(c => c.object === object && c.method === method).length;
	const from = count();
	return until(() => count() >= from + n, { page });
}

/**
 * Launch Chromium, open `path` (admin/network/reterm/overview) on the
 * router (with `clock`: the page's timers on playwright's clock), wait
 * for the view, run body(page, { errors, fetched }), report
 * a crash as "browser run", close and print the summary. `errors`: the
 * page's uncaught errors and console errors; `fetched`: the resources
 * the page fetched (reterm/graph/live.js, ...), in order.
 * `html` instead of a path: a page at / of the router origin (no view).
 */
export async function runPage({ check, skip, finish, router, path, html, viewport, clock = false }, body) {
	if (luciMissing) {
		skip('LuCI in Chromium', luciMissing);
		finish(0);
	}
	if (!existsSync(EXECUTABLE)) {
		check(`chromium at ${EXECUTABLE}`, false, 'install the Debian package: apt-get install -y chromium');
		finish(1);
	}

	mkdirSync(OUT, { recursive: true });

	const browser = await chromium.launch({
		executablePath: EXECUTABLE, headless: true,
		args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--disable-component-update',
		       '--no-first-run', '--disable-sync']
	});

	try {
		const page = await browser.newPage({ viewport, deviceScaleFactor: 1, colorScheme: 'light' });
		const errors = [], fetched = [];

		page.on('pageerror', e => errors.push(String(e)));
		/* a failed request is listed with its URL (the console's line for
		 * it has none): LuCI's checked apply asks cgi-io (/cgi-bin/cgi-exec)
		 * for luci-peeraddr, which luci-base does not ship, and takes the
		 * 404 as "no interface affected" (the owrt tier lists it as known) */
		page.on('console', m => {
			if (m.type() === 'error' && !/^Failed to load resource: /.test(m.text()))
				errors.push(m.text());
		});
		page.on('response', r => {
			if (r.status() >= 400 && new URL(r.url()).pathname !== '/cgi-bin/cgi-exec')
				errors.push(`HTTP ${r.status()}: ${r.request().method()} ${r.url()}`);
		});
		page.on('requestfailed', r => errors.push(`request failed: ${r.method()} ${r.url()} ${r.failure()?.errorText}`));
		/* the page's timers on playwright's clock: its time flows, and
		 * until() makes it jump to the next poll or apply step */
		if (clock)
			await page.clock.install();
		await page.route(`${ORIGIN}/**`, route => serve(router, fetched, route));
		await page.route(/^(?!http:\/\/router\.test\/)/, route => route.abort());
		if (html) {
			await page.route(`${ORIGIN}/`, route => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html }));
			await page.goto(`${ORIGIN}/`);
			await page.waitForFunction(() => window.L && window.L.loaded !== false && window.__ready === true, null, { timeout: 30000 });
		}
		else {
			await page.goto(`${ORIGIN}/cgi-bin/luci/${path}`);
			await viewReady(page);
		}

		await body(page, { errors, fetched });
	}
	catch (e) {
		check('browser run', false, e && e.stack || String(e));
	}
	finally {
		await browser.close();
	}

	finish();
}
