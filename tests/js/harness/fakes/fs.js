/**
 * Fake `'require fs'` (LuCI's file/exec helper over rpcd `file`).
 * Files live in `fs.files` (path → string); commands are answered by
 * handlers registered with `fs.handleExec(cmd, (args, env) => ({ code,
 * stdout, stderr }))`. Like LuCI, read/stat/list/exec reject on failure
 * (missing file → "Resource not found", unhandled command → "Permission
 * denied") while lines()/trimmed() swallow errors.
 * Every call is recorded in `fs.calls` as [method, ...args].
 */

export function createFS({ Class }) {
	const files = {};
	const execs = new Map();
	const calls = [];

	const fail = (code, msg) => Promise.reject(Object.assign(new Error(msg), { name: 'RPCError', code }));
	const notFound = path => fail(4, `Resource not found: ${path}`);

	return Class.singleton({
		__name__: 'LuCI.fs',

		files, calls,

		list(path) {
			calls.push(['list', path]);
			const dir = String(path).replace(/\/+$/, '') + '/';
			const names = new Set();
			for (const f of Object.keys(files))
				if (f.startsWith(dir))
					names.add(f.slice(dir.length).split('/')[0]);
			if (!names.size)
				return notFound(path);
			return Promise.resolve([...names].sort().map(name => {
				const full = dir + name;
				const isFile = Object.prototype.hasOwnProperty.call(files, full);
				return { name, type: isFile ? 'file' : 'directory', size: isFile ? files[full].length : 0 };
			}));
		},

		stat(path) {
			calls.push(['stat', path]);
			if (!Object.prototype.hasOwnProperty.call(files, path))
				return notFound(path);
			return Promise.resolve({ name: path, type: 'file', size: files[path].length });
		},

		read(path) {
			calls.push(['read', path]);
			if (!Object.prototype.hasOwnProperty.call(files, path))
				return notFound(path);
			return Promise.resolve(files[path]);
		},

		read_direct(path, type) {
			return this.read(path).then(s => (type === 'json' ? JSON.parse(s) : s));
		},

		write(path, data, mode) {
			calls.push(['write', path, data, mode]);
			files[path] = data == null ? '' : String(data);
			return Promise.resolve(0);
		},

		remove(path) {
			calls.push(['remove', path]);
			if (!Object.prototype.hasOwnProperty.call(files, path))
				return notFound(path);
			delete files[path];
			return Promise.resolve(0);
		},

		exec(command, params, env) {
			calls.push(['exec', command, params || [], env || null]);
			const h = execs.get(command);
			if (!h)
				return fail(6, `Permission denied: ${command}`);
			return Promise.resolve(h(params || [], env || {})).then(r => Object.assign({ code: 0 }, r));
		},

		exec_direct(command, params, type) {
			return this.exec(command, params).then(r => (type === 'json' ? JSON.parse(r.stdout || 'null') : (r.stdout || '')));
		},

		lines(path) {
			return this.read(path).then(s => s.trim().split(/\n/), () => []);
		},

		trimmed(path) {
			return this.read(path).then(s => s.trim(), () => '');
		},

		/* ---- test-side API ---- */

		handleExec(command, fn) {
			execs.set(command, typeof fn === 'function' ? fn : () => fn);
			return this;
		}
	});
}
