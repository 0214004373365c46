'use strict';
'require view';
'require form';
'require uci';
'require reterm.latency as monitor';
'require reterm.guided as testrun';
'require reterm.graph.chart as graphchart';
'require reterm.overview.live as overviewlive';
'require reterm.overview.test as overviewtest';
'require reterm.overview.compare as overviewcompare';

/*
 * Network → Re-termination → Overview: latency under load.
 *
 * Three panels, each a module of its own: the live graphs
 * (reterm.overview.live), the guided bufferbloat test with its newest
 * result (reterm.overview.test, through reterm.guided) and the
 * before/after comparison of stored results (reterm.overview.compare).
 * This view loads what they start from, draws the test settings (uci
 * reterm.latency: streams; under "Advanced" the endpoint to try first
 * and custom test URLs) as a LuCI form, links overview.css, and polls
 * only while the page is visible. With nothing set the router uses its
 * built-in public endpoints: "Start test" needs nothing typed.
 *
 * The settings are saved with LuCI's Save / Save & Apply; starting a
 * test stages them too, so the router keeps what was last tested.
 */

/* a test URL: empty (unset) or what reterm-latencyd accepts */
const validUrl = (sid, v) => (v == null || v === '') ? true : (monitor.validateUrl(v) || true);
const validStreams = (sid, v) => (v == null || v === '') ? true : (monitor.validateStreams(v) || true);

return view.extend({
	load() {
		return Promise.all([
			L.resolveDefault(uci.load('reterm'), null),
			L.resolveDefault(uci.load('sqm'), null),
			overviewlive.first(),
			testrun.status(),
			overviewcompare.list(),
			testrun.endpoints()
		]).then((data) => overviewcompare.newest(data[3], data[4]).then((newest) => data.concat([ newest ])));
	},

	/* the test settings: uci reterm.latency through LuCI's form */
	settingsForm(endpoints) {
		const m = new form.Map('reterm'),
		    s = m.section(form.NamedSection, 'latency', 'latency');
		let o;

		s.tab('test', _('Test'), _('The test runs against a public speed-test endpoint: no server of your own is needed.'));
		s.tab('advanced', _('Advanced'));

		o = s.taboption('test', form.Value, 'streams', _('Streams'),
			_('Parallel connections per direction, 1 to 16. Four fill most lines; try 8 on fast or long paths.'));
		o.placeholder = String(monitor.DEFAULT_STREAMS);
		o.validate = validStreams;

		o = s.taboption('advanced', form.ListValue, 'endpoint', _('Endpoint'),
			_('The public endpoint to try first; if it fails, the router tries the others in order.'));
		o.value('', _('Automatic (the first that works)'));
		endpoints.forEach((e) => o.value(e.id, e.name));

		o = s.taboption('advanced', form.Value, 'download_url', _('Download URL'),
			_('A test server of your own instead of the endpoints: a large file the router downloads (HTTP GET), fetched again whenever it ends. Give both URLs.'));
		o.placeholder = 'https://speed.example.net/bytes/1000000000';
		o.validate = validUrl;

		o = s.taboption('advanced', form.Value, 'upload_url', _('Upload URL'),
			_('An address that accepts a large HTTP POST and discards it.'));
		o.placeholder = 'https://speed.example.net/upload';
		o.validate = validUrl;

		return m;
	},

	/* what the form shows now, as test_start takes it */
	settings() {
		const value = (name) => {
			const ref = this.map ? this.map.lookupOption(name, 'latency') : null;

			return ref ? ref[0].formvalue(ref[1]) : null;
		};

		return { endpoint: value('endpoint'), download_url: value('download_url'), upload_url: value('upload_url'),
			streams: value('streams') };
	},

	renderForm(uciOk, endpoints) {
		if (!uciOk)
			return Promise.resolve(null);

		/* an old config without the section: the form creates it */
		if (!uci.get('reterm', 'latency'))
			uci.add('reterm', 'latency', 'latency');

		this.map = this.settingsForm(endpoints);

		return this.map.render();
	},

	setVisible(visible) {
		this.live.setVisible(visible);
		this.test.setVisible(visible);
	},

	render(data) {
		const [ reterm, sqm, samples, status, list, endpoints, newest ] = data;

		graphchart.linkStyle('reterm/overview.css');

		return this.renderForm(reterm !== null, endpoints).then((formNode) => {
			this.live = overviewlive.create({
				samples: samples,
				shaper: sqm !== null ? monitor.shaperFromSqm(uci.sections('sqm', 'queue'), uci.get('reterm', 'latency', 'wan_device')) : null
			});
			this.compare = overviewcompare.create({ list: list, known: [ newest ] });
			this.test = overviewtest.create({
				form: formNode,
				status: status,
				newest: newest,
				settings: () => this.settings(),
				stage: () => this.map ? this.map.save(null, true) : Promise.resolve(),
				finished: (result) => {
					this.compare.remember(result);
					return this.compare.refresh(true);
				}
			});

			this.setVisible(true);

			if (typeof document.addEventListener === 'function')
				document.addEventListener('visibilitychange', () => this.setVisible(document.visibilityState !== 'hidden'));

			return this.compare.update(true);
		}).then(() => E('div', { 'class': 'reterm-ov' }, [
			E('h2', {}, [ _('Overview') ]),
			E('div', { 'class': 'cbi-map-descr' }, [
				_('Latency under load (bufferbloat): how much the round-trip time grows while the line is busy, live and by a guided test.') ]),
			this.live.node,
			this.test.node,
			this.compare.node
		]));
	}
});
