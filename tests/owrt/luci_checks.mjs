#!/usr/bin/env node
/**
 * The owrt tier's LuCI checks: our four pages in Chromium on the root's
 * real uhttpd, LuCI (luci-base, bootstrap) and rpcd, logged in as root,
 * with LuCI's own Save & Apply (apply with rollback, confirm, reload).
 * Run by tests/owrt/run.sh in its namespaces, Chromium outside the chroot:
 *   node tests/owrt/luci_checks.mjs --root ROOT --port PORT
 *
 *   luci/login          LuCI's login form, root / reterm-test
 *   luci/page/<name>    overview (a live latency sample), devices, shaping,
 *                       wizard: no console error, no failed request, no
 *                       ubus call the session's ACL denies
 *   luci/overview/apply the test settings form: an https:// URL marked
 *                       invalid as LuCI marks it, then URLs and 8 streams
 *                       with Save & Apply: reterm.latency holds them, the
 *                       page shows them after the reload, nothing else
 *                       in /etc/config/reterm changed
 *   luci/devices/apply  add a device by MAC, switch it off, Save & Apply:
 *                       one new device section, as the page shows it
 *   luci/devices/audit  "Audit" in the 3DS's row (re-termination on): the
 *                       page shows the audit running; a LAN client with
 *                       the 3DS's MAC and a 3DS's TCP stack (no window
 *                       scaling, 16 KB) in a namespace of its own behind
 *                       br-lan opens connections; the row then words the
 *                       result from the router's audit (no scaling)
 *   luci/shaping/apply  the WAN queue on at 18 / 9 Mbit/s, rtt 100 ms
 *                       (adaptive shaping ticked before its first save:
 *                       refused with the reason; untouched: nothing of it
 *                       in /etc/config/reterm)
 *   luci/shaping/autorate adaptive shaping switched on for that queue
 *                       (download maximum typed): one `config autorate`
 *                       in /etc/config/reterm named after the queue, the
 *                       other rates from the queue's, sqm untouched; then
 *                       off again (enabled 0, rates kept)
 *   luci/wizard/closed  the WAN queue running (sqm's run.sh with the
 *                       test-only tests/owrt/fixtures/reterm-tbf.qos), the
 *                       wizard's measurement started, its page CLOSED
 *                       mid-test: with no browser, reterm-latencyd's pause in
 *                       test_status becomes "restored" and the queue runs
 *                       again; /etc/config/sqm never written (issue 13, 9)
 *   luci/wizard/*       one pass against reterm-latencyd: measure (nothing runs
 *                       on the WAN to pause, nothing applied), apply
 *                       (adaptive shaping ticked: the queue's autorate
 *                       section on with the proposal's rates), verify
 *                       (with adaptive shaping on), devices
 *
 * The root has no dnsmasq, netifd, cgi-io or CAKE: a dnsmasq lease of a
 * Nintendo console (OUI 00:09:bf) goes to /tmp/dhcp.leases; the WAN device
 * comes from /etc/config/network (the pages fall back to it); wan0 is the
 * veth tests/owrt/pause_checks.sh leaves, shaped by a tbf for
 * wizard/closed only (the kernel has no cake) and deleted after it;
 * otherwise nothing shapes (reterm-latencyd reads the rates from UCI); the test server
 * is tests/ucode/latency/httpd.py on 127.0.0.1, allowed in reterm_admin as
 * an administrator allows a LAN box. Its loopback rates (Gbit/s) are refused
 * by the proposal as implausible, so step 3 gets rates typed in. LuCI's
 * checked apply asks /cgi-bin/cgi-exec (cgi-io) for luci-peeraddr: that
 * 404 is listed as "known", not counted.
 *
 * Prints "ok - luci/...", "not ok - luci/..." with "#" lines, "skip -
 * luci/... (reason)" without Chromium or playwright-core, then "luci-checks:
 * done (...)". Screenshots: tests/browser/out/owrt-*.png.
 */

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { execFileSync, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';

const TOP = join(dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = join(TOP, 'tests/browser/out');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const arg = k => { const i = process.argv.indexOf(k); return i > 0 ? process.argv[i + 1] : null; };
const ROOT = arg('--root'), BASE = `http://127.0.0.1:${arg('--port') || 8080}/cgi-bin/luci/`, PAGE = 'admin/network/reterm/';
const PAGES = [ 'overview', 'devices', 'shaping', 'wizard' ];
const CHECKS = [ 'login', ...PAGES.map(p => 'page/' + p), 'overview/apply', 'devices/apply', 'devices/audit', 'shaping/apply', 'shaping/autorate',
	'wizard/closed', 'wizard/measure', 'wizard/apply', 'wizard/verify', 'wizard/devices' ];
const DEVICE = { mac: '02:00:00:00:4c:01', name: 'owrt-luci-test' };
const CONSOLE = { mac: '00:09:bf:3d:51:02', name: 'lab-3ds', ip: '192.168.1.150' };
const KNOWN = /\/cgi-bin\/cgi-exec\b/;
const T = { timeout: 180000 };

let passed = 0, failed = 0, page, rec;

function report(name, problems, notes = []) {
	problems.length ? failed++ : passed++;
	console.log(`${problems.length ? 'not ok' : 'ok'} - luci/${name}`);
	for (const p of [ ...problems, ...notes ])
		console.log('#   ' + String(p).split('\n').slice(0, 12).join('\n#   ').slice(0, 1500));
}

/* ---- the router side -------------------------------------------------- */

const osh = cmd => execFileSync('chroot', [ ROOT, '/usr/bin/env', '-i', 'PATH=/usr/sbin:/usr/bin:/sbin:/bin',
	'/bin/sh', '-c', cmd ], { encoding: 'utf8', timeout: 60000 });

/* /etc/config/CONF as `uci commit` writes it: [{ type, name, opts }] */
function uciSections(conf) {
	const out = [], unq = v => v.replace(/'([^']*)'|\\(.)|([^\s'\\]+)/g, (m, q, e, w) => q ?? e ?? w);
	for (const line of readFileSync(join(ROOT, 'etc/config', conf), 'utf8').split('\n')) {
		const m = line.match(/^\s*(config|option|list)\s+(\S+)(?:\s+(.*?))?\s*$/), opts = out.at(-1)?.opts;
		if (m?.[1] === 'config')
			out.push({ type: m[2], name: m[3] ? unq(m[3]) : null, opts: {} });
		else if (m?.[1] === 'option')
			opts[m[2]] = unq(m[3] ?? '');
		else if (m)
			(opts[m[2]] ??= []).push(unq(m[3] ?? ''));
	}
	return out;
}

/* no problem when CONF has exactly one section more than `before` (whole
 * sections compared, in any order), nothing else changed, and ok(it) */
function oneAdded(conf, before, ok) {
	const key = s => JSON.stringify(s), added = uciSections(conf).map(key), gone = [];
	for (const k of before.map(key))
		added.includes(k) ? added.splice(added.indexOf(k), 1) : gone.push(k);
	return (!gone.length && added.length === 1 && ok(JSON.parse(added[0]))) ? [] : [ `${conf}: added ${added}; gone ${gone}` ];
}

/* ---- the browser side ------------------------------------------------- */

/* console errors, page errors, failed requests, HTTP errors and ubus calls
 * the session's ACL denied (-32002), in order; note(): a line to list;
 * idle(): no request under way (navigating away aborts them, and an
 * aborted LuCI request held up uhttpd's next ones for seconds) */
/* an error the check itself provokes (listed, not counted), or null */
let expected = null;

function recorder() {
	const log = [];
	let busy = 0, quiet = Date.now();
	const add = (kind, text) => log.push({ kind: KNOWN.test(text) ? 'known' : expected?.test(text) ? 'shown' : kind, text });
	const began = new Map(), ended = r => { busy--; quiet = Date.now(); began.delete(r) };
	page.on('console', m => m.type() === 'error' && add('error', `console: ${m.text()} (${m.location().url || '?'})`));
	page.on('pageerror', e => add('error', `pageerror: ${e.stack || e}`));
	const what = r => {	/* a ubus batch: its object.method names */
		const calls = (() => { try { return [].concat(JSON.parse(r.postData() || '[]')) } catch (e) { return [] } })();
		return calls.map(c => c?.params?.slice(1, 3).join('.')).filter(Boolean).join(' ');
	};
	page.on('requestfailed', r => {
		const ms = Date.now() - began.get(r);
		ended(r);
		add('error', `requestfailed: ${r.method()} ${r.url()} ${what(r)} ${r.failure()?.errorText} after ${ms} ms`);
	});
	page.on('request', r => { busy++; began.set(r, Date.now()) });
	page.on('requestfinished', async r => {
		ended(r);
		const res = await r.response(), status = res?.status() ?? 0;
		if (status >= 400)
			return add('error', `HTTP ${status}: ${r.method()} ${r.url()}`);
		if (!/\/ubus\b/.test(r.url()))
			return;
		const calls = [].concat(JSON.parse(r.postData() || '[]')), replies = [].concat(await res.json().catch(() => []));
		for (const c of calls)
			if (replies.find(x => x.id === c.id)?.error?.code === -32002)
				add('denied', `ubus access denied: ${c.params.slice(1).map(p => JSON.stringify(p)).join(' ')}`);
	});
	return {
		idle: async () => {
			for (let t = Date.now(); Date.now() - t < 20000 && (busy > 0 || Date.now() - quiet < 500);)
				await page.waitForTimeout(100);
		},
		note: text => log.push({ kind: 'shown', text }),
		mark: () => log.length,
		since: (i, kinds) => log.slice(i).filter(e => kinds.includes(e.kind)).map(e => (e.kind === 'known' ? 'known: ' : '') + e.text)
	};
}

/* LuCI's view has replaced its "Loading view…" spinner; the first polls */
async function viewReady() {
	await page.waitForFunction(() => {
		const v = document.querySelector('#view');
		return v?.firstElementChild && !v.querySelector(':scope > .spinning');
	}, null, { timeout: 30000 });
	await page.waitForTimeout(1500);
}

async function open(path) {
	/* the old page's polls stopped, then none under way: else a poll sent
	 * while the next page loads is aborted when it replaces this one.
	 * LuCI's poll loop is L.Poll (L.poll is the legacy request helper: a
	 * stop() called on it threw and was swallowed, so the polls went on) */
	const polling = await page.evaluate(() => {
		if (!window.L)
			return 'none';	/* no LuCI page yet: nothing polls */
		if (typeof window.L.Poll?.stop != 'function')
			return 'no L.Poll';
		window.L.Poll.stop();
		return window.L.Poll.active() ? 'active' : 'stopped';
	});
	if (polling != 'none' && polling != 'stopped')
		throw new Error(`LuCI's polls not stopped before opening ${path}: ${polling}`);
	await rec.idle();
	await page.goto(BASE + path, { timeout: 60000 });
	await viewReady();
}

const shot = name => page.screenshot({ path: join(OUT, `owrt-${name}.png`), fullPage: true });

/* LuCI's apply with rollback, begun by start(), until the page reloaded:
 * problems unless apply_rollback and the last confirm answered 200 */
async function applied(start) {
	const st = {}, seen = r => {
		const m = r.url().match(/\/admin\/uci\/(apply_rollback|confirm)\b/);
		if (m)
			st[m[1]] = r.status();
	};
	page.on('response', seen);
	try {
		const reload = page.waitForEvent('framenavigated', { predicate: f => f === page.mainFrame(), ...T });
		/* when a step before it fails, its own timeout must not end node
		 * as an unhandled rejection (the test server it started was then
		 * left running and held run.sh's $(...) open for good) */
		reload.catch(() => {});
		await start();
		await page.getByText('Configuration changes applied.').waitFor(T);
		await reload;
		await viewReady();
	}
	finally {
		page.off('response', seen);
	}
	return (st.apply_rollback === 200 && st.confirm === 200) ? [] : [ `apply_rollback ${st.apply_rollback}, confirm ${st.confirm}` ];
}

/* one check: body()'s problems, and what the recorder saw meanwhile: the
 * kinds in `count` as problems (ubus denials count on the page checks),
 * the others as notes; a failed check leaves owrt-fail-<name>.png */
async function step(name, body, count = [ 'error' ], notes = []) {
	const i = rec.mark(), problems = await Promise.resolve().then(body).catch(e => [ String(e.stack || e) ]);
	const seen = counted => rec.since(i, [ 'error', 'denied', 'known', 'shown' ].filter(k => count.includes(k) === counted));
	problems.push(...seen(true));
	if (problems.length)
		await shot('fail-' + name.replace(/\//g, '-')).catch(() => {});
	report(name, problems, [ ...notes, ...seen(false) ]);
	return !problems.length;
}

/* ---- the checks --------------------------------------------------------- */

/* LuCI's own login page answers 403 and (form.js's `.catch()` without a
 * handler) throws the anonymous session's "Access denied": listed only */
async function login() {
	const i = rec.mark();
	await page.goto(BASE);
	await page.fill('#luci_username', 'root');
	await page.fill('#luci_password', 'reterm-test');
	const form = rec.since(i, [ 'error', 'known', 'denied' ]).map(e => 'login page: ' + e.split('\n')[0]);
	await step('login', async () => {
		const nav = page.waitForEvent('framenavigated');
		await page.press('#luci_password', 'Enter');
		await nav;
		await viewReady();
		const cookie = (await page.context().cookies()).some(c => c.name.startsWith('sysauth'));
		return cookie && !(await page.$('#luci_password')) ? [] : [ 'still on the login form' ];
	}, [ 'error' ], form);
}

async function showPage(name) {
	await open(PAGE + name);
	const problems = [];
	if (name === 'overview')	/* reterm-latencyd answers: a live latency sample */
		await page.waitForFunction(() => /ms/.test(document.querySelector('.reterm-ov-stat-value')?.textContent), null, { timeout: 20000 })
			.catch(() => problems.push('no live latency sample within 20 s'));
	await shot(name);
	for (const t of await page.locator('.alert-message.danger:visible').allTextContents())
		rec.note('shown: ' + t);	/* what the page says about the router's state */
	return [ ...problems, ...(await page.locator('#view h2').count() ? [] : [ 'no heading' ]) ];
}

/* the Overview's test settings (LuCI's form on reterm.latency, streams
 * on the first tab, endpoint and URLs under "Advanced"): a refused URL is
 * marked, the typed settings saved with Save & Apply */
async function overviewApply(urls) {
	const before = uciSections('reterm'), want = { download_url: urls.download, upload_url: urls.upload, streams: '8' };
	await open(PAGE + 'overview');
	const field = name => page.locator(`.reterm-ov-test [data-name="${name}"] input[type=text]`);
	const tab = name => page.locator(`.reterm-ov-test .cbi-tabmenu li[data-tab="${name === 'streams' ? 'test' : 'advanced'}"] a`);
	const type = async (name, v) => { await tab(name).click(); await field(name).fill(v); await field(name).press('Tab') };
	const problems = [];
	await type('upload_url', 'https://192.0.2.10/upload');
	const mark = await field('upload_url').evaluate(f => ({ invalid: f.classList.contains('cbi-input-invalid'), tip: f.getAttribute('data-tooltip') }));
	if (!mark.invalid || !/^An https:\/\/ URL needs a host name/.test(mark.tip ?? ''))
		problems.push(`https:// upload URL with an address not marked invalid: ${JSON.stringify(mark)}`);
	await shot('overview-invalid');
	for (const [ name, v ] of Object.entries(want))
		await type(name, v);
	problems.push(...await applied(() => page.click('.cbi-page-actions .cbi-button-apply')));
	const shown = {};
	for (const name of Object.keys(want)) {
		await tab(name).click();
		shown[name] = await field(name).inputValue();
	}
	await shot('overview-applied');
	if (JSON.stringify(shown) !== JSON.stringify(want))
		problems.push(`after the reload the page shows ${JSON.stringify(shown)}`);
	const after = uciSections('reterm'), mon = s => s.type === 'latency' && s.name === 'latency', key = JSON.stringify;
	const b = before.find(mon), a = after.find(mon), sorted = o => key(Object.entries(o ?? {}).sort());
	if (!a || sorted(a.opts) !== sorted({ ...(b?.opts ?? {}), ...want }))
		problems.push(`reterm.latency ${key(b?.opts)} became ${key(a?.opts)}`);
	if (key(after.filter(x => !mon(x))) !== key(before.filter(x => !mon(x))))
		problems.push('other sections of /etc/config/reterm changed');
	return problems;
}

/* add DEVICE by MAC (it comes switched on), switch it off, Save & Apply */
async function devicesApply() {
	const before = uciSections('reterm');
	await open(PAGE + 'devices');
	await page.fill('#reterm-add-mac input', DEVICE.mac);
	await page.fill('#reterm-add-name input', DEVICE.name);
	await page.click('#reterm-add-button');
	const row = () => page.locator('tr.cbi-section-table-row', { hasText: DEVICE.mac });
	await row().locator('td[data-name="enabled"] input[type=checkbox]').uncheck();
	const problems = await applied(() => page.click('.cbi-page-actions .cbi-button-apply'));
	const shown = await row().evaluate(tr => JSON.stringify({ name: tr.querySelector('.reterm-host strong')?.textContent,
		mac: tr.querySelector('.reterm-host-mac')?.textContent,
		enabled: tr.querySelector('td[data-name="enabled"] input[type=checkbox]')?.checked ? '1' : '0' }));
	await shot('devices-applied');
	const want = JSON.stringify({ name: DEVICE.name, mac: DEVICE.mac, enabled: '0' });
	return [ ...problems, ...(shown === want ? [] : [ `the page shows ${shown}, wanted ${want}` ]),
		...oneAdded('reterm', before, s => s.type === 'device' && want === JSON.stringify({ name: s.opts.name, mac: s.opts.mac, enabled: s.opts.enabled })) ];
}

/* a LAN client with CONSOLE's MAC and address behind br-lan, in a network
 * namespace of its own (a child of this tier's), with a 3DS's TCP stack:
 * no window scaling, 16 KB receive buffer; `count` SYNs to the router */
function lanClientSyns(count) {
	return execFileSync('sh', [ '-c', `
		set -e
		ip link show br-lan >/dev/null 2>&1 || { ip link add br-lan type bridge; ip addr add 192.168.1.1/24 dev br-lan; }
		ip link set br-lan up
		ip link show lanc1 >/dev/null 2>&1 || {
			ip link add lanc0 type veth peer name lanc1
			ip link set lanc1 master br-lan up
			unshare --net sleep 120 >/dev/null 2>&1 & echo $! > /tmp/reterm-lanc.pid
			sleep 0.3
			ip link set lanc0 netns $(cat /tmp/reterm-lanc.pid)
		}
		nsenter -t $(cat /tmp/reterm-lanc.pid) -n sh -c '
			ip link set lo up
			ip link set lanc0 address ${CONSOLE.mac} up
			ip addr replace ${CONSOLE.ip}/24 dev lanc0
			sysctl -qw net.ipv4.tcp_window_scaling=0 net.ipv4.tcp_rmem="4096 16384 16384"
			for i in $(seq ${count}); do timeout 2 python3 -c "import socket, sys; s=socket.socket(); s.settimeout(1)
try: s.connect((sys.argv[1], 9))
except OSError as e: print(e)" 192.168.1.1 || :; done' 2>&1` ], { encoding: 'utf8', timeout: 120000 });
}

/* "Audit" in CONSOLE's row with re-termination on: the page shows the run,
 * real SYNs from a 3DS-like client reach the router's audit rules, and
 * the row words the result the page polls for */
async function devicesAudit() {
	const was = osh('uci -q get reterm.main.enabled || echo 1').trim();
	if (was !== '1')
		osh(`uci set reterm.main.enabled=1 && uci commit reterm && /etc/init.d/reterm reload`);
	try {
		await open(PAGE + 'devices');
		const row = () => page.locator('tr.cbi-section-table-row', { hasText: CONSOLE.mac });
		await row().locator('.reterm-audit-start').click();
		await row().locator('.reterm-audit-progress', { hasText: /left: use the device now/ }).waitFor({ timeout: 20000 });
		await shot('devices-audit-running');
		const client = lanClientSyns(5);
		const hint = row().locator('.reterm-hint', { hasText: /no scaling/ });
		const problems = await hint.waitFor({ timeout: 30000 }).then(() => [],
			async () => [ `no audit result in the row: ${await row().locator('[id^="reterm-audit-"]').textContent()}`,
				`the client said: ${client.trim().split('\n').slice(-3).join(' / ')}`,
				osh('nft list chain inet fw4 mangle_prerouting 2>&1 | grep -v "^#" | head -6; nft list set inet fw4 reterm_audit_syn 2>&1 | grep -A2 elements; ' +
					'ip -br link | grep -E "lanc|br-lan"') ]);
		await shot('devices-audit');
		return problems;
	}
	finally {
		if (was !== '1')
			osh(`uci set reterm.main.enabled=${was} && uci commit reterm && /etc/init.d/reterm reload`);
		try {
			execFileSync('sh', [ '-c', 'kill $(cat /tmp/reterm-lanc.pid) 2>/dev/null; ip link del lanc1 2>/dev/null; ip link del br-lan 2>/dev/null; :' ]);
		}
		catch (e) {}
	}
}

/* the WAN device's queue (staged by the page) on, 18 / 9 Mbit/s, rtt 100 ms */
async function shapingApply() {
	const before = uciSections('sqm'), reterm0 = readFileSync(join(ROOT, 'etc/config/reterm'), 'utf8');
	await open(PAGE + 'shaping');
	const sid = await page.evaluate(() => [ ...document.querySelectorAll('.cbi-section-node') ]
		.find(n => n.querySelector('[data-name="interface"] input[type=hidden]')?.value === 'wan0')?.id);
	if (!sid)
		return [ 'no queue for wan0 on the page' ];
	const field = (name, sel = 'input[type=text]') => page.locator(`#${sid} [data-name="${name}"] ${sel}`);
	const type = async (name, v) => { await field(name).fill(v); await field(name).press('Tab') };
	await field('enabled', 'input[type=checkbox]').check();
	await type('download', '18');
	await type('upload', '9');
	/* adaptive shaping on this queue before it is saved: refused with the
	 * reason (its section would carry the queue's temporary name) */
	const early = [];
	await field('_autorate', 'input[type=checkbox]').check();
	/* LuCI's Save & Apply shows the refusal and also throws it */
	expected = /^pageerror: TypeError: Option "[^"]+" contains an invalid input value\. Save the new queue first/;
	try {
		await page.click('.cbi-page-actions .cbi-button-apply');
		const modal = page.locator('.modal', { hasText: 'Save the new queue first' });
		await modal.waitFor(T).catch(() => early.push('adaptive shaping on the unsaved queue: no "Save the new queue first" error'));
		await page.getByRole('button', { name: 'Dismiss' }).click().catch(() => {});
	}
	finally {
		expected = null;
	}
	await field('_autorate', 'input[type=checkbox]').uncheck();
	await field('_rtt', 'select').selectOption('custom');
	await type('_rtt_custom', '100');
	const rtt = (await page.locator(`#${sid} .reterm-tc-preview`).textContent()).match(/\brtt \S+/g) ?? [];
	await shot('shaping-edited');
	return [ ...early, ...await applied(() => page.click('.cbi-page-actions .cbi-button-apply')),
		...(rtt.join() === 'rtt 100ms,rtt 100ms' ? [] : [ `the preview shows ${rtt}` ]),
		...oneAdded('sqm', before, ({ type, opts: q }) => type === 'queue' && q.interface === 'wan0' && q.enabled === '1' &&
			q.download === '18000' && q.upload === '9000' && [ q.iqdisc_opts, q.eqdisc_opts ].every(o => ` ${o} `.includes(' rtt 100ms '))),
		/* adaptive shaping left off: nothing of it written (a section
		 * named after the new queue's temporary id matches no queue) */
		...(readFileSync(join(ROOT, 'etc/config/reterm'), 'utf8') === reterm0 ? [] : [ `/etc/config/reterm changed: ${JSON.stringify(uciSections('reterm').filter(s => s.type === 'autorate'))}` ]) ];
}

/* adaptive shaping on that queue from its fields in the queue's section:
 * /etc/config/reterm gets one `config autorate '<queue>'` with the rates
 * in kbit/s (the ones not typed from the queue's: a quarter, the same,
 * twice), sqm's config untouched, the box ticked after the reload; then
 * switched off again: enabled 0, the rates kept */
async function shapingAutorate() {
	const sqm0 = readFileSync(join(ROOT, 'etc/config/sqm'), 'utf8'), before = uciSections('reterm');
	await open(PAGE + 'shaping');
	const sid = await page.evaluate(() => [ ...document.querySelectorAll('.cbi-section-node') ]
		.find(n => n.querySelector('[data-name="interface"] input[type=hidden]')?.value === 'wan0')?.id);
	if (!sid)
		return [ 'no queue for wan0 on the page' ];
	const box = () => page.locator(`#${sid} [data-name="_autorate"] input[type=checkbox]`);
	await box().check();
	const max = page.locator(`#${sid} [data-name="_ar_dl_max"] input[type=text]`);
	await max.fill('40');
	await max.press('Tab');
	await shot('shaping-autorate');
	const problems = await applied(() => page.click('.cbi-page-actions .cbi-button-apply'));
	/* the queue's section is anonymous: its name as uci gives it */
	const queue = (osh('uci -X show sqm').match(/^sqm\.([A-Za-z0-9_]+)\.interface='wan0'$/m) ?? [])[1];
	const want = { enabled: '1', dl_min: '4500', dl_base: '18000', dl_max: '40000', ul_min: '2250', ul_base: '9000', ul_max: '18000' };
	problems.push(...oneAdded('reterm', before, ({ type, name, opts }) => type === 'autorate' && queue && name === queue &&
		Object.keys(want).every(k => opts[k] === want[k])));
	if (readFileSync(join(ROOT, 'etc/config/sqm'), 'utf8') !== sqm0)
		problems.push('/etc/config/sqm was written');
	if (!await page.locator(`#${sid} [data-name="_autorate"] input[type=checkbox]`).isChecked())
		problems.push('after the reload the page shows adaptive shaping off');
	if (problems.length)
		return problems;
	await page.locator(`#${sid} [data-name="_autorate"] input[type=checkbox]`).uncheck();
	problems.push(...await applied(() => page.click('.cbi-page-actions .cbi-button-apply')));
	const off = uciSections('reterm').filter(s => s.type === 'autorate' && s.name === queue);
	if (off.length !== 1 || off[0].opts.enabled !== '0' || off[0].opts.dl_max !== '40000')
		problems.push(`switched off: ${JSON.stringify(off)}`);
	return problems;
}

/* ---- the wizard ------------------------------------------------------ */

const sleep = ms => new Promise(r => setTimeout(r, ms));
const wanShaped = () => / tbf /.test(execFileSync('tc', [ 'qdisc', 'show', 'dev', 'wan0' ], { encoding: 'utf8' }));
const testStatus = () => JSON.parse(osh('ubus call reterm.latency test_status'));

/* the test URLs, where the wizard asks for them (not when reterm.latency
 * has them already: overview/apply saves the same ones) */
async function typeUrls(p, urls) {
	if (!await p.locator('#reterm-wizard-dl').count())
		return;
	await p.fill('#reterm-wizard-dl', urls.download);
	await p.fill('#reterm-wizard-ul', urls.upload);
}

/* the WAN queue (the one shaping/apply set up) run by sqm-scripts' own
 * run.sh with the test-only tbf script; a fresh reterm-latencyd (no gap after an
 * earlier test) monitoring it. Gives the script to put back. */
const wanQueueAt = () => uciSections('sqm').filter(s => s.type === 'queue').findIndex(s => s.opts.interface === 'wan0');

async function restartRetermd(cmd) {
	osh(`${cmd}/etc/init.d/reterm-latencyd restart`);
	for (let n = 0; n < 50 && !/reterm\.latency/.test(osh('ubus list')); n++)
		await sleep(200);
}

async function shapeWan() {
	const i = wanQueueAt(), script = uciSections('sqm').filter(s => s.type === 'queue')[i]?.opts.script;
	if (i < 0)
		throw new Error('no sqm queue for wan0');
	await restartRetermd(`uci set sqm.@queue[${i}].script=reterm-tbf.qos && uci commit sqm && /usr/lib/sqm/run.sh start wan0 && `);
	return script;
}

/* after wizard/closed: the queue stopped and its script as the Shaping page
 * set it; wan0 gone, because the loopback test server's traffic never
 * crosses it, and the guided test takes the WAN's byte counters when the
 * WAN device exists (the later tests count their own bytes) */
async function unshapeWan(script) {
	const i = wanQueueAt();
	osh('/usr/lib/sqm/run.sh stop wan0');
	execFileSync('ip', [ 'link', 'del', 'wan0' ]);
	await restartRetermd(i < 0 ? '' : script ? `uci set sqm.@queue[${i}].script='${script.replace(/[^A-Za-z0-9_.-]/g, '')}' && uci commit sqm && `
		: `uci delete sqm.@queue[${i}].script && uci commit sqm && `);
}

/* issue 13 item 9: the measurement started in a tab of its own, the tab
 * closed mid-test; then, without any page, the router alone restarts the
 * queue when the test ends */
async function wizardClosed(urls) {
	const script = await shapeWan();
	try {
		return wanShaped() ? await closedMidTest(urls, readFileSync(join(ROOT, 'etc/config/sqm'), 'utf8'))
			: [ `sqm did not start the queue: ${execFileSync('tc', [ 'qdisc', 'show', 'dev', 'wan0' ], { encoding: 'utf8' })}` ];
	}
	finally {
		await unshapeWan(script);
	}
}

async function closedMidTest(urls, sqm0) {
	const problems = [];

	/* a page of its own, logged in with the same session cookie */
	const ctx = await page.context().browser().newContext(), seen = [];
	try {
		await ctx.addCookies(await page.context().cookies());
		const tab = await ctx.newPage();
		tab.on('pageerror', e => seen.push(`pageerror: ${e.stack || e}`));
		tab.on('console', m => m.type() === 'error' && seen.push(`console: ${m.text()}`));
		await tab.goto(BASE + PAGE + 'wizard', { timeout: 60000 });
		await tab.locator('.reterm-wizard-next').click();
		await typeUrls(tab, urls);
		await tab.click('.reterm-wizard-start');
		await tab.getByText('Shaping is paused on wan0').waitFor(T);
		await tab.locator('.reterm-wizard-running .cbi-progressbar').waitFor(T);
		const during = testStatus();
		if (during.state !== 'running' || during.pause?.state !== 'paused' || wanShaped())
			problems.push(`mid-test: test ${during.state}, pause ${JSON.stringify(during.pause)}, tbf ${wanShaped()}`);
		await tab.screenshot({ path: join(OUT, 'owrt-wizard-paused.png'), fullPage: true });
	}
	finally {
		await ctx.close();
	}

	/* no browser on the router's pages from here on */
	let st = testStatus();
	for (const t0 = Date.now(); Date.now() - t0 < 150000 && ![ 'restored', 'failed' ].includes(st.pause?.state); st = testStatus())
		await sleep(1000);
	if (st.pause?.state !== 'restored' || !wanShaped())
		problems.push(`after the test, with the page closed: test ${st.state}, pause ${JSON.stringify(st.pause)}, tbf ${wanShaped()}`);
	if (readFileSync(join(ROOT, 'etc/config/sqm'), 'utf8') !== sqm0)
		problems.push('/etc/config/sqm was written during the pause');
	return [ ...problems, ...seen ];
}

/* the wizard once through (see the top), each step on from the last one;
 * `applies`: the statuses of apply_rollback */
async function wizard(urls) {
	const applies = [], seen = r => /\/admin\/uci\/apply_rollback\b/.test(r.url()) && applies.push(r.status());
	const wanQueue = () => uciSections('sqm').find(s => s.type === 'queue' && s.opts.interface === 'wan0')?.opts ?? {};
	let measured = 0, broken = null;
	const then = async (name, body) => broken ? report(name, [ `not run: ${broken} failed` ]) : (await step(name, body) || (broken = name));

	page.on('response', seen);

	await step('wizard/closed', () => wizardClosed(urls));

	await then('wizard/measure', async () => {
		const q0 = wanQueue();
		await open(PAGE + 'wizard');
		await page.click('.reterm-wizard-next');
		await typeUrls(page, urls);
		await page.click('.reterm-wizard-start');
		await page.locator('.reterm-wizard-running').waitFor(T);
		await page.waitForTimeout(15000);
		await shot('wizard-progress');
		await page.locator('.reterm-wizard-result').waitFor(T);
		measured = Date.now();
		await page.locator('.reterm-wizard-next').waitFor(T);
		await shot('wizard-measured');
		const grade = await page.locator('.reterm-wizard-grade').textContent(), q1 = wanQueue(),
		      pause = await page.locator('.reterm-wizard-pause').textContent();
		return [ ...(/Grade [A-F]/.test(grade) ? [] : [ `result: ${grade}` ]),
			...(pause === '' ? [] : [ `nothing runs on wan0 to pause, but the page says: ${pause}` ]),
			...(applies.length ? [ `applies (none wanted): ${applies.join()}` ] : []),
			...(JSON.stringify(q1) === JSON.stringify(q0) ? [] : [ `queue after: ${JSON.stringify(q1)}` ]) ];
	});

	await then('wizard/apply', async () => {
		await page.click('.reterm-wizard-next');
		await page.fill('#reterm-wizard-down', '20');
		await page.fill('#reterm-wizard-up', '10');
		await page.check('#reterm-wizard-adaptive');
		await shot('wizard-propose');
		await page.click('.reterm-wizard-accept');
		const problems = await applied(() => page.click('.reterm-wizard-apply'));
		await page.locator('.reterm-wizard-start').waitFor(T);	/* reterm-latencyd reported 20 / 10 Mbit/s */
		const q = wanQueue();
		if (!(q.download === '20000' && q.upload === '10000' && q.enabled === '1'))
			problems.push(`queue ${JSON.stringify(q)}`);
		/* adaptive shaping ticked: the queue's autorate section (shaping/autorate
		 * left it off, download maximum 40) on, the rates from the proposal */
		const queue = (osh('uci -X show sqm').match(/^sqm\.([A-Za-z0-9_]+)\.interface='wan0'$/m) ?? [])[1];
		const ar = uciSections('reterm').filter(s => s.type === 'autorate' && s.name === queue);
		const want = { enabled: '1', dl_min: '5000', dl_base: '20000', dl_max: '40000', ul_min: '2500', ul_base: '10000', ul_max: '20000' };
		if (!queue || ar.length !== 1 || !Object.keys(want).every(k => ar[0].opts[k] === want[k]))
			problems.push(`adaptive shaping of ${queue}: ${JSON.stringify(ar)}`);
		return problems;
	});

	await then('wizard/verify', async () => {
		await page.waitForTimeout(Math.max(0, measured + 32000 - Date.now()));	/* reterm-latencyd: 30 s between tests */
		await page.click('.reterm-wizard-start');
		await page.locator('.reterm-wizard-compare').waitFor(T);
		await shot('wizard-verified');
		return [];
	});

	await then('wizard/devices', async () => {
		const before = uciSections('reterm');
		await page.click('.reterm-wizard-next');
		await page.check(`input.reterm-wizard-offer[value="${CONSOLE.mac}"]`);
		const problems = await applied(() => page.click('.reterm-wizard-apply-devices'));
		await page.getByText('Done. The chosen devices are re-terminated').waitFor(T);
		await shot('wizard-done');
		return [ ...problems, ...oneAdded('reterm', before, s => s.type === 'device' && s.opts.mac === CONSOLE.mac && s.opts.enabled === '1') ];
	});

	page.off('response', seen);
}

/* the app running as after a boot, the lease, the allowed test server */
async function prepare() {
	osh(`touch /etc/config/reterm_admin && uci set reterm_admin.latency=latency &&
		uci set reterm_admin.latency.test_server=127.0.0.1 && uci commit reterm_admin &&
		/etc/init.d/reterm start && /etc/init.d/reterm-latencyd start`);

	for (let n = 0; n < 50 && !/reterm\.latency/.test(osh('ubus list')); n++)
		await new Promise(r => setTimeout(r, 200));
	writeFileSync(join(ROOT, 'tmp/dhcp.leases'), `${Math.floor(Date.now() / 1000) + 43200} ${CONSOLE.mac} ${CONSOLE.ip} ${CONSOLE.name} *\n`);

	const httpd = spawn('python3', [ join(TOP, 'tests/ucode/latency/httpd.py') ], { stdio: [ 'ignore', 'pipe', 'inherit' ] });
	/* also when node ends on an error: it holds run.sh's output pipe */
	process.on('exit', () => httpd.kill());
	const port = await new Promise((resolve, reject) => {
		createInterface({ input: httpd.stdout }).once('line', resolve);
		httpd.once('exit', () => reject(new Error('httpd.py exited')));
	});
	return { httpd, urls: { download: `http://127.0.0.1:${port}/bytes/1000000000`, upload: `http://127.0.0.1:${port}/upload` } };
}

async function main() {
	const { chromium } = await import('playwright-core').catch(() => ({}));
	const why = !ROOT ? 'no --root given' : !existsSync(CHROMIUM) ? `chromium not found at ${CHROMIUM}` :
		!chromium ? 'playwright-core not found: npm ci' : null;
	if (why)
		return CHECKS.forEach(c => console.log(`skip - luci/${c} (${why})`));

	mkdirSync(OUT, { recursive: true });
	readdirSync(OUT).filter(f => f.startsWith('owrt-fail-')).forEach(f => rmSync(join(OUT, f)));	/* an earlier run's */
	const { httpd, urls } = await prepare(), home = mkdtempSync(join(tmpdir(), 'owrt-chromium-'));
	const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, env: { ...process.env, HOME: home },
		args: [ '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync' ] });

	try {
		page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
		rec = recorder();
		await login();
		for (const p of PAGES)
			await step('page/' + p, () => showPage(p), [ 'error', 'denied' ]);
		await step('overview/apply', () => overviewApply(urls));
		await step('devices/apply', devicesApply);
		await step('devices/audit', devicesAudit);
		await step('shaping/apply', shapingApply);
		await step('shaping/autorate', shapingAutorate);
		await wizard(urls);
	}
	finally {
		await browser.close();
		httpd.kill();
		rmSync(home, { recursive: true, force: true });
	}
}

main().catch(e => report('run', [ String(e.stack || e) ])).finally(() => {
	console.log(`luci-checks: done (${passed} passed, ${failed} failed)`);
	process.exitCode = failed ? 1 : 0;
});
