#!/usr/bin/env node
/**
 * Real-Chromium check of the setup wizard (view/reterm/wizard.js with
 * reterm.wizard.state*, testrun, shaping, tcpreview, graphresult, devices),
 * without a router:
 *
 *   node tests/browser/wizard.browser.mjs
 *
 * Same page set-up as overview.browser.mjs (lib.mjs viewPage: harness
 * fakes for rpc, uci, poll, ui, plus fs and network here; a luci.js-style
 * loader); LuCI's apply with rollback is replaced by an immediate commit
 * of the staged changes.
 * Recorded API replies:
 *   - test_start / test_status / results: tests/js/fixtures/overview.json
 *     (the real reterm-latencyd code on a simulated line): the unshaped test
 *     (grade D) is the "before", the shaped one (A+) the "after";
 *   - hosts: tests/ucode/api/fixtures/home/expected/hosts.json (the API's
 *     golden reply);
 *   - server_rtts: what the API answers for the same fixture's ss output
 *     (checked in tests/ucode/api/api_test.uc).
 *   - monitor_status: the recorded status, with shaper/cake from the sqm
 *     config as applied, but only 3 polls after a change (reterm-latencyd reads
 *     it again on a procd trigger): the fake apply returns at once, like
 *     LuCI's, so the wizard must wait for the router's word;
 *   - the shaping pause (reterm.latency.test.pause): test_start with
 *     pause_shaping names the enabled queue's device as paused; test_status
 *     carries the pause record, "restoring" as the test ends and
 *     "restored" at the next poll.
 * Walks: look → measure with shaping off (the router pauses the queue:
 * nothing staged or applied; the pause and its end are shown) → proposal
 * (rates, rtt from reflector and server RTTs) → apply → verify once the
 * router reports the new rates (before/after) → devices → cancel
 * (everything back as before). wizard.css is linked and follows the dark
 * theme. Screenshots tests/browser/out/wizard.png (before/after, light),
 * wizard-dark.png and wizard-progress.png (mid-test).
 *
 * Prints "ok - …" / "not ok - …" lines and "wizard: N passed, N failed";
 * exits 1 on failure. Needs /usr/bin/chromium and playwright-core.
 */

import { join } from 'node:path';
import { reporter, moduleList, runPage, viewPage, OUT, REPO_ROOT } from './lib.mjs';

const FIXTURE = join(REPO_ROOT, 'tests/js/fixtures/overview.json');
const HOSTS = join(REPO_ROOT, 'tests/ucode/api/fixtures/home/expected/hosts.json');
const BUILTINS = new Set(['baseclass', 'view', 'dom', 'poll', 'rpc', 'uci', 'ui', 'fs', 'network']);

/* tests/ucode/api/api_test.uc: server_rtts on the "home" fixture */
const SERVER_RTTS = { rtts: [131.5, 162.25, 145], source: 'ss' };
const BEFORE_ID = '6666cea2', AFTER_ID = '6666dd03';

const { check, finish } = reporter('wizard');

/* the wizard's markup on top of the shared THEME */
const EXTRA_CSS = `
  .alert-message.info { background: #eff6ff; border-color: #93c5fd; color: #1e3a8a; }
  .alert-message.success { background: #f0fdf4; border-color: #86efac; color: #14532d; }
  .cbi-button-action { background: #e0ecff; border-color: #93b4f5; color: #1e3a8a; }
  .cbi-button-negative { background: #fff; border-color: #dc2626; color: #b91c1c; }
  .cbi-page-actions { border-top: 1px solid #dfe3e8; padding-top: 12px; }
  .cbi-value-field select { font: inherit; padding: 4px 6px; border: 1px solid #c4cad2; border-radius: 3px; }
  pre { background: #f8fafc; border: 1px solid #e5e7eb; padding: 8px; font-size: 11px; overflow-x: auto; white-space: pre-wrap; }
  .label { display: inline-block; font-size: 11px; padding: 0 6px; border-radius: 8px; background: #e5e7eb; }
  a { color: #1d4ed8; }
  html[data-darkmode="true"] .alert-message.info { background: #10233f; border-color: #1e3a8a; color: #bfdbfe; }
  html[data-darkmode="true"] .alert-message.success { background: #0c2a17; border-color: #14532d; color: #bbf7d0; }
  html[data-darkmode="true"] .cbi-button { background: #2a2a2a; border-color: #444; color: #ddd; }
  html[data-darkmode="true"] .cbi-button-action { background: #1e3a8a; border-color: #2563eb; color: #e0ecff; }
  html[data-darkmode="true"] .cbi-button-reset, html[data-darkmode="true"] .cbi-button-negative { background: #2a1414; color: #fca5a5; }
  html[data-darkmode="true"] pre { background: #111; border-color: #333; }
  html[data-darkmode="true"] a { color: #93c5fd; }
  /* LuCI's bootstrap theme: a progress bar's title is drawn above it */
  .cbi-progressbar { margin-top: 1.4em; overflow: visible; }
  .cbi-progressbar::before { content: attr(title); position: absolute; top: -1.4em; left: 0; white-space: pre; }
`;

/* fs and network fakes, L.url, and LuCI's apply with rollback: here it
 * commits the staged changes at once */
const PAGE = viewPage({ title: 'reterm wizard', crumb: 'Network › Re-termination › Wizard', extraCss: EXTRA_CSS, script: `
  import { createFS } from '/harness/fakes/fs.js';
  import { createNetwork } from '/harness/fakes/network.js';

  const fs = createFS({ Class });
  const network = createNetwork({ Class });
  const applied = [];
  ui.changes.apply = checked => { applied.push({ checked: !!checked }); return uci.apply(); };
  L.url = (...parts) => '/cgi-bin/luci/' + parts.join('/');
  Object.assign(cache, { fs, network });
  Object.assign(window.__env, { fs, network, applied });
` });

/* in the page: the router's config and the recorded replies */
async function stubRouter(page) {
	return page.evaluate(async ({ SERVER_RTTS, BEFORE_ID, AFTER_ID }) => {
		const fx = await (await fetch('/fixtures/overview.json')).json();
		const hosts = await (await fetch('/fixtures/hosts.json')).json();
		const { rpc, uci, fs } = window.__env;
		const st = window.__router = { status: { state: 'idle' }, fx, ids: [BEFORE_ID, AFTER_ID], started: [] };

		sessionStorage.clear();
		uci.seed('reterm', {
			main: { '.type': 'reterm', enabled: '0' },
			latency: { '.type': 'latency', enabled: '1', download_url: 'http://192.0.2.10/bytes/1000000000',
				upload_url: 'http://192.0.2.10/upload' }
		});
		/* shaping on at rates that are too low: the wizard must measure without it */
		uci.seed('sqm', { wan: { '.type': 'queue', enabled: '1', interface: 'eth1', download: '9000', upload: '2000',
			qdisc: 'cake', script: 'piece_of_cake.qos' } });
		/* reterm wan_info: the wizard reads no uci network/firewall */
		rpc.handle('reterm', 'wan_info', { interfaces: [
			{ name: 'lan', proto: 'static', device: 'br-lan', l3device: 'br-lan', default_route: false, speed: null, zone: 'lan' },
			{ name: 'wan', proto: 'dhcp', device: 'eth1', l3device: 'eth1', default_route: true, speed: null, zone: 'wan' }
		], bridges: { 'br-lan': ['lan1', 'lan2'] }, offload: true, offload_hw: false });
		fs.files['/usr/lib/sqm/defaults.sh'] = '';

		rpc.handle('reterm', 'hosts', hosts);
		rpc.handle('reterm', 'server_rtts', SERVER_RTTS);
		const shaping = () => {
			const q = uci.dump('sqm').wan;
			return (q && q.enabled === '1') ? { shaper: { rx: +q.download * 1000, tx: +q.upload * 1000 }, cake: { dl: 'ifb4eth1', ul: 'eth1' } }
				: { shaper: null, cake: null };
		};
		const mon = st.mon = { lag: 3, shown: shaping(), behind: 0, reports: [] };
		rpc.handle('reterm.latency', 'status', () => {
			const now = shaping();
			if (JSON.stringify(now) === JSON.stringify(mon.shown) || mon.behind++ >= mon.lag) {
				mon.shown = now;
				mon.behind = 0;
			}
			mon.reports.push(mon.shown.shaper ? mon.shown.shaper.rx + '/' + mon.shown.shaper.tx : 'off');
			return Object.assign({}, fx.status, mon.shown);
		});
		/* the pause record as reterm-latencyd keeps it: restored at the second poll after the test */
		const pause = () => {
			if (st.pause && st.pause.state === 'restoring' && --st.restoreIn <= 0)
				st.pause = Object.assign({}, st.pause, { state: 'restored' });
			return st.pause || null;
		};
		rpc.handle('reterm.latency', 'test_status', () => Object.assign({}, st.status, { pause: pause() }));
		rpc.handle('reterm.latency', 'test_start', p => {
			const id = st.ids[st.started.length], q = uci.dump('sqm').wan, paused = (p.pause_shaping && q.enabled === '1') ? [q.interface] : null;
			st.started.push({ id, params: p, sqm: uci.get('sqm', 'wan', 'enabled'), router: mon.reports[mon.reports.length - 1] });
			st.current = id;
			st.status = fx.test.running[0];
			if (paused)
				st.pause = { ifaces: paused, state: 'paused', until: 2000000000 };
			return Object.assign({}, fx.test.start, { id }, p.pause_shaping ? { paused: paused || [] } : {});
		});
		rpc.handle('reterm.latency', 'test_stop', () => { st.status = { state: 'idle' }; return { state: 'idle' }; });
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
			return document.querySelector('.reterm-wizard-running .reterm-run-progress-text').textContent;
		}, i));
		if (i === 1 && shot) {
			await page.locator('#maincontent').screenshot({ path: join(OUT, shot) });
			texts.layout = await page.evaluate(() => {
				const bar = document.querySelector('.reterm-wizard-running .cbi-progressbar'), box = bar.closest('.reterm-wizard-running'),
				    above = document.querySelector('.reterm-wizard-pause .alert-message'),
				    pseudo = w => getComputedStyle(bar, w).content;
				return { before: pseudo('::before'), after: pseudo('::after'), title: bar.getAttribute('title'),
					gap: above ? bar.getBoundingClientRect().top - above.getBoundingClientRect().bottom : null,
					count: box.querySelectorAll('.reterm-run-progress-text').length,
					label: (box.textContent.match(/Download load/g) || []).length,
					pause: above ? above.textContent : null };
			});
		}
	}
	await page.evaluate(async () => {
		const r = window.__router;
		r.status = Object.assign({}, r.fx.test.done, { id: r.current, result: r.fx.results.byId[r.current].result });
		if (r.pause && r.pause.state === 'paused') {
			r.pause = Object.assign({}, r.pause, { state: 'restoring' });
			r.restoreIn = 2;
		}
		await window.__env.poll.tick();
	});
	await page.waitForFunction(() => !document.querySelector('.reterm-wizard-running'));
	return texts;
}

/* tick the fake poll (1 s each) until cond holds in the page; the ticks it took, or -1 */
const tickUntil = (page, cond, max = 20) => page.evaluate(async ({ cond, max }) => {
	const ok = new Function('return (' + cond + ')()');
	for (let i = 0; i <= max; i++) {
		if (ok())
			return i;
		await window.__env.poll.tick();
		await new Promise(r => setTimeout(r, 0));
	}
	return -1;
}, { cond: cond.toString(), max });
const stored = page => page.evaluate(() => JSON.parse(sessionStorage.getItem('reterm-wizard')));

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
			['reterm.wizard.state', 'reterm.shaping.sqm', 'reterm.shaping.preview', 'reterm.graph.result', 'view.reterm.wizard'].every(n => loaded.includes(n)), loaded);
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
		const css = await page.evaluate(() => ({ links: [...document.querySelectorAll('link[rel=stylesheet]')].map(l => l.getAttribute('href')).filter(h => /wizard/.test(h)),
			row: getComputedStyle(document.querySelector('.reterm-wizard-steps')).display, styles: document.querySelectorAll('#view style').length }));
		check('look: wizard.css linked once (L.resource) and applied; no embedded style', JSON.stringify(css.links) === '["/luci-static/resources/reterm/wizard.css"]' &&
			css.row === 'flex' && css.styles === 0, css);

		/* ---- 2. measure with shaping off: the router pauses it ---- */
		await page.click('.reterm-wizard-next');
		check('measure: step 2, says the router pauses shaping for the test, also with the page closed', (await stepName(page)) === '2. Measure' &&
			/the router pauses it for the test and turns it back on by itself .*also when this page is closed/.test(await text(page, '.reterm-wizard-body')));
		await page.click('.reterm-wizard-start');
		await page.waitForFunction(() => window.__router.started.length === 1 && !!document.querySelector('.reterm-wizard-running'));
		const started = await page.evaluate(() => ({ s: window.__router.started[0], applied: window.__env.applied.length,
			test: JSON.parse(sessionStorage.getItem('reterm-wizard')).test,
			note: (document.querySelector('.reterm-wizard-pause') || {}).textContent }));
		check('measure: test_start at once with pause_shaping and the stored URLs; nothing staged or applied', started.s.sqm === '1' &&
			started.applied === 0 && JSON.stringify(started.s.params) === JSON.stringify({ download_url: 'http://192.0.2.10/bytes/1000000000',
				upload_url: 'http://192.0.2.10/upload', streams: 4, pause_shaping: true }), started);
		check('measure: the test and what the router paused are kept for a reload', JSON.stringify(started.test) ===
			JSON.stringify({ kind: 'before', id: BEFORE_ID, paused: ['eth1'] }), started.test);
		check('measure: says shaping is paused on eth1 and comes back by itself', /^Shaping is paused on eth1 for this test.*also when this page is closed/.test(started.note), started.note);
		const prog = await runTest(page, 'wizard-progress.png');
		const lay = prog.layout;
		check('measure: one progress text under the bar, the bar\'s title not drawn over the note above', lay && lay.count === 1 && lay.label === 1 &&
			[ 'none', 'normal' ].includes(lay.before) && [ 'none', 'normal' ].includes(lay.after) &&
			lay.gap !== null && lay.gap >= 0 && /paused on eth1/.test(lay.pause), lay);
		check('measure: progress through the phases', prog.map(t => t.split(' · ')[0]).join('|') ===
			'Idle: measuring the baseline|Download load|Upload load|Download and upload|Cool-down', prog);
		const restoring = await text(page, '.reterm-wizard-pause');
		const backOn = await tickUntil(page, () => /is back on/.test(document.querySelector('.reterm-wizard-pause').textContent));
		check('measure: the router\'s restore shown as it goes: restoring, then back on', /turning shaping on eth1 back on/.test(restoring) &&
			backOn === 1 && await text(page, '.reterm-wizard-pause') === 'Shaping on eth1 is back on.', [restoring, backOn]);
		const after2 = await page.evaluate(() => ({
			grade: document.querySelector('.reterm-wizard-grade').textContent,
			svg: !!document.querySelector('.reterm-wizard-result svg'),
			test: JSON.parse(sessionStorage.getItem('reterm-wizard')).test,
			next: !!document.querySelector('.reterm-wizard-next'),
			polls: window.__env.poll.queue.length
		}));
		const q2 = await sqmNow(page);
		check('measure: grade D and the latency graph', /^Grade D · download 18\.7 Mbit\/s, 213\.5 ms added · upload 4\.73 Mbit\/s, 110\.0 ms added$/.test(after2.grade) && after2.svg, after2.grade);
		check('measure: the queue never touched, nothing applied, no polling left', q2.enabled === '1' && q2.download === '9000' &&
			after2.test === null && after2.next && after2.polls === 0 && await page.evaluate(() => window.__env.applied.length === 0), [q2, after2]);

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
		await page.waitForFunction(() => window.__env.applied.length === 1);
		const q4 = await sqmNow(page);
		check('apply: the queue gets the proposal, applied with rollback', q4.enabled === '1' && q4.download === '16851' &&
			q4.upload === '4257' && /oceanic/.test(q4.iqdisc_opts), q4);
		check('verify: no test button while the router still reports the old rates', await page.evaluate(() =>
			!document.querySelector('.reterm-wizard-start') && /Waiting for the router to confirm that the new shaping is active/.test(document.querySelector('.reterm-wizard-body').textContent)));
		const ready = await tickUntil(page, () => !!document.querySelector('.reterm-wizard-start'));
		check('verify: the test button once the router reports 16851/4257 kbit/s', ready > 3 &&
			await page.evaluate(() => window.__router.mon.reports.slice(-1)[0] === '16851000/4257000'), ready);
		await page.click('.reterm-wizard-start');
		await page.waitForFunction(() => window.__router.started.length === 2);
		check('verify: the second test runs with shaping on (no pause asked), nothing else applied', await page.evaluate(() =>
			window.__router.started[1].sqm === '1' && !('pause_shaping' in window.__router.started[1].params) && window.__env.applied.length === 1));
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
		const tint = () => page.evaluate(() => getComputedStyle(document.querySelector('.reterm-wizard-step.active')).backgroundColor);
		const light = await tint();
		await page.evaluate(() => document.documentElement.setAttribute('data-darkmode', 'true'));
		const dark = await tint();
		check('dark theme: wizard.css switches the active step\'s tint', light === 'rgba(37, 99, 235, 0.1)' && dark === 'rgba(96, 165, 250, 0.18)', [light, dark]);
		await page.locator('#maincontent').screenshot({ path: join(OUT, 'wizard-dark.png') });
		await page.evaluate(() => document.documentElement.removeAttribute('data-darkmode'));

		/* ---- 5. devices ---- */
		await page.click('.reterm-wizard-next');
		const offers = await page.evaluate(() => [...document.querySelectorAll('.reterm-wizard-offers li')].map(li => ({
			text: li.textContent, disabled: li.querySelector('input').disabled, checked: li.querySelector('input').checked })));
		check('devices: consoles (re-terminated already) and handhelds offered with evidence', offers.length === 4 &&
			offers.filter(o => o.disabled).length === 2 && offers.filter(o => o.checked && !o.disabled).length === 2 &&
			offers.some(o => /nintendo-3ds/.test(o.text) && /no scaling/.test(o.text)), offers.map(o => o.text.slice(0, 60)));
		const deck = offers.find(o => /steamdeck/.test(o.text));
		check('devices: the Steam Deck (no audit) is not said to lack window scaling', deck && !/3DS|without scaling|no scaling/.test(deck.text) &&
			/An audit on the Devices page shows whether this one does/.test(deck.text), deck && deck.text);
		await page.click('.reterm-wizard-apply-devices');
		await page.waitForFunction(() => window.__env.applied.length === 2);
		const dev = await page.evaluate(() => ({
			r: window.__env.uci.sections('reterm', 'device').map(s => [s.name, s.mac, s.enabled, s.ports]),
			main: window.__env.uci.get('reterm', 'main', 'enabled'),
			done: document.querySelector('.reterm-wizard-body').textContent
		}));
		check('devices: two sections added, service enabled, done', dev.r.length === 2 && dev.main === '1' &&
			dev.r.some(d => d[0] === 'steamdeck' && d[1] === 'e0:31:9e:10:20:30' && d[2] === '1') && /Done\. The chosen devices/.test(dev.done), dev);

		/* ---- cancel: everything back ---- */
		await page.click('.reterm-wizard-cancel');
		await page.waitForFunction(() => window.__env.applied.length === 3);
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

		check('no page errors, no polling left', errors.length === 0 && await page.evaluate(() => window.__env.poll.queue.length === 0), errors);
	});
}

main();
