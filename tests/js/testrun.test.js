import { describe, it, expect, beforeEach } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHarness, REPO_ROOT } from './harness/luci.js';

/* recorded reterm-latencyd replies, see fixtures/make-overview.uc */
const fx = JSON.parse(readFileSync(join(REPO_ROOT, 'tests/js/fixtures/overview.json'), 'utf8'));
const DL = 'http://192.0.2.10/bytes/1000000000', UL = 'http://192.0.2.10/upload';

let h, run;

beforeEach(async () => {
	h = createHarness();
	run = await h.require('reterm.guided');
});

describe('settle and error', () => {
	it('passes a usable reply through unchanged', async () => {
		expect(await run.settle(Promise.resolve({ state: 'idle' }))).toEqual({ state: 'idle' });
		expect(await run.settle(Promise.resolve([1, 2]))).toEqual([1, 2]);
		expect(run.error({ state: 'idle' })).toBeNull();
	});

	it('reads ubus status 0 without data as an empty reply', async () => {
		expect(await run.settle(Promise.resolve(0))).toEqual({});
	});

	it('turns a numeric ubus status into an error with the status and a text', async () => {
		const e = await run.settle(Promise.resolve(6));
		expect(e).toMatchObject({ error: 'ubus', status: 6, message: 'Permission denied' });
		expect(e.text).toMatch(/reterm API is not available \(ubus status 6\)/);
	});

	it('turns a failed request into an rpc error, never a rejection', async () => {
		const e = await run.settle(Promise.reject(new Error('XHR request timed out')));
		expect(e).toMatchObject({ error: 'rpc', message: 'XHR request timed out', text: 'The router did not answer: XHR request timed out' });
	});

	it('an object nobody publishes (uhttpd: -32000 Object not found) is no_daemon: reterm-latencyd does not run', async () => {
		const e = await run.settle(Promise.reject(new Error('RPC call to reterm.latency/samples failed with error -32000: Object not found')));
		expect(e).toMatchObject({ error: 'no_daemon' });
		expect(e.text).toMatch(/\/etc\/init\.d\/reterm-latencyd start/);
	});

	it('refuses a reply that is not an object', async () => {
		for (const v of [null, undefined, 'x', true])
			expect(await run.settle(Promise.resolve(v))).toMatchObject({ error: 'invalid', text: 'The router sent an answer that is not understood.' });
	});

	it.each([
		[{ error: 'busy', message: 'a test is already running' }, /A test is already running/],
		[{ error: 'target_refused', message: 'x' }, /must be public Internet addresses on port 80, 443 or 8080/],
		[{ error: 'no_daemon', message: 'x' }, /\/etc\/init\.d\/reterm-latencyd start/],
		[{ error: 'internal', message: 'reterm-latencyd did not answer test_start in time' }, /^The router could not run the test: reterm-latencyd did not answer test_start in time$/],
		[{ error: 'invalid_argument', message: "argument 'streams' must be a number" }, /^The router refused the test settings: argument 'streams' must be a number$/],
		[{ error: 'pause_failed', message: 'sqm-scripts\' run.sh is missing' }, /^Shaping could not be paused for the test, so the test did not start: sqm-scripts' run\.sh is missing$/],
		[{ error: 'not_found', message: 'no result with id "x"' }, /^no result with id "x"$/]
	])('gives %j a translated text', async (reply, text) => {
		const e = await run.settle(Promise.resolve(reply));
		expect(e.error).toBe(reply.error);
		expect(e.message).toBe(reply.message);
		expect(e.text).toMatch(text);
		expect(run.error(reply)).toEqual(e);
	});

	it('keeps too_soon\'s wait in whole seconds and says it', async () => {
		const e = await run.settle(Promise.resolve({ error: 'too_soon', wait_s: 16.2, message: 'the last test ended 13 s ago' }));
		expect(e.wait_s).toBe(17);
		expect(e.text).toBe('A test was started or tried only a moment ago: wait 17 s and start again.');
		expect(run.error({ error: 'too_soon', wait_s: 'x' }).wait_s).toBe(0);
	});
});

describe('errorText', () => {
	it('explains each error with a way forward', () => {
		expect(run.errorText({ error: 'no_daemon' })).toMatch(/\/etc\/init\.d\/reterm-latencyd start/);
		expect(run.errorText({ error: 'busy' })).toMatch(/already running/);
		expect(run.errorText({ error: 'invalid_argument', message: "argument 'streams' must be an integer 1-16" }))
			.toBe("The router refused the test settings: argument 'streams' must be an integer 1-16");
		expect(run.errorText({ error: 'ubus', status: 3 })).toMatch(/ubus status 3/);
		expect(run.errorText({ error: 'too_soon', wait_s: 7 })).toBe('A test was started or tried only a moment ago: wait 7 s and start again.');
		expect(run.errorText({ error: 'target_refused' })).toMatch(/reterm_admin/);
		expect(run.errorText({ error: 'odd', message: 'something' })).toBe('something');
		expect(run.errorText(null)).toBeNull();
	});
});

describe('start', () => {
	it('sends the checked arguments; pause_shaping only when asked', async () => {
		h.rpc.handle('reterm.latency', 'test_start', () => fx.test.start);
		expect(await run.start({ download_url: ` ${DL} `, upload_url: UL, streams: '8' })).toEqual(fx.test.start);
		await run.start({ download_url: DL, upload_url: UL, pause_shaping: true });
		expect(h.rpc.callsTo('reterm.latency', 'test_start').map(c => c.params)).toEqual([
			{ download_url: DL, upload_url: UL, streams: 8 },
			{ download_url: DL, upload_url: UL, streams: 4, pause_shaping: true }]);
	});

	it('passes the paused queues on', async () => {
		h.rpc.handle('reterm.latency', 'test_start', () => ({ ...fx.test.start, paused: ['eth1'] }));
		expect((await run.start({ download_url: DL, upload_url: UL, pause_shaping: true })).paused).toEqual(['eth1']);
	});

	it('no URL: the built-in endpoints (an endpoint to try first is passed on); URLs: no endpoint', async () => {
		h.rpc.handle('reterm.latency', 'test_start', () => ({ ...fx.test.start, endpoint: { id: 'cloudflare', name: 'Cloudflare speed test' }, tried: [] }));
		await run.start({});
		await run.start(null);
		await run.start({ endpoint: 'tele2', download_url: ' ', upload_url: '' });
		await run.start({ endpoint: 'tele2', download_url: 'https://speed.example.net/dl', upload_url: UL });
		expect(h.rpc.callsTo('reterm.latency', 'test_start').map(c => c.params)).toEqual([
			{ streams: 4 }, { streams: 4 }, { endpoint: 'tele2', streams: 4 },
			{ download_url: 'https://speed.example.net/dl', upload_url: UL, streams: 4 }]);
	});

	it('says which endpoint the test runs against, and which failed first', () => {
		expect(run.startedText({ endpoint: { id: 'tele2', name: 'Tele2' }, tried: [ { endpoint: 'cloudflare', message: 'Cloudflare: refused (HTTP 403)' } ] }))
			.toBe('Testing against Tele2. Not used: Cloudflare: refused (HTTP 403)');
		expect(run.startedText({ endpoint: null })).toBeNull();
	});

	it.each([ 'dns_failed', 'unreachable', 'tls_failed', 'throttled', 'no_endpoint' ])('gives %s the router\'s reason and the way forward', async (code) => {
		h.rpc.handle('reterm.latency', 'test_start', () => ({ error: code, message: 'Cloudflare speed test: it failed' }));
		const e = await run.start({});
		expect(e.error).toBe(code);
		expect(e.text).toBe('The test could not start: Cloudflare speed test: it failed. Retry, or choose another endpoint or your own test server under "Advanced".');
	});

	it.each([
		[{ download_url: 'https://192.0.2.10/big', upload_url: UL }, 'download_url', /^Download URL: An https:\/\/ URL needs a host name/],
		[{ download_url: DL, upload_url: '' }, 'upload_url', /^Upload URL: give both URLs, or neither/],
		[{ download_url: '', upload_url: UL }, 'download_url', /^Download URL: give both URLs, or neither/],
		[{ download_url: DL, upload_url: 'http://192.0.2.10/$(reboot)' }, 'upload_url', /^Upload URL: Expecting an http:\/\/ or https:\/\/ URL/],
		[{ download_url: DL, upload_url: UL, streams: 17 }, 'streams', /^Streams: Expecting a whole number from 1 to 16/],
		[{ endpoint: 'Bad;id' }, 'endpoint', /^Endpoint: not an endpoint of the router/]
	])('refuses %j without calling the router', async (args, field, text) => {
		const e = await run.start(args);
		expect(e).toMatchObject({ error: 'invalid_argument', field });
		expect(e.text).toMatch(text);
		expect(h.rpc.callsTo('reterm.latency', 'test_start')).toHaveLength(0);
	});

	it('gives the router\'s refusal as an error', async () => {
		h.rpc.handle('reterm.latency', 'test_start', () => ({ error: 'pause_failed', message: 'shaping is already paused for a test' }));
		const e = await run.start({ download_url: DL, upload_url: UL, pause_shaping: true });
		expect(e.error).toBe('pause_failed');
		expect(e.text).toMatch(/shaping is already paused for a test$/);
	});

	it('status and stop settle too', async () => {
		h.rpc.handle('reterm.latency', 'test_status', () => h.rpc.status(4));
		h.rpc.handle('reterm.latency', 'test_stop', () => ({ error: 'no_test', message: 'no test is running' }));
		expect(await run.status()).toMatchObject({ error: 'ubus', status: 4 });
		expect(await run.stop()).toMatchObject({ error: 'no_test' });
	});
});

describe('snapshot and texts', () => {
	it('a running test: phase, fraction and the live figures', () => {
		const s = run.snapshot(fx.test.running[2]);
		expect(s).toMatchObject({ state: 'running', running: true, phase: 'upload', phaseIndex: 3, percent: 48,
			elapsed: 21, total: 44, rtt: fx.test.running[2].rtt, rx_bps: 149984, error: null, result: null, pause: null });
		expect(s.fraction).toBeCloseTo(0.477);
		expect(run.progressText(s)).toBe('Upload load · 21 s of 44 s · RTT 126.7 ms · ↓ 150 kbit/s ↑ 4.85 Mbit/s');
	});

	it('a finished test carries its result', () => {
		const s = run.snapshot(fx.test.done);
		expect(s).toMatchObject({ state: 'done', running: false, percent: 100, label: 'Finished' });
		expect(s.result.id).toBe(fx.test.done.result.id);
		expect(run.progressText(s)).toBe('Finished');
	});

	it('a failed status is an error snapshot', () => {
		const s = run.snapshot({ error: 'no_daemon', message: 'x' });
		expect(s).toMatchObject({ state: 'error', running: false, error: { error: 'no_daemon' } });
		expect(s.label).toMatch(/reterm-latencyd\) is not running/);
	});

	it('says what the shaping pause does', () => {
		const s = run.snapshot({ ...fx.test.running[1], pause: { ifaces: ['eth1'], state: 'paused', until: 1718000104 } });
		expect(run.pauseText(s.pause)).toBe('Shaping is paused on eth1 for this test; the router turns it back on when the test ends.');
		expect(run.pauseText({ ifaces: ['eth1', 'pppoe-wan'], state: 'restored' })).toBe('Shaping on eth1, pppoe-wan is back on.');
		expect(run.pauseText({ ifaces: ['eth1'], state: 'failed', message: 'run.sh start eth1 failed' }))
			.toBe('Shaping on eth1 could not be turned back on: run.sh start eth1 failed');
		for (const p of [null, {}, { ifaces: [], state: 'paused' }, { ifaces: ['eth1'], state: 'x' }])
			expect(run.pauseText(p)).toBeNull();
	});

	it('formats numbers through reterm.units, a dash for what is missing', () => {
		expect(run.ms(14.66)).toBe('14.7 ms');
		expect(run.ms(3, true)).toBe('+3.0 ms');
		expect(run.ms(-2.54, true)).toBe('−2.5 ms');
		expect(run.ms(null)).toBe('–');
		expect(run.rate(18.7e6)).toBe('18.7 Mbit/s');
		expect(run.rate(-1)).toBe('–');
		expect(run.rate('5')).toBe('–');
		expect(run.pct(0.0123)).toBe('1.2 %');
		expect(run.pct(undefined)).toBe('–');
	});

	it('note is LuCI\'s alert box', () => {
		const n = run.note('warning', ['a', 'b']);
		expect(n.className).toBe('alert-message warning');
		expect(h.text(n)).toBe('ab');
		expect(h.text(run.note('danger', 'x'))).toBe('x');
	});

	it('progressView draws the bar and the text', () => {
		const v = run.progressView();
		v.update(run.snapshot({ state: 'idle' }));
		expect(v.node.style.display).toBe('none');
		v.update(run.snapshot(fx.test.running[2]));
		expect(v.node.style.display).toBe('');
		expect(v.node.querySelector('.cbi-progressbar').getAttribute('aria-valuenow')).toBe('48');
		expect(v.node.querySelector('.cbi-progressbar > div').style.width).toBe('48%');
		expect(h.text(v.node.querySelector('.reterm-run-progress-text'))).toMatch(/^Upload load · 21 s of 44 s/);
	});
});

describe('follower', () => {
	it('polls while the test runs, then stops by itself', async () => {
		const seen = [];
		let st = fx.test.running[0];
		h.rpc.handle('reterm.latency', 'test_status', () => st);
		const f = run.follower(s => { seen.push(s.state); });
		f.start();
		expect(h.poll.queue.map(e => e.i)).toEqual([1]);
		await h.settle();		/* LuCI's poll runs a new entry at once */
		st = fx.test.done;
		await h.poll.tick();
		expect(seen).toEqual(['running', 'done']);
		expect(f.following).toBe(false);
		expect(h.poll.queue).toHaveLength(0);
	});

	it('stops on a failed status and hands the error on', async () => {
		let got;
		h.rpc.handle('reterm.latency', 'test_status', () => h.rpc.http(502));
		const f = run.follower(s => { got = s; });
		f.start();
		await h.settle();
		/* LuCI batches its calls: a failed batch is "No related RPC reply" for each */
		expect(got.error).toMatchObject({ error: 'rpc', message: 'No related RPC reply' });
		expect(h.poll.queue).toHaveLength(0);
	});

	it('rests while the page is hidden and resumes where it was', async () => {
		h.rpc.handle('reterm.latency', 'test_status', () => fx.test.running[1]);
		const f = run.follower(() => {}, 2);
		f.setVisible(false);
		f.start();
		expect(h.poll.queue).toHaveLength(0);
		f.setVisible(true);
		expect(h.poll.queue.map(e => e.i)).toEqual([2]);
		f.stop();
		f.setVisible(true);
		expect(h.poll.queue).toHaveLength(0);
	});
});

describe('check', () => {
	it('null for what start() would send, the refusal otherwise', () => {
		expect(run.check({ download_url: DL, upload_url: UL })).toBeNull();
		expect(run.check({ download_url: DL, upload_url: UL, streams: '0' })).toMatchObject({ error: 'invalid_argument', field: 'streams' });
		expect(h.rpc.calls).toHaveLength(0);
	});
});
