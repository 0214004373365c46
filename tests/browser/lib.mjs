/**
 * What the real-Chromium checks (graph.browser.mjs, overview.browser.mjs)
 * share: the ok/not ok reporter and summary line, the list of LuCI-format
 * modules to load, the in-page luci.js-style loader, the routed fake
 * origin and the Chromium launch with its page setup.
 */

import { chromium } from 'playwright-core';
import { readFileSync, mkdirSync, existsSync } from 'node:fs';
import { join, extname } from 'node:path';
import { parseDirectives, moduleFile, REPO_ROOT } from '../js/harness/loader.js';

export { REPO_ROOT };
export const ORIGIN = 'http://reterm.test';
export const OUT = join(REPO_ROOT, 'tests/browser/out');
export const EXECUTABLE = process.env.CHROMIUM || '/usr/bin/chromium';

/* "ok - …" / "not ok - …" lines and "<label>: N passed, N failed" */
export function reporter(label) {
	let passed = 0, failed = 0;

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

	function finish(code) {
		console.log(`${label}: ${passed} passed, ${failed} failed`);
		process.exit(code !== undefined ? code : (failed ? 1 : 0));
	}

	return { check, finish };
}

/* the modules to load, dependencies first, with their directives;
 * builtins are provided by the page and not fetched */
export function moduleList(names, builtins = new Set(['baseclass'])) {
	const out = [], seen = new Set();
	const visit = name => {
		if (builtins.has(name) || seen.has(name))
			return;
		seen.add(name);
		const { requires } = parseDirectives(readFileSync(moduleFile(name), 'utf8'));
		requires.forEach(r => visit(r.name));
		out.push({ name, requires, url: '/luci-static/resources/' + name.split('.').join('/') + '.js' });
	};
	names.forEach(visit);
	return out;
}

/* page script: needs E, _, N_, L and `cache` (name → instance) in scope */
export const LOADER = `
  /* luci.js style: wrap the class file, hand it its requires, instantiate once */
  window.__load = async (mods) => {
    for (const m of mods) {
      const source = await (await fetch(m.url)).text();
      const outer = new Function('E', '_', 'N_',
        'return function(window, document, L' + m.requires.map(r => ', ' + r.alias).join('') + ') {\\n' +
        source + '\\n};\\n//# sourceURL=' + location.origin + m.url);
      const factory = outer(E, _, N_);
      const cls = factory.apply(factory, [window, document, L, ...m.requires.map(r => cache[r.name])]);
      cache[m.name] = new cls();
    }
    return Object.keys(cache);
  };
  window.__mod = name => cache[name];`;

const TYPES = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.json': 'application/json' };

/* the fake origin: html at /, htdocs modules, harness fakes, and files (path → file) */
function router(html, files) {
	return async r => {
		const url = new URL(r.request().url());
		let file = null;

		if (url.origin !== ORIGIN)
			return r.abort();

		if (url.pathname === '/')
			return r.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html });

		if (url.pathname.startsWith('/luci-static/resources/'))
			file = join(REPO_ROOT, 'htdocs', url.pathname);
		else if (url.pathname.startsWith('/harness/fakes/'))
			file = join(REPO_ROOT, 'tests/js', url.pathname);
		else if (Object.prototype.hasOwnProperty.call(files, url.pathname))
			file = files[url.pathname];

		if (!file || file.includes('..') || !existsSync(file))
			return r.fulfill({ status: 404, body: 'not found' });

		return r.fulfill({ status: 200, contentType: TYPES[extname(file)] || 'application/octet-stream', body: readFileSync(file) });
	};
}

/* launch Chromium, open the page at the fake origin, wait for __ready,
 * run body(page, errors), report a crash as "browser run", close and
 * print the summary */
export async function runPage({ check, finish, html, files = {}, viewport }, body) {
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
		const page = await browser.newPage({ viewport, deviceScaleFactor: 1 });
		const errors = [];

		page.on('pageerror', e => errors.push(String(e)));
		page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
		await page.route(`${ORIGIN}/**`, router(html, files));
		await page.goto(`${ORIGIN}/`);
		await page.waitForFunction(() => window.__ready === true);

		await body(page, errors);
	}
	catch (e) {
		check('browser run', false, e && e.stack || String(e));
	}
	finally {
		await browser.close();
	}

	finish();
}
