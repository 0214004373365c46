/**
 * What the real-Chromium checks (graph, overview and wizard .browser.mjs)
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

/* node modules the harness fakes import, as browser stand-ins (served from
 * tests/browser/shims/) */
export const IMPORT_MAP = '<script type="importmap">{"imports": {"node:net": "/shims/node-net.mjs"}}</script>';

/* a stand-in for LuCI's bootstrap theme: just what the views' markup uses */
export const THEME = `
  html { background: #f4f5f7; }
  body { margin: 0; font: 13px/1.5 "Liberation Sans", "DejaVu Sans", Arial, sans-serif; color: #404040; background: #f4f5f7; }
  header { background: #1e293b; color: #e2e8f0; padding: 10px 24px; font-weight: 600; letter-spacing: .02em; }
  header span { opacity: .6; font-weight: 400; margin-left: 1em; }
  #maincontent { width: 1000px; margin: 0 auto; padding: 12px 24px 24px; box-sizing: border-box; }
  h2 { font-size: 22px; font-weight: 600; margin: 8px 0 4px; }
  h3 { font-size: 16px; font-weight: 600; margin: 0 0 6px; }
  .cbi-map-descr, .cbi-section-descr { margin: 0 0 10px; opacity: .85; }
  .cbi-section { background: #fff; border: 1px solid #dfe3e8; border-radius: 4px; padding: 14px 18px 10px; margin: 0 0 16px; }
  .cbi-value { display: flex; align-items: flex-start; padding: 6px 0; }
  .cbi-value-title { flex: 0 0 180px; padding-top: 5px; font-weight: 600; }
  .cbi-value-field { flex: 1 1 auto; }
  .cbi-value-field input[type=text] { width: 420px; padding: 5px 8px; border: 1px solid #c4cad2; border-radius: 3px; font: inherit; }
  #reterm-streams { width: 60px !important; }
  .cbi-input-invalid, .cbi-value-field input.cbi-input-invalid { border-color: #dc2626; color: #b91c1c; }
  .cbi-value-description { font-size: 12px; opacity: .7; margin-top: 2px; }
  .cbi-button { font: inherit; padding: 6px 16px; border-radius: 3px; border: 1px solid #b8c0ca; background: #f3f4f6; cursor: pointer; }
  .cbi-button-apply { background: #2563eb; border-color: #1d4ed8; color: #fff; }
  .cbi-button-reset { background: #fff; border-color: #dc2626; color: #b91c1c; }
  .cbi-button[disabled] { opacity: .45; cursor: default; }
  .cbi-input-select { font: inherit; padding: 4px 6px; border: 1px solid #c4cad2; border-radius: 3px; max-width: 380px; }
  .alert-message { border-radius: 4px; padding: 8px 12px; margin: 6px 0; border: 1px solid; }
  .alert-message.danger { background: #fef2f2; border-color: #fca5a5; color: #7f1d1d; }
  .alert-message.warning { background: #fffbeb; border-color: #fcd34d; color: #78350f; }
  .alert-message.notice { background: #eff6ff; border-color: #93c5fd; color: #1e3a8a; }
  .cbi-progressbar { position: relative; height: 18px; border: 1px solid #c4cad2; border-radius: 3px; background: #f3f4f6; overflow: hidden; }
  .cbi-progressbar > div { height: 100%; background: #2563eb; transition: none; }
  .cbi-progressbar::after { content: attr(title); position: absolute; inset: 0; text-align: center; font-size: 11px; line-height: 18px; }
  table.table { border-collapse: collapse; }
  table.table th, table.table td { padding: 5px 8px; border-bottom: 1px solid #e5e7eb; text-align: left; }
  table.table tr.table-titles th { font-weight: 600; border-bottom: 2px solid #d1d5db; }
  html[data-darkmode="true"], html[data-darkmode="true"] body { background: #161616; color: #d4d4d4; }
  html[data-darkmode="true"] .cbi-section { background: #222; border-color: #3a3a3a; }
  html[data-darkmode="true"] .cbi-value-field input[type=text], html[data-darkmode="true"] .cbi-input-select { background: #111; color: #ddd; border-color: #444; }
  html[data-darkmode="true"] .alert-message.danger { background: #3b1414; border-color: #7f1d1d; color: #fecaca; }
  html[data-darkmode="true"] .alert-message.warning { background: #3a2c0a; border-color: #78350f; color: #fde68a; }
  html[data-darkmode="true"] table.table th, html[data-darkmode="true"] table.table td { border-color: #333; }
  html[data-darkmode="true"] .cbi-progressbar { background: #111; border-color: #444; }
`;

/* the page of a LuCI view: THEME (+ extraCss), header and #view, and a
 * module script with LuCI's environment: E(), dom, view, L, the harness
 * fakes for rpc, uci, poll and ui (window.__env), the loader's `cache`
 * and window.__load/__mod. script runs before the loader is installed;
 * it may import more fakes and extend L, cache and window.__env (e.g.
 * FORM_SCRIPT). The harness' datatypes.js (imported by the ui and form
 * fakes) imports node:net: IMPORT_MAP points it to a browser stand-in. */
export function viewPage({ title, crumb, extraCss = '', script = '' }) {
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">${IMPORT_MAP}<title>${title}</title><style>${THEME}${extraCss}</style></head>
<body><header>OpenWrt <span>${crumb}</span></header>
<div id="maincontent"><div id="view"></div></div>
<script type="module">
  import { Class } from '/harness/fakes/baseclass.js';
  import { installFormat, _, N_ } from '/harness/fakes/i18n.js';
  import { createRPC } from '/harness/fakes/rpc.js';
  import { createUCI } from '/harness/fakes/uci.js';
  import { createPoll } from '/harness/fakes/poll.js';
  import { createUI } from '/harness/fakes/ui.js';

  installFormat();

  /* LuCI's E(): function attributes are listeners, null ones skipped,
   * array children appended (strings as text) */
  const isNode = v => v instanceof Node;
  const append = (node, children) => {
    if (Array.isArray(children))
      children.forEach(c => node.appendChild(isNode(c) ? c : document.createTextNode(String(c))));
    else if (isNode(children))
      node.appendChild(children);
    else if (children != null)
      node.innerHTML = String(children);
  };
  const E = (tag, attrs, children) => {
    if (attrs != null && (Array.isArray(attrs) || isNode(attrs) || typeof attrs !== 'object'))
      children = attrs, attrs = null;
    const el = Array.isArray(tag) ? document.createDocumentFragment() : document.createElement(tag);
    for (const k in (attrs || {})) {
      const v = attrs[k];
      if (v == null) continue;
      if (typeof v === 'function') el.addEventListener(k, v);
      else el.setAttribute(k, typeof v === 'object' ? JSON.stringify(v) : v);
    }
    append(el, Array.isArray(tag) ? tag : children);
    return el;
  };
  const instances = new WeakMap();
  const dom = {
    elem: isNode,
    append(node, children) { append(node, children); return node.lastChild; },
    content(node, children) { node.replaceChildren(); append(node, children); return node.lastChild; },
    bindClassInstance(node, inst) { instances.set(node, inst); },
    findClassInstance(node) { for (let n = node; n; n = n.parentNode) if (instances.has(n)) return instances.get(n); return null; },
    callClassMethod(node, method, ...args) { const i = this.findClassInstance(node); return i ? i[method](...args) : null; }
  };

  const env = { pollinterval: 5, resource: '/luci-static/resources' };
  const rpc = createRPC({ Class });
  const uci = createUCI({ Class });
  const poll = createPoll({ Class, env });
  const ui = createUI({ Class, E, dom });

  /* LuCI's view flow: load() → render() → #view */
  const view = Class.extend({
    __init__() {
      const vp = document.getElementById('view');
      this.ready = Promise.resolve().then(() => this.load()).then(d => this.render(d)).then(n => {
        dom.content(vp, n);
        return vp;
      });
    },
    load() {}, render() {}
  });

  const L = {
    env, Class,
    resource: (...parts) => '/luci-static/resources/' + parts.join('/'),
    bind: (fn, self, ...args) => fn.bind(self, ...args),
    isObject: v => v != null && typeof v === 'object',
    resolveDefault: (p, def) => Promise.resolve(p).catch(() => def)
  };
  const cache = { baseclass: Class, view, dom, poll, rpc, uci, ui };
  window.__env = { rpc, uci, poll, ui };
${script}${LOADER}
  window.__ready = true;
</script></body></html>`;
}

/* page script lines adding the form fake to the page's modules (after
 * E, dom, uci and ui exist) */
export const FORM_SCRIPT = `
  const { createForm } = await import('/harness/fakes/form.js');
  const form = createForm({ Class, E, dom, uci, ui, _ });
  cache.form = form;
  window.__env.form = form;`;

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
		else if (url.pathname.startsWith('/shims/'))
			file = join(REPO_ROOT, 'tests/browser', url.pathname);
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
