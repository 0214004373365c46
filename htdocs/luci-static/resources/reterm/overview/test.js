'use strict';
'require baseclass';
'require dom';
'require reterm.guided as testrun';
'require reterm.overview.result as overviewresult';
'require reterm.errtext as errtext';

/*
 * The Overview's test panel: the guided bufferbloat test (through
 * reterm.guided) with Start and Stop, its progress, what the router
 * said when it refused, and the newest result (reterm.overview.result).
 * Use as: 'require reterm.overview.test as overviewtest';
 *
 *   const t = overviewtest.create({
 *       form,          // node: the test settings (the view's form.Map)
 *       settings(),    // → {endpoint, download_url, upload_url, streams} as typed
 *       stage(),       // → Promise: keep the settings (staged in uci);
 *                      //   rejects with an Error when they cannot be kept
 *       status,        // the test_status reply of the page load
 *       newest,        // the newest stored result or null
 *       finished(r)    // a test this page followed ended (r: its result
 *                      //   or null); → Promise
 *   });
 *   t.node, t.setVisible(bool), t.handleStart(), t.handleStop()
 *
 * Start checks the settings first (nothing is staged or sent when one
 * is invalid), then stages them, then starts the test.
 */

const { note } = testrun;

/* test_status is polled every second while a test runs */
const INTERVAL = 1;

const TestPanel = baseclass.extend({
	__init__(opts) {
		this.opts = opts;
		this.running = false;
		this.watching = false;
		this.result = overviewresult.create();
		this.progress = testrun.progressView();
		this.follower = testrun.follower((snap) => this.onStatus(snap), INTERVAL);

		/* plain listeners, not ui.createHandlerFn: that one re-enables
		 * the button when the handler ends, Start must stay disabled
		 * while the test runs */
		this.el = {
			start: E('button', { 'class': 'cbi-button cbi-button-apply reterm-ov-start',
				'click': () => this.handleStart() }, [ _('Start test') ]),
			stop: E('button', { 'class': 'cbi-button cbi-button-reset reterm-ov-stop', 'disabled': '',
				'click': () => this.handleStop() }, [ _('Stop') ]),
			msg: E('div', { 'class': 'reterm-ov-test-msg' }),
			pause: E('div', { 'class': 'reterm-ov-pause' })
		};
		this.node = E('div', { 'class': 'cbi-section reterm-ov-test' }, [
			E('h3', {}, [ _('Bufferbloat test') ]),
			E('div', { 'class': 'cbi-section-descr' }, [
				_('Loads the line for 44 seconds – download, upload, then both, with short pauses – while probing the latency every 50 ms, and grades how much latency the load adds (A+ below 5 ms, F from 400 ms). The router itself downloads from and uploads to a plain-HTTP test server with more capacity than your line, for example one on a VPS or one your ISP offers; https:// does not work, the router\'s test client has no TLS.') ]),
			opts.form || '',
			E('div', { 'class': 'reterm-ov-actions' }, [ this.el.start, this.el.stop ]),
			this.el.msg,
			this.el.pause,
			this.progress.node,
			this.result.node
		]);

		this.progress.update(testrun.snapshot({ state: 'idle' }));

		if (opts.newest)
			this.result.show(opts.newest);

		const st = opts.status;

		if (st && !st.error && st.state === 'running')
			this.follow(testrun.snapshot(st));
		else if (st && st.error === 'no_daemon')
			this.message('danger', st.text);
	},

	setVisible(visible) {
		this.follower.setVisible(visible);
	},

	message(level, text) {
		dom.content(this.el.msg, text ? note(level, text) : []);
	},

	setRunning(running) {
		this.running = running;
		this.el.start.disabled = running;
		this.el.stop.disabled = !running;
		this.result.setStale(running);
	},

	/* a test runs: show it and poll its status */
	follow(snap) {
		this.setRunning(true);
		this.show(snap);
		this.watching = true;

		if (!this.follower.following)
			this.follower.start();
	},

	show(snap) {
		const pause = testrun.pauseText(snap.pause);

		this.progress.update(snap);
		dom.content(this.el.pause, pause ? note('notice', pause) : []);
	},

	onStatus(snap) {
		if (snap.error) {
			this.follower.stop();
			this.watching = false;
			this.setRunning(false);
			this.message('danger', snap.error.text);
			return Promise.resolve();
		}

		if (snap.running) {
			this.follow(snap);
			return Promise.resolve();
		}

		const followed = this.running || this.watching;

		this.follower.stop();
		this.watching = false;
		this.setRunning(false);
		this.show(snap);

		if (!followed)
			return Promise.resolve();

		if (snap.result)
			this.result.show(snap.result);

		return Promise.resolve(this.opts.finished(snap.result));
	},

	handleStart() {
		const args = this.opts.settings(), bad = testrun.check(args);

		if (bad) {
			this.message('danger', bad.text);
			return Promise.resolve();
		}

		this.message(null);
		this.el.start.disabled = true;

		return Promise.resolve().then(() => this.opts.stage()).then(() => testrun.start(args), (e) => ({
			error: 'not_saved', text: _('The test settings could not be saved: %s').format(errtext.of(e))
		})).then((reply) => {
			if (!reply.error) {
				this.message(testrun.startedText(reply) ? 'info' : null, testrun.startedText(reply));
				this.follow(testrun.snapshot({ state: 'running', total: reply.total, elapsed: 0, progress: 0,
					phase: 'idle', phase_index: 0 }));
				return;
			}

			this.message(reply.error === 'busy' ? 'notice' : 'danger', reply.text);
			this.el.start.disabled = this.running;

			/* another test runs: follow that one */
			if (reply.error === 'busy') {
				this.watching = true;
				this.follower.start();
			}
		});
	},

	handleStop() {
		this.el.stop.disabled = true;

		return testrun.stop().then((reply) => {
			/* no test running (it ended meanwhile) or no daemon: the
			 * status tells which */
			if (reply.error === 'no_test' || reply.error === 'no_daemon')
				return this.follower.tick();

			return this.onStatus(testrun.snapshot(reply));
		});
	}
});

return baseclass.extend({
	__name__: 'reterm.overview.test',

	create: (opts) => new TestPanel(opts || {})
});
