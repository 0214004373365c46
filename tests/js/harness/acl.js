/**
 * The app's rpcd ACL (root/usr/share/rpcd/acl.d/luci-app-reterm.json) as
 * a flat list of grants, and a check that what a page asked the harness's
 * router for stays within it:
 *
 *   import { aclGrants, aclViolations } from './harness/acl.js';
 *   aclGrants()          → ['luci-app-reterm read uci reterm', ...]
 *   aclViolations(h)     → [] or ['uci.load("network") is not granted', ...]
 *
 * One grant per line: "<acl> <read|write> ubus <object> <method>",
 * "... file <path> <op>", "... uci <config>"; anything else in the file
 * becomes "<acl> <mode> <key> <json>" so that it can never slip through
 * an allow-list unnoticed.
 */

import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const ACL_FILE = resolve(REPO_ROOT, 'root/usr/share/rpcd/acl.d/luci-app-reterm.json');

export function readAcl(file = ACL_FILE) {
	return JSON.parse(readFileSync(file, 'utf8'));
}

export function flatten(acl) {
	const out = [];
	for (const [name, group] of Object.entries(acl)) {
		for (const [key, val] of Object.entries(group)) {
			if (key === 'description' && typeof val === 'string')
				continue;
			if ((key !== 'read' && key !== 'write') || !val || typeof val !== 'object' || Array.isArray(val)) {
				out.push(`${name} ${key} ${JSON.stringify(val)}`);
				continue;
			}
			for (const [kind, grant] of Object.entries(val)) {
				const pre = `${name} ${key} ${kind}`;
				if (kind === 'uci' && Array.isArray(grant))
					grant.forEach(c => out.push(`${pre} ${c}`));
				else if ((kind === 'ubus' || kind === 'file') && grant && typeof grant === 'object' && !Array.isArray(grant))
					for (const [obj, ops] of Object.entries(grant))
						(Array.isArray(ops) ? ops : [JSON.stringify(ops)]).forEach(op => out.push(`${pre} ${obj} ${op}`));
				else
					out.push(`${pre} ${JSON.stringify(grant)}`);
			}
		}
	}
	return out;
}

export function aclGrants(file) {
	return flatten(readAcl(file));
}

/* what one read or write needs, for either mode of any group */
function granted(grants, mode, rest) {
	return grants.some(g => {
		const p = g.split(' ');
		return (mode == null || p[1] === mode) && p.slice(2).join(' ') === rest;
	});
}

const FS_OP = { read: 'read', read_direct: 'read', lines: 'read', trimmed: 'read', list: 'list', stat: 'list',
	write: 'write', remove: 'write', exec: 'exec', exec_direct: 'exec' };

/**
 * What the page asked the router for that the ACL does not grant: uci
 * configs loaded (read) or changed (write), ubus calls, file operations.
 * @param {Object} h a harness from createHarness()
 * @returns {string[]}
 */
export function aclViolations(h, file) {
	const grants = aclGrants(file), out = [];

	for (const c of new Set(h.uci.loads))
		if (!granted(grants, 'read', `uci ${c}`))
			out.push(`uci.load(${JSON.stringify(c)}) is not granted`);

	const changed = Object.assign({}, h.uci.pendingChanges(), h.uci.stagedChanges());
	for (const commit of h.uci.commits)
		Object.assign(changed, commit);
	for (const c of Object.keys(changed))
		if (!granted(grants, 'write', `uci ${c}`))
			out.push(`uci write to ${JSON.stringify(c)} is not granted`);

	for (const c of h.rpc.calls)
		if (!granted(grants, null, `ubus ${c.object} ${c.method}`))
			out.push(`ubus ${c.object}.${c.method} is not granted`);

	for (const [method, path] of h.fs.calls) {
		const op = FS_OP[method] || method;
		if (!granted(grants, null, `file ${path} ${op}`))
			out.push(`fs.${method}(${JSON.stringify(path)}) is not granted`);
	}

	return [...new Set(out)];
}
