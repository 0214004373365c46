/**
 * Loads LuCI-format JavaScript modules in node the way luci.js does, with
 * fakes for LuCI's own modules.
 *
 *   import { createHarness } from './harness/loader.js';
 *   const h = createHarness();                       // fresh fakes + cache
 *   h.rpc.handle('reterm', 'status', () => ({ running: true }));
 *   h.uci.seed('reterm', { main: { '.type': 'reterm', port: '15001' } });
 *   const units = await h.require('reterm.units');   // instance, cached
 *   const view = await h.require('view.reterm.overview');
 *   const root = await h.rendered(view);             // #view after load/render
 *
 * Module rules (as luci.js):
 *  - The file's leading string statements are directives: 'use strict'
 *    and 'require <name>' / 'require <name> as <alias>'. Comments,
 *    whitespace and semicolons between them are skipped. The run ends at
 *    the first other statement. (luci.js keeps scanning past code until
 *    it meets a non-directive string; code here must keep directives on
 *    top, which is LuCI's documented style.)
 *  - Without `as`, the parameter name is the module name with every
 *    character outside [A-Za-z0-9_] turned into '_':
 *    'require reterm.units' binds `reterm_units`, not `units`.
 *  - The body is wrapped as function(window, document, L, <aliases...>);
 *    E, _ and N_ are visible as globals are in the browser.
 *  - It must return a subclass of baseclass; that class is instantiated
 *    once (`new cls()`) and the instance is cached per module name.
 *  - '<a>.<b>' resolves to <root>/htdocs/luci-static/resources/<a>/<b>.js;
 *    LuCI's own modules (baseclass, view, form, rpc, uci, ui, poll, dom,
 *    network, fs, request, session) resolve to the fakes; opts.modules
 *    adds or overrides modules (e.g. 'tools.widgets'). A missing file rejects
 *    with a NetworkError, a cycle with a DependencyError.
 */

import { readFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Class } from './fakes/baseclass.js';
import { installFormat, _, N_ } from './fakes/i18n.js';
import { createDOM, text } from './fakes/dom.js';
import { createUI } from './fakes/ui.js';
import { createRPC } from './fakes/rpc.js';
import { createUCI } from './fakes/uci.js';
import { createPoll } from './fakes/poll.js';
import { createForm } from './fakes/form.js';
import { createView, viewReady } from './fakes/view.js';
import { createNetwork } from './fakes/network.js';
import { createFS } from './fakes/fs.js';
import { createRequest } from './fakes/request.js';
import { createL, createSession } from './fakes/L.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const REQUIRE_RE = /^require[ \t]+(\S+)(?:[ \t]+as[ \t]+([a-zA-Z_]\S*))?$/;
const STRICT_RE = /^use[ \t]+strict$/;
const NAME_RE = /^[a-zA-Z0-9_-]+(?:\.[a-zA-Z0-9_-]+)*$/;

function named(Ctor, name, message) {
	const e = new Ctor(message);
	e.name = name;
	return e;
}

/**
 * Parse the leading directive run of a LuCI module source.
 * @param {string} source
 * @returns {{strict: boolean, requires: Array<{name: string, alias: string}>}}
 */
export function parseDirectives(source) {
	const src = String(source);
	const requires = [];
	let strict = false, i = 0;

	for (;;) {
		/* skip whitespace, semicolons and comments */
		for (;;) {
			if (/[\s;]/.test(src[i] || '')) { i++; continue; }
			if (src.startsWith('//', i)) { const nl = src.indexOf('\n', i); i = nl < 0 ? src.length : nl + 1; continue; }
			if (src.startsWith('/*', i)) { const end = src.indexOf('*/', i + 2); i = end < 0 ? src.length : end + 2; continue; }
			break;
		}

		const quote = src[i];
		if (quote !== "'" && quote !== '"')
			break;

		let j = i + 1;
		while (j < src.length && src[j] !== quote && src[j] !== '\n')
			j += src[j] === '\\' ? 2 : 1;
		if (src[j] !== quote)
			break;

		/* a directive is a whole statement: after the string only blanks,
		 * a same-line block comment, then ';', a line end, '//' or EOF */
		let k = j + 1;
		for (;;) {
			if (src[k] === ' ' || src[k] === '\t') { k++; continue; }
			if (src.startsWith('/*', k)) {
				const end = src.indexOf('*/', k + 2);
				if (end < 0 || src.slice(k, end).includes('\n')) break;
				k = end + 2;
				continue;
			}
			break;
		}
		if (!(k >= src.length || src[k] === ';' || src[k] === '\n' || src[k] === '\r' || src.startsWith('//', k)))
			break;

		const body = src.slice(i + 1, j);
		const m = REQUIRE_RE.exec(body);
		if (m)
			requires.push({ name: m[1], alias: m[2] || m[1].replace(/[^a-zA-Z0-9_]/g, '_') });
		else if (STRICT_RE.test(body))
			strict = true;
		else
			break;

		i = j + 1;
	}

	return { strict, requires };
}

/**
 * File path of a module name below `root`.
 * @param {string} name dotted module name, e.g. "view.reterm.devices"
 * @param {string} [root] repository root
 */
export function moduleFile(name, root = REPO_ROOT) {
	if (!NAME_RE.test(name))
		throw named(TypeError, 'TypeError', `invalid module name "${name}"`);
	return join(root, 'htdocs/luci-static/resources', ...name.split('.')) + '.js';
}

/**
 * Create an isolated harness: its own fakes, DOM and module cache.
 * @param {Object} [opts]
 * @param {string} [opts.root] repository root holding htdocs/
 * @param {Object<string,string>} [opts.sources] module name → source text
 *   (used instead of a file; handy for loader tests)
 * @param {Object<string,*>} [opts.modules] extra/overriding module values
 * @param {Object} [opts.env] merged into L.env
 */
export function createHarness(opts = {}) {
	installFormat();

	const root = opts.root || REPO_ROOT;
	const sources = opts.sources || {};
	const env = Object.assign({
		pollinterval: 5, sessionid: '00000000000000000000000000000000', token: 'fake-token',
		scriptname: '/cgi-bin/luci', resource: '/luci-static/resources', media: '/luci-static/bootstrap',
		requestpath: [], dispatchpath: [], features: {}
	}, opts.env);

	const { document, window, dom, E } = createDOM(Class);
	const fakes = { dom, E };
	const cache = new Map();
	const loading = new Set();
	const instantiations = {};

	fakes.ui = createUI({ Class, E, dom });
	fakes.rpc = createRPC({ Class });
	fakes.uci = createUCI({ Class });
	fakes.poll = createPoll({ Class, env });
	fakes.form = createForm({ Class, E, dom, uci: fakes.uci, ui: fakes.ui, _ });
	fakes.view = createView({ Class, E, dom, document, ui: fakes.ui, _ });
	fakes.network = createNetwork({ Class });
	fakes.fs = createFS({ Class });
	fakes.request = createRequest({ Class });

	const builtins = Object.assign({
		baseclass: Class,
		view: fakes.view,
		dom, poll: fakes.poll, request: fakes.request, rpc: fakes.rpc, uci: fakes.uci,
		ui: fakes.ui, form: fakes.form, network: fakes.network, fs: fakes.fs,
		session: createSession({ Class, env })
	}, opts.modules);

	const L = createL({ Class, env, fakes, require: name => harness.require(name) });

	function readSource(name) {
		if (Object.prototype.hasOwnProperty.call(sources, name))
			return { source: String(sources[name]), file: `sources:${name}` };
		const file = moduleFile(name, root);
		if (!existsSync(file))
			throw named(Error, 'NetworkError', `HTTP error 404 while loading class file "${name}" (${file})`);
		return { source: readFileSync(file, 'utf8'), file };
	}

	function requireSync(name, from = []) {
		if (Object.prototype.hasOwnProperty.call(builtins, name))
			return builtins[name];

		if (from.includes(name) || loading.has(name))
			throw named(Error, 'DependencyError',
				`Circular dependency: class "${name}" depends on "${[...from].reverse().join('" which depends on "')}"`);

		if (cache.has(name))
			return cache.get(name);

		loading.add(name);
		try {
			const { source, file } = readSource(name);
			const { requires } = parseDirectives(source);
			const deps = requires.map(r => requireSync(r.name, from.concat(name)));

			let factory;
			try {
				/* E, _ and N_ are outer-scope "globals"; a module alias may shadow them */
				const outer = new Function('E', '_', 'N_',
					`return function(window, document, L${requires.map(r => `, ${r.alias}`).join('')}) {\n${source}\n};\n//# sourceURL=${file}`);
				factory = outer(E, _, N_);
			}
			catch (err) {
				throw named(SyntaxError, 'SyntaxError', `${err.message}\n  in ${file}`);
			}

			const cls = factory.apply(factory, [window, document, L, ...deps]);
			if (!Class.isSubclass(cls))
				throw named(TypeError, 'TypeError', `"${name}" factory yields invalid constructor`);

			const instance = new cls();
			instantiations[name] = (instantiations[name] || 0) + 1;
			cache.set(name, instance);
			return instance;
		}
		finally {
			loading.delete(name);
		}
	}

	const harness = {
		root, env, L, E, _, N_, document, window, dom, text,
		baseclass: Class,
		view: fakes.view,
		ui: fakes.ui, rpc: fakes.rpc, uci: fakes.uci, poll: fakes.poll, form: fakes.form,
		network: fakes.network, fs: fakes.fs, request: fakes.request,
		/** how many times each file module was instantiated */
		instantiations,

		/** Load a module (Promise of its instance), as L.require does. */
		require(name) {
			return new Promise(res => res(requireSync(name)));
		},

		/** Synchronous variant of require(). */
		requireSync(name) {
			return requireSync(name);
		},

		/** Promise of the #view element once a view instance has rendered. */
		rendered(viewInstance) {
			return viewReady(viewInstance);
		}
	};

	return harness;
}

export { REPO_ROOT };
