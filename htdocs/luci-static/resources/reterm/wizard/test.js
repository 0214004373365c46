'use strict';
'require baseclass';
'require dom';
'require poll';
'require reterm.wizard.steps as steps';
'require reterm.wizard.pause as pause';
'require reterm.wizard.panels as panels';
'require reterm.guided as testrun';

/*
 * The guided test inside the setup wizard (steps 2 and 4), on top of
 * reterm.guided: the test box (URLs, result, start buttons, progress,
 * the countdown of reterm-latencyd's gap between tests), following the test, and
 * the router's shaping pause of the "before" measurement (test_start
 * with pause_shaping; reterm-latencyd stops and restarts sqm itself, so a closed
 * page cannot leave shaping off). The view hands itself in as `host`:
 * host.state, host.ctx, host.body, host.record(ev), host.fail(kind,
 * text, code), host.go(step) and host.show().
 * Use as: 'require reterm.wizard.test as wizardtest';
 *   const run = wizardtest.create(view);
 */

const note = testrun.note;

const Run = baseclass.extend({
	__init__(host) {
		this.host = host;
		this.running = null;		/* 'before' | 'after' while a test is followed */
		this.waiting = null;		/* { kind, left } during the countdown */
		this.pause = pause.status(host.ctx.monitor);	/* reterm-latencyd's pause record */
		this.seen = false;		/* this page followed that pause */
		this.pauseBox = E('div', { 'class': 'reterm-wizard-pause' });
		this.follower = testrun.follower((snap) => this.update(snap));
	},

	/* ---- what the steps show ---------------------------------------------- */

	/**
	 * The note on the router's pause (the view puts it under the title);
	 * "back on" only where the measurement is (step 2).
	 */
	pauseNote(measuring) {
		const n = pause.note(this.pause, this.seen && measuring !== false);

		dom.content(this.pauseBox, n ? [ note(n.level, n.failed ? [ n.text, ' ',
			E('a', { 'class': 'cbi-button reterm-wizard-shaping', 'href': L.url('admin/network/reterm/shaping') }, [ _('Go to the Shaping page') ]) ]
			: n.text) ] : []);

		return this.pauseBox;
	},

	/** The test box of step 2 ("before") or 4 ("after"). */
	box(kind) {
		const h = this.host, c = h.ctx, box = E('div', { 'class': 'reterm-wizard-test' });

		if (!c.monitorUp)
			dom.content(box, this.failure(testrun.errorText({ error: 'no_daemon' }), kind));
		else if (this.running === kind)
			dom.content(box, this.progressBox());
		else if (this.waiting && this.waiting.kind === kind)
			dom.content(box, this.countdownBox());
		else
			dom.content(box, this.startBox(kind, (kind === 'before') ? h.state.before : h.state.after));

		return box;
	},

	/** A failed test and the ways forward. */
	failure(text, kind, code) {
		const h = this.host, btn = panels.button;

		return [
			note('danger', text),
			E('div', { 'class': 'reterm-wizard-ways' }, [
				btn('cbi-button-action reterm-wizard-retry', _('Retry'), () => testrun.status().then((r) => {
					h.ctx.monitorUp = (r.error !== 'no_daemon');
					h.fail(null);
					h.show();
				})), ' ',
				(code === 'pause_failed') ? btn('cbi-button-neutral reterm-wizard-asis', _('Measure with shaping on'), () => this.start('before', true)) : '',
				(code === 'pause_failed') ? ' ' : '',
				(kind === 'before')
					? btn('cbi-button-neutral reterm-wizard-skip', _('Skip shaping, go to the devices'), () => {
						h.record({ type: 'skipApply' });
						return h.go('devices');
					})
					: btn('cbi-button-neutral reterm-wizard-skip', _('Skip the check'), () => h.go('devices')),
				' ',
				E('a', { 'class': 'cbi-button reterm-wizard-shaping', 'href': L.url('admin/network/reterm/shaping') }, [ _('Go to the Shaping page') ])
			])
		];
	},

	/* URLs (when needed), the last result, the start buttons */
	startBox(kind, result) {
		const h = this.host, c = h.ctx;

		const take = () => {
			c.downloadUrl = dl.value.trim() || c.downloadUrl;
			c.uploadUrl = ul.value.trim() || c.uploadUrl;
		};

		/* typed URLs go to the state at once: LuCI reloads the page after an apply */
		const typing = () => {
			take();
			h.record({ type: 'urls', download: dl.value, upload: ul.value });
		};

		const url = (id, value) => E('input', { 'type': 'text', 'class': 'cbi-input-text', 'id': id, 'value': value, 'placeholder': 'https://…', 'input': typing }),
		      dl = url('reterm-wizard-dl', c.downloadUrl), ul = url('reterm-wizard-ul', c.uploadUrl),
		      typed = h.state.urls || {}, parts = [];

		/* no URL needed: the router's public endpoints; a server of one's
		 * own under "Advanced", open when URLs are set */
		parts.push(E('details', { 'class': 'reterm-wizard-urls', 'open': (c.downloadUrl || c.uploadUrl || typed.download || typed.upload) ? '' : null }, [
			E('summary', {}, [ _('Advanced') ]),
			E('p', {}, [ _('The test runs against a public speed-test endpoint (the one chosen on the Overview page, else the first that works). To use a test server of your own instead, give both URLs.') ]),
			E('label', {}, [ _('Download URL'), ' ', dl ]), E('br'), E('label', {}, [ _('Upload URL'), ' ', ul ])
		]));

		if (result)
			parts.push(panels.result(result));

		parts.push(panels.button('cbi-button-action reterm-wizard-start', result ? _('Measure again') : _('Start the test'), () => {
			take();
			return this.start(kind, false);
		}));

		if (kind === 'before' && c.shapingOn)
			parts.push(' ', panels.button('cbi-button-neutral reterm-wizard-asis', _('Measure with shaping on'), () => {
				take();
				return this.start(kind, true);
			}));

		return parts;
	},

	progressBox() {
		this.progress = testrun.progressView();
		this.progress.update(this.snap || testrun.snapshot({ state: 'running', progress: 0 }));

		return E('div', { 'class': 'reterm-wizard-running' }, [ this.progress.node,
			panels.button('cbi-button-negative reterm-wizard-stop', _('Stop'), () => this.stop()) ]);
	},

	countdownBox() {
		return E('div', { 'class': 'reterm-wizard-running reterm-wizard-waiting' }, [
			E('p', { 'class': 'spinning reterm-wizard-countdown' }, [ steps.countdownText(this.waiting.left) ]),
			panels.button('cbi-button-negative reterm-wizard-stop', _('Stop'), () => {
				this.stopCountdown();
				this.host.show();
			})
		]);
	},

	/* ---- the test ---------------------------------------------------------- */

	/**
	 * test_start. The "before" test asks the router to pause shaping
	 * unless asIs (the user measures with shaping on).
	 */
	start(kind, asIs) {
		const h = this.host, c = h.ctx, pauseIt = (kind === 'before' && !asIs);

		this.stopCountdown();
		h.fail(null);

		return testrun.start({ endpoint: c.endpoint, download_url: c.downloadUrl, upload_url: c.uploadUrl, streams: c.streams,
			pause_shaping: pauseIt || undefined }).then((r) => {
			const wait = steps.waitSeconds(r);

			/* reterm-latencyd keeps a gap between tests: wait for it, then start */
			if (wait !== null)
				return this.countdown(kind, asIs, wait);

			if (r.error) {
				c.monitorUp = c.monitorUp && r.error !== 'no_daemon';
				h.fail(kind, (r.error === 'busy') ? _('A test is already running on the router; wait for it to finish and retry.') : r.text, r.error);
				return h.show();
			}

			const paused = pauseIt ? (pause.paused(r) || []) : null;

			h.record({ type: 'testStarted', kind, id: r.id, paused });

			if (paused && paused.length)
				this.setPause({ ifaces: paused, state: 'paused', until: null, message: null }, true);

			this.follow(kind, null);
		});
	},

	/* follow the test that runs now (snap: its status, if known) */
	follow(kind, snap) {
		this.running = kind;
		this.snap = snap;
		this.follower.start();
		this.host.show();
	},

	/* a test_status from the follower */
	update(snap) {
		const kind = this.running, t = this.host.state.test;

		if (!kind)
			return;

		if (t && t.paused && t.paused.length && !snap.error)
			this.setPause(pause.status(snap), true);

		if (snap.running) {
			this.snap = snap;
			return this.progress && this.progress.update(snap);
		}

		this.running = null;
		this.snap = null;

		return this.finish(kind, snap);
	},

	/* the test ended (snap: the last status) */
	finish(kind, snap) {
		const h = this.host, t = h.state.test || {}, err = snap.error ? (snap.error.message || snap.error.text) : null;
		let result = snap.result;

		/* only the test this wizard started counts */
		if (result && t.id != null && result.id != null && String(result.id) !== t.id)
			result = null;

		const problem = steps.testProblem(result, err);

		if (problem) {
			h.fail(kind, problem, steps.problemCode(result, err));
			h.record({ type: 'testEnded' });
		}
		else
			h.record((kind === 'before')
				? { type: 'measured', result, asIs: t.paused === null && h.ctx.shapingOn }
				: { type: 'verified', result });

		this.watchPause();
		h.show();
	},

	stop() {
		const t = this.host.state.test;

		return testrun.stop().then((r) => {
			this.follower.stop();
			this.running = null;
			this.snap = null;

			/* the router ends the pause as the test stops */
			if (t && t.paused && t.paused.length && !r.error)
				this.setPause(pause.status(r), true);

			this.host.record({ type: 'testEnded' });
			this.watchPause();
			this.host.show();
		});
	},

	/**
	 * After a reload: pick up the test this wizard had started (still
	 * running: follow it; ended: take its result).
	 */
	resume() {
		const t = this.host.state.test;

		if (!t)
			return Promise.resolve();

		return testrun.status().then((r) => {
			const snap = testrun.snapshot(r);

			if (t.paused && t.paused.length)
				this.setPause(pause.status(snap), true);

			if (snap.running)
				return this.follow(t.kind, snap);

			return this.finish(t.kind, snap);
		});
	},

	/* ---- the router's pause ----------------------------------------------- */

	setPause(p, seen) {
		this.pause = p;
		this.seen = this.seen || !!seen;
		this.pauseNote(this.host.state.step === 'measure');
	},

	/* until the router reports shaping back on (or failing to) */
	watchPause() {
		if (pause.settled(this.pause) || this.watchFn)
			return;

		this.watchFn = () => testrun.status().then((r) => {
			/* no reterm-latencyd to ask (it restores a left-over pause when it starts) */
			if (r.error === 'no_daemon')
				return this.stopWatch();

			if (r.error)
				return;

			this.setPause(pause.status(r), true);

			if (pause.settled(this.pause))
				this.stopWatch();
		});

		poll.add(this.watchFn, 1);
	},

	stopWatch() {
		if (this.watchFn)
			poll.remove(this.watchFn);

		this.watchFn = null;
	},

	/* ---- reterm-latencyd's gap between tests -------------------------------------- */

	countdown(kind, asIs, secs) {
		const until = Date.now() + secs * 1000, fn = () => {
			if (this.countFn !== fn)
				return;

			const left = steps.secondsLeft(until, Date.now()), el = this.host.body.querySelector('.reterm-wizard-countdown');

			this.waiting.left = left;

			if (left > 0)
				return el && dom.content(el, [ steps.countdownText(left) ]);

			this.stopCountdown();
			return this.start(kind, asIs);
		};

		this.stopCountdown();
		this.waiting = { kind, left: secs };
		this.countFn = fn;
		this.host.show();
		poll.add(fn, 1);
	},

	stopCountdown() {
		if (this.countFn)
			poll.remove(this.countFn);

		this.countFn = null;
		this.waiting = null;
	},

	/** Stop following and waiting (cancel); a running test is stopped, the router ends its pause. */
	cancel() {
		if (this.running)
			testrun.stop();

		this.follower.stop();
		this.running = null;
		this.stopCountdown();
		this.stopWatch();
	}
});

return baseclass.extend({
	__name__: 'reterm.wizard.test',

	create(host) {
		return new Run(host);
	}
});
