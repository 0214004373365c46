import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHarness, REPO_ROOT, click, fire, rpcError, noAnswer, ubusStatus } from './harness/luci.js';

/* recorded reterm-latencyd replies (the daemon's code on a simulated clock), see
 * fixtures/make-overview.uc */
const fx = JSON.parse(readFileSync(join(REPO_ROOT, 'tests/js/fixtures/overview.json'), 'utf8'));
const [UNSHAPED, UNREACHABLE, SLOW, SHAPED] = fx.results.list.results.map(r => r.id);
/* uhttpd's answer while reterm-latencyd does not run: its object is not
 * published */
const NOT_RUNNING = () => rpcError(-32000, 'Object not found');
const DL = 'http://192.0.2.10/bytes/1000000000', UL = 'http://192.0.2.10/upload';
const clone = v => JSON.parse(JSON.stringify(v));

/*
 * A router: uci reterm + sqm, and the reterm object answering from the
 * fixture. o.samples(params) / o.status() / o.results(params) /
 * o.start(params) / o.stop() override the handlers.
 */
function router(h, o = {}) {
	h.uci.seed('reterm', {
		main: { '.type': 'reterm', enabled: '1' },
		latency: Object.assign({ '.type': 'latency', enabled: '1' }, o.latency || {})
	});

	if (o.sqm !== null)
		h.uci.seed('sqm', o.sqm || { eth1: { '.type': 'queue', enabled: '1', interface: 'eth1', download: '18000', upload: '4500', qdisc: 'cake' } });

	h.rpc.handle('reterm.latency', 'samples', o.samples || (p => p.since ? { v: 1, id: fx.samples.first.id, now: fx.samples.first.now, step: 1, t0: p.since + 1, cols: ['min', 'med', 'max'], rows: [] } : fx.samples.first));
	h.rpc.handle('reterm.latency', 'test_status', o.status || (() => ({ state: 'idle' })));
	h.rpc.handle('reterm.latency', 'results', o.results || (p => p.id ? (fx.results.byId[p.id] || { error: 'not_found', message: `no result with id "${p.id}"` }) : fx.results.list));
	h.rpc.handle('reterm.latency', 'test_start', o.start || (() => fx.test.start));
	h.rpc.handle('reterm.latency', 'test_stop', o.stop || (() => ({ error: 'no_test', message: 'no test is running' })));
}

async function page(o = {}) {
	const h = createHarness();
	router(h, o);
	const v = await h.require('view.reterm.overview');
	const root = await h.rendered(v);
	const q = sel => root.querySelector(sel);
	const all = sel => [...root.querySelectorAll(sel)];
	const text = sel => h.text(q(sel));
	return { h, v, root, q, all, text };
}

/* local "HH:MM:SS" as graph.js labels its table rows */
function clock(t) {
	const d = new Date(t * 1000), p2 = n => String(n).padStart(2, '0');
	return `${p2(d.getHours())}:${p2(d.getMinutes())}:${p2(d.getSeconds())}`;
}

/* the test settings are LuCI's form on uci reterm.latency */
const field = (p, name) => p.h.form.widget(p.h.form.maps[0], 'latency', name);

/* typed as a user types (LuCI validates on keyup and blur) */
function setField(p, name, value) {
	p.h.form.setValue(p.h.form.maps[0], 'latency', name, value);
}

describe('live graphs', () => {
	it('render the recorded samples: latency, throughput against the sqm rates, CAKE', async () => {
		const p = await page();
		const { h, q, all, text } = p;

		expect(h.rpc.callsTo('reterm.latency', 'samples')[0].params).toEqual({ since: 0, step: 1 });

		const strip = q('.reterm-graph-latency');
		const rows = fx.samples.first.rows.filter(Boolean).length;
		expect(strip.querySelector('path.reterm-s-med').getAttribute('d').length).toBeGreaterThan(1000);
		expect(strip.querySelectorAll('rect.reterm-band')).toHaveLength(6);
		expect(strip.querySelectorAll('tbody tr')).toHaveLength(rows);
		expect(strip.querySelector('svg').getAttribute('aria-label')).toMatch(/baseline 14\.7 ms/);

		/* shaper lines from uci sqm (18000 / 4500 kbit) */
		const tput = q('.reterm-graph-throughput');
		expect(tput.querySelector('path.reterm-s-rx').getAttribute('d')).toMatch(/^M/);
		expect([...tput.querySelectorAll('line.reterm-s-shaper')].map(l => l.getAttribute('display'))).toEqual(['inline', 'inline']);
		expect(h.text(tput)).toMatch(/Shaper ↓ 18 Mbit\/s/);
		expect(text('.reterm-ov-live')).toMatch(/sqm shaper rates on eth1 \(download 18 Mbit\/s, upload 4\.5 Mbit\/s\)/);

		expect(q('.reterm-ov-cake').style.display).toBe('');
		expect(q('.reterm-graph-cake path.reterm-s-dl').getAttribute('d')).toMatch(/^M/);

		/* the key figures of the newest second */
		const now = all('.reterm-ov-now .reterm-ov-stat').map(s => h.text(s));
		expect(now[1]).toBe('Baseline14.7 ms');
		expect(now[5]).toBe('Proberfping');
		expect(now[2]).toMatch(/^Added\+\d+\.\d ms A\+?$/);

		/* no state message while live */
		expect(q('.reterm-ov-live-state').getAttribute('data-state')).toBe('live');
		expect(text('.reterm-ov-live-state')).toBe('');

		/* polled every 2 s; LuCI's footer saves the test settings form */
		expect(h.poll.queue.map(e => e.i)).toEqual([2]);
		expect(h.text(q('.cbi-page-actions .cbi-button-apply'))).toMatch(/^Save & Apply/);
		expect(all('.cbi-page-actions button').map(b => h.text(b))).toEqual(['Save', 'Reset']);
	});

	it('a poll tick asks for what is new and merges it', async () => {
		const seen = [];
		const last = fx.samples.first.t0 + fx.samples.first.rows.length - 1;
		const p = await page({ samples: params => {
			seen.push(params);
			if (!params.since)
				return fx.samples.first;
			return fx.samples.next.find(r => r.t0 === params.since + 1) || { ...fx.samples.next[0], t0: params.since + 1, rows: [] };
		} });
		const strip = p.q('.reterm-graph-latency');
		const before = fx.samples.first.rows.filter(Boolean).length;

		/* LuCI's poll steps once when the page adds its function: the first
		 * delta follows the page's own first fetch at once */
		expect(seen[1]).toEqual({ since: last, step: 1 });
		expect(fx.samples.next[0].t0).toBe(last + 1);
		/* the ring keeps the last 10 minutes: new rows in, the oldest out */
		expect(p.v.live.ring.since()).toBe(last + fx.samples.next[0].rows.length);
		expect(strip.querySelectorAll('tbody tr').length).toBe(p.v.live.ring.points().length);
		expect(p.v.live.ring.points().length).toBeGreaterThan(before - 5);
		expect(p.h.text([...strip.querySelectorAll('tbody tr')].at(-1).children[0])).toBe(clock(last + fx.samples.next[0].rows.length));

		/* interval 2: nothing at the next second, then the next delta */
		await p.h.poll.tick();
		expect(seen).toHaveLength(2);
		await p.h.poll.tick();
		expect(seen[2].since).toBe(fx.samples.next[0].t0 + fx.samples.next[0].rows.length - 1);
	});

	it('explains a sleeping daemon until its first rows arrive', async () => {
		let awake = false;
		const p = await page({ samples: params => awake ? fx.samples.first : fx.samples.empty });
		expect(p.q('.reterm-ov-live-state').getAttribute('data-state')).toBe('waking');
		expect(p.text('.reterm-ov-live-state')).toMatch(/was asleep: it sleeps while no page shows its graphs/);
		expect(p.q('.reterm-graph-latency').classList.contains('reterm-graph-empty')).toBe(true);

		awake = true;
		await p.h.poll.tick(2);
		expect(p.q('.reterm-ov-live-state').getAttribute('data-state')).toBe('live');
		expect(p.text('.reterm-ov-live-state')).toBe('');
		expect(p.q('.reterm-graph-latency').classList.contains('reterm-graph-empty')).toBe(false);
	});

	it('says how to start reterm-latencyd when it is not running', async () => {
		const p = await page({ samples: NOT_RUNNING, status: NOT_RUNNING, results: NOT_RUNNING });
		expect(p.q('.reterm-ov-live-state').getAttribute('data-state')).toBe('no_daemon');
		expect(p.q('.reterm-ov-live-state .alert-message.danger')).not.toBeNull();
		expect(p.text('.reterm-ov-live-state')).toMatch(/\/etc\/init\.d\/reterm-latencyd start/);
		expect(p.text('.reterm-ov-test-msg')).toMatch(/\/etc\/init\.d\/reterm-latencyd start/);
		expect(p.text('.reterm-ov-compare')).toMatch(/No stored results yet/);
		/* keeps polling: the page picks up a daemon started meanwhile */
		expect(p.h.poll.queue).toHaveLength(1);
	});

	it('reports other failures in words', async () => {
		/* the router does not answer: LuCI's XHR gives up after its 20 s */
		const h = createHarness();
		router(h, { samples: noAnswer });
		const v = await h.require('view.reterm.overview');
		await h.tick(20);
		const root = await h.rendered(v);
		const p = { q: sel => root.querySelector(sel), text: sel => h.text(root.querySelector(sel)) };
		expect(p.q('.reterm-ov-live-state').getAttribute('data-state')).toBe('error');
		expect(p.text('.reterm-ov-live-state')).toMatch(/No live data: The router did not answer: XHR request timed out\.?/);
	});

	it('without CAKE or shaping: the CAKE chart gives way to a note, no shaper lines', async () => {
		const p = await page({ sqm: { q: { '.type': 'queue', enabled: '0', interface: 'eth1', download: '0', upload: '0' } },
			samples: () => fx.samples.empty });
		expect(p.q('.reterm-ov-cake').style.display).toBe('none');
		expect(p.text('.reterm-ov-live')).toMatch(/No CAKE statistics/);
		expect(p.text('.reterm-ov-live')).toMatch(/Shaping is off/);
		expect(p.q('.reterm-graph-throughput line.reterm-s-shaper').getAttribute('display')).toBe('none');
	});

	it('polls only while the page is visible', async () => {
		const p = await page();
		await p.h.setVisibility('hidden');
		expect(p.h.poll.queue).toHaveLength(0);
		await p.h.setVisibility('visible');
		expect(p.h.poll.queue.map(e => e.i)).toEqual([2]);
	});
});

describe('guided test', () => {
	it('start → progress through the phases → graded result', async () => {
		let status = { state: 'idle' };
		const p = await page({ status: () => status, latency: { download_url: DL, upload_url: UL } });
		const { h, q, text } = p;

		/* the stored newest result is shown on load */
		expect(text('.reterm-ov-result-title')).toMatch(/^Result of /);
		expect(q('.reterm-ov-tile-main').getAttribute('data-grade')).toBe('A+');

		expect(field(p, 'download_url').value).toBe(DL);
		expect(field(p, 'streams').value).toBe('');
		expect(field(p, 'streams').getAttribute('placeholder')).toBe('4');
		expect(q('.reterm-run-progress').style.display).toBe('none');

		await click(q('.reterm-ov-start'));
		expect(h.rpc.callsTo('reterm.latency', 'test_start').map(c => c.params)).toEqual([{ download_url: DL, upload_url: UL, streams: 4 }]);
		/* URLs stored already, streams at its default: nothing to stage */
		expect(h.uci.stagedChanges()).toEqual({});
		expect(q('.reterm-ov-start').disabled).toBe(true);
		expect(q('.reterm-ov-stop').disabled).toBe(false);
		expect(q('.reterm-run-progress').style.display).toBe('');
		expect(text('.reterm-run-progress-text')).toMatch(/^Idle: measuring the baseline · 0 s of 44 s$/);
		/* the shown result is now the previous one */
		expect(text('.reterm-ov-result-title')).toMatch(/^Previous result, \d{4}-/);
		expect(q('.reterm-ov-result').classList.contains('reterm-ov-stale')).toBe(true);
		expect(h.poll.queue.map(e => e.i)).toEqual([2, 1]);

		const labels = [];
		for (const st of fx.test.running) {
			status = st;
			await h.poll.tick();
			labels.push([text('.reterm-run-progress-text').split(' · ')[0], q('.cbi-progressbar > div').style.width]);
		}
		expect(labels).toEqual([['Idle: measuring the baseline', '6%'], ['Download load', '22%'], ['Upload load', '48%'],
			['Download and upload', '75%'], ['Cool-down', '94%']]);
		expect(text('.reterm-run-progress-text')).toMatch(/41 s of 44 s · RTT \d+\.\d ms · ↓ 150 kbit\/s ↑ 60 kbit\/s/);

		status = fx.test.done;
		h.rpc.calls.length = 0;
		await h.poll.tick();

		expect(text('.reterm-run-progress-text')).toBe('Finished');
		expect(text('.reterm-ov-result-title')).toMatch(/^Result of \d{4}-/);
		expect(q('.reterm-ov-result').classList.contains('reterm-ov-stale')).toBe(false);
		expect(q('.cbi-progressbar > div').style.width).toBe('100%');
		expect(q('.reterm-ov-start').disabled).toBe(false);
		expect(q('.reterm-ov-stop').disabled).toBe(true);
		expect(h.poll.queue.map(e => e.i)).toEqual([2]);

		/* grades per direction and overall, RPM and its class */
		const tiles = p.all('.reterm-ov-tile[data-grade]').map(t => t.getAttribute('data-grade'));
		expect(tiles).toEqual(['D', 'D', 'C']);
		expect(q('.reterm-ov-tile-main').classList.contains('reterm-ov-g-d')).toBe(true);
		expect(text('.reterm-ov-rpm')).toMatch(/^Responsiveness201Poorround trips per minute under load$/);
		expect(text('.reterm-ov-result')).toMatch(/\+213\.5 ms added \(mean\)18\.7 Mbit\/s/);
		expect(text('.reterm-ov-result')).toMatch(/18\.7 Mbit\/s/);
		expect(p.all('.reterm-ov-phases tr')).toHaveLength(4);
		expect(q('.reterm-ov-result .alert-message')).toBeNull();

		/* phases on one time axis, one CDF line per phase */
		expect(q('.reterm-ov-result .reterm-graph-phases').querySelectorAll('rect.reterm-phase')).toHaveLength(7);
		expect(q('.reterm-ov-result .reterm-graph-cdf').querySelectorAll('path.reterm-s-cdf')).toHaveLength(4);

		/* the list was reloaded for the comparison */
		expect(h.rpc.callsTo('reterm.latency', 'results').some(c => c.params.id === undefined)).toBe(true);
	});

	it.each([
		['an https:// URL with an address', 'download_url', 'https://192.0.2.10/10G', /Download URL: An https:\/\/ URL needs a host name/],
		['one URL without the other', 'upload_url', '', /Upload URL: give both URLs, or neither for the built-in endpoints/],
		['shell characters', 'download_url', 'http://192.0.2.10/$(reboot)', /Download URL: Expecting an http:\/\/ or https:\/\/ URL/],
		['a URL with a space', 'upload_url', 'http://192.0.2.10/a b', /Upload URL: Expecting/],
		['17 streams', 'streams', '17', /Streams: Expecting a whole number from 1 to 16/]
	])('refuses %s: stages nothing, starts nothing, says why', async (name, id, value, message) => {
		const p = await page();
		setField(p, 'download_url', DL);
		setField(p, 'upload_url', UL);
		setField(p, id, value);
		await click(p.q('.reterm-ov-start'));
		expect(p.text('.reterm-ov-test-msg')).toMatch(message);
		expect(p.q('.reterm-ov-test-msg .alert-message.danger')).not.toBeNull();
		expect(p.h.rpc.callsTo('reterm.latency', 'test_start')).toHaveLength(0);
		expect(p.h.uci.stagedChanges()).toEqual({});
		expect(p.h.poll.queue).toHaveLength(1);
	});

	it('stores new URLs in uci reterm.latency (staged) and shows the daemon\'s refusal', async () => {
		const p = await page({ start: () => ({ error: 'invalid_argument', message: "argument 'download_url' must be an http:// URL" }) });
		setField(p, 'download_url', 'http://speed.example.net/big');
		setField(p, 'upload_url', 'http://speed.example.net/up');
		setField(p, 'streams', '8');
		await click(p.q('.reterm-ov-start'));
		expect(p.h.rpc.callsTo('reterm.latency', 'test_start')[0].params).toEqual({
			download_url: 'http://speed.example.net/big', upload_url: 'http://speed.example.net/up', streams: 8 });
		expect(p.h.uci.stagedChanges().reterm).toEqual([
			['set', 'latency', 'streams', '8'],
			['set', 'latency', 'download_url', 'http://speed.example.net/big'],
			['set', 'latency', 'upload_url', 'http://speed.example.net/up']]);
		expect(p.text('.reterm-ov-test-msg')).toBe("The router refused the test settings: argument 'download_url' must be an http:// URL");
		expect(p.q('.reterm-ov-start').disabled).toBe(false);
	});

	it('start while reterm-latencyd is down: how to start it', async () => {
		const p = await page({ start: NOT_RUNNING, latency: { download_url: DL, upload_url: UL } });
		await click(p.q('.reterm-ov-start'));
		expect(p.text('.reterm-ov-test-msg')).toMatch(/reterm-latencyd\) is not running\. Start it on the router with "\/etc\/init\.d\/reterm-latencyd start"/);
		expect(p.h.poll.queue).toHaveLength(1);
	});

	it('too soon after the last test: says how long to wait', async () => {
		const p = await page({ start: () => ({ error: 'too_soon', wait_s: 17, message: 'the last test ended 13 s ago' }),
			latency: { download_url: DL, upload_url: UL } });
		await click(p.q('.reterm-ov-start'));
		expect(p.text('.reterm-ov-test-msg')).toBe('A test was started or tried only a moment ago: wait 17 s and start again.');
		expect(p.q('.reterm-ov-start').disabled).toBe(false);
	});

	it('a test with shaping paused (the wizard\'s): says so while it runs', async () => {
		let status = { ...fx.test.running[1], pause: { ifaces: ['eth1'], state: 'paused', until: 1718000104 } };
		const p = await page({ status: () => status });
		expect(p.text('.reterm-ov-pause')).toBe('Shaping is paused on eth1 for this test; the router turns it back on when the test ends.');
		status = { ...fx.test.done, pause: { ifaces: ['eth1'], state: 'restored', until: 1718000104 } };
		await p.h.poll.tick();
		expect(p.text('.reterm-ov-pause')).toBe('Shaping on eth1 is back on.');
	});

	it('the status cannot be read while following: says why and stops polling', async () => {
		let status = fx.test.running[1];
		const p = await page({ status: () => status });
		status = 6;
		p.h.rpc.handle('reterm.latency', 'test_status', () => p.h.rpc.status(6));
		await p.h.poll.tick();
		expect(p.text('.reterm-ov-test-msg')).toMatch(/reterm API is not available \(ubus status 6\)/);
		expect(p.q('.reterm-ov-start').disabled).toBe(false);
		expect(p.h.poll.queue.map(e => e.i)).toEqual([2]);
	});

	it('a test already running: follows it', async () => {
		let status = fx.test.running[2];
		const p = await page({ status: () => status, start: () => ({ error: 'busy', message: 'a test is already running' }),
			latency: { download_url: DL, upload_url: UL } });
		/* found running on load */
		expect(p.q('.reterm-ov-start').disabled).toBe(true);
		expect(p.text('.reterm-run-progress-text')).toMatch(/^Upload load · 21 s of 44 s/);
		expect(p.h.poll.queue.map(e => e.i).sort()).toEqual([1, 2]);
		status = fx.test.running[3];
		await p.h.poll.tick();
		expect(p.text('.reterm-run-progress-text')).toMatch(/^Download and upload/);
	});

	it('stop: shows the partial result', async () => {
		const stopped = clone(fx.test.done);
		stopped.state = 'stopped';
		stopped.elapsed = 12.5;
		stopped.progress = 0.284;
		Object.assign(stopped.result, { stopped: true, duration: 12.5, id: 'feed0001' });
		let status = fx.test.running[1];
		const p = await page({ status: () => status, stop: () => { status = stopped; return stopped; } });
		expect(p.q('.reterm-ov-stop').disabled).toBe(false);
		await click(p.q('.reterm-ov-stop'));
		expect(p.h.rpc.callsTo('reterm.latency', 'test_stop')).toHaveLength(1);
		expect(p.text('.reterm-run-progress-text')).toBe('Stopped');
		expect(p.text('.reterm-ov-result')).toMatch(/Stopped after 12\.5 s: phases that did not run have no numbers/);
		expect(p.h.poll.queue.map(e => e.i)).toEqual([2]);
	});

	it('an unreachable test server: the daemon\'s message and what to check', async () => {
		const p = await page({ status: () => ({ state: 'done', result: fx.results.byId[UNREACHABLE].result }) });
		const msg = p.q('.reterm-ov-result .alert-message.danger');
		expect(h0(p, msg)).toMatch(/The test server could not load the line\. The daemon reported: connect to 192\.0\.2\.10 port 80: Connection refused\. Check that both URLs work from the router/);
		/* not also listed as "inconclusive" */
		expect(p.text('.reterm-ov-result')).not.toMatch(/Inconclusive/);
	});

	it('an inconclusive result lists its reasons', async () => {
		const p = await page({ status: () => ({ state: 'done', result: fx.results.byId[SLOW].result }) });
		expect(p.text('.reterm-ov-result .alert-message.warning')).toMatch(/^Inconclusive\.Download: the load reached only 9\.56 Mbit\/s of the 18 Mbit\/s shaper rate \(53 %/);
		expect(p.text('.reterm-ov-result')).toMatch(/9\.56 Mbit\/s \(53 % of 18 Mbit\/s\)/);
	});
});

describe('test settings form', () => {
	it('is LuCI\'s form on uci reterm.latency: streams, and under Advanced the endpoint and custom URLs', async () => {
		const p = await page({ latency: { download_url: DL, upload_url: UL, streams: '8' } });
		const d = p.h.form.describe(p.h.form.maps[0]);
		expect(d.config).toBe('reterm');
		expect(d.sections).toMatchObject([{ kind: 'NamedSection', type: 'latency', section: 'latency' }]);
		expect(d.sections[0].options.map(o => [o.name, o.kind, o.placeholder, o.hasValidate])).toEqual([
			['streams', 'Value', '4', true],
			['endpoint', 'ListValue', null, false],
			['download_url', 'Value', 'https://speed.example.net/bytes/1000000000', true],
			['upload_url', 'Value', 'https://speed.example.net/upload', true]]);
		expect(field(p, 'streams').value).toBe('8');
		/* inside the test section, before Start */
		expect(p.q('.reterm-ov-test .cbi-map')).not.toBeNull();
	});

	it('Save & Apply writes what the form shows and applies with rollback', async () => {
		const p = await page({ latency: { download_url: DL, upload_url: UL, streams: '8' } });
		setField(p, 'download_url', 'http://speed.example.net/big');
		setField(p, 'streams', '');
		await click(p.q('.cbi-page-actions .cbi-button-apply'));
		expect(p.h.ui.applied).toEqual([{ checked: true }]);
		expect(p.h.uci.commits).toEqual([{ reterm: [
			['remove', 'latency', 'streams'],
			['set', 'latency', 'download_url', 'http://speed.example.net/big']] }]);
	});

	it('an invalid value is marked as LuCI marks it and not saved', async () => {
		const p = await page({ latency: { download_url: DL, upload_url: UL } });
		setField(p, 'upload_url', 'http://192.0.2.10/a b');
		fire(field(p, 'upload_url'), 'blur');
		expect(field(p, 'upload_url').classList.contains('cbi-input-invalid')).toBe(true);
		expect(field(p, 'upload_url').getAttribute('data-tooltip')).toMatch(/^Expecting an http:\/\/ or https:\/\/ URL/);
		setField(p, 'streams', '99');
		fire(field(p, 'streams'), 'keyup');
		expect(field(p, 'streams').getAttribute('data-tooltip')).toBe('Expecting a whole number from 1 to 16.');

		await click(p.q('.cbi-page-actions .cbi-button-save'));
		/* the first invalid field in form order: Streams, then the Advanced tab's URL */
		expect(p.h.ui.modals.at(-1).title).toBe('Save error');
		expect(p.h.ui.modals.at(-1).text).toMatch(/Option "Streams" contains an invalid input value\. Expecting a whole number from 1 to 16/);
		/* LuCI's Save button leaves the save's rejection unhandled (the browser's console shows it) */
		expect(p.h.pageErrors.splice(0).map(e => e.message)).toEqual([expect.stringMatching(/^Option "Streams" contains an invalid input value/)]);
		expect(p.h.uci.stagedChanges()).toEqual({});

		/* a valid value clears the mark; an empty one is fine (unset) */
		setField(p, 'upload_url', '');
		fire(field(p, 'upload_url'), 'blur');
		expect(field(p, 'upload_url').classList.contains('cbi-input-invalid')).toBe(false);
		expect(field(p, 'upload_url').getAttribute('data-tooltip')).toBeNull();
	});

	it('an old config without the latency section: the form creates it', async () => {
		const h = createHarness();
		router(h);
		h.uci.seed('reterm', { main: { '.type': 'reterm', enabled: '1' } });
		const v = await h.require('view.reterm.overview');
		await h.rendered(v);
		h.form.setValue(h.form.maps[0], 'latency', 'download_url', DL);
		await v.handleSave();
		/* a named section added: libuci records it as a set of its type */
		expect(h.uci.stagedChanges().reterm).toEqual([['set', 'latency', 'latency'], ['set', 'latency', 'download_url', DL]]);
	});

	it('settings that cannot be staged: says so and starts nothing', async () => {
		const p = await page();
		setField(p, 'download_url', DL);
		setField(p, 'upload_url', UL);
		/* rpcd refuses the write (the session may not write uci reterm) */
		p.h.rpc.handle('uci', 'set', () => ubusStatus(6));
		await click(p.q('.reterm-ov-start'));
		expect(p.text('.reterm-ov-test-msg')).toBe('The test settings could not be saved: RPC call to uci/set failed with ubus code 6: Permission denied');
		expect(p.h.rpc.callsTo('reterm.latency', 'test_start')).toHaveLength(0);
		expect(p.q('.reterm-ov-start').disabled).toBe(false);
	});
});

describe('page', () => {
	it('links overview.css once, through L.resource', async () => {
		const p = await page();
		const links = [...p.h.document.head.querySelectorAll('link[data-reterm-css]')].map(l => l.getAttribute('href'));
		expect(links.sort()).toEqual(['/luci-static/resources/reterm/graph.css', '/luci-static/resources/reterm/overview.css']);
		expect(p.q('style')).toBeNull();
	});
});

function h0(p, node) {
	return p.h.text(node);
}

describe('before / after', () => {
	it('compares the newest result with the newest one under other shaper settings', async () => {
		const p = await page();
		const { h, q, text } = p;

		expect(q('#reterm-compare-before').value).toBe(UNSHAPED);
		expect(q('#reterm-compare-after').value).toBe(SHAPED);
		expect(q('#reterm-compare-before').querySelectorAll('option')).toHaveLength(4);
		/* newest first */
		expect(q('#reterm-compare-before').querySelectorAll('option')[0].getAttribute('value')).toBe(SHAPED);

		const byIdCalls = h.rpc.callsTo('reterm.latency', 'results').filter(c => c.params.id).map(c => c.params.id);
		/* SHAPED came with the page (newest), UNSHAPED was fetched */
		expect(byIdCalls).toEqual([SHAPED, UNSHAPED]);

		expect(text('.reterm-ov-compare-text')).toMatch(/^The grade improved from D to A\+\. Added latency under load: Download −209\.\d ms/);
		const rows = p.all('.reterm-ov-compare-table tr').map(r => [...r.children].map(c => h.text(c)));
		expect(rows[1]).toEqual(['Overall grade', 'D', 'A+', 'better by 4 grades']);
		expect(rows[3]).toEqual(['Upload grade', 'C', 'A+', 'better by 3 grades']);
		expect(rows[4][0]).toBe('Added latency: Download load');
		expect(rows[4][1]).toBe('+213.5 ms');
		expect(rows[4][3]).toMatch(/^−209\.\d ms$/);
		expect(rows[7]).toEqual(['Responsiveness (RPM)', '201', '2648', '+2447']);
		expect(rows[8]).toEqual(['Download throughput', '18.7 Mbit/s', '17 Mbit/s', '−9.4 %']);
		expect(p.all('.reterm-ov-compare-table td.reterm-ov-worse')).toHaveLength(2);
		expect(q('.reterm-ov-compare .alert-message')).toBeNull();
	});

	it('another pair: fetched by id once, with a caution for inconclusive results', async () => {
		const p = await page();
		const sel = p.q('#reterm-compare-before');
		sel.value = SLOW;
		await fire(sel, 'change');
		expect(p.text('.reterm-ov-compare-text')).toMatch(/^The grade stayed A\+\./);
		expect(p.text('.reterm-ov-compare')).toMatch(/At least one of these results is inconclusive/);

		sel.value = UNSHAPED;
		await fire(sel, 'change');
		const ids = p.h.rpc.callsTo('reterm.latency', 'results').filter(c => c.params.id).map(c => c.params.id);
		expect(ids).toEqual([SHAPED, UNSHAPED, SLOW]);
	});

	it('with one result: asks for another test', async () => {
		const one = { results: [fx.results.list.results[3]] };
		const p = await page({ results: q => q.id ? fx.results.byId[q.id] : one });
		expect(p.q('.reterm-ov-pick').style.display).toBe('none');
		expect(p.text('.reterm-ov-compare')).toMatch(/Run one more test to compare two results/);
	});

	it('a result that cannot be fetched: says so', async () => {
		const p = await page({ results: q => q.id ? (q.id === SHAPED ? fx.results.byId[q.id] : { error: 'not_found', message: 'no result with id "x"' }) : fx.results.list });
		expect(p.text('.reterm-ov-compare')).toMatch(/Could not load the results: no result with id "x"/);
	});
});
