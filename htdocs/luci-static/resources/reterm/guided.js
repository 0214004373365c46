'use strict';
'require baseclass';
'require rpc';
'require poll';
'require reterm.units as units';
'require reterm.latency as monitor';
'require reterm.errtext as errtext';

/*
 * The guided bufferbloat test as every view runs it: the one place that
 * declares reterm-latencyd's test_start / test_status / test_stop, turns their
 * replies and failures into one error shape with a translated text, and
 * follows a running test. Also the small helpers all reterm views share
 * (settle, note, ms/rate/pct). Use as: 'require reterm.guided as testrun';
 *
 * Replies and errors
 *   Every call here resolves, never rejects. It gives either the reply
 *   object or an error object
 *     { error: code, text, message, wait_s?, status? }
 *   code     'busy', 'too_soon', 'target_refused', 'no_test',
 *            'internal', 'invalid_argument', 'pause_failed', the
 *            endpoint failures 'dns_failed', 'unreachable', 'tls_failed',
 *            'throttled', 'no_endpoint' (the message names the endpoint
 *            and the reason; the text adds the way forward), any other
 *            code reterm-latencyd sends (e.g. 'not_found'); from this side:
 *            'no_daemon' (reterm.latency is not published: the daemon
 *            does not run), 'ubus' (a numeric ubus status, in `status`),
 *            'rpc' (no answer: the request failed) and 'invalid' (not an
 *            object)
 *   text     translated sentence for the user (errorText())
 *   message  reterm-latencyd's own words (English) or null
 *   wait_s   too_soon only: seconds until a test may start
 *
 *   settle(promise)         → Promise of reply | error (any rpc call)
 *   error(reply)            → the error object of a reply, or null
 *   errorText(err)          → the translated text for an error object
 *
 * The test
 *   check(args)             → null when start() would send args, else an
 *       'invalid_argument' error with `field` and the reason as its text
 *   start({endpoint, download_url, upload_url, streams, pause_shaping})
 *       check()s the arguments (an invalid one: that error, and nothing
 *       is sent), then test_start →
 *       reply {id, total, endpoint, tried, paused: [iface…]} | error.
 *       No URLs: the router's built-in endpoints (endpoint: the one to
 *       try first, '' for the default order); URLs: both. pause_shaping:
 *       the router stops sqm for the test and restarts it after.
 *   status()                → test_status reply | error
 *   endpoints()             → Promise of the router's built-in endpoints
 *       [{id, name}] (monitor_status), [] when there are none
 *   startedText(reply)      → "Testing against …" (and the endpoints that
 *       failed first) for a test_start reply, or null (custom URLs)
 *   stop()                  → test_stop reply | error
 *   snapshot(reply)         → what a view shows of a status reply:
 *       {state, running, fraction, percent, phase, phaseIndex, label,
 *        elapsed, total, rtt, rx_bps, tx_bps, result, pause, error}
 *       (monitor.progress() plus the live figures; error: an error
 *       object, then state 'error' and running false)
 *   progressText(snap)      → "Upload load · 21 s of 44 s · RTT … · ↓ … ↑ …"
 *   pauseText(pause)        → a sentence on shaping paused for the test, or null
 *   follower(onUpdate, [interval=1]) → a poller of test_status:
 *       .start() .stop() .setVisible(bool) .tick() → Promise of the snap
 *       .following (bool). Each status goes to onUpdate(snap); it stops
 *       by itself once the test no longer runs or the status failed.
 *   progressView()          → {node, update(snap)}: LuCI's progress bar
 *       (.cbi-progressbar) with the progress text below
 *       (.reterm-run-progress, .reterm-run-progress-text)
 *
 * Shared helpers
 *   note(level, content)    → <div class="alert-message level">
 *   ms(v, [signed]), rate(bps), pct(fraction) → text, '–' when missing
 *       (formatting by reterm.units)
 */

const callStart = rpc.declare({ object: 'reterm.latency', method: 'test_start',
	params: [ 'endpoint', 'download_url', 'upload_url', 'streams', 'pause_shaping' ] });

/* what test_start's endpoint failures mean for the user: the router's
 * message names the endpoint and the reason; this is the way forward */
const ENDPOINT_ERRORS = [ 'dns_failed', 'unreachable', 'tls_failed', 'throttled', 'no_endpoint' ];
const callStatus = rpc.declare({ object: 'reterm.latency', method: 'test_status' });
const callLatencyStatus = rpc.declare({ object: 'reterm.latency', method: 'status' });
const callStop = rpc.declare({ object: 'reterm.latency', method: 'test_stop' });

const isObject = (v) => v !== null && typeof v === 'object';
const finite = (v) => typeof v === 'number' && isFinite(v);

function errorText(err) {
	if (!isObject(err) || err.error == null)
		return null;

	switch (err.error) {
	case 'pause_failed':
		return _('Shaping could not be paused for the test, so the test did not start: %s').format(err.message || '?');
	case 'internal':
		return _('The router could not run the test: %s').format(err.message || '?');
	case 'rpc':
		return _('The router did not answer: %s').format(err.message || '?');
	case 'invalid':
		return _('The router sent an answer that is not understood.');
	case 'no_daemon':
		return monitor.notRunningText();
	case 'no_test':
		return _('No test is running.');
	case 'busy':
		return _('A test is already running; its progress is shown below.');
	case 'invalid_argument':
		return _('The router refused the test settings: %s').format(err.message || err.error);
	case 'target_refused':
		return _('The router refused the test server: test servers must be public Internet addresses on port 80, 443 or 8080. A server on the local network can only be allowed by the router\'s administrator (option test_server in /etc/config/reterm_admin).');
	case 'too_soon':
		return _('A test was started or tried only a moment ago: wait %d s and start again.').format(+err.wait_s || 0);
	case 'ubus':
		return _('The router\'s reterm API is not available (ubus status %d). Is luci-app-reterm installed completely, and rpcd restarted after installing it?').format(err.status);
	}

	if (ENDPOINT_ERRORS.indexOf(err.error) >= 0)
		return _('The test could not start: %s. Retry, or choose another endpoint or your own test server under "Advanced".').format(err.message || err.error);

	return err.message || String(err.error);
}

/* the error object of a settled value, or null for a usable reply */
function toError(reply) {
	let err;

	if (typeof reply === 'number')
		err = reply === 0 ? null : { error: 'ubus', status: reply, message: rpc.getStatusText(reply) };
	else if (!isObject(reply))
		err = { error: 'invalid', message: null };
	else if (reply.error != null) {
		err = { error: String(reply.error), message: reply.message != null ? String(reply.message) : null };

		if (err.error === 'too_soon')
			err.wait_s = finite(+reply.wait_s) && +reply.wait_s > 0 ? Math.ceil(+reply.wait_s) : 0;

		if (reply.field != null)
			err.field = String(reply.field);

		if (finite(reply.status))
			err.status = reply.status;
	}
	else
		return null;

	err.text = errorText(err);
	return err;
}

/* uhttpd's answer for an object nobody publishes: reterm-latencyd is not
 * running (JSON-RPC error -32000, "Object not found") */
const NO_OBJECT = /error -32000: Object not found/;

function settle(p) {
	return Promise.resolve(p).then(
		(reply) => (reply === 0) ? {} : (toError(reply) || reply),
		(e) => {
			const msg = errtext.of(e);

			return toError({ error: NO_OBJECT.test(msg) ? 'no_daemon' : 'rpc', message: msg });
		});
}

const dash = (v) => (v == null ? '–' : v);

const ms = (v, signed) => dash(units.formatMs(v, signed));
const rate = (v) => dash(units.formatRate(finite(v) ? v : null));
const pct = (v) => dash(units.formatPercent(v));

function note(level, content) {
	return E('div', { 'class': 'alert-message ' + level }, Array.isArray(content) ? content : [ content ]);
}

/* the arguments of test_start checked here, so nothing bad is sent.
 * No URL: the router's built-in endpoints (endpoint: the one to try
 * first); URLs: both, and then no endpoint */
function checkStart(a) {
	const args = isObject(a) ? a : {},
	    text = (v) => String(v == null ? '' : v).trim(),
	    dl = text(args.download_url), ul = text(args.upload_url), ep = text(args.endpoint),
	    n = (args.streams == null || args.streams === '') ? String(monitor.DEFAULT_STREAMS) : String(args.streams).trim(),
	    bad = (field, label, why) => ({ field: field, message: label.format(why) });
	let why;

	if (dl !== '' || ul !== '') {
		if ((why = monitor.validateUrl(dl)) != null)
			return bad('download_url', _('Download URL: %s'), dl === '' ? _('give both URLs, or neither for the built-in endpoints') : why);

		if ((why = monitor.validateUrl(ul)) != null)
			return bad('upload_url', _('Upload URL: %s'), ul === '' ? _('give both URLs, or neither for the built-in endpoints') : why);
	}
	else if (ep !== '' && !/^[a-z0-9-]{1,32}$/.test(ep))
		return bad('endpoint', _('Endpoint: %s'), _('not an endpoint of the router'));

	if ((why = monitor.validateStreams(n)) != null)
		return bad('streams', _('Streams: %s'), why);

	const out = { streams: +n, pause_shaping: args.pause_shaping === true ? true : undefined };

	if (dl !== '') {
		out.download_url = dl;
		out.upload_url = ul;
	}
	else if (ep !== '')
		out.endpoint = ep;

	return out;
}

/* refused here: the text is the reason itself */
function refusal(a) {
	return Object.assign(toError({ error: 'invalid_argument', field: a.field, message: a.message }), { text: a.message });
}

function snapshot(reply) {
	const err = toError(reply);

	if (err)
		return { state: 'error', running: false, fraction: 0, percent: 0, phase: null, phaseIndex: null,
			label: err.text, elapsed: 0, total: 0, rtt: null, rx_bps: null, tx_bps: null,
			result: null, pause: null, error: err };

	const snap = monitor.progress(reply);

	snap.rtt = finite(reply.rtt) ? reply.rtt : null;
	snap.rx_bps = finite(reply.rx_bps) ? reply.rx_bps : null;
	snap.tx_bps = finite(reply.tx_bps) ? reply.tx_bps : null;
	snap.result = isObject(reply.result) ? reply.result : null;
	snap.pause = isObject(reply.pause) ? reply.pause : null;
	snap.error = null;

	return snap;
}

function progressText(snap) {
	const parts = [ snap.label ];

	if (snap.running) {
		if (snap.total)
			parts.push(_('%d s of %d s').format(Math.floor(snap.elapsed), snap.total));

		if (snap.rtt != null)
			parts.push(_('RTT %s').format(ms(snap.rtt)));

		if (snap.rx_bps != null || snap.tx_bps != null)
			parts.push(_('↓ %s ↑ %s').format(rate(snap.rx_bps), rate(snap.tx_bps)));
	}

	return parts.join(' · ');
}

function pauseText(pause) {
	if (!isObject(pause) || !Array.isArray(pause.ifaces) || !pause.ifaces.length)
		return null;

	const ifaces = pause.ifaces.map(String).join(', ');

	switch (pause.state) {
	case 'paused':
		return _('Shaping is paused on %s for this test; the router turns it back on when the test ends.').format(ifaces);
	case 'restored':
		return _('Shaping on %s is back on.').format(ifaces);
	case 'failed':
		return _('Shaping on %s could not be turned back on: %s').format(ifaces, pause.message || '?');
	}

	return null;
}

/* polls test_status while a test runs (and the page is visible) */
const Follower = baseclass.extend({
	__init__(onUpdate, interval) {
		this.onUpdate = onUpdate;
		this.interval = (finite(interval) && interval > 0) ? interval : 1;
		this.following = false;
		this.hidden = false;
		this.fn = () => this.tick();
	},

	start() {
		this.following = true;

		if (!this.hidden)
			poll.add(this.fn, this.interval);
	},

	stop() {
		this.following = false;
		poll.remove(this.fn);
	},

	setVisible(visible) {
		this.hidden = !visible;

		if (visible && this.following)
			poll.add(this.fn, this.interval);
		else
			poll.remove(this.fn);
	},

	tick() {
		return settle(callStatus()).then((reply) => {
			const snap = snapshot(reply);

			if (!snap.running)
				this.stop();

			return Promise.resolve(this.onUpdate(snap)).then(() => snap);
		});
	}
});

function progressView() {
	const bar = E('div'),
	    wrap = E('div', { 'class': 'cbi-progressbar', 'title': '0%', 'role': 'progressbar',
	    	'aria-valuemin': '0', 'aria-valuemax': '100', 'aria-valuenow': '0' }, [ bar ]),
	    text = E('div', { 'class': 'reterm-run-progress-text', 'aria-live': 'polite' }),
	    node = E('div', { 'class': 'reterm-run-progress' }, [ wrap, text ]);

	bar.style.width = '0%';

	return {
		node: node,
		update(snap) {
			node.style.display = (snap.state === 'idle') ? 'none' : '';
			bar.style.width = snap.percent + '%';
			wrap.setAttribute('title', _('%d%%').format(snap.percent));
			wrap.setAttribute('aria-valuenow', String(snap.percent));
			text.textContent = progressText(snap);
		}
	};
}

return baseclass.extend({
	__name__: 'reterm.guided',

	settle: settle,
	error: toError,
	errorText: errorText,
	note: note,
	ms: ms,
	rate: rate,
	pct: pct,
	snapshot: snapshot,
	progressText: progressText,
	pauseText: pauseText,
	progressView: progressView,

	check(args) {
		const a = checkStart(args);

		return a.field ? refusal(a) : null;
	},

	start(args) {
		const a = checkStart(args);

		if (a.field)
			return Promise.resolve(refusal(a));

		return settle(callStart(a.endpoint, a.download_url, a.upload_url, a.streams, a.pause_shaping));
	},

	status() {
		return settle(callStatus());
	},

	/* the router's built-in test endpoints [{id, name}], in the order it
	 * tries them; [] when it has none or does not answer */
	endpoints() {
		return settle(callLatencyStatus()).then((r) => (isObject(r) && Array.isArray(r.endpoints) ? r.endpoints : [])
			.filter((e) => isObject(e) && /^[a-z0-9-]{1,32}$/.test(e.id))
			.map((e) => ({ id: e.id, name: String(e.name || e.id) })));
	},

	/* what a started test says about its server: "Testing against …" */
	startedText(reply) {
		if (!isObject(reply) || !isObject(reply.endpoint))
			return null;

		const failed = Array.isArray(reply.tried) ? reply.tried.filter(isObject) : [];
		const text = _('Testing against %s.').format(String(reply.endpoint.name || reply.endpoint.id));

		return failed.length ? text + ' ' + _('Not used: %s').format(failed.map((t) => String(t.message || t.endpoint)).join('; ')) : text;
	},

	stop() {
		return settle(callStop());
	},

	follower(onUpdate, interval) {
		return new Follower(onUpdate, interval);
	}
});
