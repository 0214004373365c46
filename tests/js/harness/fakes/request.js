/**
 * Fake `'require request'`: HTTP requests are answered by handlers.
 *   request.handle('GET', '/cgi-bin/luci/admin/x', req => ({ status: 200, json: {...} }))
 *   request.handle('POST', /\/upload$/, req => ({ status: 500, text: 'boom' }))
 * A handler gets { method, url, options, content } and returns
 * { status = 200, statusText, json | text, headers }. Unhandled requests
 * reject with "no fake handler for <METHOD> <url>".
 * Every request is recorded in `request.calls`.
 */

export function createRequest({ Class }) {
	const handlers = [];
	const calls = [];

	const Response = Class.extend({
		__name__: 'LuCI.response',
		__init__(url, reply) {
			this.url = url;
			this.status = reply.status ?? 200;
			this.ok = this.status >= 200 && this.status <= 299;
			this.statusText = reply.statusText ?? (this.ok ? 'OK' : 'Error');
			this.duration = 0;
			const hdrs = Object.fromEntries(Object.entries(reply.headers || {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
			this.headers = { has: k => String(k).toLowerCase() in hdrs, get: k => hdrs[String(k).toLowerCase()] ?? null };
			this.responseJSON = reply.json !== undefined ? JSON.parse(JSON.stringify(reply.json)) : null;
			this.responseText = reply.text !== undefined ? String(reply.text) : null;
		},
		json() {
			if (this.responseJSON == null)
				this.responseJSON = JSON.parse(this.responseText);
			return this.responseJSON;
		},
		text() {
			if (this.responseText == null && this.responseJSON != null)
				this.responseText = JSON.stringify(this.responseJSON);
			return this.responseText ?? '';
		},
		clone(content) {
			return new Response(this.url, { status: this.status, json: typeof content === 'object' ? content : undefined,
				text: typeof content === 'string' ? content : undefined });
		}
	});

	return Class.singleton({
		__name__: 'LuCI.request',

		calls,
		interceptors: [],

		expandURL(url) {
			return /^(?:[^/]+:)?\/\//.test(url) ? url : `http://192.168.1.1${url}`;
		},

		async request(url, options = {}) {
			const method = String(options.method || 'GET').toUpperCase();
			const req = { method, url, options, content: options.content };
			calls.push(req);
			const h = handlers.find(h => h.method === method &&
				(h.url instanceof RegExp ? h.url.test(url) : h.url === url));
			if (!h)
				throw new Error(`no fake handler for ${method} ${url}`);
			const res = new Response(url, (await h.fn(req)) || {});
			for (const fn of this.interceptors)
				await fn(res);
			return res;
		},

		get(url, options) {
			return this.request(url, Object.assign({ method: 'GET' }, options));
		},

		post(url, data, options) {
			return this.request(url, Object.assign({ method: 'POST', content: data }, options));
		},

		addInterceptor(fn) {
			if (typeof fn === 'function') this.interceptors.push(fn);
			return fn;
		},

		removeInterceptor(fn) {
			const i = this.interceptors.indexOf(fn);
			if (i >= 0) this.interceptors.splice(i, 1);
			return i >= 0;
		},

		/* ---- test-side API ---- */

		handle(method, url, fn) {
			handlers.unshift({ method: String(method).toUpperCase(), url, fn: typeof fn === 'function' ? fn : () => fn });
			return this;
		}
	});
}
