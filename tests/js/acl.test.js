import { describe, it, expect } from 'vitest';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { aclGrants, flatten, REPO_ROOT } from './harness/acl.js';

/*
 * The rpcd ACL of the app grants exactly what tests/js/acl-allowlist.json
 * lists (issue 13 item 7): nothing more, no stale entries. The allow-list
 * itself never opens LuCI's configs with secrets, and every ubus call,
 * uci config and file our JavaScript uses is granted.
 */

const ALLOW = JSON.parse(readFileSync(new URL('./acl-allowlist.json', import.meta.url), 'utf8')).grants;

/* configs and objects that hold or hand out secrets, or run commands */
const NEVER = [
	/ uci (network|firewall|wireless|dhcp|rpcd|system|dropbear|luci|uhttpd|ddns|openvpn|wireguard|ipsec|\*)$/,
	/ ubus (uci|luci-rpc|network|network\.\S+|session|system|iwinfo|hostapd\S*|rc|service|\*) /,
	// rpcd's file methods also check the path against the "file" grants:
	// reading and listing the granted paths is fine, writing or running never
	/ ubus file (?!(read|list|stat)$)/,
	/ file \S+ (write|exec)$/,
	/ file \/etc\//,
	/ (cgi-io|luci-rpc) /
];

/* every .js file under the folders, subfolders included */
function jsFiles(d) {
	return readdirSync(join(REPO_ROOT, d)).flatMap(f => statSync(join(REPO_ROOT, d, f)).isDirectory()
		? jsFiles(join(d, f)) : f.endsWith('.js') ? [ join(d, f) ] : []);
}

const SOURCES = ['htdocs/luci-static/resources/view/reterm', 'htdocs/luci-static/resources/reterm'].flatMap(jsFiles);

function uses() {
	const out = [];
	for (const f of SOURCES) {
		const src = readFileSync(join(REPO_ROOT, f), 'utf8');
		for (const m of src.matchAll(/rpc\.declare\(\{([^}]*)\}/g)) {
			const obj = /object:\s*'([^']+)'/.exec(m[1]), meth = /method:\s*'([^']+)'/.exec(m[1]);
			out.push({ f, need: `ubus ${obj && obj[1]} ${meth && meth[1]}` });
		}
		for (const m of src.matchAll(/uci\.load\('([^']+)'\)/g))
			out.push({ f, need: `uci ${m[1]}`, mode: 'read' });
		for (const m of src.matchAll(/uci\.(?:set|add|remove|unset)\('([^']+)'/g))
			out.push({ f, need: `uci ${m[1]}`, mode: 'write' });
		for (const m of src.matchAll(/Map\('([^']+)'/g))
			out.push({ f, need: `uci ${m[1]}`, mode: 'read' }, { f, need: `uci ${m[1]}`, mode: 'write' });
		for (const m of src.matchAll(/fs\.(read|list|stat|lines|trimmed|read_direct|write|exec|remove)\('([^']+)'/g))
			out.push({ f, need: `file ${m[2]} ${{ read_direct: 'read', lines: 'read', trimmed: 'read', stat: 'list' }[m[1]] || m[1]}` });
	}
	return out;
}

describe('rpcd ACL luci-app-reterm', () => {
	const grants = aclGrants();

	it('grants nothing that is not in tests/js/acl-allowlist.json', () => {
		expect(grants.filter(g => !Object.prototype.hasOwnProperty.call(ALLOW, g))).toEqual([]);
	});

	it('grants everything the allow-list lists (no stale entries)', () => {
		expect(Object.keys(ALLOW).filter(g => !grants.includes(g))).toEqual([]);
	});

	it('gives a reason for every allowed grant', () => {
		expect(Object.entries(ALLOW).filter(([, why]) => typeof why !== 'string' || why.length < 5).map(([g]) => g)).toEqual([]);
	});

	it('never reads LuCI\'s network or firewall config, nor anything else with secrets', () => {
		expect(Object.keys(ALLOW).filter(g => NEVER.some(re => re.test(g)))).toEqual([]);
		expect(grants.filter(g => / uci (network|firewall|wireless)$/.test(g))).toEqual([]);
	});

	it('flattens every kind of entry, unknown ones included', () => {
		expect(flatten({ a: { description: 'x', read: { uci: ['u'], ubus: { o: ['m'] }, file: { '/p': ['read'] }, 'cgi-io': ['upload'] },
			write: { uci: ['u'] }, other: 1 } })).toEqual([
			'a read uci u', 'a read ubus o m', 'a read file /p read', 'a read cgi-io ["upload"]', 'a write uci u', 'a other 1']);
	});
});

describe('our JavaScript', () => {
	const grants = aclGrants();
	const has = (need, mode) => grants.some(g => {
		const p = g.split(' ');
		return (mode == null || p[1] === mode) && p.slice(2).join(' ') === need;
	});

	it('finds the calls it checks', () => {
		const needs = uses().map(u => u.need);
		expect(needs).toContain('ubus reterm hosts');
		expect(needs).toContain('ubus reterm wan_info');
		expect(needs).toContain('uci sqm');
		expect(needs).toContain('file /usr/lib/sqm/defaults.sh read');
	});

	it('uses only ubus methods, uci configs and files the ACL grants', () => {
		expect(uses().filter(u => !has(u.need, u.mode)).map(u => `${u.f}: ${u.mode || ''} ${u.need}`)).toEqual([]);
	});

	it('does not use LuCI\'s network.js or firewall.js (they need uci network/firewall read)', () => {
		const bad = SOURCES.filter(f => /^\s*'require (network|firewall|tools\.widgets)'/m.test(readFileSync(join(REPO_ROOT, f), 'utf8')));
		expect(bad).toEqual([]);
	});

	it('the ACL grants the wan_info method the views need', () => {
		expect(has('ubus reterm wan_info', 'read')).toBe(true);
	});

	/* least privilege by page: a ubus method no page calls is for
	 * scripts (the reterm-scripts group), not for LuCI's users */
	it('the ACL grants no ubus method that no page calls', () => {
		const called = uses().map(u => u.need);
		expect(grants.filter(g => / ubus reterm/.test(g))
			.filter(g => !called.includes(g.split(' ').slice(2).join(' ')))).toEqual([]);
	});
});
