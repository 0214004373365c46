/**
 * Real-Chromium check of the setup wizard (view/reterm/wizard.js with
 * reterm.wizard.*, guided, shaping.*, graph.result, devices) on
 * OpenWrt's own LuCI:
 *
 *   node tests/browser/wizard.browser.mjs
 *
 * The page is admin/network/reterm/wizard as the router serves it
 * (lib.mjs: LuCI's header with the bootstrap theme, luci.js, the view
 * through L.require); LuCI's own Save & Apply runs as on a router: the
 * apply with rollback, LuCI's modal, the confirm 4 s on and the reload
 * of the page 1.5 s later, after which the wizard opens again from the
 * tab's session storage. Only the router behind HTTP is the check's:
 *   - test_start / test_status / results: tests/js/fixtures/overview.json
 *     (the real reterm-latencyd code on a simulated line): the unshaped test
 *     (grade D) is the "before", the shaped one (A+) the "after";
 *   - hosts: tests/ucode/api/fixtures/home/expected/hosts.json (the API's
 *     golden reply);
 *   - server_rtts: what the API answers for the same fixture's ss output
 *     (checked in tests/ucode/api/api_test.uc).
 *   - reterm.latency status: the recorded status, with shaper/cake from the
 *     sqm config, but only 3 polls after a change (reterm-latencyd reads it
 *     again on a procd trigger): the wizard must wait for the router's word;
 *   - the shaping pause (reterm.latency.test.pause): test_start with
 *     pause_shaping names the enabled queue's device as paused; test_status
 *     carries the pause record, "restoring" as the test ends and
 *     "restored" at the next answer.
 * Walks: look → measure with shaping off (the router pauses the queue:
 * nothing staged or applied; the pause and its end are shown) → proposal
 * (rates, rtt from reflector and server RTTs) → apply → verify once the
 * router reports the new rates (before/after) → devices → cancel
 * (everything back as before). wizard.css is linked and follows the dark
 * theme. Screenshots tests/browser/out/wizard.png (before/after, light),
 * wizard-dark.png and wizard-progress.png (mid-test).
 *
 * Prints "ok - …" / "not ok - …" lines and "wizard: N passed, N failed";
 * exits 1 on failure. Needs /usr/bin/chromium, playwright-core and LuCI
 * built (tools/owrt/build.sh).
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { reporter, runPage, luciRouter, answered, until, pageUntil, viewReady, OUT, REPO_ROOT } from './lib.mjs';

const fx = JSON.parse(readFileSync(join(REPO_ROOT, 'tests/js/fixtures/overview.json'), 'utf8'));
const HOSTS = JSON.parse(readFileSync(join(REPO_ROOT, 'tests/ucode/api/fixtures/home/expected/hosts.json'), 'utf8'));

/* tests/ucode/api/api_test.uc: server_rtts on the "home" fixture */
const SERVER_RTTS = { rtts: [131.5, 162.25, 145], source: 'ss' };
const BEFORE_ID = '6666cea2', AFTER_ID = '6666dd03';

const { check, skip, finish } = reporter('wizard');

/* the router: its config and the recorded replies */
function stubRouter() {
	const router = luciRouter();
	const st = { status: { state: 'idle' }, ids: [BEFORE_ID, AFTER_ID], started: [], pauses: [] };
	const sqm = () => router.uci.dump('sqm').wan;

	router.uci.seed('reterm', {
		main: { '.type': 'reterm', enabled: '0' },
		latency: { '.type': 'latency', enabled: '1', download_url: 'http://192.0.2.10/bytes/1000000000',
			upload_url: 'http://192.0.2.10/upload' }
	});
	/* shaping on at rates that are too low: the wizard must measure without it */
	router.uci.seed('sqm', { wan: { '.type': 'queue', enabled: '1', interface: 'eth1', download: '9000', upload: '2000',
		qdisc: 'cake', script: 'piece_of_cake.qos' } });
	/* reterm wan_info: the wizard reads no uci network/firewall */
	router.handle('reterm', 'wan_info', { interfaces: [
		{ name: 'lan', proto: 'static', device: 'br-lan', l3device: 'br-lan', default_route: false, speed: null, zone: 'lan' },
		{ name: 'wan', proto: 'dhcp', device: 'eth1', l3device: 'eth1', default_route: true, speed: null, zone: 'wan' }
	], bridges: { 'br-lan': ['lan1', 'lan2'] }, offload: true, offload_hw: false });
	router.files['/usr/lib/sqm/defaults.sh'] = '';

	router.handle('reterm', 'hosts', HOSTS);
	router.handle('reterm', 'server_rtts', SERVER_RTTS);
	const shaping = () => {
		const q = sqm();
		return (q && q.enabled === '1') ? { shaper: { rx: +q.download * 1000, tx: +q.upload * 1000 }, cake: { dl: 'ifb4eth1', ul: 'eth1' } }
			: { shaper: null, cake: null };
	};
	const mon = st.mon = { lag: 3, shown: shaping(), behind: 0, reports: [] };
	router.handle('reterm.latency', 'status', () => {
		const now = shaping();
		if (JSON.stringify(now) === JSON.stringify(mon.shown) || mon.behind++ >= mon.lag) {
			mon.shown = now;
			mon.behind = 0;
		}
		mon.reports.push(mon.shown.shaper ? mon.shown.shaper.rx + '/' + mon.shown.shaper.tx : 'off');
		return Object.assign({}, fx.status, mon.shown);
	});
	/* the pause record as reterm-latencyd keeps it: restored at the second answer after the test */
	const pause = () => {
		if (st.pause && st.pause.state === 'restoring' && --st.restoreIn <= 0)
			st.pause = Object.assign({}, st.pause, { state: 'restored' });
		if (st.pause)
			st.pauses.push(st.pause.state);
		return st.pause || null;
	};
	router.handle('reterm.latency', 'test_status', () => Object.assign({}, st.status, { pause: pause() }));
	router.handle('reterm.latency', 'test_start', p => {
		const id = st.ids[st.started.length], q = sqm(), paused = (p.pause_shaping && q.enabled === '1') ? [q.interface] : null;
		st.started.push({ id, params: p, sqm: q.enabled, router: mon.reports[mon.reports.length - 1] });
		st.current = id;
		st.status = fx.test.running[0];
		if (paused)
			st.pause = { ifaces: paused, state: 'paused', until: 2000000000 };
		return Object.assign({}, fx.test.start, { id }, p.pause_shaping ? { paused: paused || [] } : {});
	});
	router.handle('reterm.latency', 'test_stop', () => { st.status = { state: 'idle' }; return { state: 'idle' }; });
	return { router, st, sqm };
}

const { router, st, sqm } = stubRouter();

/* run the recorded phases (each shown once the page had it), then the
 * recorded result of the current test */
async function runTest(page, shot) {
	const texts = [];
	for (let i = 0; i < 5; i++) {
		st.status = fx.test.running[i];
		await answered(router, 'reterm.latency', 'test_status', { page });
		texts.push(await page.evaluate(() => document.querySelector('.reterm-wizard-running .reterm-run-progress-text').textContent));
		if (i === 1 && shot) {
			await page.screenshot({ path: join(OUT, shot), fullPage: true });
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
	st.status = Object.assign({}, fx.test.done, { id: st.current, result: fx.results.byId[st.current].result });
	if (st.pause && st.pause.state === 'paused') {
		st.pause = Object.assign({}, st.pause, { state: 'restoring' });
		st.restoreIn = 2;
	}
	await pageUntil(page, () => !document.querySelector('.reterm-wizard-running'));
	return texts;
}

/* LuCI's Save & Apply begun by start(): the apply with rollback, LuCI's
 * modal, its confirm and its reload of the page; until the view is
 * back. What the modal said. */
async function applied(page, start) {
	const n = router.applies.length;
	let reloaded = false, said = null;
	page.waitForEvent('framenavigated', { predicate: f => f === page.mainFrame(), timeout: 60000 }).then(() => { reloaded = true; }, () => {});
	await start();
	await until(() => router.applies.length > n, { page });
	const modal = page.locator('#modal_overlay .alert-message', { hasText: 'Configuration changes applied.' });
	await until(async () => (said = said || await modal.textContent({ timeout: 100 }).catch(() => null)) !== null, { page, ms: 30000 });
	if (!await until(() => reloaded, { page, ms: 30000 }))
		throw new Error(`LuCI did not reload the page after the apply (${said})`);
	await viewReady(page);
	return said;
}

const text = (page, sel) => page.evaluate(s => { const n = document.querySelector(s); return n ? n.textContent : null; }, sel);
const stepName = page => text(page, '.reterm-wizard-step.active');
const stored = page => page.evaluate(() => JSON.parse(sessionStorage.getItem('reterm-wizard')));

async function main() {
	await runPage({ check, skip, finish, router, path: 'admin/network/reterm/wizard', viewport: { width: 1000, height: 2000 }, clock: true }, async (page, { errors, fetched }) => {

		check('LuCI loads the wizard and its modules from the router', ['reterm/wizard/state.js', 'reterm/shaping/sqm.js',
			'reterm/shaping/preview.js', 'reterm/graph/result.js', 'view/reterm/wizard.js'].every(n => fetched.includes(n)), fetched);
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
		await until(() => st.started.length === 1, { page });
		await page.waitForSelector('.reterm-wizard-running');
		const started = { s: st.started[0], applied: router.applies.length, test: (await stored(page)).test,
			note: await text(page, '.reterm-wizard-pause') };
		check('measure: test_start at once with pause_shaping and the stored URLs; nothing staged or applied', started.s.sqm === '1' &&
			started.applied === 0 && JSON.stringify(router.uci.changes()) === '{}' && JSON.stringify(started.s.params) === JSON.stringify({
				download_url: 'http://192.0.2.10/bytes/1000000000', upload_url: 'http://192.0.2.10/upload', streams: 4, pause_shaping: true }), started);
		check('measure: the test and what the router paused are kept for a reload', JSON.stringify(started.test) ===
			JSON.stringify({ kind: 'before', id: BEFORE_ID, paused: ['eth1'] }), started.test);
		check('measure: says shaping is paused on eth1 and comes back by itself', /^Shaping is paused on eth1 for this test.*also when this page is closed/.test(started.note), started.note);
		/* every text the pause note shows, recorded as it changes (reading
		 * it once after the test may come a poll too late on a busy machine) */
		await page.evaluate(() => {
			const seen = window.__pauseTexts = [];
			const note = () => document.querySelector('.reterm-wizard-pause')?.textContent ?? null;
			new MutationObserver(() => { const t = note(); if (t !== null && t !== seen[seen.length - 1]) seen.push(t); })
				.observe(document.body, { subtree: true, childList: true, characterData: true });
		});
		const prog = await runTest(page, 'wizard-progress.png');
		const lay = prog.layout;
		check('measure: one progress text under the bar, the bar\'s title not drawn over the note above', lay && lay.count === 1 && lay.label === 1 &&
			[ 'none', 'normal' ].includes(lay.before) && [ 'none', 'normal' ].includes(lay.after) &&
			lay.gap !== null && lay.gap >= 0 && /paused on eth1/.test(lay.pause), lay);
		check('measure: progress through the phases', prog.map(t => t.split(' · ')[0]).join('|') ===
			'Idle: measuring the baseline|Download load|Upload load|Download and upload|Cool-down', prog);
		await pageUntil(page, () => /is back on/.test(document.querySelector('.reterm-wizard-pause').textContent), { ms: 10000 });
		const backOn = await text(page, '.reterm-wizard-pause');
		const shown = await page.evaluate(() => window.__pauseTexts);
		const restoring = shown.findIndex(t => /turning shaping on eth1 back on/.test(t));
		check('measure: the router\'s restore shown as it goes: restoring, then back on', restoring >= 0 &&
			shown.findIndex(t => /is back on/.test(t)) > restoring &&
			backOn === 'Shaping on eth1 is back on.' && st.pauses.indexOf('restoring') < st.pauses.indexOf('restored'), [shown, backOn, st.pauses]);
		const after2 = await page.evaluate(() => ({
			grade: document.querySelector('.reterm-wizard-grade').textContent,
			svg: !!document.querySelector('.reterm-wizard-result svg'),
			test: JSON.parse(sessionStorage.getItem('reterm-wizard')).test,
			next: !!document.querySelector('.reterm-wizard-next'),
			polls: L.Poll.queue.length
		}));
		const q2 = sqm();
		check('measure: grade D and the latency graph', /^Grade D · download 18\.7 Mbit\/s, 213\.5 ms added · upload 4\.73 Mbit\/s, 110\.0 ms added$/.test(after2.grade) && after2.svg, after2.grade);
		check('measure: the queue never touched, nothing applied, no polling left', q2.enabled === '1' && q2.download === '9000' &&
			after2.test === null && after2.next && after2.polls === 0 && router.applies.length === 0, [q2, after2]);

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

		/* ---- 4. apply (LuCI's apply, confirm and reload) and verify ---- */
		await page.click('.reterm-wizard-accept');
		const asked = st.mon.reports.length;
		const said = await applied(page, () => page.click('.reterm-wizard-apply'));
		const q4 = sqm();
		check('apply: the queue gets the proposal, applied with rollback and confirmed', q4.enabled === '1' && q4.download === '16851' &&
			q4.upload === '4257' && /oceanic/.test(q4.iqdisc_opts) && JSON.stringify(router.applies) === '[{"checked":true}]' &&
			JSON.stringify(router.uci.changes()) === '{}', [q4, router.applies, said]);
		const waiting = await page.evaluate(() => ({ step: document.querySelector('.reterm-wizard-step.active').textContent,
			start: !!document.querySelector('.reterm-wizard-start'), body: document.querySelector('.reterm-wizard-body').textContent }));
		waiting.reports = st.mon.reports.slice(asked);
		check('verify: after LuCI\'s reload no test button while the router still reports the old rates', !waiting.start &&
			/Waiting for the router to confirm that the new shaping is active/.test(waiting.body) &&
			waiting.reports.every(r => r === '9000000/2000000'), waiting);
		await pageUntil(page, () => !!document.querySelector('.reterm-wizard-start'));
		const reports = st.mon.reports.slice(asked);
		check('verify: the test button once the router reports 16851/4257 kbit/s, after 3 reports of the old rates', reports.indexOf('16851000/4257000') === 3, reports);
		await page.click('.reterm-wizard-start');
		await until(() => st.started.length === 2, { page });
		check('verify: the second test runs with shaping on (no pause asked), nothing else applied', st.started[1] && st.started[1].sqm === '1' &&
			!('pause_shaping' in st.started[1].params) && router.applies.length === 1, st.started[1]);
		await runTest(page);
		await page.waitForSelector('.reterm-wizard-compare');
		const cmp = await page.evaluate(() => [...document.querySelectorAll('.reterm-wizard-compare tr')].map(r => [...r.children].map(c => c.textContent)));
		check('verify: grades side by side D → A+', JSON.stringify(cmp[1]) === JSON.stringify(['Grade', 'D', 'A+']), cmp[1]);
		check('verify: added latency and throughput cost in %', JSON.stringify(cmp[2]) === JSON.stringify(['Added latency, download', '213.5 ms', '3.6 ms']) &&
			/^17 Mbit\/s \(9\.4 % less\)$/.test(cmp[4][2]) && /\(9\.7 % less\)$/.test(cmp[5][2]), cmp);

		const layout = await page.evaluate(() => {
			const box = el => el.getBoundingClientRect();
			const main = box(document.getElementById('maincontent'));
			/* bootstrap draws LuCI's tab bar 5 px past the column */
			return [...document.querySelectorAll('#view *')].filter(el => !el.closest('.reterm-sr-table, .cbi-tabmenu')).filter(el => {
				const b = box(el);
				return b.width > 0 && (b.right > main.right + 1 || b.left < main.left - 1);
			}).map(el => el.className || el.tagName);
		});
		check('layout: nothing sticks out of the content column', layout.length === 0, layout.slice(0, 5));
		await page.screenshot({ path: join(OUT, 'wizard.png'), fullPage: true });
		const tint = () => page.evaluate(() => getComputedStyle(document.querySelector('.reterm-wizard-step.active')).backgroundColor);
		const light = await tint();
		await page.evaluate(() => document.documentElement.setAttribute('data-darkmode', 'true'));
		const dark = await tint();
		check('dark theme: wizard.css switches the active step\'s tint', light === 'rgba(37, 99, 235, 0.1)' && dark === 'rgba(96, 165, 250, 0.18)', [light, dark]);
		await page.screenshot({ path: join(OUT, 'wizard-dark.png'), fullPage: true });
		await page.evaluate(() => document.documentElement.setAttribute('data-darkmode', 'false'));

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
		await applied(page, () => page.click('.reterm-wizard-apply-devices'));
		const devs = Object.values(router.uci.dump('reterm')).filter(s => s['.type'] === 'device');
		const dev = { r: devs.map(s => [s.name, s.mac, s.enabled, s.ports]), main: router.uci.dump('reterm').main.enabled,
			applies: router.applies.length, done: await text(page, '.reterm-wizard-body') };
		check('devices: two sections added, service enabled, applied; after LuCI\'s reload: done', dev.r.length === 2 && dev.main === '1' &&
			dev.applies === 2 && dev.r.some(d => d[0] === 'steamdeck' && d[1] === 'e0:31:9e:10:20:30' && d[2] === '1') &&
			/Done\. The chosen devices/.test(dev.done), dev);

		/* ---- cancel: everything back ---- */
		const note = page.locator('#maincontent > .alert-message', { hasText: 'previous settings are back' });
		let noted = false;
		const cancelled = await applied(page, async () => {
			await page.click('.reterm-wizard-cancel');
			noted = await note.waitFor({ timeout: 10000 }).then(() => true, () => false);
		}).then(() => true, e => String(e));
		const back = { sqm: sqm(), devs: Object.values(router.uci.dump('reterm')).filter(s => s['.type'] === 'device').length,
			main: router.uci.dump('reterm').main.enabled, applies: router.applies.length, stored: await stored(page) };
		check('cancel: the queue as before the wizard, applied', cancelled === true && back.applies === 3 &&
			JSON.stringify([back.sqm.enabled, back.sqm.download, back.sqm.upload, back.sqm.iqdisc_opts]) ===
			JSON.stringify(['1', '9000', '2000', undefined]), [cancelled, back]);
		check('cancel: added devices removed, service off again, state forgotten', back.devs === 0 && back.main === '0' &&
			back.stored === null, back);
		check('cancel: said so, and after LuCI\'s reload back at step 1', noted && (await stepName(page)) === '1. Look', [noted, await stepName(page)]);

		check('no page errors, no polling left', errors.length === 0 && await page.evaluate(() => L.Poll.queue.length === 0), errors);
	});
}

main();
