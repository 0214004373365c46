// SPDX-License-Identifier: Apache-2.0
//
// Test stand-in for procd's ubus object "service", run inside the OpenWrt
// root of the owrt tier (procd itself is PID 1 and cannot run there).  The
// init scripts talk to it through OpenWrt's real rc.common and procd.sh.
// It does what procd does with what our scripts send:
//
//   set/add   record the JSON (one line in $LOG_DIR/calls.jsonl), then per
//             instance: start it, or, when it runs and its config changed,
//             send reload_signal (procd sends only that signal when one is
//             set) or restart it; instances no longer listed are stopped
//   respawn   [threshold, timeout, retry] as procd: a run shorter than
//             threshold counts as a crash; after more than retry crashes
//             in a row it gives up
//   limits    nofile="soft hard" applied to the instance
//   file      files whose content is part of the instance's config
//   list / delete / signal   as procd
//   event     {type: "config.change", data: {package}}: runs the reload
//             triggers that name that package (what reload_config and
//             LuCI's apply cause), and records it
//
// Also procd's ubus object "system", method board only (LuCI's bootstrap
// theme calls it on every page: without it a page is a 500; nothing on
// our pages calls "system info"): kernel and
// hostname (uname), system (/proc/cpuinfo), release (/usr/lib/os-release),
// read as procd's system_board() reads them; model, board_name and
// rootfs_type come from files this root does not have (/tmp/sysinfo, a
// device tree, /rom), so procd would leave them out here too.
//
//   ucode procd-standin.uc LOG_DIR
//
// Each instance's stdout/stderr go to $LOG_DIR/<service>.<instance>.log.

'use strict';

import * as uloop from 'uloop';
import * as ubus from 'ubus';
import { readfile, writefile, open } from 'fs';

const LOG_DIR = ARGV[0] ?? '/tmp/procd-standin';
const SIGNALS = { '1': 'HUP', '2': 'INT', '9': 'KILL', '10': 'USR1', '12': 'USR2', '15': 'TERM' };

let services = {};
let exited;	// (svc, name): defined after start(), which it calls

function note(line) {
	let f = open(`${LOG_DIR}/events.log`, 'a');

	f.write(line + '\n');
	f.close();
}

function record(method, msg) {
	let f = open(`${LOG_DIR}/calls.jsonl`, 'a');

	f.write(sprintf('%J\n', { method, msg }));
	f.close();
}

function kill(pid, sig) {
	system([ 'kill', '-' + (SIGNALS[sig] ?? 'TERM'), '' + pid ]);
}

// what makes two instance configs differ (procd's instance_config_changed)
function config_key(inst) {
	let files = {};

	for (let f in inst.file ?? [])
		files[f] = readfile(f) ?? null;

	return sprintf('%J', { command: inst.command, env: inst.env, limits: inst.limits,
		respawn: inst.respawn, reload_signal: inst.reload_signal, files });
}

function respawn_params(inst) {
	let r = inst.respawn;

	if (type(r) != 'array')
		return null;

	return { threshold: +(r[0] ?? 3600), timeout: +(r[1] ?? 5), retry: +(r[2] ?? 5) };
}

function start(svc, name) {
	let in_ = svc.instances[name];
	let nofile = match(in_.config.limits?.nofile ?? '', /^([0-9]+) ([0-9]+)$/);
	// procd calls setrlimit and ignores a failure (here: no CAP_SYS_RESOURCE)
	let pre = nofile ? `ulimit -H -n ${nofile[2]} 2>/dev/null; ulimit -S -n ${nofile[1]} 2>/dev/null; ` : '';
	let log = `${LOG_DIR}/${svc.name}.${name}.log`;
	let argv = [ '-c', `${pre}exec "$0" "$@" >>${log} 2>&1`, ...in_.config.command ];

	in_.started = time();
	in_.proc = uloop.process('/bin/sh', argv, { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' }, (code) => {
		in_.proc = null;
		in_.exit_code = code;
		note(`exit ${svc.name}.${name} ${code}`);
		exited(svc, name);
	});
	in_.pid = in_.proc?.pid();
	in_.starts++;
	note(`start ${svc.name}.${name} pid ${in_.pid}`);
}

exited = function(svc, name) {
	let in_ = svc.instances[name];

	if (!in_ || in_.halt)
		return;

	let rp = respawn_params(in_.config);

	if (!rp)
		return;

	if (time() - in_.started < rp.threshold)
		in_.respawn_count++;
	else
		in_.respawn_count = 0;

	if (in_.respawn_count > rp.retry && rp.retry > 0) {
		note(`crash loop ${svc.name}.${name}: ${in_.respawn_count} crashes, gave up`);
		in_.gave_up = true;
		return;
	}

	in_.timer = uloop.timer(rp.timeout * 1000, () => {
		in_.timer = null;

		if (!in_.halt && !in_.proc)
			start(svc, name);
	});
};

function stop_instance(svc, name) {
	let in_ = svc.instances[name];

	in_.halt = true;
	in_.timer?.cancel();

	if (in_.proc)
		kill(in_.pid, 15);

	note(`stop ${svc.name}.${name}`);
	delete svc.instances[name];
}

function set_service(msg, add) {
	let svc = services[msg.name] ??= { name: msg.name, instances: {}, triggers: [] };

	svc.script = msg.script;

	if (exists(msg, 'triggers') || !add)
		svc.triggers = msg.triggers ?? [];

	for (let name, conf in msg.instances ?? {}) {
		let key = config_key(conf), in_ = svc.instances[name];

		if (!in_) {
			in_ = svc.instances[name] = { config: conf, key, starts: 0, respawn_count: 0 };
			start(svc, name);
		}
		else if (!in_.proc) {
			in_.config = conf;
			in_.key = key;
			in_.respawn_count = 0;
			in_.gave_up = false;
			start(svc, name);
		}
		else if (key != in_.key) {
			in_.config = conf;
			in_.key = key;

			if (conf.reload_signal) {
				note(`signal ${svc.name}.${name} ${conf.reload_signal}`);
				kill(in_.pid, conf.reload_signal);
			}
			else {
				in_.halt = true;
				kill(in_.pid, 15);
				in_.halt = false;
			}
		}
	}

	if (!add)
		for (let name in keys(svc.instances))
			if (!exists(msg.instances ?? {}, name))
				stop_instance(svc, name);
}

function describe(svc) {
	let out = { instances: {}, triggers: svc.triggers };

	for (let name, in_ in svc.instances) {
		let rp = respawn_params(in_.config);

		out.instances[name] = {
			running: in_.proc != null,
			pid: in_.proc ? in_.pid : null,
			command: in_.config.command,
			limits: in_.config.limits,
			exit_code: in_.exit_code,
			starts: in_.starts,
			respawn: rp,
			gave_up: !!in_.gave_up
		};
	}

	return out;
}

// triggers: [ "config.change", [ "if", [ "eq", "package", P ], [ "run_script", ... ] ], delay ]
// Run one after the other, never inside the ubus call (the script talks
// to this very object).
let queue = [], running_trigger = null;

function next_trigger() {
	if (running_trigger || !length(queue))
		return;

	let argv = shift(queue);

	note(`trigger run: ${join(' ', argv)}`);
	running_trigger = uloop.process(argv[0], slice(argv, 1), { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' }, (code) => {
		note(`trigger done: ${join(' ', argv)}: exit ${code}`);
		running_trigger = null;
		next_trigger();
	});
}

function run_triggers(type_, data) {
	for (let sname, svc in services)
		for (let t in svc.triggers) {
			let cond = t[1]?.[1], action = t[1]?.[2];

			if (t[0] != type_ || cond?.[0] != 'eq' || cond[1] != 'package' || cond[2] != data?.package ||
			    action?.[0] != 'run_script')
				continue;

			push(queue, slice(action, 1));
		}

	uloop.timer(100, next_trigger);
}

uloop.init();
system([ 'mkdir', '-p', LOG_DIR ]);

let conn = ubus.connect();

conn.publish('service', {
	set: { args: { name: '', script: '', instances: {}, triggers: [], validate: [], data: {} },
		call: (req) => { record('set', req.args); set_service(req.args, false); return 0; } },
	add: { args: { name: '', script: '', instances: {}, triggers: [], validate: [], data: {} },
		call: (req) => { record('add', req.args); set_service(req.args, true); return 0; } },
	list: { args: { name: '', verbose: true },
		call: function(req) {
			let out = {};

			for (let n, svc in services)
				if (!req.args.name || req.args.name == n)
					out[n] = describe(svc);

			return out;
		} },
	delete: { args: { name: '', instance: '' },
		call: function(req) {
			record('delete', req.args);

			let svc = services[req.args.name];

			if (!svc)
				return ubus.STATUS_NOT_FOUND;

			for (let n in keys(svc.instances))
				if (!req.args.instance || req.args.instance == n)
					stop_instance(svc, n);

			if (!req.args.instance)
				delete services[req.args.name];

			return 0;
		} },
	signal: { args: { name: '', instance: '', signal: 0 },
		call: function(req) {
			for (let n, in_ in services[req.args.name]?.instances ?? {})
				if (in_.proc && (!req.args.instance || req.args.instance == n))
					kill(in_.pid, req.args.signal || 15);

			return 0;
		} },
	event: { args: { type: '', data: {} },
		call: function(req) {
			record('event', req.args);
			run_triggers(req.args.type, req.args.data);
			return 0;
		} },
	state: { args: { name: '', spawn: true }, call: () => 0 },
	validate: { args: { package: '', type: '', service: '' }, call: () => ({}) },
	get_data: { args: { name: '', instance: '', type: '' }, call: () => ({}) }
});

// procd's system_board(), for an x86 root without /tmp/sysinfo or /rom
const OS_RELEASE_KEYS = { NAME: 'distribution', VERSION: 'version', BUILD_ID: 'revision',
	VERSION_CODENAME: 'codename', OPENWRT_BOARD: 'target', OPENWRT_RELEASE: 'description',
	OPENWRT_BUILD_DATE: 'builddate', FIRMWARE_URL: 'firmware_url' };

function system_board() {
	let out = {
		kernel: trim(readfile('/proc/sys/kernel/osrelease') ?? ''),
		hostname: trim(readfile('/proc/sys/kernel/hostname') ?? '')
	};

	for (let line in split(readfile('/proc/cpuinfo') ?? '', '\n')) {
		let m = match(line, /^(system type|processor|cpu|model name)\s*:\s*(.+)$/i);

		// procd skips values that are plain numbers ("processor : 0")
		if (m && !match(m[2], /^[0-9]+$/)) {
			out.system = m[2];
			break;
		}
	}

	let release = {};

	for (let line in split(readfile('/usr/lib/os-release') ?? '', '\n')) {
		let m = match(line, /^([A-Z_]+)=(["']?)(.*)$/);

		if (m && OS_RELEASE_KEYS[m[1]])
			release[OS_RELEASE_KEYS[m[1]]] = (m[2] != '') ? split(m[3], m[2])[0] : m[3];
	}

	out.release = release;

	return out;
}

conn.publish('system', {
	board: { args: {}, call: system_board }
});

writefile(`${LOG_DIR}/ready`, '1\n');
uloop.run();
