/**
 * The `L` object handed to every module (a small subset of LuCI's):
 * env, bind, isObject, isArguments, toArray, sortedKeys, naturalCompare,
 * resolveDefault, raise, error, url, resource, media, require,
 * hasSystemFeature, hasViewPermission, Class, dom, Poll; `L.ui` etc.
 * point at the harness fakes. Also the `'require session'` builtin.
 */

import { format, _ } from './i18n.js';

export function createL({ Class, env, require, fakes }) {
	const naturalCompare = new Intl.Collator(undefined, { numeric: true }).compare;
	const path = (prefix, parts) => {
		const segs = parts.filter(p => /^(?:[a-zA-Z0-9_.%,;-]+\/)*[a-zA-Z0-9_.%,;-]+$/.test(p));
		return (prefix || '') + (segs.length ? '/' + segs.join('/') : '/');
	};

	const L = Class.singleton({
		__name__: 'LuCI',

		env,
		Class,
		naturalCompare,

		bind(fn, self, ...args) { return Function.prototype.bind.call(fn, self, ...args); },
		isObject(v) { return v != null && typeof v === 'object'; },
		isArguments(v) { return Object.prototype.toString.call(v) === '[object Arguments]'; },

		toArray(v) {
			if (v == null) return [];
			if (Array.isArray(v)) return v;
			if (typeof v === 'object') return [v];
			const s = String(v).trim();
			return s === '' ? [] : s.split(/\s+/);
		},

		sortedKeys(obj, key, mode) {
			if (obj == null || typeof obj !== 'object') return [];
			return Object.keys(obj).map(k => {
				let v = key != null ? obj[k][key] : k;
				if (mode === 'num') v = v != null ? +v : null;
				return [k, v];
			}).filter(e => e[1] != null).sort((a, b) =>
				typeof a[1] === 'number' && typeof b[1] === 'number' ? a[1] - b[1] : naturalCompare(String(a[1]), String(b[1]))
			).map(e => e[0]);
		},

		resolveDefault(value, def) {
			return Promise.resolve(value).catch(() => def);
		},

		raise(type, fmt, ...args) {
			const msg = fmt ? format(fmt, ...args) : null;
			if (type instanceof Error) {
				if (msg) type.message = `${msg}: ${type.message}`;
				throw type;
			}
			const Ctor = (type && globalThis[type] && typeof globalThis[type] === 'function') ? globalThis[type] : Error;
			const e = new Ctor(msg || 'Unspecified error');
			e.name = type || 'Error';
			throw e;
		},

		error(type, fmt, ...args) {
			try {
				this.raise(type, fmt, ...args);
			}
			catch (e) {
				if (!e.reported) {
					fakes.ui.addNotification(e.name || _('Runtime error'), fakes.E('pre', {}, [e.message]), 'danger');
					e.reported = true;
				}
				throw e;
			}
		},

		url(...parts) { return path(env.scriptname, parts); },
		resource(...parts) { return path(env.resource, parts); },
		media(...parts) { return path(env.media, parts); },
		location() { return path(env.scriptname, env.requestpath); },

		require(name) { return require(name); },

		hasSystemFeature(feature, sub) {
			const f = (env.features || {})[feature];
			if (sub != null) return Array.isArray(f) ? f.includes(sub) : false;
			return f != null && f !== false;
		},

		hasViewPermission() { return env.readonly !== true; }
	});

	for (const [prop, name] of [['ui', 'ui'], ['dom', 'dom'], ['Poll', 'poll'], ['uci', 'uci'], ['rpc', 'rpc']])
		Object.defineProperty(L, prop, { get: () => fakes[name], enumerable: false });

	return L;
}

/** Fake `'require session'`: ids from env, local data in memory. */
export function createSession({ Class, env }) {
	const store = {};
	return Class.singleton({
		__name__: 'LuCI.session',
		getID() { return env.sessionid; },
		getToken() { return env.token ?? null; },
		getLocalData(key) {
			return key != null ? (Object.prototype.hasOwnProperty.call(store, key) ? store[key] : null) : Object.assign({}, store);
		},
		setLocalData(key, value) {
			if (key == null) return false;
			if (value != null) store[key] = value;
			else delete store[key];
			return true;
		}
	});
}
