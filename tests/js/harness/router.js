/**
 * The router behind the browser, at the HTTP level: what uhttpd serves to
 * LuCI's JavaScript. The only part of the JS tier that is not OpenWrt's
 * own code (luci.js, ui.js, form.js, uci.js, rpc.js, fs.js run as built
 * in $RETERM_OWRT); it answers:
 *
 *   GET  /luci-static/resources/<path>  our htdocs/ first, then LuCI's;
 *        /luci-static/<theme>/<path> the theme's (cascade.css, ...)
 *   GET  /cgi-bin/luci/<path>    what LuCI's dispatcher renders
 *        (dispatcher.js): the page of a view in the menu.d files,
 *        admin/menu, admin/translations/<lang>
 *   POST /ubus/                  JSON-RPC 2.0, single or batched: `list`
 *        and `call` of ubus objects: `uci` (ucistore.js), `file` list /
 *        read / stat from `files`, `session access`, `luci getFeatures`,
 *        and every object.method a test handles
 *   POST /cgi-bin/luci/admin/uci/{apply_rollback,apply_unchecked,confirm,revert}
 *        what LuCI's dispatcher does on Save & Apply: commit the staged
 *        changes (with rollback pending until confirmed) or drop them
 *   anything else                404
 *
 *   const r = createRouter({ htdocs, luciRoot });   // /etc/config/luci from luciRoot
 *   r.handle('reterm', 'hosts', params => ({ hosts: [] }));
 *   r.handle('reterm', 'apply', () => r.status(6));     // a ubus status
 *   r.handle('reterm', 'x', () => r.error(-32000, 'Object not found'));
 *   r.handle('reterm', 'y', () => r.http(502));          // the request fails
 *   r.handle('reterm', 'z', () => { throw new Error() }); // the connection drops (status 0)
 *   r.handle('reterm', 'w', () => r.noAnswer());         // no answer: the page's XHR times out
 *   await r.request({ method, url, body }) → { status, statusText, headers, body },
 *     null (dropped) or { hang: true }
 *
 * Recorded: `calls` (ubus calls but uci, file and session, as
 * { object, method, params }), `loads` (configs `uci get` read),
 * `uciWrites` (uci add/set/delete/rename/order as { method, params }),
 * `fileCalls` ([method, path]), `applies` ([{ checked }] per apply),
 * `commits` (the changes each apply committed), `requests` ("POST
 * /ubus/", ... but static files).
 */

import { readFileSync, existsSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { createUciStore } from './ucistore.js';
import { createDispatcher, rootConfig } from './dispatcher.js';

const TYPES = { '.js': 'application/javascript', '.css': 'text/css', '.json': 'application/json', '.svg': 'image/svg+xml',
	'.png': 'image/png', '.gif': 'image/gif', '.html': 'text/html' };
const BINARY = new Set(['.png', '.gif']);

const sources = new Map();	/* file -> text (a Buffer for images), shared by every router */

function readCached(file) {
	if (!sources.has(file))
		sources.set(file, existsSync(file) && statSync(file).isFile()
			? readFileSync(file, BINARY.has(extname(file)) ? null : 'utf8') : null);
	return sources.get(file);
}

class UbusStatus { constructor(code, data) { this.code = code; this.data = data; } }
class RpcError { constructor(code, message) { this.code = code; this.message = message; } }
class HttpFailure { constructor(status) { this.status = status; } }
class NoAnswer {}

/** A handler's answer: ubus status `code` (non-zero: an error), with data. */
export const ubusStatus = (code, data) => new UbusStatus(code, data);
/** A handler's answer: a JSON-RPC error (-32000 Object not found, ...). */
export const rpcError = (code, message) => new RpcError(code, message);
/** A handler's answer: the whole HTTP request fails with `status`. */
export const httpStatus = status => new HttpFailure(status);
/** A handler's answer: none; the request hangs until the page's XHR times out. */
export const noAnswer = () => new NoAnswer();

const HTTP_TEXT = { 200: 'OK', 204: 'No Content', 400: 'Bad Request', 403: 'Forbidden', 404: 'Not Found',
	500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable' };
const wire = v => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

export function createRouter({ htdocs, luciRoot, ubuspath = '/ubus/', scriptname = '/cgi-bin/luci',
	menuDirs = [join(luciRoot, 'usr/share/luci/menu.d'), join(htdocs, '../root/usr/share/luci/menu.d')] }) {
	const uci = createUciStore();
	uci.seed('luci', rootConfig(luciRoot, 'luci'));
	const dispatcher = createDispatcher({ menuDirs });
	const handlers = new Map();
	const files = {};
	const calls = [], loads = [], fileCalls = [], applies = [], commits = [], requests = [], uciWrites = [];
	let rollbackPending = null;

	const reply = (status, body, type = 'text/plain') =>
		({ status, statusText: HTTP_TEXT[status] || '', headers: { 'content-type': type }, body: body ?? '' });
	const json = (status, v) => reply(status, JSON.stringify(v), 'application/json');

	/* /luci-static/...: resources from our htdocs first, the rest LuCI's */
	function staticFile(path) {
		const rel = path.replace(/^\/luci-static\//, '');
		if (rel === path || rel.split('/').includes('..'))
			return null;
		const bases = rel.startsWith('resources/') ? [join(htdocs, 'luci-static'), join(luciRoot, 'www/luci-static')]
			: [join(luciRoot, 'www/luci-static')];
		for (const base of bases) {
			const body = readCached(join(base, rel));
			if (body != null)
				return reply(200, body, TYPES[extname(rel)] || 'text/plain');
		}
		return null;
	}

	/* GET /cgi-bin/luci/...: LuCI's dispatcher */
	function dispatch(path) {
		if (path === 'admin/menu')
			return json(200, dispatcher.menu());
		if (/^admin\/translations\/[a-z_-]+$/i.test(path))
			return reply(200, 'window.TR={};', 'application/javascript');
		const html = dispatcher.page(path, uci.dump('luci') || {}, api.env);
		return html == null ? reply(404, 'Not Found') : reply(200, html, 'text/html; charset=utf-8');
	}

	function fileCall(method, { path }) {
		fileCalls.push([method, path]);
		const p = String(path);
		if (method === 'read')
			return Object.prototype.hasOwnProperty.call(files, p) ? [0, { data: String(files[p]) }] : [4];
		if (method === 'stat')
			return Object.prototype.hasOwnProperty.call(files, p) ? [0, { path: p, type: 'file', size: String(files[p]).length }] : [4];
		if (method === 'list') {
			const dir = p.replace(/\/+$/, '') + '/', names = new Map();
			for (const f of Object.keys(files))
				if (f.startsWith(dir))
					names.set(f.slice(dir.length).split('/')[0], f.slice(dir.length).includes('/') ? 'directory' : 'file');
			if (!names.size)
				return [4];
			return [0, { entries: [...names].sort().map(([name, type]) => ({ name, type, size: 0 })) }];
		}
		return [6];
	}

	async function ubusCall(object, method, params) {
		if (object === 'uci' && !handlers.has(`uci.${method}`)) {
			if (method === 'get' && params && params.config)
				loads.push(params.config);
			if (/^(add|set|delete|rename|order)$/.test(method))
				uciWrites.push({ method, params: wire(params) });
			return { result: uci.call(method, params) };
		}
		if (object === 'file' && !handlers.has(`file.${method}`))
			return { result: fileCall(method, params || {}) };
		if (object === 'session' && method === 'access')
			return { result: [0, { access: true }] };
		if (object === 'luci' && method === 'getFeatures' && !handlers.has('luci.getFeatures'))
			return { result: [0, {}] };

		if (object !== 'session' && object !== 'uci')
			calls.push({ object, method, params: wire(params) });
		const fn = handlers.get(`${object}.${method}`);
		/* uhttpd: an object it cannot look up is a JSON-RPC error, a method
		 * the object lacks is ubus status 3 */
		if (!fn)
			return [...handlers.keys()].some(k => k.startsWith(`${object}.`))
				? { result: [3] }
				: { error: { code: -32000, message: 'Object not found' } };
		const out = await fn(wire(params) || {});
		if (out instanceof UbusStatus)
			return { result: out.data === undefined ? [out.code] : [out.code, wire(out.data)] };
		if (out instanceof RpcError)
			return { error: { code: out.code, message: out.message } };
		if (out instanceof HttpFailure || out instanceof NoAnswer)
			throw out;
		return { result: out === undefined ? [0] : [0, wire(out)] };
	}

	async function jsonrpc(msg) {
		const base = { jsonrpc: '2.0', id: msg && msg.id };
		if (!msg || msg.jsonrpc !== '2.0')
			return Object.assign(base, { error: { code: -32600, message: 'Invalid request' } });
		if (msg.method === 'list')
			return Object.assign(base, { result: Object.fromEntries([...new Set(['uci', 'file', 'session', 'luci',
				...[...handlers.keys()].map(k => k.slice(0, k.lastIndexOf('.')))])].map(o => [o, {}])) });
		if (msg.method !== 'call' || !Array.isArray(msg.params) || msg.params.length < 3)
			return Object.assign(base, { error: { code: -32601, message: 'Method not found' } });
		const [, object, method, params] = msg.params;
		return Object.assign(base, await ubusCall(object, method, params));
	}

	/* LuCI's dispatcher, admin/uci/*: apply with rollback, confirm, revert */
	function uciAction(action) {
		if (action === 'apply_rollback' || action === 'apply_unchecked') {
			const checked = action === 'apply_rollback';
			applies.push({ checked });
			if (!Object.keys(uci.changes()).length && checked)
				return reply(204);
			const done = uci.commit();
			commits.push(done);
			rollbackPending = checked ? done : null;
			return checked ? json(200, { token: 'rollback-token' }) : reply(204);
		}
		if (action === 'confirm') {
			const had = rollbackPending != null;
			rollbackPending = null;
			return reply(had ? 200 : 204);
		}
		if (action === 'revert') {
			uci.revertAll();
			return reply(200);
		}
		return reply(404);
	}

	const api = {
		uci, files, calls, loads, fileCalls, applies, commits, requests, uciWrites,
		/** merged into the L.env of the pages the router renders */
		env: {},

		/** Answer ubus `object`.`method` with fn(params) (or a fixed value). */
		handle(object, method, fn) {
			handlers.set(`${object}.${method}`, typeof fn === 'function' ? fn : () => fn);
			return this;
		},
		unhandle(object, method) {
			handlers.delete(`${object}.${method}`);
			return this;
		},
		status: ubusStatus, error: rpcError, http: httpStatus, noAnswer,

		/** One HTTP request: { method, url, body } → the reply, or null (no answer). */
		async request({ method, url, body }) {
			const u = new URL(url, 'http://router.test');
			const path = u.pathname;
			if (!path.startsWith('/luci-static/'))
				requests.push(`${method} ${path}`);
			try {
				if (method === 'GET' && path.startsWith('/luci-static/'))
					return staticFile(path) || reply(404, 'Not Found');
				if (method === 'GET' && path.startsWith(`${scriptname}/`))
					return dispatch(path.slice(scriptname.length + 1).replace(/\/+$/, ''));
				if (method === 'POST' && path.startsWith(ubuspath)) {
					const msg = JSON.parse(body);
					return json(200, Array.isArray(msg) ? await Promise.all(msg.map(jsonrpc)) : await jsonrpc(msg));
				}
				const m = method === 'POST' && path.startsWith(`${scriptname}/admin/uci/`) && path.slice(scriptname.length + 11);
				if (m)
					return uciAction(m);
				return reply(404, 'Not Found');
			}
			catch (e) {
				if (e instanceof HttpFailure)
					return reply(e.status, HTTP_TEXT[e.status] || '');
				if (e instanceof NoAnswer)
					return { hang: true };
				if (e instanceof SyntaxError)
					return reply(400, 'Bad Request');
				return null;
			}
		}
	};
	return api;
}
