#!/usr/bin/env node
/**
 * Real-Chromium check of the setup wizard (view/reterm/wizard.js with
 * reterm.wizard, shaping, tcpreview, graph, devices), without a router:
 *
 *   node tests/browser/wizard.browser.mjs
 *
 * Same page set-up as overview.browser.mjs (harness fakes for rpc, uci,
 * poll, ui, fs, network; a luci.js-style loader); LuCI's apply with
 * rollback is replaced by an immediate commit of the staged changes.
 * Recorded API replies:
 *   - test_start / test_status / results: tests/js/fixtures/overview.json
 *     (the real retermd code on a simulated line): the unshaped test
 *     (grade D) is the "before", the shaped one (A+) the "after";
 *   - hosts: tests/ucode/api/fixtures/home/expected/hosts.json (the API's
 *     golden reply);
 *   - server_rtts: what the API answers for the same fixture's ss output
 *     (checked in tests/ucode/api/api_test.uc).
 * Walks: look → measure with shaping off (the enabled queue is turned
 * off, the test runs, the queue is back on) → proposal (rates, rtt from
 * reflector and server RTTs) → apply → verify (before/after) → devices →
 * cancel (everything back as before). Screenshots tests/browser/out/
 * wizard.png (before/after) and wizard-progress.png (mid-test).
 *
 * Prints "ok - …" / "not ok - …" lines and "wizard: N passed, N failed";
 * exits 1 on failure. Needs /usr/bin/chromium and playwright-core.
 */

import { join } from 'node:path';
import { reporter, moduleList, runPage, LOADER, OUT, REPO_ROOT } from './lib.mjs';

const FIXTURE = join(REPO_ROOT, 'tests/js/fixtures/overview.json');
const HOSTS = join(REPO_ROOT, 'tests/ucode/api/fixtures/home/expected/hosts.json');
const BUILTINS = new Set(['baseclass', 'view', 'dom', 'poll', 'rpc', 'uci', 'ui', 'fs', 'network']);

/* tests/ucode/api/api_test.uc: server_rtts on the "home" fixture */
const SERVER_RTTS = { rtts: [131.5, 162.25, 145], source: 'ss' };
const BEFORE_ID = '6666cea2', AFTER_ID = '6666dd03';

const { check, finish } = reporter('wizard');

const THEME = `
  html { background: #f4f5f7; }
  body { margin: 0; font: 13px/1.5 "Liberation Sans", "DejaVu Sans", Arial, sans-serif; color: #404040; background: #f4f5f7; }
  header { background: #1e293b; color: #e2e8f0; padding: 10px 24px; font-weight: 600; letter-spacing: .02em; }
  header span { opacity: .6; font-weight: 400; margin-left: 1em; }
  #maincontent { width: 1000px; margin: 0 auto; padding: 12px 24px 24px; box-sizing: border-box; }
  h2 { font-size: 22px; font-weight: 600; margin: 8px 0 4px; }
  h3 { font-size: 16px; font-weight: 600; margin: 0 0 6px; }
  .cbi-map-descr, .cbi-section-descr { margin: 0 0 10px; opacity: .85; }
  .cbi-section { background: #fff; border: 1px solid #dfe3e8; border-radius: 4px; padding: 14px 18px 10px; margin: 0 0 16px; }
  .cbi-value { display: flex; align-items: flex-start; padding: 6px 0; }
  .cbi-value-title { flex: 0 0 180px; padding-top: 5px; font-weight: 600; }
  .cbi-value-field { flex: 1 1 auto; }
  .cbi-value-field input[type=text] { width: 420px; padding: 5px 8px; border: 1px solid #c4cad2; border-radius: 3px; font: inherit; }
  #reterm-streams { width: 60px !important; }
  .cbi-value-description { font-size: 12px; opacity: .7; margin-top: 2px; }
  .cbi-button { font: inherit; padding: 6px 16px; border-radius: 3px; border: 1px solid #b8c0ca; background: #f3f4f6; cursor: pointer; }
  .cbi-button-apply { background: #2563eb; border-color: #1d4ed8; color: #fff; }
  .cbi-button-reset { background: #fff; border-color: #dc2626; color: #b91c1c; }
  .cbi-button[disabled] { opacity: .45; cursor: default; }
  .cbi-input-select { font: inherit; padding: 4px 6px; border: 1px solid #c4cad2; border-radius: 3px; max-width: 380px; }
  .alert-message { border-radius: 4px; padding: 8px 12px; margin: 6px 0; border: 1px solid; }
  .alert-message.danger { background: #fef2f2; border-color: #fca5a5; color: #7f1d1d; }
  .alert-message.warning { background: #fffbeb; border-color: #fcd34d; color: #78350f; }
  .alert-message.notice, .alert-message.info { background: #eff6ff; border-color: #93c5fd; color: #1e3a8a; }
  .alert-message.success { background: #f0fdf4; border-color: #86efac; color: #14532d; }
  .cbi-button-action { background: #e0ecff; border-color: #93b4f5; color: #1e3a8a; }
  .cbi-button-negative { background: #fff; border-color: #dc2626; color: #b91c1c; }
  .cbi-page-actions { border-top: 1px solid #dfe3e8; padding-top: 12px; }
  .cbi-value-field select { font: inherit; padding: 4px 6px; border: 1px solid #c4cad2; border-radius: 3px; }
  pre { background: #f8fafc; border: 1px solid #e5e7eb; padding: 8px; font-size: 11px; overflow-x: auto; white-space: pre-wrap; }
  .label { display: inline-block; font-size: 11px; padding: 0 6px; border-radius: 8px; background: #e5e7eb; }
  a { color: #1d4ed8; }
  .cbi-progressbar { position: relative; height: 18px; border: 1px solid #c4cad2; border-radius: 3px; background: #f3f4f6; overflow: hidden; }
  .cbi-progressbar > div { height: 100%; background: #2563eb; transition: none; }
  .cbi-progressbar::after { content: attr(title); position: absolute; inset: 0; text-align: center; font-size: 11px; line-height: 18px; }
  table.table { border-collapse: collapse; }
  table.table th, table.table td { padding: 5px 8px; border-bottom: 1px solid #e5e7eb; text-align: left; }
  table.table tr.table-titles th { font-weight: 600; border-bottom: 2px solid #d1d5db; }
  html[data-darkmode="true"], html[data-darkmode="true"] body { background: #161616; color: #d4d4d4; }
  html[data-darkmode="true"] .cbi-section { background: #222; border-color: #3a3a3a; }
  html[data-darkmode="true"] .cbi-value-field input[type=text], html[data-darkmode="true"] .cbi-input-select { background: #111; color: #ddd; border-color: #444; }
  html[data-darkmode="true"] .alert-message.danger { background: #3b1414; border-color: #7f1d1d; color: #fecaca; }
  html[data-darkmode="true"] .alert-message.warning { background: #3a2c0a; border-color: #78350f; color: #fde68a; }
  html[data-darkmode="true"] table.table th, html[data-darkmode="true"] table.table td { border-color: #333; }
  html[data-darkmode="true"] .cbi-progressbar { background: #111; border-color: #444; }
`;

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>reterm wizard</title><style>${THEME}</style></head>
<body><header>OpenWrt <span>Network › Re-termination › Wizard</span></header>
<div id="maincontent"><div id="view"></div></div>
<script type="module">
  import { Class } from '/harness/fakes/baseclass.js';
  import { installFormat, _, N_ } from '/harness/fakes/i18n.js';
  import { createRPC } from '/harness/fakes/rpc.js';
  import { createUCI } from '/harness/fakes/uci.js';
  import { createPoll } from '/harness/fakes/poll.js';
  import { createUI } from '/harness/fakes/ui.js';
  import { createFS } from '/harness/fakes/fs.js';
  import { createNetwork } from '/harness/fakes/network.js';

  installFormat();

  /* LuCI's E(): function attributes are listeners, null ones skipped,
   * array children appended (strings as text) */
  const isNode = v => v instanceof Node;
  const append = (node, children) => {
    if (Array.isArray(children))
      children.forEach(c => node.appendChild(isNode(c) ? c : document.createTextNode(String(c))));
    else if (isNode(children))
      node.appendChild(children);
    else if (children != null)
      node.innerHTML = String(children);
  };
  const E = (tag, attrs, children) => {
    if (attrs != null && (Array.isArray(attrs) || isNode(attrs) || typeof attrs !== 'object'))
      children = attrs, attrs = null;
    const el = Array.isArray(tag) ? document.createDocumentFragment() : document.createElement(tag);
    for (const k in (attrs || {})) {
      const v = attrs[k];
      if (v == null) continue;
      if (typeof v === 'function') el.addEventListener(k, v);
      else el.setAttribute(k, typeof v === 'object' ? JSON.stringify(v) : v);
    }
    append(el, Array.isArray(tag) ? tag : children);
    return el;
  };
  const instances = new WeakMap();
  const dom = {
    elem: isNode,
    append(node, children) { append(node, children); return node.lastChild; },
    content(node, children) { node.replaceChildren(); append(node, children); return node.lastChild; },
    bindClassInstance(node, inst) { instances.set(node, inst); },
    findClassInstance(node) { for (let n = node; n; n = n.parentNode) if (instances.has(n)) return instances.get(n); return null; },
    callClassMethod(node, method, ...args) { const i = this.findClassInstance(node); return i ? i[method](...args) : null; }
  };

  const env = { pollinterval: 5, resource: '/luci-static/resources' };
  const rpc = createRPC({ Class });
  const uci = createUCI({ Class });
  const poll = createPoll({ Class, env });
  const ui = createUI({ Class, E, dom });
  const fs = createFS({ Class });
  const network = createNetwork({ Class });

  /* LuCI's apply with rollback: here it commits the staged changes at once */
  const applied = [];
  ui.changes.apply = checked => { applied.push({ checked: !!checked }); return uci.apply(); };

  /* LuCI's view flow: load() → render() → #view */
  const view = Class.extend({
    __init__() {
      const vp = document.getElementById('view');
      this.ready = Promise.resolve().then(() => this.load()).then(d => this.render(d)).then(n => {
        dom.content(vp, n);
        return vp;
      });
    },
    load() {}, render() {}
  });

  const L = {
    env, Class,
    resource: (...parts) => '/luci-static/resources/' + parts.join('/'),
    bind: (fn, self, ...args) => fn.bind(self, ...args),
    isObject: v => v != null && typeof v === 'object',
    resolveDefault: (p, def) => Promise.resolve(p).catch(() => def),
    url: (...parts) => '/cgi-bin/luci/' + parts.join('/')
  };
  const cache = { baseclass: Class, view, dom, poll, rpc, uci, ui, fs, network };
${LOADER}
  window.__env = { rpc, uci, poll, ui, fs, network, applied };
  window.__ready = true;
</script></body></html>`;

/* in the page: the router's config and the recorded replies */
async function stubRouter(page) {
	return page.evaluate(async ({ SERVER_RTTS, BEFORE_ID, AFTER_ID }) => {
		const fx = await (await fetch('/fixtures/overview.json')).json();
		const hosts = await (await fetch('/fixtures/hosts.json')).json();
		const { rpc, uci, fs, network } = window.__env;
		const st = window.__router = { status: { state: 'idle' }, fx, ids: [BEFORE_ID, AFTER_ID], started: [] };

		sessionStorage.clear();
		uci.seed('reterm', {
			main: { '.type': 'reterm', enabled: '0' },
			monitor: { '.type': 'monitor', enabled: '1', download_url: 'http://192.0.2.10/bytes/1000000000',
				upload_url: 'http://192.0.2.10/upload' }
		});
		/* shaping on at rates that are too low: the wizard must measure without it */
		uci.seed('sqm', { wan: { '.type': 'queue', enabled: '1', interface: 'eth1', download: '9000', upload: '2000',
			qdisc: 'cake', script: 'piece_of_cake.qos' } });
		uci.seed('network', {
			lan: { '.type': 'interface', proto: 'static', device: 'br-lan' },
			wan: { '.type': 'interface', proto: 'dhcp', device: 'eth1' }
		});
		uci.seed('firewall', {
			d: { '.type': 'defaults', '.anonymous': true, flow_offloading: '1', flow_offloading_hw: '0' },
			zw: { '.type': 'zone', '.anonymous': true, name: 'wan', network: ['wan'] }
		});
		network.seed({ networks: [{ name: 'wan', proto: 'dhcp', device: 'eth1', l3device: 'eth1', wan: true }] });
		fs.files['/usr/lib/sqm/defaults.sh'] = '';

		rpc.handle('reterm', 'hosts', hosts);
		rpc.handle('reterm', 'server_rtts', SERVER_RTTS);
		rpc.handle('reterm', 'monitor_status', fx.status);
		rpc.handle('reterm', 'test_status', () => st.status);
		rpc.handle('reterm', 'test_start', p => {
			const id = st.ids[st.started.length];
			st.started.push({ id, params: p, sqm: uci.get('sqm', 'wan', 'enabled') });
			st.current = id;
			st.status = fx.test.running[0];
			return Object.assign({}, fx.test.start, { id });
		});
		rpc.handle('reterm', 'test_stop', () => { st.status = { state: 'idle' }; return { state: 'idle' }; });
		return true;
	}, { SERVER_RTTS, BEFORE_ID, AFTER_ID });
}

/* run the recorded phases, then the recorded result of the current test */
async function runTest(page, shot) {
	const texts = [];
	for (let i = 0; i < 5; i++) {
		texts.push(await page.evaluate(async i => {
			window.__router.status = window.__router.fx.test.running[i];
			await window.__env.poll.tick();
			return document.querySelector('.reterm-wizard-progress-text').textContent;
		}, i));
		if (i === 1 && shot)
			await page.locator('#maincontent').screenshot({ path: join(OUT, shot) });
	}
	await page.evaluate(async () => {
		const r = window.__router;
		r.status = Object.assign({}, r.fx.test.done, { id: r.current, result: r.fx.results.byId[r.current].result });
		await window.__env.poll.tick();
	});
	await page.waitForFunction(() => window.__env.poll.queue.length === 0);
	return texts;
}

const text = (page, sel) => page.evaluate(s => { const n = document.querySelector(s); return n ? n.textContent : null; }, sel);
const stepName = page => text(page, '.reterm-wizard-step.active');
const sqmNow = page => page.evaluate(() => Object.assign({}, window.__env.uci.get('sqm', 'wan')));

async function main() {
	await runPage({ check, finish, html: PAGE, viewport: { width: 1000, height: 900 },
		files: { '/fixtures/overview.json': FIXTURE, '/fixtures/hosts.json': HOSTS } }, async (page, errors) => {

		await stubRouter(page);
		const mods = moduleList(['view.reterm.wizard'], BUILTINS);
		const loaded = await page.evaluate(m => window.__load(m), mods);
		check('in-page loader instantiates the wizard and its modules',
			['reterm.wizard', 'reterm.shaping', 'reterm.tcpreview', 'reterm.graph', 'view.reterm.wizard'].every(n => loaded.includes(n)), loaded);
		await page.evaluate(() => window.__mod('view.reterm.wizard').ready);
		await page.waitForSelector('.reterm-wizard-facts');

		/* ---- 1. look ---- */
		const look = await page.evaluate(() => ({
			facts: [...document.querySelectorAll('.reterm-wizard-facts tr')].map(r => r.textContent),
			hosts: [...document.querySelectorAll('.reterm-wizard-hosts li')].map(li => li.textContent.trim()),
			steps: [...document.querySelectorAll('.reterm-wizard-step')].map(s => getComputedStyle(s).display)
		}));
		check('look: WAN device, shaping on with its rates, software offloading', look.facts.join('|') ===
			'Internet (WAN) deviceeth1 (dhcp)|Shaping (sqm)on: 9 Mbit/s down, 2 Mbit/s up|Flow offloadingsoftware (fine)', look.facts);
		check('look: hosts from the recorded reply, consoles and handhelds first', look.hosts.length === 8 &&
			look.hosts.every((h, i) => /^(Console|Handheld) /.test(h) === (i < 4)) && look.hosts.some(h => /nintendo-3ds/.test(h)), look.hosts);
		check('look: the five steps in a row', look.steps.length === 5 && look.steps.every(d => d === 'list-item' || d === 'block'), look.steps);

		/* ---- 2. measure with shaping off ---- */
		await page.click('.reterm-wizard-next');
		check('measure: step 2, says shaping will be turned off for the test', (await stepName(page)) === '2. Measure' &&
			/turns the queue off for the test and back on/.test(await text(page, '.reterm-wizard-body')));
		await page.click('.reterm-wizard-start');
		await page.waitForFunction(() => window.__router.started.length === 1);
		const started = await page.evaluate(() => ({ s: window.__router.started[0], applied: window.__env.applied.length,
			paused: JSON.parse(sessionStorage.getItem('reterm-wizard')).paused }));
		check('measure: queue off and applied with rollback before the test starts', started.s.sqm === '0' &&
			started.applied === 1 && started.paused.phase === 'off' && started.paused.testId === BEFORE_ID, started);
		check('measure: test_start with the stored URLs and 4 streams', JSON.stringify(started.s.params) ===
			JSON.stringify({ download_url: 'http://192.0.2.10/bytes/1000000000', upload_url: 'http://192.0.2.10/upload', streams: 4 }), started.s.params);
		const prog = await runTest(page, 'wizard-progress.png');
		check('measure: progress through the phases', prog.map(t => t.split(' – ')[0]).join('|') ===
			'Measuring: idle|Measuring: download|Measuring: upload|Measuring: both directions|Measuring: cooldown', prog);
		await page.waitForFunction(() => window.__env.applied.length === 2);
		const after2 = await page.evaluate(() => ({
			grade: document.querySelector('.reterm-wizard-grade').textContent,
			svg: !!document.querySelector('.reterm-wizard-result svg'),
			paused: JSON.parse(sessionStorage.getItem('reterm-wizard')).paused,
			next: !!document.querySelector('.reterm-wizard-next')
		}));
		const q2 = await sqmNow(page);
		check('measure: grade D and the latency graph', /^Grade D · download 18\.7 Mbit\/s, 213\.5 ms added · upload 4\.73 Mbit\/s, 110 ms added$/.test(after2.grade) && after2.svg, after2.grade);
		check('measure: shaping back on as before (applied again), pause over', q2.enabled === '1' && q2.download === '9000' &&
			after2.paused === null && after2.next, [q2, after2.paused]);

		/* ---- 3. propose ---- */
		await page.click('.reterm-wizard-next');
		const prop = await page.evaluate(() => ({
			v: ['down', 'up', 'rtt', 'overhead'].map(k => document.querySelector('#reterm-wizard-' + k).value),
			text: document.querySelector('.reterm-wizard-body').textContent,
			preview: document.querySelector('.reterm-wizard-preview').textContent
		}));
		check('propose: 90 % of the measured rates, ethernet overhead', prop.v[0] === '16.851' && prop.v[1] === '4.257' && prop.v[3] === 'ethernet', prop.v);
		check('propose: rtt oceanic from reflector and server RTTs (6 values, 98 % ≤ 162.3 ms)', prop.v[2] === 'oceanic' &&
			/98 % of the 6 round-trip times .*to 3 servers.* at most 162\.3 ms/.test(prop.text), [prop.v[2], prop.text.match(/98 %[^.]*/)]);
		check('propose: tc preview with the proposal', /tc qdisc add dev eth1 root cake bandwidth 4257kbit .*oceanic/.test(prop.preview) &&
			/ifb4eth1 root cake bandwidth 16851kbit/.test(prop.preview), prop.preview.slice(0, 300));

		/* ---- 4. apply and verify ---- */
		await page.click('.reterm-wizard-accept');
		await page.click('.reterm-wizard-apply');
		await page.waitForFunction(() => window.__env.applied.length === 3);
		const q4 = await sqmNow(page);
		check('apply: the queue gets the proposal, applied with rollback', q4.enabled === '1' && q4.download === '16851' &&
			q4.upload === '4257' && /oceanic/.test(q4.iqdisc_opts), q4);
		await page.click('.reterm-wizard-start');
		await page.waitForFunction(() => window.__router.started.length === 2);
		check('verify: the second test runs with shaping on, nothing else applied', await page.evaluate(() =>
			window.__router.started[1].sqm === '1' && window.__env.applied.length === 3));
		await runTest(page);
		await page.waitForSelector('.reterm-wizard-compare');
		const cmp = await page.evaluate(() => [...document.querySelectorAll('.reterm-wizard-compare tr')].map(r => [...r.children].map(c => c.textContent)));
		check('verify: grades side by side D → A+', JSON.stringify(cmp[1]) === JSON.stringify(['Grade', 'D', 'A+']), cmp[1]);
		check('verify: added latency and throughput cost in %', JSON.stringify(cmp[2]) === JSON.stringify(['Added latency, download', '213.5 ms', '3.6 ms']) &&
			/^17 Mbit\/s \(9\.4 % less\)$/.test(cmp[4][2]) && /\(9\.7 % less\)$/.test(cmp[5][2]), cmp);

		const layout = await page.evaluate(() => {
			const box = el => el.getBoundingClientRect();
			const main = box(document.getElementById('maincontent'));
			return [...document.querySelectorAll('#view *')].filter(el => !el.closest('.reterm-sr-table')).filter(el => {
				const b = box(el);
				return b.width > 0 && (b.right > main.right + 1 || b.left < main.left - 1);
			}).map(el => el.className || el.tagName);
		});
		check('layout: nothing sticks out of the content column', layout.length === 0, layout.slice(0, 5));
		await page.locator('#maincontent').screenshot({ path: join(OUT, 'wizard.png') });

		/* ---- 5. devices ---- */
		await page.click('.reterm-wizard-next');
		const offers = await page.evaluate(() => [...document.querySelectorAll('.reterm-wizard-offers li')].map(li => ({
			text: li.textContent, disabled: li.querySelector('input').disabled, checked: li.querySelector('input').checked })));
		check('devices: consoles (re-terminated already) and handhelds offered with evidence', offers.length === 4 &&
			offers.filter(o => o.disabled).length === 2 && offers.filter(o => o.checked && !o.disabled).length === 2 &&
			offers.some(o => /steamdeck/.test(o.text) && /small receive window/.test(o.text)), offers.map(o => o.text.slice(0, 60)));
		await page.click('.reterm-wizard-apply-devices');
		await page.waitForFunction(() => window.__env.applied.length === 4);
		const dev = await page.evaluate(() => ({
			r: window.__env.uci.sections('reterm', 'device').map(s => [s.name, s.mac, s.enabled, s.ports]),
			main: window.__env.uci.get('reterm', 'main', 'enabled'),
			done: document.querySelector('.reterm-wizard-body').textContent
		}));
		check('devices: two sections added, service enabled, done', dev.r.length === 2 && dev.main === '1' &&
			dev.r.some(d => d[0] === 'steamdeck' && d[1] === 'e0:31:9e:10:20:30' && d[2] === '1') && /Done\. The chosen devices/.test(dev.done), dev);

		/* ---- cancel: everything back ---- */
		await page.click('.reterm-wizard-cancel');
		await page.waitForFunction(() => window.__env.applied.length === 5);
		const back = await page.evaluate(() => ({
			sqm: Object.assign({}, window.__env.uci.get('sqm', 'wan')),
			devs: window.__env.uci.sections('reterm', 'device').length,
			main: window.__env.uci.get('reterm', 'main', 'enabled'),
			stored: sessionStorage.getItem('reterm-wizard'),
			note: window.__env.ui.notifications.map(n => n.text).join()
		}));
		check('cancel: the queue as before the wizard', JSON.stringify([back.sqm.enabled, back.sqm.download, back.sqm.upload, back.sqm.iqdisc_opts]) ===
			JSON.stringify(['1', '9000', '2000', undefined]), back.sqm);
		check('cancel: added devices removed, service off again, state forgotten', back.devs === 0 && back.main === '0' &&
			back.stored === null && /previous settings are back/.test(back.note), back);
		check('cancel: back at step 1', (await stepName(page)) === '1. Look');

		check('no page errors', errors.length === 0, errors);
	});
}

main();
