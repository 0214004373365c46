/**
 * The router's UCI configuration as rpcd's `uci` object sees it through
 * libuci: committed configs plus the session's staged deltas.
 *
 *   const store = createUciStore();
 *   store.seed('sqm', { q: { '.type': 'queue', enabled: '1' } });
 *   store.call('set', { config: 'sqm', section: 'q', values: { enabled: '0' } });
 *   store.changes()   → { sqm: [['set', 'q', 'enabled', '0']] }
 *   store.dump('sqm') → { q: { '.name': 'q', '.type': 'queue', enabled: '0', ... } }
 *   store.commit()    → the staged deltas, now committed
 *
 * libuci's behaviour kept (checked with OpenWrt's uci CLI): a set to the
 * value an option holds records no delta; deltas are kept in order, so a
 * value changed and changed back shows both; deleting what does not exist
 * is an error that records nothing; an anonymous section added gets a
 * cfgXXXXXX name; a named one is recorded as ['set', name, type].
 * Replies are those of rpcd's uci.c: [status] or [status, data].
 */

const clone = v => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));
const META = new Set(['.name', '.type', '.anonymous', '.index']);
const NAME_RE = /^[A-Za-z0-9_]+$/;

const OK = 0, INVALID = 2, NOT_FOUND = 4;

export function createUciStore() {
	const committed = {};	/* conf -> [section] in order */
	const deltas = {};	/* conf -> [op] */
	let counter = 0;

	/* the config with the deltas applied, as libuci loads it */
	function view(conf) {
		if (!committed[conf])
			return null;
		const list = clone(committed[conf]);
		for (const op of deltas[conf] || [])
			applyOp(list, op);
		return list;
	}

	function applyOp(list, [kind, sid, a, b]) {
		const s = list.find(x => x['.name'] === sid);
		if (kind === 'add' || (kind === 'set' && b === undefined && !s))
			list.push({ '.name': sid, '.type': a, '.anonymous': kind === 'add' });
		else if (kind === 'set' && s)
			s[a] = clone(b);
		else if (kind === 'list-add' && s)
			s[a] = (Array.isArray(s[a]) ? s[a] : []).concat([b]);
		else if (kind === 'remove' && s && a === undefined)
			list.splice(list.indexOf(s), 1);
		else if (kind === 'remove' && s)
			delete s[a];
		else if (kind === 'order' && s) {
			list.splice(list.indexOf(s), 1);
			list.splice(Math.min(+a, list.length), 0, s);
		}
		else if (kind === 'rename' && s && b === undefined)
			s['.name'] = a;
	}

	function record(conf, op) {
		(deltas[conf] = deltas[conf] || []).push(op);
	}

	function section(conf, sid) {
		const list = view(conf);
		return list ? list.find(s => s['.name'] === sid) || null : null;
	}

	/* one option, rpcd's rpc_uci_merge_set: a list replaces the old value */
	function setOption(conf, sid, opt, val) {
		const cur = section(conf, sid)[opt];
		if (Array.isArray(val)) {
			if (cur !== undefined)
				record(conf, ['remove', sid, opt]);
			val.forEach(v => record(conf, ['list-add', sid, opt, String(v)]));
		}
		else if (val === '' || val == null) {
			if (cur !== undefined)
				record(conf, ['remove', sid, opt]);
		}
		else if (cur !== String(val))
			record(conf, ['set', sid, opt, String(val)]);
	}

	function values(list) {
		const out = {};
		list.forEach((s, i) => { out[s['.name']] = Object.assign(clone(s), { '.index': i }); });
		return out;
	}

	const methods = {
		configs() {
			return [OK, { configs: Object.keys(committed).sort() }];
		},

		get({ config, section: sid, option }) {
			const list = view(config);
			if (!list)
				return [NOT_FOUND];
			if (sid == null)
				return [OK, { values: values(list) }];
			const s = values(list)[sid];
			if (!s)
				return [NOT_FOUND];
			if (option == null)
				return [OK, { values: s }];
			return s[option] === undefined ? [NOT_FOUND] : [OK, { value: s[option] }];
		},

		add({ config, type, name, values: vals }) {
			if (!committed[config] || typeof type !== 'string' || !NAME_RE.test(type))
				return [committed[config] ? INVALID : NOT_FOUND];
			let sid = name;
			if (sid != null) {
				if (!NAME_RE.test(sid))
					return [INVALID];
				if (!section(config, sid))
					record(config, ['set', sid, type]);
			}
			else {
				sid = `cfg${(++counter).toString(16).padStart(6, '0')}`;
				record(config, ['add', sid, type]);
			}
			for (const [k, v] of Object.entries(vals || {}))
				if (!k.startsWith('.'))
					setOption(config, sid, k, v);
			return [OK, { section: sid }];
		},

		set({ config, section: sid, values: vals }) {
			if (!section(config, sid))
				return [NOT_FOUND];
			for (const [k, v] of Object.entries(vals || {}))
				if (!k.startsWith('.'))
					setOption(config, sid, k, v);
			return [OK];
		},

		delete({ config, section: sid, option, options }) {
			const s = section(config, sid);
			if (!s)
				return [NOT_FOUND];
			const opts = options || (option != null ? [option] : null);
			if (!opts) {
				record(config, ['remove', sid]);
				return [OK];
			}
			for (const o of opts)
				if (s[o] !== undefined)
					record(config, ['remove', sid, o]);
			return [OK];
		},

		rename({ config, section: sid, option, name }) {
			if (!section(config, sid))
				return [NOT_FOUND];
			record(config, option != null ? ['rename', sid, option, name] : ['rename', sid, name]);
			return [OK];
		},

		order({ config, sections }) {
			if (!view(config))
				return [NOT_FOUND];
			(sections || []).forEach((sid, i) => {
				const list = view(config);
				if (list.findIndex(s => s['.name'] === sid) !== i)
					record(config, ['order', sid, i]);
			});
			return [OK];
		},

		changes({ config } = {}) {
			const out = {};
			for (const c of Object.keys(deltas))
				if ((config == null || c === config) && deltas[c].length)
					out[c] = clone(deltas[c]);
			return [OK, { changes: config != null ? (out[config] || []) : out }];
		},

		revert({ config }) {
			delete deltas[config];
			return [OK];
		},

		commit({ config }) {
			if (!committed[config])
				return [NOT_FOUND];
			committed[config] = view(config);
			delete deltas[config];
			return [OK];
		}
	};

	return {
		/** Answer rpcd's `uci <method>`; [status] or [status, data]. */
		call(method, params) {
			const fn = methods[method];
			return fn ? fn(params || {}) : [3];
		},

		/** Replace config `conf` (committed) with `sections`, dropping its deltas. */
		seed(conf, sections) {
			const list = [];
			for (const [sid, s] of Object.entries(sections || {})) {
				if (!s || typeof s['.type'] !== 'string')
					throw new Error(`uci seed: section ${conf}.${sid} needs a '.type'`);
				const sec = { '.name': sid, '.type': s['.type'], '.anonymous': !!s['.anonymous'] };
				for (const [k, v] of Object.entries(s))
					if (!META.has(k) && v != null)
						sec[k] = Array.isArray(v) ? v.map(String) : String(v);
				list.push(sec);
			}
			committed[conf] = list;
			delete deltas[conf];
		},

		/** `conf` as the session reads it (deltas applied): { sid: section }, or undefined. */
		dump(conf) {
			const list = view(conf);
			return list ? values(list) : undefined;
		},

		/** The staged deltas, as `uci changes` lists them. */
		changes() {
			return methods.changes()[1].changes;
		},

		/** Commit every config with deltas; returns the deltas committed. */
		commit() {
			const done = this.changes();
			for (const c of Object.keys(done))
				methods.commit({ config: c });
			return done;
		},

		/** Drop every staged delta. */
		revertAll() {
			for (const c of Object.keys(deltas))
				delete deltas[c];
		}
	};
}
