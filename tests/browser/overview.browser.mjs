#!/usr/bin/env node
/**
 * Real-Chromium check of the Overview view (view/reterm/overview.js with
 * its panels reterm.overview.live/test/compare/result, reterm.guided,
 * graph*, ring, grade, units and overview.css) on OpenWrt's own LuCI:
 *
 *   node tests/browser/overview.browser.mjs
 *
 * - The page is admin/network/reterm/overview as the router serves it
 *   (lib.mjs: LuCI's header with the bootstrap theme, luci.js, the view
 *   through L.require); only the router behind HTTP is the check's: uci
 *   reterm and sqm, and reterm-latencyd's replies recorded in
 *   tests/js/fixtures/overview.json.
 * - LuCI's poll runs on the page's own clock: each step changes what the
 *   router answers and waits until the page had the new answer.
 * - Walks the whole flow: live graphs (and adaptive shaping's box once
 *   autorate_status says it is on) → start a test → progress through
 *   the phases → graded result → compare two results, with the test
 *   settings form (an invalid URL marked as LuCI marks it, a changed
 *   setting staged); checks the DOM and the computed styles of
 *   overview.css under LuCI's bootstrap theme; screenshots
 *   tests/browser/out/overview.png (light), overview-dark.png,
 *   overview-progress.png (mid-test) and overview-invalid.png (the
 *   refused URL).
 *
 * Prints "ok - …" / "not ok - …" lines and "overview: N passed, N
 * failed"; exits 1 on failure. Needs /usr/bin/chromium, playwright-core
 * and LuCI built (tools/owrt/build.sh); CHROMIUM=/path overrides the
 * browser.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { reporter, runPage, luciRouter, answered, pageUntil, OUT, REPO_ROOT } from './lib.mjs';

const fx = JSON.parse(readFileSync(join(REPO_ROOT, 'tests/js/fixtures/overview.json'), 'utf8'));
const [UNSHAPED, , SLOW, SHAPED] = fx.results.list.results.map(r => r.id);

const { check, skip, finish } = reporter('overview');

/* the router: its config and the recorded reterm-latencyd */
function stubRouter() {
	const router = luciRouter();
	const st = { status: { state: 'idle' }, since: [] };

	router.uci.seed('reterm', {
		main: { '.type': 'reterm', enabled: '1' },
		latency: { '.type': 'latency', enabled: '1', download_url: 'http://192.0.2.10/bytes/1000000000',
			upload_url: 'http://192.0.2.10/upload' }
	});
	router.uci.seed('sqm', { eth1: { '.type': 'queue', enabled: '1', interface: 'eth1', download: '18000', upload: '4500', qdisc: 'cake' } });

	router.handle('reterm.latency', 'samples', p => {
		st.since.push(p.since);
		return p.since ? (fx.samples.next.find(r => r.t0 === p.since + 1) || { ...fx.samples.next[2], t0: p.since + 1, rows: [] })
			: fx.samples.first;
	});
	router.handle('reterm.latency', 'test_status', () => st.status);
	router.handle('reterm.latency', 'test_start', () => { st.status = fx.test.running[0]; return fx.test.start; });
	router.handle('reterm.latency', 'test_stop', () => ({ error: 'not_running', message: 'no test is running' }));
	/* results: before the test the three later ones; the test adds the first */
	router.handle('reterm.latency', 'results', p => {
		if (p.id)
			return fx.results.byId[p.id] || { error: 'not_found', message: 'no result with id ' + p.id };
		const list = fx.results.list.results;
		return { results: st.status.state === 'done' ? list : list.slice(1) };
	});
	return { router, st };
}

const { router, st } = stubRouter();
const callsTo = method => router.calls.filter(c => c.object === 'reterm.latency' && c.method === method);

async function main() {
	await runPage({ check, skip, finish, router, path: 'admin/network/reterm/overview', viewport: { width: 1000, height: 2000 }, clock: true }, async (page, { errors, fetched }) => {

		check('LuCI loads the view and its modules from the router', ['reterm/latency.js', 'reterm/guided.js', 'reterm/graph/live.js',
			'reterm/graph/result.js', 'reterm/ring.js', 'reterm/overview/live.js', 'reterm/overview/test.js', 'reterm/overview/compare.js',
			'view/reterm/overview.js'].every(n => fetched.includes(n)) && ['luci.js', 'ui.js', 'form.js', 'rpc.js', 'uci.js'].every(n => fetched.includes(n)),
			fetched);

		await page.waitForFunction(() => {
			const g = document.querySelector('.reterm-graph');
			return g && getComputedStyle(g).getPropertyValue('--reterm-med').trim() !== '';
		});

		/* ---- live graphs ---- */
		const live = await page.evaluate(() => {
			const d = el => (el && el.getAttribute('d')) || '';
			const strip = document.querySelector('.reterm-graph-latency svg');
			const tput = document.querySelector('.reterm-graph-throughput svg');
			return {
				state: document.querySelector('.reterm-ov-live-state').getAttribute('data-state'),
				med: d(strip.querySelector('path.reterm-s-med')).length,
				bands: strip.querySelectorAll('rect.reterm-band').length,
				rx: d(tput.querySelector('path.reterm-s-rx')).length,
				shaper: [...tput.querySelectorAll('line.reterm-s-shaper')].map(l => getComputedStyle(l).display),
				cake: getComputedStyle(document.querySelector('.reterm-ov-cake')).display,
				cakeD: d(document.querySelector('.reterm-graph-cake path.reterm-s-dl')).length,
				now: [...document.querySelectorAll('.reterm-ov-now .reterm-ov-stat-value')].map(e => e.textContent),
				polls: L.Poll.queue.map(e => e.i)
			};
		});
		live.calls = router.calls.map(c => c.method);
		check('live: state live, median path drawn with the 6 grade bands', live.state === 'live' && live.med > 1000 && live.bands === 6, live);
		check('live: throughput with both sqm shaper lines shown', live.rx > 1000 && live.shaper.length === 2 && live.shaper.every(x => x !== 'none'), live.shaper);
		check('live: CAKE chart shown with its delay line', live.cake !== 'none' && live.cakeD > 100, [live.cake, live.cakeD]);
		check('live: key figures filled', live.now.length === 6 && live.now[1] === '14.7 ms' && live.now[5] === 'fping', live.now);
		check('live: samples polled every 2 s; load asked samples, test_status, results', live.polls.join() === '2' &&
			['samples', 'test_status', 'results'].every(m => live.calls.includes(m)), live);

		/* a poll step merges new rows */
		const ring = () => page.evaluate(() => L.require('view.reterm.overview').then(v => ({ since: v.live.ring.since(), points: v.live.ring.points().length,
			rows: document.querySelectorAll('.reterm-graph-latency tbody tr').length })));
		const before = await ring(), asked = st.since.length;
		await answered(router, 'reterm.latency', 'samples', { page });
		const after = await ring();
		const tick = { asked: st.since[asked], before: before.since, after: after.since, rows: after.rows, points: after.points };
		check('poll: asks since the newest row and merges the delta', tick.asked === tick.before && tick.after > tick.before &&
			tick.rows === tick.points, tick);

		/* ---- adaptive shaping on: its box with the decisions, and the
		 * shaper note says the dashed lines move (reterm-latencyd's
		 * autorate_status as tests/js/autorateview.test.js has it) ---- */
		const hiddenBefore = await page.evaluate(() => getComputedStyle(document.querySelector('.reterm-ov-autorate')).display === 'none');
		const T = 1718000100;
		router.handle('reterm.latency', 'autorate_status', () => ({
			enabled: true, queue: 'eth1', devices: { dl: 'ifb4eth1', ul: 'eth1' },
			settings: { dl_min: 4000, dl_base: 18000, dl_max: 30000, ul_min: 1000, ul_base: 4500, ul_max: 6000, delay_ms: 15 },
			rates: { dl: { rate_kbit: 23400, achieved_kbit: 22100, share: 94.4 }, ul: { rate_kbit: 4500, achieved_kbit: 80, share: 1.8 } },
			reflectors: [ { target: '198.51.100.1', state: 'used', why: null, baseline_ms: 8.3, one_way: true, answered: 10, probes: 10, hop: 2 },
				{ target: '9.9.9.9', state: 'shunned', why: '5 of its last 10 probes unanswered', baseline_ms: null, answered: 0, probes: 0 } ],
			decisions: [ { time: T, time_end: T + 6, dir: 'dl', from: 18000, to: 27000, reason: 'dl loaded (100 %), delay low', kind: 'raise' },
				{ time: T + 9, dir: 'dl', from: 27000, to: 23400, reason: 'delay +38.2 ms with dl at 92 % of its rate', kind: 'cut' } ],
			hops: [], evidence: true, cake: { dl: true, ul: true }, probes_per_s: 5
		}));
		/* the samples every 2 s, adaptive shaping's state every other time */
		await answered(router, 'reterm.latency', 'autorate_status', { page });
		const ar = await page.evaluate(() => {
			const box = document.querySelector('.reterm-ov-autorate');
			return { display: getComputedStyle(box).display,
				rows: [...box.querySelectorAll('table tr')].slice(1).map(r => r.textContent),
				summary: box.querySelector('p')?.textContent || '',
				note: document.querySelector('.reterm-ov-live > .reterm-ov-note').textContent };
		});
		check('adaptive shaping: its box appears once autorate_status says on, with the cut first', hiddenBefore &&
			ar.display !== 'none' && ar.rows.length === 2 && /23\.4 Mbit\/s/.test(ar.rows[0]) && /delay \+38\.2 ms/.test(ar.rows[0]) &&
			ar.summary.length > 0, ar);
		check('adaptive shaping: the shaper note says the dashed lines move', /as adaptive shaping moves them/.test(ar.note), ar.note);
		await page.locator('.reterm-ov-autorate').screenshot({ path: join(OUT, 'overview-autorate.png') });

		/* ---- the page's style sheet ---- */
		const css = await page.evaluate(() => ({
			href: document.querySelector('link[data-reterm-css="reterm/overview.css"]')?.getAttribute('href'),
			line: getComputedStyle(document.querySelector('.reterm-ov')).getPropertyValue('--reterm-ov-d').trim()
		}));
		check('overview.css linked through L.resource and applied (light)', css.href === '/luci-static/resources/reterm/overview.css' &&
			css.line === '#b91c1c', css);

		/* ---- the test settings: LuCI's form on uci reterm.latency ---- */
		const DL_FIELD = '[id="widget.cbid.reterm.latency.download_url"]';
		const valid = await page.evaluate(sel => getComputedStyle(document.querySelector(sel)).borderTopColor, DL_FIELD);
		await page.locator(DL_FIELD).fill('https://192.0.2.10/10G');
		await page.locator(DL_FIELD).blur();
		await page.click('.reterm-ov-start');
		const bad = await page.evaluate(sel => {
			const f = document.querySelector(sel);
			return { invalid: f.classList.contains('cbi-input-invalid'), tip: f.parentNode.getAttribute('data-tooltip') || f.getAttribute('data-tooltip'),
				border: getComputedStyle(f).borderTopColor, msg: document.querySelector('.reterm-ov-test-msg').textContent };
		}, DL_FIELD);
		bad.valid = valid;
		bad.started = callsTo('test_start').length;
		check('form: an https:// URL with an address is marked invalid with LuCI\'s tooltip, Start refuses it and sends nothing', bad.invalid &&
			/^An https:\/\/ URL needs a host name/.test(bad.tip) && bad.border !== bad.valid &&
			/^Download URL: An https:\/\/ URL needs a host name/.test(bad.msg) && bad.started === 0, bad);
		await page.locator('.reterm-ov-test').screenshot({ path: join(OUT, 'overview-invalid.png') });

		await page.locator(DL_FIELD).fill('http://192.0.2.10/bytes/1000000000');
		await page.locator(DL_FIELD).blur();
		await page.locator('[id="widget.cbid.reterm.latency.streams"]').fill('8');
		await page.locator('[id="widget.cbid.reterm.latency.streams"]').blur();
		const fixed = await page.evaluate(sel => !document.querySelector(sel).classList.contains('cbi-input-invalid'), DL_FIELD);
		check('form: a valid URL clears the mark', fixed);

		/* ---- the test ---- */
		await page.click('.reterm-ov-start');
		await page.waitForFunction(() => getComputedStyle(document.querySelector('.reterm-run-progress')).display !== 'none');
		const started = await page.evaluate(() => ({
			start: document.querySelector('.reterm-ov-start').disabled,
			stop: document.querySelector('.reterm-ov-stop').disabled,
			polls: L.Poll.queue.map(e => e.i)
		}));
		started.params = callsTo('test_start').map(c => c.params);
		started.staged = router.uci.changes();
		check('start: test_start with the stored URLs and the 8 streams typed', JSON.stringify(started.params) ===
			JSON.stringify([{ download_url: 'http://192.0.2.10/bytes/1000000000', upload_url: 'http://192.0.2.10/upload', streams: 8 }]), started.params);
		check('start: the changed setting is staged in uci reterm.latency', JSON.stringify(started.staged) ===
			JSON.stringify({ reterm: [['set', 'latency', 'streams', '8']] }), started.staged);
		check('start: Start disabled, Stop enabled, test polled every second', started.start && !started.stop && started.polls.join() === '2,1', started);

		const steps = [];
		for (let i = 0; i < 5; i++) {
			st.status = fx.test.running[i];
			await answered(router, 'reterm.latency', 'test_status', { page });
			steps.push(await page.evaluate(() => {
				const bar = document.querySelector('.cbi-progressbar');
				return { text: document.querySelector('.reterm-run-progress-text').textContent.split(' · ')[0],
				         width: bar.firstElementChild.getBoundingClientRect().width / bar.getBoundingClientRect().width };
			}));

			if (i === 1)
				await page.locator('.reterm-ov-test').screenshot({ path: join(OUT, 'overview-progress.png') });
		}
		check('progress: phase names in order', steps.map(s => s.text).join('|') ===
			'Idle: measuring the baseline|Download load|Upload load|Download and upload|Cool-down', steps.map(s => s.text));
		check('progress: the bar grows with the test', steps.every((s, i) => !i || s.width > steps[i - 1].width) &&
			Math.abs(steps[1].width - 0.216) < 0.02, steps.map(s => s.width.toFixed(3)));

		st.status = fx.test.done;
		await pageUntil(page, () => document.querySelector('.reterm-run-progress-text').textContent === 'Finished' &&
			document.querySelectorAll('.reterm-ov-tile[data-grade]').length > 0);
		const result = await page.evaluate(async () => {
			const view = await L.require('view.reterm.overview');
			const tile = document.querySelector('.reterm-ov-tile-main');
			return {
				grades: [...document.querySelectorAll('.reterm-ov-tile[data-grade]')].map(t => t.getAttribute('data-grade')),
				letterColour: getComputedStyle(tile.querySelector('.reterm-ov-letter')).color,
				letterSize: parseFloat(getComputedStyle(tile.querySelector('.reterm-ov-letter')).fontSize),
				rpm: document.querySelector('.reterm-ov-rpm').textContent,
				phases: document.querySelectorAll('.reterm-ov-result .reterm-graph-phases rect.reterm-phase').length,
				cdf: document.querySelectorAll('.reterm-ov-result .reterm-graph-cdf path.reterm-s-cdf').length,
				text: document.querySelector('.reterm-run-progress-text').textContent,
				polls: L.Poll.queue.map(e => e.i),
				running: view.test.running
			};
		});
		check('result: grades D (overall), D (download), C (upload)', result.grades.join() === 'D,D,C', result.grades);
		check('result: big overall letter in the D colour', result.letterSize >= 36 && result.letterColour === 'rgb(185, 28, 28)',
			[result.letterSize, result.letterColour]);
		check('result: RPM with its class', /^Responsiveness201Poorround trips per minute under load$/.test(result.rpm), result.rpm);
		check('result: 7 phases shaded on one axis, 4 CDF lines', result.phases === 7 && result.cdf === 4, [result.phases, result.cdf]);
		check('result: test poll removed, progress says Finished', result.text === 'Finished' && result.polls.join() === '2' && !result.running, result);

		/* ---- comparison ---- */
		await page.waitForFunction(() => document.querySelectorAll('.reterm-ov-compare-table tr').length > 5);
		const cmp = await page.evaluate(() => ({
			before: document.querySelector('#reterm-compare-before').value,
			after: document.querySelector('#reterm-compare-after').value,
			options: document.querySelectorAll('#reterm-compare-before option').length,
			text: document.querySelector('.reterm-ov-compare-text').textContent,
			rows: [...document.querySelectorAll('.reterm-ov-compare-table tr')].map(r => [...r.children].map(c => c.textContent))
		}));
		check('compare: defaults to unshaped (before) vs the newest shaped (after), 4 results', cmp.before === UNSHAPED &&
			cmp.after === SHAPED && cmp.options === 4, cmp);
		check('compare: grades side by side and the change', JSON.stringify(cmp.rows[1]) === JSON.stringify(['Overall grade', 'D', 'A+', 'better by 4 grades']), cmp.rows[1]);
		check('compare: added latency per phase and throughput cost in %', /^−209\.\d ms$/.test(cmp.rows[4][3]) &&
			cmp.rows[8][3] === '−9.4 %' && cmp.rows[9][3] === '−9.7 %', [cmp.rows[4], cmp.rows[8], cmp.rows[9]]);

		await page.selectOption('#reterm-compare-before', SLOW);
		await page.waitForFunction(() => /stayed A\+/.test(document.querySelector('.reterm-ov-compare-text').textContent));
		const other = { caution: await page.evaluate(() => !!document.querySelector('.reterm-ov-compare .alert-message.warning')),
			ids: callsTo('results').filter(c => c.params.id).map(c => c.params.id) };
		check('compare: another pair, fetched by id, with a caution for the inconclusive one', other.caution &&
			other.ids.includes(SLOW), other);

		await page.selectOption('#reterm-compare-before', UNSHAPED);
		await page.waitForFunction(() => /improved from D to A\+/.test(document.querySelector('.reterm-ov-compare-text').textContent));

		/* ---- look ---- */
		const layout = await page.evaluate(() => {
			const box = el => el.getBoundingClientRect();
			const main = box(document.getElementById('maincontent'));
			/* the charts' number tables sit off-screen on purpose (screen
			 * readers); bootstrap draws LuCI's tab bar 5 px past the column */
			const over = [...document.querySelectorAll('#view *')].filter(el => !el.closest('.reterm-sr-table, .cbi-tabmenu')).filter(el => {
				const b = box(el);
				return b.width > 0 && (b.right > main.right + 1 || b.left < main.left - 1);
			}).map(el => el.className || el.tagName);
			/* each visible chart against the content box of the section it is in */
			const svgs = [...document.querySelectorAll('svg.reterm-graph-svg')].filter(s => box(s).width > 0).map(s => {
				const sec = s.closest('.cbi-section') || s.closest('.reterm-ov'), cs = getComputedStyle(sec);
				return [Math.round(box(s).width), Math.round(box(sec).width - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight)
					- parseFloat(cs.borderLeftWidth) - parseFloat(cs.borderRightWidth))];
			});
			return { over, svgs };
		});
		check('layout: nothing sticks out of the content column', layout.over.length === 0, layout.over.slice(0, 5));
		check('layout: every visible chart spans the section', layout.svgs.length === 5 && layout.svgs.every(([w, sec]) => w >= 0.9 * sec), layout.svgs);

		await page.screenshot({ path: join(OUT, 'overview.png'), fullPage: true });

		await page.evaluate(() => document.documentElement.setAttribute('data-darkmode', 'true'));
		const dark = await page.evaluate(() => getComputedStyle(document.querySelector('.reterm-ov-tile-main .reterm-ov-letter')).color);
		check('dark theme: grade colours switch', dark === 'rgb(248, 113, 113)', dark);
		await page.screenshot({ path: join(OUT, 'overview-dark.png'), fullPage: true });

		check('no page errors', errors.length === 0, errors);
	});
}

main();
