import { describe, it, expect, beforeAll } from 'vitest';
import { readFileSync, existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createHarness, REPO_ROOT } from './harness/luci.js';

/* recorded reterm-latencyd replies, see fixtures/make-overview.uc */
const fx = JSON.parse(readFileSync(join(REPO_ROOT, 'tests/js/fixtures/overview.json'), 'utf8'));
const byId = id => fx.results.byId[id].result;
const [UNSHAPED, UNREACHABLE, SLOW, SHAPED] = fx.results.list.results.map(r => r.id);

let monitor;

beforeAll(async () => {
	monitor = await createHarness().require('reterm.latency');
});

const GOOD_URLS = [
	'http://192.0.2.10/bytes/1000000000',
	'http://192.0.2.10/upload',
	'http://speed.example.net/',
	'http://Speed.Example.NET:8080/x?size=1000000&a=b',
	'http://[2001:db8::1]/dl',
	'http://[2001:db8::1]:8080/',
	'http://[::ffff:192.0.2.1]/',
	'http://10.0.0.2',
	'http://a-b.c9/~user/f_1.bin',
	'http://host:65535/p,q:r@s+t%20',
	'http://' + 'a'.repeat(63) + '.example/',
	'https://speed.cloudflare.com/__down?bytes=25000000',
	'https://speed.example.net:8443/up'
];

const BAD_URLS = [
	'', 'https://192.0.2.10/', 'https://[2001:db8::1]/', 'https://', 'ftp://192.0.2.10/', 'http://', 'http:///x', '192.0.2.10/file',
	'http://192.0.2.10/$(reboot)', 'http://192.0.2.10/a;b', 'http://192.0.2.10/a b', 'http://192.0.2.10/`id`',
	"http://192.0.2.10/'x'", 'http://192.0.2.10/a#frag', 'http://192.0.2.10/\nx', 'http://192.0.2.10:0/',
	'http://192.0.2.10:65536/', 'http://192.0.2.10:08/', 'http://256.1.1.1/', 'http://1.2.3/', 'http://01.2.3.4/',
	'http://[1.2.3.4]/', 'http://[2001:db8::1::2]/', 'http://[fe80::1%eth0]/', 'http://-host/', 'http://host-/',
	'http://' + 'a'.repeat(64) + '.example/', 'http://123.456/', 'http://user@host/', 'http://host/' + 'x'.repeat(250),
	'http://hōst/', 'HTTP://host/'
];

describe('validateUrl', () => {
	it.each(GOOD_URLS)('accepts %s', url => {
		expect(monitor.validateUrl(url)).toBeNull();
		expect(monitor.parseUrl(url)).not.toBeNull();
	});

	it.each(BAD_URLS)('refuses %j', url => {
		expect(monitor.validateUrl(url)).toMatch(/./);
		expect(monitor.parseUrl(url)).toBeNull();
	});

	it('says what is wrong: empty, https, other', () => {
		expect(monitor.validateUrl('  ')).toMatch(/Enter the URL of a test server/);
		expect(monitor.validateUrl('https://x/')).toBeNull();
		expect(monitor.validateUrl('https://192.0.2.10/')).toMatch(/needs a host name, not an IP address/);
		expect(monitor.validateUrl('http://x/$(id)')).toMatch(/Expecting an http:\/\/ or https:\/\/ URL/);
		expect(monitor.validateUrl(null)).toMatch(/Enter/);
	});

	it('parses like reterm-latencyd: host lower-cased, default port 80, path /', () => {
		expect(monitor.parseUrl('http://Speed.Example.NET:8080/x?a=1')).toEqual({ url: 'http://Speed.Example.NET:8080/x?a=1',
			scheme: 'http', host: 'speed.example.net', port: 8080, path: '/x?a=1', family: null });
		expect(monitor.parseUrl('https://speed.example.net/x')).toMatchObject({ scheme: 'https', port: 443, family: null });
		expect(monitor.parseUrl('http://10.0.0.2')).toMatchObject({ host: '10.0.0.2', port: 80, path: '/', family: 4 });
		expect(monitor.parseUrl('http://[2001:db8::1]/dl')).toMatchObject({ host: '2001:db8::1', family: 6 });
	});

	/* the same verdicts as the daemon's own check, when ucode is here */
	const UCODE = [process.env.RETERM_UCODE, join(process.env.RETERM_OWRT || '/opt/owrt', 'host/bin/ucode')]
		.find(p => p && existsSync(p));

	it.skipIf(!UCODE)('agrees with monitor/args.uc test_url on every vector', () => {
		const vectors = GOOD_URLS.concat(BAD_URLS.filter(u => !u.includes('\n')));
		const code = 'import { test_url } from "reterm.validate"; ' +
			'print(sprintf("%J", map(json(ARGV[0]), (s) => test_url(s) != null)));';
		const r = spawnSync(UCODE, ['-L', join(REPO_ROOT, 'root/usr/share/ucode'), '-e', code, '--', JSON.stringify(vectors)],
			{ encoding: 'utf8' });
		expect(r.status, r.stderr).toBe(0);
		const daemon = JSON.parse(r.stdout);
		expect(vectors.map(v => monitor.parseUrl(v) !== null)).toEqual(daemon);
	});
});

describe('validateStreams', () => {
	it.each(['1', '4', '16', ' 8 ', 4])('accepts %j', v => expect(monitor.validateStreams(v)).toBeNull());
	it.each(['0', '17', '', '4.5', '-1', 'four', null, '004', '08', '+4'])('refuses %j', v =>
		expect(monitor.validateStreams(v)).toMatch(/whole number from 1 to 16/));
});

describe('replies', () => {
	it('liveState: not running, error, waking (no or old rows), live', () => {
		const now = 1000;
		expect(monitor.liveState({ error: 'no_daemon' }, null, now)).toBe('no_daemon');
		expect(monitor.liveState({ error: 'rpc', message: 'x' }, null, now)).toBe('error');
		expect(monitor.liveState(null, null, now)).toBe('waking');
		expect(monitor.liveState(null, { t: now - 30 }, now)).toBe('waking');
		/* rows lag ~3.6 s behind the daemon clock normally */
		expect(monitor.liveState(null, { t: now - 5 }, now)).toBe('live');
		expect(monitor.liveState(null, { t: now - 11 }, now)).toBe('live');
		expect(monitor.liveState(null, { t: now - 12 }, now)).toBe('waking');
	});

});

describe('shaperFromSqm', () => {
	const q = (o) => Object.assign({ '.type': 'queue', enabled: '1', interface: 'eth1', download: '18000', upload: '4500' }, o);

	it('takes the first enabled queue, rates kbit → bit/s', () => {
		expect(monitor.shaperFromSqm([q({ enabled: '0', interface: 'eth0' }), q()]))
			.toEqual({ enabled: true, iface: 'eth1', rx: 18000000, tx: 4500000 });
	});

	it('prefers the queue on wan_device, 0 = not shaped', () => {
		expect(monitor.shaperFromSqm([q(), q({ interface: 'pppoe-wan', upload: '0' })], 'pppoe-wan'))
			.toEqual({ enabled: true, iface: 'pppoe-wan', rx: 18000000, tx: null });
	});

	it('disabled queues: shaping off; no queues: null', () => {
		expect(monitor.shaperFromSqm([q({ enabled: '0' })])).toEqual({ enabled: false, iface: null, rx: null, tx: null });
		expect(monitor.shaperFromSqm([])).toBeNull();
		expect(monitor.shaperFromSqm(undefined)).toBeNull();
	});
});

describe('progress', () => {
	it('follows the recorded test_status replies through the phases', () => {
		const ps = fx.test.running.map(s => monitor.progress(s));
		expect(ps.map(p => p.label)).toEqual(['Idle: measuring the baseline', 'Download load', 'Upload load',
			'Download and upload', 'Cool-down']);
		expect(ps.map(p => p.percent)).toEqual([6, 22, 48, 75, 94]);
		expect(ps.every(p => p.running && p.total === 44)).toBe(true);
		expect(ps[1]).toMatchObject({ phase: 'download', phaseIndex: 1, elapsed: 9.5, remaining: 35 });
	});

	it('has no schedule of its own: a reply without the phase or the total says so, nothing guessed', () => {
		expect(monitor.progress({ state: 'running', elapsed: 16, total: 44 })).toMatchObject({
			phase: null, phaseIndex: null, label: 'Running', percent: 36, total: 44, remaining: 28 });
		expect(monitor.progress({ state: 'running', elapsed: 3 })).toMatchObject({
			phase: null, label: 'Running', percent: 0, total: null, remaining: null });
		expect(monitor.schedule).toBeUndefined();
		expect(monitor.totalSecs).toBeUndefined();
	});

	it('end states', () => {
		expect(monitor.progress(fx.test.done)).toMatchObject({ state: 'done', running: false, percent: 100, label: 'Finished' });
		expect(monitor.progress({ state: 'idle' })).toMatchObject({ running: false, percent: 0, label: 'No test running' });
		expect(monitor.progress({ state: 'stopped', elapsed: 11, total: 44, progress: 0.25 })).toMatchObject({ label: 'Stopped', percent: 25 });
		expect(monitor.progress(null)).toMatchObject({ state: 'idle', percent: 0 });
	});
});

describe('summary', () => {
	it('a bufferbloated line: D overall (the worse direction), RPM poor', () => {
		const s = monitor.summary(fx.test.done.result);
		expect(s).toMatchObject({ id: UNSHAPED, grade: 'D', key: 'd', rpm: 201, rpmClass: 'poor', rpmLabel: 'Poor',
			inconclusive: false, reasons: [], errors: [], stopped: false, failed: null, loadFailed: false, baseline: 15.2 });
		expect(s.download).toMatchObject({ grade: 'D', key: 'd', added: 213.5, throughput: 18723750, shaper: null, share: null });
		expect(s.upload).toMatchObject({ grade: 'C', added: 110 });
	});

	it('shaped: A+, with the share of the shaper rate', () => {
		const s = monitor.summary(byId(SHAPED));
		expect(s.grade).toBe('A+');
		expect(s.download.share).toBeCloseTo(16968750 / 18000000, 6);
		expect(s.rpmClass).toBe('good');
	});

	it('a server too slow to fill the line: inconclusive, with the reason in words', () => {
		const s = monitor.summary(byId(SLOW));
		expect(s.inconclusive).toBe(true);
		expect(s.loadFailed).toBe(false);
		expect(s.reasons).toEqual(['Download: the load reached only 9.56 Mbit/s of the 18 Mbit/s shaper rate (53 %; at least 80 % needed). The test server or its path is too slow to fill the line, so the grade may look better than the line is.']);
	});

	it('an unreachable server: the load failed, with the daemon\'s message', () => {
		const s = monitor.summary(byId(UNREACHABLE));
		expect(s.loadFailed).toBe(true);
		expect(s.errors).toEqual(['connect to 192.0.2.10 port 80: Connection refused']);
	});

	it('loss reasons, stopped and failed results', () => {
		const r = Object.assign({}, byId(SHAPED), { reasons: ['upload_loss'], upload: Object.assign({}, byId(SHAPED).upload, { loss: 0.031 }) });
		expect(monitor.summary(r).reasons).toEqual(['Upload: 3.1 % of the probes were lost (at most 2.5 % allowed); latency numbers miss what the lost probes would have shown.']);
		expect(monitor.summary({ id: 'a', stopped: true, duration: 12.3 })).toMatchObject({ stopped: true, duration: 12.3, grade: null });
		expect(monitor.summary({ id: 'b', error: 'no_idle_rtt', message: 'no probe was answered during the first idle phase' }).failed)
			.toBe('no probe was answered during the first idle phase');
		expect(monitor.summary(null)).toBeNull();
		expect(monitor.summary({ reasons: ['future_reason'] }).reasons).toEqual(['future_reason']);
	});

	it('phaseRows and cdfSeries from a full result', () => {
		const r = byId(SHAPED);
		const rows = monitor.phaseRows(r);
		expect(rows.map(p => p.label)).toEqual(['Idle: measuring the baseline', 'Download load', 'Pause', 'Upload load',
			'Pause', 'Download and upload', 'Cool-down']);
		expect(rows[1]).toMatchObject({ name: 'download', mean: r.phases[1].mean, rx: r.phases[1].rx_bps });

		const series = monitor.cdfSeries(r);
		expect(series.map(s => s.name)).toEqual(['idle', 'download', 'upload', 'both']);
		/* 50 ms probes: ~100 per 5 s idle, ~200 per 10 s phase, lost ones left out */
		expect(series[0].values.length).toBeGreaterThan(90);
		expect(series[1].values.length).toBeGreaterThan(190);
		expect(series.every(s => s.values.every(v => v >= 0))).toBe(true);
		expect(monitor.cdfSeries(fx.results.list.results[0])).toEqual([]);   /* a summary has no samples */
	});

	it('resultLabel for the selects', () => {
		const labels = fx.results.list.results.map(r => monitor.resultLabel(r));
		expect(labels[0]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d · D · unshaped$/);
		expect(labels[1]).toMatch(/ · A\+ · load failed · shaped 18 Mbit\/s \/ 4\.5 Mbit\/s$/);
		expect(labels[2]).toMatch(/ · A\+ · inconclusive · shaped/);
		expect(labels[3]).toMatch(/ · A\+ · shaped 18 Mbit\/s \/ 4\.5 Mbit\/s$/);
	});
});

describe('compare', () => {
	it('default pair: the newest, and the newest before it with other shaper settings', () => {
		expect(monitor.defaultPair(fx.results.list.results)).toEqual([UNSHAPED, SHAPED]);
		const same = fx.results.list.results.slice(1);
		expect(monitor.defaultPair(same)).toEqual([SLOW, SHAPED]);
		expect(monitor.defaultPair(same.slice(0, 1))).toBeNull();
	});

	it('before/after: grades, added latency per phase, throughput cost', () => {
		const c = monitor.compare(fx.test.done.result, byId(SHAPED));
		expect(c.grades.map(g => [g.key, g.before, g.after, g.steps])).toEqual([
			['overall', 'D', 'A+', 4], ['download', 'D', 'A+', 4], ['upload', 'C', 'A+', 3]]);

		const a = fx.test.done.result.phases, b = byId(SHAPED).phases;
		expect(c.latency.map(l => [l.phase, l.before, l.after, l.change])).toEqual([
			['download', a[1].mean, b[1].mean, Math.round((b[1].mean - a[1].mean) * 10) / 10],
			['upload', a[3].mean, b[3].mean, Math.round((b[3].mean - a[3].mean) * 10) / 10],
			['both', a[5].mean, b[5].mean, Math.round((b[5].mean - a[5].mean) * 10) / 10]]);

		expect(c.throughput[0].change).toBeCloseTo((16968750 - 18723750) / 18723750, 9);
		expect(c.throughput[1].change).toBeCloseTo((4272000 - 4730234) / 4730234, 9);
		expect(c.rpm).toEqual({ before: 201, after: 2648 });

		expect(monitor.compareText(c)).toBe('The grade improved from D to A+. ' +
			`Added latency under load: Download −${(-c.latency[0].change).toFixed(1)} ms, Upload −${(-c.latency[1].change).toFixed(1)} ms, Both −${(-c.latency[2].change).toFixed(1)} ms. ` +
			'Throughput: Download −9.4 %, Upload −9.7 %.');
	});

	it('worse and unchanged grades, missing phases', () => {
		const c = monitor.compare(byId(SHAPED), fx.test.done.result);
		expect(c.grades[0].steps).toBe(-4);
		expect(monitor.compareText(c)).toMatch(/^The grade got worse: D, was A\+\./);
		const same = monitor.compare(byId(SHAPED), byId(SHAPED));
		expect(monitor.compareText(same)).toMatch(/^The grade stayed A\+\. .*Download \+0\.0 ms/);
		const stopped = monitor.compare({ id: 's', stopped: true, phases: [{ name: 'idle', start: 0, end: 5 }] }, byId(SHAPED));
		expect(stopped.latency.every(l => l.change === null)).toBe(true);
		expect(stopped.grades[0].steps).toBeNull();
		expect(monitor.compare(null, byId(SHAPED))).toBeNull();
	});
});
