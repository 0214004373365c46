/**
 * Fake `'require rpc'`. `rpc.declare()` behaves like LuCI's: positional
 * arguments map onto `params`, extra arguments go to `filter`, the reply
 * is reduced by `expect` (wrong type or missing key → the expect default)
 * and a non-zero ubus status resolves to the numeric code unless
 * `reject: true` is declared. Params and replies go through JSON, as on
 * the wire (undefined members vanish, objects are copied).
 *
 * Tests answer calls with handlers:
 *   rpc.handle('reterm', 'status', params => ({ running: true }));
 *   rpc.handle('reterm', 'apply', () => rpc.status(6));     // ubus error
 *   rpc.handle('reterm', 'hosts', () => { throw new Error('HTTP 500') }); // transport failure → rejects
 * A call with no handler rejects with "no fake handler for ubus
 * <object>.<method>" so a forgotten stub fails loudly rather than
 * silently turning into the expect default.
 *
 * Every call is recorded in `rpc.calls` as { object, method, params }.
 */

const STATUS_TEXT = {
	0: 'Command OK', 1: 'Invalid command', 2: 'Invalid argument',
	3: 'Method not found', 4: 'Resource not found', 5: 'No data received',
	6: 'Permission denied', 7: 'Request timeout', 8: 'Not supported',
	9: 'Unspecified error', 10: 'Connection lost'
};

class UbusStatus {
	constructor(code, data) {
		this.code = code;
		this.data = data;
	}
}

const typeOf = v => Object.prototype.toString.call(v);
const wire = v => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

export function createRPC({ Class }) {
	const handlers = new Map();
	const calls = [];
	const interceptors = [];

	async function invoke(object, method, params) {
		calls.push({ object, method, params });
		const handler = handlers.get(`${object}.${method}`);
		if (!handler)
			throw new Error(`no fake handler for ubus ${object}.${method}`);
		const reply = await handler(wire(params));
		if (reply instanceof UbusStatus)
			return reply.data === undefined ? [reply.code] : [reply.code, wire(reply.data)];
		return reply === undefined ? [0] : [0, wire(reply)];
	}

	return Class.singleton({
		__name__: 'LuCI.rpc',

		calls,

		declare(options) {
			const rpc = this;
			return function(...args) {
				const params = {};
				const names = Array.isArray(options.params) ? options.params : [];
				names.forEach((n, i) => { params[n] = args[i]; });
				const priv = args.slice(names.length);
				const sent = wire(params);

				return invoke(options.object, options.method, sent).then(async result => {
					for (const fn of interceptors)
						await fn({ jsonrpc: '2.0', result }, options);

					if (options.reject && result[0] !== 0)
						throw Object.assign(new Error(`RPC call to ${options.object}/${options.method} failed with ubus code ${result[0]}: ${rpc.getStatusText(result[0])}`), { name: 'RPCError', code: result[0] });

					let ret = result.length > 1 ? result[1] : result[0];

					if (options.expect) {
						for (const key in options.expect) {
							if (ret != null && key !== '')
								ret = ret[key];
							if (ret == null || typeOf(ret) !== typeOf(options.expect[key]))
								ret = options.expect[key];
							break;
						}
					}

					if (typeof options.filter === 'function')
						ret = options.filter.call(rpc, ret, sent, ...priv);

					return ret;
				});
			};
		},

		list(...objects) {
			const names = [...new Set([...handlers.keys()].map(k => k.split('.').slice(0, -1).join('.')))];
			if (!objects.length)
				return Promise.resolve(names);
			const out = {};
			for (const o of objects)
				out[o] = Object.fromEntries([...handlers.keys()]
					.filter(k => k.startsWith(`${o}.`) && !k.slice(o.length + 1).includes('.'))
					.map(k => [k.slice(o.length + 1), {}]));
			return Promise.resolve(out);
		},

		getStatusText(code) { return STATUS_TEXT[code] || 'Unknown error code'; },
		getSessionID() { return '00000000000000000000000000000000'; },
		setSessionID() {},
		getBaseURL() { return '/ubus/'; },
		setBaseURL() {},
		addInterceptor(fn) { if (typeof fn === 'function') interceptors.push(fn); return fn; },
		removeInterceptor(fn) {
			const i = interceptors.indexOf(fn);
			if (i >= 0) interceptors.splice(i, 1);
			return i >= 0;
		},

		/* ---- test-side API ---- */

		/** Register `fn(params)` answering ubus `object`.`method`. */
		handle(object, method, fn) {
			handlers.set(`${object}.${method}`, typeof fn === 'function' ? fn : () => fn);
			return this;
		},

		/** Remove a handler (subsequent calls reject). */
		unhandle(object, method) {
			handlers.delete(`${object}.${method}`);
			return this;
		},

		/** A ubus status reply (non-zero = error) for handlers to return. */
		status(code, data) {
			return new UbusStatus(code, data);
		},

		/** Recorded calls, optionally only those to object[.method]. */
		callsTo(object, method) {
			return calls.filter(c => c.object === object && (method == null || c.method === method));
		}
	});
}
