/**
 * Fake `'require uci'` with three layers, like LuCI + rpcd:
 *   backend (the router's config incl. staged deltas)
 *     ← save()  ← working copy (load()ed values + local, unsaved edits)
 *   apply() commits the staged deltas.
 *
 * LuCI behaviour kept: set() on an unknown section is ignored, set() with
 * null/'' unsets, anonymous sections added in the browser get temporary
 * "new…" ids that become "cfg…" ids after save(), load() of a config the
 * router does not have rejects, get(conf, sid) returns the section object,
 * '@type[n]' (n may be negative) addresses anonymous sections.
 *
 * Test-side API:
 *   uci.seed('reterm', { main: { '.type': 'reterm', port: '15001' },
 *                        dev1: { '.type': 'device', '.anonymous': true, name: '3ds' } })
 *   uci.dump('reterm')       → backend sections { sid: {...} }
 *   uci.pendingChanges()     → { conf: [ops] } not yet saved
 *   uci.stagedChanges()      → { conf: [ops] } saved, not applied
 *   uci.commits              → [{ conf: [ops] }] one per apply()
 *   uci.loads                → every config name load() was asked for
 *                              (what rpcd's ACL must grant for reading)
 * Ops use rpcd's `uci changes` shape: ['add', sid, type], ['set', sid,
 * opt, value] (value may be an array), ['set', sid, type] (rename type is
 * not supported), ['remove', sid], ['remove', sid, opt].
 */

const clone = v => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));
const META = new Set(['.name', '.type', '.anonymous', '.index']);

export function createUCI({ Class }) {
	const backend = {};          /* conf -> sid -> section */
	const values = {};           /* loaded working copies */
	const pending = {};          /* conf -> [ops] */
	const staged = {};           /* conf -> [ops] */
	const commits = [];
	const loads = [];
	let newCounter = 0, cfgCounter = 0;

	const nextCfgId = () => `cfg${(++cfgCounter).toString(16).padStart(6, '0')}`;

	function record(conf, op) {
		(pending[conf] = pending[conf] || []).push(op);
	}

	function nextIndex(sections) {
		return Object.values(sections).reduce((m, s) => Math.max(m, s['.index'] + 1), 0);
	}

	function applyOp(sections, op, idmap) {
		const [kind, rawSid] = op;
		const sid = idmap[rawSid] || rawSid;
		if (kind === 'add') {
			const real = rawSid.startsWith('new') ? nextCfgId() : rawSid;
			idmap[rawSid] = real;
			sections[real] = { '.name': real, '.type': op[2], '.anonymous': rawSid.startsWith('new'),
				'.index': nextIndex(sections) };
			return ['add', real, op[2]];
		}
		if (!sections[sid])
			return null;
		if (kind === 'set') {
			sections[sid][op[2]] = clone(op[3]);
			return ['set', sid, op[2], clone(op[3])];
		}
		if (kind === 'remove' && op.length > 2) {
			delete sections[sid][op[2]];
			return ['remove', sid, op[2]];
		}
		if (kind === 'remove') {
			delete sections[sid];
			return ['remove', sid];
		}
		return null;
	}

	const uci = Class.singleton({
		__name__: 'LuCI.uci',

		commits,
		loads,

		createSID(conf) {
			return `new${(++newCounter).toString(16).padStart(6, '0')}`;
		},

		resolveSID(conf, sid) {
			if (typeof sid !== 'string')
				return sid;
			const m = /^@([a-zA-Z0-9_-]+)\[(-?[0-9]+)\]$/.exec(sid);
			if (!m)
				return sid;
			const list = this.sections(conf, m[1]);
			const pos = +m[2];
			const s = list[pos >= 0 ? pos : list.length + pos];
			return s ? s['.name'] : null;
		},

		load(packages) {
			const names = (Array.isArray(packages) ? packages : [packages]).filter(Boolean);
			loads.push(...names);
			for (const n of names)
				if (!backend[n])
					return Promise.reject(Object.assign(
						new Error(`RPC call to uci/get failed with ubus code 4: Resource not found (${n})`),
						{ name: 'RPCError', code: 4 }));
			const loaded = [];
			for (const n of names) {
				if (!values[n]) {
					values[n] = clone(backend[n]);
					loaded.push(n);
				}
			}
			return Promise.resolve(loaded);
		},

		unload(packages) {
			for (const n of (Array.isArray(packages) ? packages : [packages])) {
				delete values[n];
				delete pending[n];
			}
		},

		add(conf, type, name) {
			if (!values[conf])
				values[conf] = {};
			const sid = name || this.createSID(conf);
			values[conf][sid] = { '.name': sid, '.type': type, '.anonymous': !name,
				'.index': nextIndex(values[conf]) };
			record(conf, ['add', sid, type]);
			return sid;
		},

		remove(conf, sid) {
			sid = this.resolveSID(conf, sid);
			if (!values[conf] || !values[conf][sid])
				return;
			delete values[conf][sid];
			record(conf, ['remove', sid]);
		},

		sections(conf, type, cb) {
			const list = Object.values(values[conf] || {})
				.filter(s => type == null || s['.type'] === type)
				.sort((a, b) => a['.index'] - b['.index'])
				.map(s => clone(s));
			if (typeof cb === 'function')
				list.forEach(s => cb.call(this, s, s['.name']));
			return list;
		},

		get(conf, sid, opt) {
			sid = this.resolveSID(conf, sid);
			const s = values[conf] && sid != null ? values[conf][sid] : undefined;
			if (s === undefined)
				return undefined;
			if (opt == null)
				return clone(s);
			return clone(s[opt]);
		},

		set(conf, sid, opt, val) {
			sid = this.resolveSID(conf, sid);
			if (sid == null || opt == null || opt.charAt(0) === '.')
				return;
			const s = values[conf] && values[conf][sid];
			if (!s)
				return;
			if (val == null || val === '' || (Array.isArray(val) && !val.length)) {
				if (s[opt] === undefined)
					return;
				delete s[opt];
				record(conf, ['remove', sid, opt]);
				return;
			}
			const v = Array.isArray(val) ? val.map(String) : String(val);
			/* libuci drops a set to the value an option holds: rpcd's
			 * changes never show it (a list is deleted and added anew) */
			if (typeof v === 'string' && s[opt] === v)
				return;
			s[opt] = v;
			record(conf, ['set', sid, opt, clone(v)]);
		},

		unset(conf, sid, opt) {
			return this.set(conf, sid, opt, null);
		},

		get_first(conf, type, opt) {
			const s = this.sections(conf, type)[0];
			return s ? this.get(conf, s['.name'], opt) : undefined;
		},

		set_first(conf, type, opt, val) {
			const s = this.sections(conf, type)[0];
			if (s)
				this.set(conf, s['.name'], opt, val);
		},

		unset_first(conf, type, opt) {
			return this.set_first(conf, type, opt, null);
		},

		get_bool(conf, sid, opt) {
			const v = this.get(conf, sid, opt);
			return typeof v === 'string' && ['1', 'on', 'true', 'yes', 'enabled'].includes(v.toLowerCase());
		},

		move() {
			throw new Error('uci.move() is not implemented in the fake');
		},

		save() {
			const saved = [];
			for (const conf of Object.keys(pending)) {
				const target = backend[conf] = backend[conf] || {};
				const idmap = {};
				for (const op of pending[conf]) {
					const done = applyOp(target, op, idmap);
					if (done)
						(staged[conf] = staged[conf] || []).push(done);
				}
				saved.push(conf);
				delete pending[conf];
				values[conf] = clone(target);
			}
			return Promise.resolve(saved);
		},

		apply(timeout) {
			commits.push(clone(staged));
			for (const k of Object.keys(staged))
				delete staged[k];
			return Promise.resolve();
		},

		changes() {
			return Promise.resolve(clone(staged));
		},

		/* ---- test-side API ---- */

		/** Replace config `conf` on the "router" with `sections`. */
		seed(conf, sections) {
			const out = {};
			let idx = 0;
			for (const [sid, s] of Object.entries(sections || {})) {
				if (!s || typeof s['.type'] !== 'string')
					throw new Error(`uci.seed: section ${conf}.${sid} needs a '.type'`);
				const sec = { '.name': sid, '.type': s['.type'], '.anonymous': !!s['.anonymous'], '.index': idx++ };
				for (const [k, v] of Object.entries(s))
					if (!META.has(k))
						sec[k] = Array.isArray(v) ? v.map(String) : String(v);
				out[sid] = sec;
			}
			backend[conf] = out;
			delete values[conf];
			delete pending[conf];
			return this;
		},

		/** Backend state of `conf` (what the router has, staged included). */
		dump(conf) {
			return clone(backend[conf]);
		},

		pendingChanges() {
			return clone(pending);
		},

		stagedChanges() {
			return clone(staged);
		}
	});

	return uci;
}
