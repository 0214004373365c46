'use strict';
'require view';
'require uci';
'require rpc';
'require ui';
'require dom';
'require poll';
'require fs';
'require reterm.wizard as wizard';
'require reterm.wizardsteps as steps';
'require reterm.shaping as shaping';
'require reterm.tcpreview as tcpreview';
'require reterm.graph as graph';
'require reterm.units as units';
'require reterm.devices as devices';

/*
 * Network → Re-termination → Wizard: from a slow, bloated line to a fixed one in
 * five steps (look, measure, propose, apply & verify, devices).
 *
 * The step logic is reterm.wizard (pure); this view reads, runs the
 * guided test (test_start / test_status polling) and stages changes only
 * when the user applies a step: the sqm queue in step 4, the reterm
 * device sections and main.enabled in step 5, each applied at once with
 * LuCI's apply with rollback (ui.changes.apply(true)). To measure with
 * shaping off, step 2 turns the enabled sqm queues off the same way for
 * the test and back on when it ends (also on failure, stop and cancel).
 * That apply only starts when ui.changes.apply() returns; LuCI confirms
 * it in the background and reloads the page. So a test runs only once
 * retermd reports the shaping it should (waitShaping()), and the wizard
 * state (typed URLs included) lives in sessionStorage: the page can be
 * left (or reloaded by the apply) and resumed. Cancel forgets the state
 * and, when a step was already applied, puts the values from before the
 * wizard back.
 */

var STORAGE_KEY = 'reterm-wizard';

var CSS = [
	'.reterm-wizard-steps { display: flex; flex-wrap: wrap; gap: .4em; list-style: none; padding: 0; margin: 1em 0; counter-reset: none; }',
	'.reterm-wizard-step { padding: .35em .9em; border-radius: 1em; border: 1px solid rgba(127,127,127,.35); opacity: .65; white-space: nowrap; }',
	'.reterm-wizard-step.done { opacity: 1; }',
	'.reterm-wizard-step.active { opacity: 1; font-weight: 600; border-color: currentColor; }',
	'.reterm-wizard-body { margin: 0 0 1em; }',
	'.reterm-wizard-body h4 { margin: 1em 0 .3em; }',
	'.reterm-wizard-facts { width: auto; }',
	'.reterm-wizard-facts td:first-child { font-weight: 600; padding-right: 2em; }',
	'.reterm-wizard-hosts, .reterm-wizard-offers { list-style: none; padding: 0; margin: .3em 0; }',
	'.reterm-wizard-hosts li, .reterm-wizard-offers li { padding: .25em 0; }',
	'.reterm-wizard-offers .cbi-value-description { margin-left: 1.8em; }',
	'.reterm-wizard-test, .reterm-wizard-compare { margin: .8em 0; }',
	/* one label, under the bar: themes draw the bar's title over it
	 * (bootstrap: above the bar, over the note before it) */
	'.reterm-wizard-running .cbi-progressbar { margin: .6em 0 .3em; }',
	'.reterm-wizard-running .cbi-progressbar::before, .reterm-wizard-running .cbi-progressbar::after { content: none !important; display: none !important; }',
	'.reterm-wizard-countdown { font-variant-numeric: tabular-nums; }',
	'.reterm-wizard-progress-text { font-variant-numeric: tabular-nums; }',
	'.reterm-wizard-grade { font-size: 1.1em; }',
	'.reterm-wizard-compare table td:not(:first-child), .reterm-wizard-compare table th { font-variant-numeric: tabular-nums; }',
	'.reterm-wizard-urls label { display: inline-block; margin: .2em 0; }',
	'.reterm-wizard-nav { display: flex; gap: .5em; justify-content: flex-end; }'
].join('\n');

var callHosts = rpc.declare({ object: 'reterm', method: 'hosts', expect: { hosts: [] } });
var callMonitorStatus = rpc.declare({ object: 'reterm', method: 'monitor_status' });
var callTestStart = rpc.declare({ object: 'reterm', method: 'test_start', params: [ 'download_url', 'upload_url', 'streams' ] });
var callTestStatus = rpc.declare({ object: 'reterm', method: 'test_status' });
var callTestStop = rpc.declare({ object: 'reterm', method: 'test_stop' });
var callServerRtts = rpc.declare({ object: 'reterm', method: 'server_rtts' });
/* the WAN device, its link speed, flow offloading: never uci network/firewall */
var callWanInfo = rpc.declare({ object: 'reterm', method: 'wan_info' });

function settle(p) {
	return Promise.resolve(p).then(function(r) {
		return (r != null && typeof r === 'object') ? r : { error: 'rpc', message: _('No answer (ubus code %s)').format(r) };
	}, function(e) {
		return { error: 'rpc', message: e.message };
	});
}

function note(level, children) {
	return E('div', { 'class': 'alert-message ' + level }, Array.isArray(children) ? children : [ children ]);
}

function btn(cls, label, fn) {
	return E('button', { 'class': 'cbi-button ' + cls, 'click': fn }, [ label ]);
}

function mbit(bps) {
	return (typeof bps === 'number' && isFinite(bps)) ? units.formatRate(bps, 3) : '–';
}

function ms(v) {
	return (typeof v === 'number' && isFinite(v)) ? _('%s ms').format(Math.round(v * 10) / 10) : '–';
}

return view.extend({
	load: function() {
		return Promise.all([
			L.resolveDefault(uci.load('sqm').then(function() { return true }), false),
			L.resolveDefault(callWanInfo(), null),
			L.resolveDefault(uci.load('reterm'), null),
			L.resolveDefault(callHosts(), null),
			settle(callMonitorStatus()),
			L.resolveDefault(fs.read('/usr/lib/sqm/defaults.sh'), null),
			L.resolveDefault(callServerRtts(), null)
		]);
	},

	/* ---- storage -------------------------------------------------------- */

	storage: function() {
		try {
			if (window.sessionStorage)
				return window.sessionStorage;
		}
		catch (e) {}

		var mem = this.mem = this.mem || {};

		return {
			getItem: function(k) { return mem.hasOwnProperty(k) ? mem[k] : null },
			setItem: function(k, v) { mem[k] = String(v) },
			removeItem: function(k) { delete mem[k] }
		};
	},

	save: function() {
		try { this.storage().setItem(STORAGE_KEY, JSON.stringify(wizard.serialize(this.state))) } catch (e) {}
	},

	forget: function() {
		try { this.storage().removeItem(STORAGE_KEY) } catch (e) {}
	},

	/* ---- context -------------------------------------------------------- */

	context: function(data) {
		var fw = shaping.wanInfo(data[1]),
		    wan = wizard.wan(fw.wan),
		    device = wan ? shaping.wanDevice(wan) : null,
		    queues = data[0] ? uci.sections('sqm', 'queue') : [],
		    queue = queues.filter(function(q) { return q.interface === device })[0] || null,
		    mon = data[4] || {},
		    mcfg = uci.get('reterm', 'monitor') || {};

		return {
			sqmInstalled: data[0] === true,
			wan: wan, device: device, proto: wan ? String(wan.proto || '') : '',
			linkMbit: (wan && wan.speed > 0) ? wan.speed : null,
			queue: queue,
			shapingOn: queues.some(function(q) { return q.enabled === '1' }),
			offload: fw.offload, offloadHw: fw.offloadHw,
			hosts: Array.isArray(data[3]) ? data[3] : null,
			monitorUp: !mon.error,
			monitorError: mon.error ? (mon.message || mon.error) : null,
			downloadUrl: mcfg.download_url || '', uploadUrl: mcfg.upload_url || '',
			streams: +(mcfg.streams || 4) || 4,
			profile: tcpreview.profileFromDefaults(data[5]) || '1.6',
			servers: wizard.serverRtts(data[6])
		};
	},

	snapshot: function() {
		var q = this.ctx.queue;

		return {
			sqm: q ? { sid: q['.name'], values: q } : null,
			retermEnabled: String(uci.get('reterm', 'main', 'enabled') || '0')
		};
	},

	/* ---- frame ---------------------------------------------------------- */

	render: function(data) {
		this.ctx = this.context(data);

		var saved = null;

		try { saved = this.storage().getItem(STORAGE_KEY) } catch (e) {}

		saved = saved && wizard.restore(saved);

		/* LuCI reloads the page after an apply of the wizard: not a return */
		var arrival = steps.arrive(saved, Date.now());

		this.state = arrival.state || wizard.create(this.snapshot());
		this.resumed = arrival.resumed;
		this.failed = steps.failure(this.state);

		if (saved)
			this.save();

		/* test URLs typed before LuCI reloaded the page */
		[ 'download', 'upload' ].forEach(function(k) { this.ctx[k + 'Url'] = (this.state.urls || {})[k] || this.ctx[k + 'Url'] }, this);

		this.header = E('ol', { 'class': 'reterm-wizard-steps' });
		this.body = E('div', { 'class': 'reterm-wizard-body' });
		this.nav = E('div', { 'class': 'reterm-wizard-nav cbi-page-actions' });

		this.show();

		/* a measurement with shaping off was under way (LuCI reloads the
		 * page after an apply): carry on, or put shaping back */
		if (this.state.paused)
			Promise.resolve().then(L.bind(this.continuePause, this));

		return E('div', { 'class': 'reterm-wizard' }, [
			E('style', {}, [ CSS ]),
			E('h2', {}, [ _('Setup wizard') ]),
			E('p', {}, [ _('Five steps from a slow, bloated line to a fixed one: look at the router, measure the line, set up shaping from what was measured, check the result, and help the devices with small TCP windows. Nothing is changed until you apply a step; you can leave and come back.') ]),
			this.header, this.body, this.nav
		]);
	},

	titles: function() {
		return { look: _('Look'), measure: _('Measure'), propose: _('Propose'), apply: _('Apply & verify'), devices: _('Devices') };
	},

	go: function(step) {
		this.state = steps.setFailure(wizard.go(this.state, step), null);
		this.failed = null;
		this.save();
		this.show();
	},

	record: function(ev) {
		this.state = wizard.record(this.state, ev);
		this.save();
	},

	/* a failed test (null: none); kept in the state, so that it is still
	 * shown after the reload of the apply that turns shaping back on */
	fail: function(kind, text, code) {
		this.failed = text ? { kind: kind, text: text, code: code || null } : null;
		this.state = steps.setFailure(this.state, this.failed);
		this.save();
	},

	/* LuCI's apply with rollback; it reloads the page once confirmed */
	applyChanges: function() {
		this.state = steps.expectReload(this.state, Date.now());
		this.save();

		return ui.changes.apply(true);
	},

	show: function() {
		var self = this, st = this.state, titles = this.titles(), cur = wizard.index(st.step);

		dom.content(this.header, wizard.STEPS.map(function(s, i) {
			var cls = (i === cur) ? 'active' : (i <= st.reached) ? 'done' : 'todo';

			return E('li', { 'class': 'reterm-wizard-step ' + cls, 'data-step': s }, [
				(i !== cur && wizard.canEnter(st, s) && i <= st.reached)
					? E('a', { 'href': '#', 'click': function(ev) { ev && ev.preventDefault && ev.preventDefault(); self.go(s) } },
						[ _('%d. %s').format(i + 1, titles[s]) ])
					: _('%d. %s').format(i + 1, titles[s])
			]);
		}));

		var content = this['step_' + st.step]();

		dom.content(this.body, [ E('h3', {}, [ titles[st.step] ]) ].concat(
			this.resumed ? [ note('info', _('Resumed where you left the wizard.')) ] : [], content));
		this.resumed = false;

		if (this.afterShow) {
			var fn = this.afterShow;
			this.afterShow = null;
			fn();
		}

		var back = (cur > 0) ? btn('cbi-button-neutral reterm-wizard-back', _('Back'), function() { return self.go(wizard.STEPS[cur - 1]) }) : '',
		    next = (cur + 1 < wizard.STEPS.length && wizard.canEnter(st, wizard.STEPS[cur + 1]) && st.step !== 'propose')
		    	? btn('cbi-button-action reterm-wizard-next', _('Next'), function() { return self.go(wizard.STEPS[cur + 1]) }) : '';

		dom.content(this.nav, [
			btn('cbi-button-reset reterm-wizard-cancel', _('Cancel wizard'), function() { return self.cancel() }), ' ', back, ' ', next
		]);
	},

	/* ---- step 1: look --------------------------------------------------- */

	step_look: function() {
		var c = this.ctx, self = this, out = [], rows = [];

		if (!c.sqmInstalled)
			out.push(note('danger', _('sqm-scripts is not installed (/etc/config/sqm is missing). Install the sqm-scripts package to use shaping; you can still set up the devices.')));

		rows.push([ _('Internet (WAN) device'), c.device
			? ((c.proto === 'pppoe' || c.proto === 'pppoa') ? _('%s (PPPoE on %s)').format(c.device, c.wan.device || '?') : _('%s (%s)').format(c.device, c.proto || '?'))
			: _('not found') ]);
		rows.push([ _('Shaping (sqm)'), c.queue
			? (c.queue.enabled === '1'
				? _('on: %s down, %s up').format(mbit(+c.queue.download * 1000), mbit(+c.queue.upload * 1000))
				: _('configured, off'))
			: (c.shapingOn ? _('on, for another device') : _('off')) ]);
		rows.push([ _('Flow offloading'), c.offloadHw ? _('hardware (bypasses shaping)') : c.offload ? _('software (fine)') : _('off') ]);

		out.push(E('table', { 'class': 'table reterm-wizard-facts' }, rows.map(function(r) {
			return E('tr', { 'class': 'tr' }, [ E('td', { 'class': 'td left' }, [ r[0] ]), E('td', { 'class': 'td left' }, [ r[1] ]) ]);
		})));

		if (!c.device)
			out.push(note('warning', _('No WAN device was found. Check Network → Interfaces, or set up shaping by hand on the Shaping page.')));

		if (c.offloadHw)
			out.push(note('warning', _('Hardware flow offloading is on (Network → Firewall). Offloaded connections bypass the queue, so shaping cannot work. Turn hardware offloading off; software offloading is fine.')));

		var cable = E('input', { 'type': 'checkbox', 'id': 'reterm-wizard-docsis', 'checked': this.state.docsis ? '' : null,
			'change': function(ev) { self.state.docsis = !!ev.target.checked; self.save() } });

		out.push(E('p', {}, [ E('label', {}, [ cable, ' ', _('My Internet comes through a cable (DOCSIS) modem') ]) ]));

		var hosts = c.hosts;

		out.push(E('h4', {}, [ _('Devices on your network') ]));

		if (hosts === null)
			out.push(note('info', _('The host list is not available (is the reterm service installed?).')));
		else if (!hosts.length)
			out.push(E('p', {}, [ _('No devices found yet.') ]));
		else
			out.push(E('ul', { 'class': 'reterm-wizard-hosts' }, wizard.sortHosts(hosts).map(function(h) {
				var b = devices.badge(h['class']);

				return E('li', {}, [ b ? E('span', { 'class': b.cls }, [ b.text ]) : '', b ? ' ' : '',
					h.name || h.mac, ' ', E('small', {}, [ (h.ipv4 || [])[0] || '' ]) ]);
			})));

		return out;
	},

	/* ---- step 2 / 4: the test ------------------------------------------- */

	/* "before" (step 2) or "after" (step 4) */
	testBox: function(kind) {
		var self = this, c = this.ctx, box = E('div', { 'class': 'reterm-wizard-test' }),
		    result = (kind === 'before') ? this.state.before : this.state.after;

		if (!c.monitorUp) {
			dom.content(box, this.failure(wizard.startError({ error: 'not_running' }), kind));
			return box;
		}

		if (kind === 'before' && this.pauseBusy()) {
			dom.content(box, this.pauseView());
			return box;
		}

		if (this.running === kind) {
			dom.content(box, [ kind === 'before' && this.state.paused ? this.pauseNote() : '', this.progress(null) ]);
			return box;
		}

		if (this.waiting && this.waiting.kind === kind) {
			dom.content(box, this.countdownView(kind));
			return box;
		}

		var take = function() {
			c.downloadUrl = dl.value.trim() || c.downloadUrl;
			c.uploadUrl = ul.value.trim() || c.uploadUrl;
		};

		/* typed URLs go to the state at once: LuCI reloads the page after an apply */
		var typing = function() {
			take();
			self.record({ type: 'urls', download: dl.value, upload: ul.value });
		};

		var dl = E('input', { 'type': 'text', 'class': 'cbi-input-text', 'id': 'reterm-wizard-dl', 'value': c.downloadUrl, 'placeholder': 'http://…', 'input': typing }),
		    ul = E('input', { 'type': 'text', 'class': 'cbi-input-text', 'id': 'reterm-wizard-ul', 'value': c.uploadUrl, 'placeholder': 'http://…', 'input': typing }),
		    typed = this.state.urls || {}, parts = [];

		if (!c.downloadUrl || !c.uploadUrl || typed.download || typed.upload)
			parts.push(E('div', { 'class': 'reterm-wizard-urls' }, [
				E('p', {}, [ _('The test needs a large file to download and an address that accepts uploads (set them once on the Overview page).') ]),
				E('label', {}, [ _('Download URL'), ' ', dl ]), E('br'), E('label', {}, [ _('Upload URL'), ' ', ul ])
			]));

		if (result)
			parts.push(this.resultView(result));

		parts.push(btn('cbi-button-action reterm-wizard-start', result ? _('Measure again') : _('Start the test'), function() {
			take();
			return (kind === 'before') ? self.measure() : self.startTest(kind);
		}));

		if (kind === 'before' && this.pauseTargets().length)
			parts.push(' ', btn('cbi-button-neutral reterm-wizard-asis', _('Measure with shaping on'), function() {
				take();
				return self.startTest(kind);
			}));

		dom.content(box, parts);
		return box;
	},

	failure: function(text, kind) {
		var self = this;

		return [
			note('danger', text),
			E('div', { 'class': 'reterm-wizard-ways' }, [
				btn('cbi-button-action reterm-wizard-retry', _('Retry'), function() {
					return settle(callMonitorStatus()).then(function(r) {
						self.ctx.monitorUp = !r.error;
						self.fail(null);
						self.show();
					});
				}), ' ',
				(kind === 'before')
					? btn('cbi-button-neutral reterm-wizard-skip', _('Skip shaping, go to the devices'), function() {
						self.record({ type: 'skipApply' });
						return self.go('devices');
					})
					: btn('cbi-button-neutral reterm-wizard-skip', _('Skip the check'), function() { return self.go('devices') }),
				' ',
				E('a', { 'class': 'cbi-button reterm-wizard-shaping', 'href': L.url('admin/network/reterm/shaping') }, [ _('Go to the Shaping page') ])
			])
		];
	},

	progress: function(s) {
		var pct = s && typeof s.progress === 'number' ? Math.round(s.progress * 100) : 0,
		    names = { idle: _('idle'), download: _('download'), upload: _('upload'), both: _('both directions'), cooldown: _('cooldown') },
		    label = s && s.phase ? _('Measuring: %s – %d %%').format(names[s.phase] || s.phase, pct) : _('Starting the test…');

		return E('div', { 'class': 'reterm-wizard-running' }, [
			E('div', { 'class': 'cbi-progressbar reterm-wizard-progress', 'role': 'progressbar', 'aria-valuenow': pct, 'aria-valuemin': 0, 'aria-valuemax': 100 },
				[ E('div', { 'style': 'width:%d%%'.format(pct) }) ]),
			E('p', { 'class': 'reterm-wizard-progress-text' }, [ label,
				(s && s.rtt != null) ? ' · ' + _('latency now %s').format(ms(s.rtt)) : '' ]),
			btn('cbi-button-negative reterm-wizard-stop', _('Stop'), L.bind(this.stopTest, this))
		]);
	},

	startTest: function(kind) {
		var self = this, c = this.ctx;

		if (!c.downloadUrl || !c.uploadUrl) {
			ui.addNotification(null, E('p', {}, [ _('Enter the download and upload URL first.') ]), 'warning');
			return Promise.resolve();
		}

		this.stopCountdown();

		return settle(callTestStart(c.downloadUrl, c.uploadUrl, c.streams)).then(function(r) {
			var wait = steps.waitSeconds(r);

			/* retermd keeps a gap between tests: wait for it, then start */
			if (wait !== null)
				return self.countdown(kind, wait);

			if (r.error) {
				c.monitorUp = c.monitorUp && r.error !== 'not_running';
				self.fail(kind, wizard.startError(r), r.error);
				self.show();

				if (kind === 'before' && self.state.paused)
					return self.resumeShaping();

				return;
			}

			if (kind === 'before' && self.state.paused)
				self.record({ type: 'testStarted', id: r.id });

			self.follow(kind);
		});
	},

	/* test_start again once retermd's gap between tests has passed */
	countdown: function(kind, secs) {
		var self = this, until = Date.now() + secs * 1000, fn = function() {
			if (self.countFn !== fn)
				return;

			var left = steps.secondsLeft(until, Date.now()),
			    el = self.body.querySelector('.reterm-wizard-countdown');

			self.waiting.left = left;

			if (left > 0) {
				if (el)
					dom.content(el, [ steps.countdownText(left) ]);
				return;
			}

			self.stopCountdown();
			return self.startTest(kind);
		};

		this.stopCountdown();
		this.waiting = { kind: kind, left: secs };
		this.countFn = fn;
		this.show();
		poll.add(fn, 1);
	},

	stopCountdown: function() {
		if (this.countFn)
			poll.remove(this.countFn);

		this.countFn = null;
		this.waiting = null;
	},

	countdownView: function(kind) {
		var self = this;

		return E('div', { 'class': 'reterm-wizard-running reterm-wizard-waiting' }, [
			kind === 'before' && this.state.paused ? this.pauseNote() : '',
			E('p', { 'class': 'spinning reterm-wizard-countdown' }, [ steps.countdownText(this.waiting.left) ]),
			btn('cbi-button-negative reterm-wizard-stop', _('Stop'), function() {
				self.stopCountdown();
				self.show();

				if (kind === 'before' && self.state.paused)
					return self.resumeShaping();
			})
		]);
	},

	/* poll the test that runs now */
	follow: function(kind) {
		this.running = kind;
		this.fail(null);
		this.pollFn = L.bind(this.pollTest, this, kind);
		poll.add(this.pollFn, 1);
		this.show();
	},

	pollTest: function(kind) {
		var self = this;

		return settle(callTestStatus()).then(function(s) {
			if (self.running !== kind)
				return;

			if (s.state === 'running' && !s.error) {
				var box = self.body.querySelector('.reterm-wizard-running');

				if (box)
					dom.content(box.parentNode, [ kind === 'before' && self.state.paused ? self.pauseNote() : '', self.progress(s) ]);

				return;
			}

			var res = s.result || null, p = self.state.paused;

			/* back after a reload: only the test started with shaping off counts */
			if (kind === 'before' && p && p.testId && res && res.id != null && String(res.id) !== p.testId)
				res = null;

			self.stopPolling();
			return self.finishTest(kind, res, s.error ? (s.message || s.error) : null);
		});
	},

	stopPolling: function() {
		if (this.pollFn)
			poll.remove(this.pollFn);

		this.pollFn = null;
		this.running = null;
	},

	stopTest: function() {
		var self = this;

		return settle(callTestStop()).then(function() {
			self.stopPolling();
			self.show();

			if (self.state.paused)
				return self.resumeShaping();
		});
	},

	finishTest: function(kind, result, err) {
		var p = wizard.testProblem(result, err);

		if (p) {
			this.fail(kind, p, (result && result.error) || (err ? 'status' : !result ? 'no_result' : result.stopped ? 'stopped' : 'no_data'));
		}
		else {
			this.fail(null);
			this.record(kind === 'before'
				? { type: 'measured', result: result, asIs: !this.state.paused && this.pauseTargets().length > 0 }
				: { type: 'verified', result: result });
		}

		this.show();

		if (kind === 'before' && this.state.paused)
			return this.resumeShaping();
	},

	/* ---- measuring with shaping off ------------------------------------- */

	queues: function() {
		return this.ctx.sqmInstalled ? uci.sections('sqm', 'queue') : [];
	},

	/* the enabled sqm queues */
	pauseTargets: function() {
		return wizard.pausePlan(this.queues());
	},

	/* shaping is being turned off or back on: no test controls meanwhile */
	pauseBusy: function() {
		var p = this.state.paused;

		return !!(p && (p.phase === 'pausing' || p.phase === 'restoring') && this.running !== 'before');
	},

	pauseNote: function() {
		return note('info', _('Shaping is off for this measurement; the wizard turns it back on as soon as the test ends.'));
	},

	pauseView: function() {
		var p = this.state.paused, off = (p.phase === 'pausing');

		return E('div', { 'class': 'reterm-wizard-pause' }, [
			E('div', { 'class': 'spinning' }, [ off
				? N_(p.sids.length, 'Turning shaping off for the measurement (%d queue, applied with rollback). Waiting for the router to confirm that shaping is off…',
					'Turning shaping off for the measurement (%d queues, applied with rollback). Waiting for the router to confirm that shaping is off…').format(p.sids.length)
				: _('Turning shaping back on (applied with rollback). Waiting for the router to confirm that shaping is back on…') ]),
			E('p', {}, [ off
				? _('The test starts once the router reports that nothing shapes any more. LuCI may reload this page; the wizard carries on.')
				: _('LuCI may reload this page; the wizard carries on.') ])
		]);
	},

	/* step 2 "Start the test": with shaping on, turn it off first */
	measure: function() {
		var sids = this.pauseTargets();

		if (!this.ctx.downloadUrl || !this.ctx.uploadUrl || !sids.length || !this.ctx.monitorUp)
			return this.startTest('before');

		sids.forEach(function(sid) { uci.set('sqm', sid, 'enabled', '0') });

		/* recorded first: LuCI reloads the page once the apply is confirmed */
		this.record({ type: 'pausing', sids: sids });
		this.fail(null);
		this.show();

		return this.applyPause();
	},

	/* save and apply with rollback, then go on with the pause */
	applyPause: function() {
		var self = this;

		return uci.save().then(function() { return self.applyChanges() }).then(L.bind(this.continuePause, this));
	},

	/* poll retermd's status until it reports `want` (wizard.confirmWait());
	 * then done(true), or done(false) once the wait timed out */
	waitShaping: function(want, done) {
		var self = this, t0 = Date.now(), fn = function() {
			return settle(callMonitorStatus()).then(function(r) {
				var v = (self.waitFn === fn) ? wizard.confirmWait(want, r, Date.now() - t0) : 'wait';

				if (v !== 'wait') {
					self.stopWaiting();
					return done(v === 'confirmed');
				}
			});
		};

		this.stopWaiting();
		this.waitFn = fn;
		poll.add(fn, 1);
	},

	stopWaiting: function() {
		if (this.waitFn)
			poll.remove(this.waitFn);

		this.waitFn = null;
	},

	/* the next step of a pause, from what UCI shows now */
	continuePause: function() {
		var self = this, p = this.state.paused, st = wizard.pauseStatus(this.state, this.queues()), secs = wizard.CONFIRM_TIMEOUT_S;

		switch (st) {
		case 'rolledBack':
			this.record({ type: 'restored' });
			this.fail('before', _('Shaping could not be turned off for the measurement (the change was not applied or was rolled back); it is on as before. Retry, or measure with shaping on.'), 'rolled_back');
			this.show();
			return Promise.resolve();

		case 'off':
			if (p.phase === 'pausing')
				return this.waitShaping('off', function(ok) {
					if (!ok) {
						self.fail('before', _('The router did not confirm within %d s that shaping is off, so the test did not start. Shaping is turned back on; retry, or measure with shaping on.').format(secs), 'confirm_timeout');
						return self.resumeShaping();
					}

					self.record({ type: 'paused' });
					return self.startTest('before');
				});

			if (this.running === 'before')
				return Promise.resolve();

			/* back after a reload: follow the test started with shaping off
			 * (LuCI may have reloaded before test_start answered) */
			return (p.testId ? Promise.resolve({ state: 'running', id: p.testId }) : settle(callTestStatus())).then(function(s) {
				if (s.state !== 'running')
					return self.startTest('before');

				self.record({ type: 'testStarted', id: s.id });
				self.follow('before');
			});

		case 'restoring':
			return this.resumeShaping();

		case 'restored':
			return this.waitShaping('on', function(ok) {
				self.record({ type: 'restored' });
				self.show();

				if (!ok)
					ui.addNotification(null, E('p', {}, [ _('The router did not confirm within %d s that shaping is back on. Check the queue on the Shaping page.').format(secs) ]), 'warning');
			});
		}

		return Promise.resolve();
	},

	/* turn the paused queues back on (apply with rollback) */
	resumeShaping: function() {
		var sids = wizard.resumeChanges(this.state, this.queues());

		this.record({ type: 'restoring' });

		if (!sids.length)
			return this.continuePause();

		sids.forEach(function(sid) { uci.set('sqm', sid, 'enabled', '1') });
		this.show();

		return this.applyPause();
	},

	resultView: function(r) {
		var chart = graph.phases({ title: _('Latency during the test') });

		chart.update(r);

		return E('div', { 'class': 'reterm-wizard-result' }, [
			E('p', { 'class': 'reterm-wizard-grade' }, [
				E('strong', {}, [ _('Grade %s').format(r.grade || '–') ]), ' · ',
				_('download %s, %s added').format(mbit(r.download && r.download.throughput_bps), ms(r.download && r.download.added_ms)), ' · ',
				_('upload %s, %s added').format(mbit(r.upload && r.upload.throughput_bps), ms(r.upload && r.upload.added_ms))
			]),
			chart.node
		]);
	},

	step_measure: function() {
		var out = [];

		out.push(E('p', {}, [ _('The router downloads and uploads as fast as it can for about 45 seconds while it measures the latency. Pause big downloads on your network meanwhile.') ]));

		if (this.pauseTargets().length && !this.state.paused)
			out.push(note('warning', _('Shaping is on. To see what the line can do, the wizard turns the queue off for the test and back on as soon as it ends, fails or is cancelled; both changes are applied with rollback, and the test starts only once the router reports that shaping is off. You can also measure with shaping on (the proposal then starts from what the shaper lets through, which is less).')));

		if (this.failed && this.failed.kind === 'before')
			out = out.concat(this.failure(this.failed.text, 'before'));
		else
			out.push(this.testBox('before'));

		return out;
	},

	/* ---- step 3: propose ------------------------------------------------ */

	proposal: function() {
		var snap = this.state.snapshot || {};

		if (!this.state.proposal) {
			this.record({ type: 'proposed', proposal: wizard.propose({
				result: this.state.before, device: this.ctx.device || '', proto: this.ctx.proto, docsis: this.state.docsis,
				servers: this.ctx.servers, queue: snap.sqm && snap.sqm.values, linkMbit: this.ctx.linkMbit
			}) });
		}

		return this.state.proposal;
	},

	step_propose: function() {
		var self = this, p = this.proposal(), out = [], preview = E('div', { 'class': 'reterm-wizard-preview' });

		if (this.state.measuredAsIs)
			out.push(note('info', _('Measured with shaping on: the rates below are 90 % of the rates measured through the current shaper, so they stay below its settings. Measure with shaping off to start from what the line can do.')));

		out.push(E('p', {}, [ _('Shaping at 90 % of the measured speed keeps the queue in the router, where CAKE keeps it short. Adjust if you like.') ]));
		p.notes.forEach(function(n) { out.push(note('warning', n)) });

		function field(id, label, value, desc) {
			var input = E('input', { 'type': 'text', 'class': 'cbi-input-text', 'id': id, 'value': value, 'input': update });
			return E('div', { 'class': 'cbi-value' }, [ E('label', { 'class': 'cbi-value-title', 'for': id }, [ label ]),
				E('div', { 'class': 'cbi-value-field' }, [ input, E('div', { 'class': 'cbi-value-description' }, [ desc ]) ]) ]);
		}

		function select(id, label, value, choices, desc) {
			return E('div', { 'class': 'cbi-value' }, [ E('label', { 'class': 'cbi-value-title', 'for': id }, [ label ]),
				E('div', { 'class': 'cbi-value-field' }, [
					E('select', { 'id': id, 'change': update }, choices.map(function(c) {
						return E('option', { 'value': c[0], 'selected': (c[0] === value) ? '' : null }, [ c[1] ]);
					})),
					E('div', { 'class': 'cbi-value-description' }, [ desc ]) ]) ]);
		}

		var why = wizard.explain(p, this.state.before, (this.ctx.servers || []).length);

		out.push(field('reterm-wizard-down', _('Download (Mbit/s)'), shaping.mbitText(p.download), why.download));
		out.push(field('reterm-wizard-up', _('Upload (Mbit/s)'), shaping.mbitText(p.upload), why.upload));
		out.push(select('reterm-wizard-rtt', _('Round-trip time'), p.rtt, [
			[ 'regional', _('regional – 30 ms') ], [ 'internet', _('internet – 100 ms (default)') ],
			[ 'oceanic', _('oceanic – 300 ms') ], [ 'satellite', _('satellite – 1000 ms') ]
		], why.rtt));
		out.push(select('reterm-wizard-overhead', _('Link overhead'), p.overhead, [
			[ 'ethernet', _('ethernet – fibre / Ethernet (38 bytes)') ], [ 'docsis', _('docsis – cable (18 bytes)') ],
			[ 'pppoe-ptm', _('pppoe-ptm – VDSL2 with PPPoE (30 bytes)') ], [ 'bridged-ptm', _('bridged-ptm – VDSL2 without PPPoE (22 bytes)') ]
		], _('From the WAN protocol (%s).').format(this.ctx.proto || '?')));

		out.push(E('h4', {}, [ _('Commands sqm-scripts will run') ]), preview);

		var error = E('div', { 'class': 'reterm-wizard-error' });
		out.push(error);

		out.push(btn('cbi-button-action reterm-wizard-accept', _('Use these settings'), function() {
			var e = update();

			if (e)
				return;

			self.go('apply');
		}));

		function update() {
			var q = Object.assign({}, self.state.proposal), err = null,
			    d = self.body.querySelector('#reterm-wizard-down'), u = self.body.querySelector('#reterm-wizard-up'),
			    r = self.body.querySelector('#reterm-wizard-rtt'), o = self.body.querySelector('#reterm-wizard-overhead');

			if (d && u) {
				[ [ 'download', d.value ], [ 'upload', u.value ] ].forEach(function(x) {
					var k = shaping.kbitText(String(x[1]).trim());
					if (k === null)
						err = err || shaping.validateMbit(x[1]);
					else
						q[x[0]] = +k;
				});
				q.rtt = r.value;
				q.overhead = o.value;
			}

			err = err || wizard.validateProposal(q);

			if (!err) {
				self.record({ type: 'proposed', proposal: q });

				var res = tcpreview.commands(wizard.sqmValues(q, self.ctx.queue), { sqm: self.ctx.profile });

				dom.content(preview, (res && res.ok) ? [ E('pre', { 'class': 'reterm-tc-preview' }, [ res.commands.join('\n') ]) ]
					: (res ? res.errors : []).map(function(t) { return note('danger', t) }));
			}

			dom.content(error, err ? [ note('danger', err) ] : []);

			return err;
		}

		/* the first preview once the nodes are in place (show()) */
		this.afterShow = update;

		return out;
	},

	/* ---- step 4: apply & verify ----------------------------------------- */

	step_apply: function() {
		var self = this, p = this.state.proposal, out = [];

		if (!this.state.applied.shaping) {
			out.push(E('p', {}, [ _('Shaping %s at %s download and %s upload, rtt %s, overhead %s.').format(
				p.device, mbit(p.download * 1000), mbit(p.upload * 1000), p.rtt, p.overhead) ]));
			out.push(E('p', {}, [ _('LuCI applies the change and checks that the router is still reachable; if it is not, the change is rolled back by itself after a while.') ]));
			out.push(btn('cbi-button-apply reterm-wizard-apply', _('Apply with rollback'), function() { return self.applyShaping() }), ' ');
			out.push(btn('cbi-button-neutral reterm-wizard-skip', _('Skip, do not shape'), function() {
				self.record({ type: 'skipApply' });
				return self.go('devices');
			}));
			return out;
		}

		if (this.failed && this.failed.kind === 'after')
			out = out.concat(this.failure(this.failed.text, 'after'));
		else if (this.state.applyWait && this.ctx.monitorUp) {
			out.push(E('div', { 'class': 'spinning reterm-wizard-wait' }, [ _('Shaping is applied with rollback. Waiting for the router to confirm that the new shaping is active…') ]));
			Promise.resolve().then(L.bind(this.confirmApplied, this));
		}
		else
			out.push(note('success', _('Shaping is applied. Now measure again to see the difference.')), this.testBox('after'));

		if (this.state.after)
			out.push(this.comparison());

		return out;
	},

	applyShaping: function() {
		var self = this, p = this.state.proposal, q = this.ctx.queue,
		    values = wizard.sqmValues(p, q);

		if (!values) {
			ui.addNotification(null, E('p', {}, [ wizard.validateProposal(p) || _('Invalid settings') ]), 'danger');
			return Promise.resolve();
		}

		var sid = q ? q['.name'] : uci.add('sqm', 'queue');

		for (var k in values)
			if (k.charAt(0) !== '.' && (!q || String(q[k] == null ? '' : q[k]) !== values[k]))
				uci.set('sqm', sid, k, values[k]);

		/* recorded first: LuCI reloads the page once the apply is confirmed */
		this.state.shaper = { rx: p.download * 1000, tx: p.upload * 1000 };
		this.record({ type: 'applied', rx: p.download * 1000, tx: p.upload * 1000 });

		return uci.save().then(function() {
			return self.applyChanges();
		}).then(function() {
			/* a new section gets its final id when saved: find it again */
			self.ctx.queue = uci.sections('sqm', 'queue').filter(function(s) { return s.interface === p.device })[0] || null;
			self.ctx.shapingOn = true;
			self.show();
		});
	},

	/* the "after" test waits until retermd reports the applied rates */
	confirmApplied: function() {
		var self = this;

		if (this.state.applyWait && !this.waitFn)
			this.waitShaping(this.state.applyWait, function(ok) {
				if (ok)
					self.record({ type: 'applyConfirmed' });
				else
					self.fail('after', _('The router did not confirm within %d s that the new shaping is active, so the check cannot start. Retry to wait again, or check the queue on the Shaping page.').format(wizard.CONFIRM_TIMEOUT_S), 'confirm_timeout');

				self.show();
			});
	},

	comparison: function() {
		var st = this.state, p = st.proposal || {},
		    rows = [ [ '', _('Before'), _('After') ] ].concat(wizard.compareRows(st.before, st.after)),
		    off = steps.unshapedText(steps.unshaped(st.after, st.shaper || { rx: p.download * 1000, tx: p.upload * 1000 }));

		return E('div', { 'class': 'reterm-wizard-compare' }, [
			E('table', { 'class': 'table' }, rows.map(function(r, i) {
				return E('tr', { 'class': i ? 'tr' : 'tr table-titles' }, r.map(function(t, j) {
					return E(i ? 'td' : 'th', { 'class': !i ? 'th' : j ? 'td' : 'td left' }, [ t ]);
				}));
			})),
			off ? note('danger', off)
			: steps.gradeNotImproved(st.before, st.after)
				? note('warning', _('The grade did not improve. Try lower rates on the Shaping page, or check that hardware flow offloading is off.')) : ''
		]);
	},

	/* ---- step 5: devices ------------------------------------------------- */

	step_devices: function() {
		var self = this, out = [], offers = wizard.offers(this.ctx.hosts || []);

		if (this.state.done) {
			out.push(note('success', this.state.applied.devices
				? _('Done. The chosen devices are re-terminated: the router talks to far servers for them with large TCP windows.')
				: _('Done.')));
			out.push(E('a', { 'class': 'cbi-button', 'href': L.url('admin/network/reterm/devices') }, [ _('Go to the Devices page') ]), ' ');
			if (this.state.applied.devices || this.state.applied.shaping)
				out.push(E('p', {}, [ _('"Cancel wizard" still takes the changes back; "Close" keeps them.') ]));
			out.push(btn('cbi-button-neutral reterm-wizard-close', _('Close'), function() {
				self.forget();
				self.state = wizard.create(self.snapshot());
				self.show();
			}));
			return out;
		}

		out.push(E('p', {}, [ _('Some devices (game consoles, handhelds) download with a small TCP receive window, so far servers cannot send fast whatever the line does. The router can take over those connections (re-termination) and talk to the servers with large windows.') ]));

		if (!offers.length) {
			out.push(E('p', {}, [ _('No console, handheld or device that needs it was found. An audit on the Devices page can find more.') ]));
			out.push(btn('cbi-button-action reterm-wizard-finish', _('Finish'), function() { self.record({ type: 'finish' }); self.forget(); self.show() }));
			return out;
		}

		out.push(E('ul', { 'class': 'reterm-wizard-offers' }, offers.map(function(o) {
			var b = devices.badge(o['class']);

			return E('li', {}, [ E('label', {}, [
				E('input', { 'type': 'checkbox', 'class': 'reterm-wizard-offer', 'value': o.mac, 'checked': o.active ? null : '', 'disabled': o.active ? '' : null }),
				' ', b ? E('span', { 'class': b.cls }, [ b.text ]) : '', ' ', E('strong', {}, [ o.name || o.mac ]),
				o.active ? ' ' + _('(re-terminated already)') : ''
			]), E('div', { 'class': 'cbi-value-description' }, [ o.evidence ]) ]);
		})));

		out.push(btn('cbi-button-apply reterm-wizard-apply-devices', _('Re-terminate the chosen devices'), function() { return self.applyDevices(offers) }), ' ');
		out.push(btn('cbi-button-neutral reterm-wizard-finish', _('Finish without'), function() { self.record({ type: 'finish' }); self.forget(); self.show() }));

		return out;
	},

	applyDevices: function(offers) {
		var self = this,
		    macs = Array.prototype.slice.call(this.body.querySelectorAll('input.reterm-wizard-offer')).filter(function(i) { return i.checked && !i.disabled }).map(function(i) { return i.value }),
		    ops = wizard.devicePlan(offers, macs, uci.sections('reterm', 'device'));

		if (!ops.length) {
			ui.addNotification(null, E('p', {}, [ _('No device chosen.') ]), 'info');
			return Promise.resolve();
		}

		if (!uci.get('reterm', 'main'))
			uci.add('reterm', 'reterm', 'main');

		var added = [], enabled = [];

		ops.forEach(function(op) {
			var sid = (op.op === 'add') ? uci.add('reterm', 'device') : op.section;

			if (op.op === 'add')
				added.push(op.values.mac);
			else if (sid !== 'main')
				enabled.push(sid);

			for (var k in op.values)
				uci.set('reterm', sid, k, op.values[k]);
		});

		/* kept after the apply: cancel can still take it back */
		this.record({ type: 'devicesApplied', added: added, enabled: enabled });

		return uci.save().then(function() {
			return self.applyChanges();
		}).then(function() {
			self.show();
		});
	},

	/* ---- cancel --------------------------------------------------------- */

	cancel: function() {
		var self = this, c = wizard.cancel(this.state);

		if (this.running)
			settle(callTestStop());

		this.stopPolling();
		this.stopWaiting();
		this.stopCountdown();

		var done = function() {
			self.forget();
			self.failed = null;
			self.state = wizard.create(self.snapshot());
			self.show();
			ui.addNotification(null, E('p', {}, [ c.restore
				? _('The wizard was cancelled and the previous settings are back.')
				: _('The wizard was cancelled; nothing was changed.') ]), 'info');
		};

		if (!c.restore)
			return Promise.resolve().then(done);

		var sid = (c.sqm && c.sqm.sid) || (this.ctx.queue && this.ctx.queue['.name']);

		wizard.cancelOps(c, { queueSid: sid, queues: this.queues(), devices: uci.sections('reterm', 'device'), main: !!uci.get('reterm', 'main') })
			.forEach(function(op) {
				if (op[0] === 'remove')
					uci.remove(op[1], op[2]);
				else
					uci.set(op[1], op[2], op[3], op[4]);
			});

		if (c.sqm)
			this.ctx.queue = c.sqm.values ? Object.assign({ '.name': sid }, c.sqm.values) : null;

		return uci.save().then(function() { return ui.changes.apply(true) }).then(done);
	},

	handleSaveApply: null,
	handleSave: null,
	handleReset: null
});
