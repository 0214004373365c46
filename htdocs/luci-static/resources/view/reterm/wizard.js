'use strict';
'require view';
'require uci';
'require rpc';
'require ui';
'require reterm.notify as notify';
'require dom';
'require poll';
'require fs';
'require reterm.wizard.state as wizard';
'require reterm.wizard.steps as steps';
'require reterm.wizard.propose as propose';
'require reterm.wizard.pause as pause';
'require reterm.wizard.panels as panels';
'require reterm.wizard.autorate as wizardautorate';
'require reterm.wizard.stage as stage';
'require reterm.wizard.test as wizardtest';
'require reterm.guided as testrun';
'require reterm.shaping.wan as wandetect';
'require reterm.shaping.preview as tcpreview';

/*
 * Network → Re-termination → Wizard: from a slow, bloated line to a fixed one in
 * five steps (look, measure, propose, apply & verify, devices).
 *
 * The step logic is reterm.wizard.state, the proposal reterm.wizard.propose (both
 * pure); what the steps show is reterm.wizard.panels, the guided test
 * reterm.wizard.test, what applying and cancelling stage reterm.wizardstage.
 * This view reads, and stages changes only when the user applies a step:
 * the sqm queue in step 4, the reterm device sections and main.enabled in
 * step 5, each applied at once with LuCI's apply with rollback
 * (ui.changes.apply(true)). LuCI confirms that apply in the
 * background and reloads the page, so the "after" test waits until reterm-latencyd
 * reports the applied rates, and the wizard state (typed URLs included)
 * lives in sessionStorage: the page can be left (or reloaded) and resumed.
 * The "before" measurement runs with shaping off: the router pauses sqm
 * for the test and restarts it by itself (reterm.wizard.pause), whether or
 * not this page stays open. Cancel forgets the state and, when a step was
 * already applied, puts the values from before the wizard back.
 */

const STORAGE_KEY = 'reterm-wizard';

const callHosts = rpc.declare({ object: 'reterm', method: 'hosts', expect: { hosts: [] } });
const callLatencyStatus = rpc.declare({ object: 'reterm.latency', method: 'status' });
const callServerRtts = rpc.declare({ object: 'reterm', method: 'server_rtts' });
/* the WAN device, its link speed, flow offloading: never uci network/firewall */
const callWanInfo = rpc.declare({ object: 'reterm', method: 'wan_info' });

const note = testrun.note;
const btn = (cls, label, fn) => panels.button(cls, label, fn);

return view.extend({
	load() {
		return Promise.all([
			L.resolveDefault(uci.load('sqm').then(() => true), false),
			L.resolveDefault(callWanInfo(), null),
			L.resolveDefault(uci.load('reterm'), null),
			L.resolveDefault(callHosts(), null),
			testrun.settle(callLatencyStatus()),
			L.resolveDefault(fs.read('/usr/lib/sqm/defaults.sh'), null),
			L.resolveDefault(callServerRtts(), null)
		]);
	},

	/* ---- storage -------------------------------------------------------- */

	storage() {
		try {
			if (window.sessionStorage)
				return window.sessionStorage;
		}
		catch (e) {}

		const mem = this.mem = this.mem || {};

		return {
			getItem: (k) => mem.hasOwnProperty(k) ? mem[k] : null,
			setItem: (k, v) => { mem[k] = String(v) },
			removeItem: (k) => { delete mem[k] }
		};
	},

	save() {
		try { this.storage().setItem(STORAGE_KEY, JSON.stringify(wizard.serialize(this.state))) } catch (e) {}
	},

	forget() {
		try { this.storage().removeItem(STORAGE_KEY) } catch (e) {}
	},

	/* ---- context -------------------------------------------------------- */

	context(data) {
		const fw = wandetect.wanInfo(data[1]),
		      wan = wizard.wan(fw.wan),
		      device = wan ? wandetect.wanDevice(wan) : null,
		      queues = data[0] ? uci.sections('sqm', 'queue') : [],
		      mon = data[4] || {},
		      mcfg = uci.get('reterm', 'latency') || {};

		return {
			sqmInstalled: data[0] === true,
			wan, device, proto: wan ? String(wan.proto || '') : '',
			linkMbit: (wan && wan.speed > 0) ? wan.speed : null,
			queue: queues.filter((q) => q.interface === device)[0] || null,
			shapingOn: queues.some((q) => q.enabled === '1'),
			offload: fw.offload, offloadHw: fw.offloadHw,
			hosts: Array.isArray(data[3]) ? data[3] : null,
			monitor: mon, monitorUp: !mon.error,
			downloadUrl: mcfg.download_url || '', uploadUrl: mcfg.upload_url || '', endpoint: mcfg.endpoint || '',
			streams: +(mcfg.streams || 4) || 4,
			profile: tcpreview.profileFromDefaults(data[5]) || '1.6',
			servers: propose.serverRtts(data[6])
		};
	},

	snapshot() {
		const q = this.ctx.queue;

		return {
			sqm: q ? { sid: q['.name'], values: q } : null,
			retermEnabled: String(uci.get('reterm', 'main', 'enabled') || '0')
		};
	},

	queues() {
		return this.ctx.sqmInstalled ? uci.sections('sqm', 'queue') : [];
	},

	/* ---- frame ---------------------------------------------------------- */

	render(data) {
		this.ctx = this.context(data);

		let saved = null;

		try { saved = this.storage().getItem(STORAGE_KEY) } catch (e) {}

		/* a state of the previous version is migrated, not dropped */
		saved = saved && wizard.restore(pause.migrate(saved));

		/* LuCI reloads the page after an apply of the wizard: not a return */
		const arrival = steps.arrive(saved, Date.now());

		this.state = arrival.state || wizard.create(this.snapshot());
		this.resumed = arrival.resumed;
		this.failed = steps.failure(this.state);

		if (saved)
			this.save();

		/* test URLs typed before LuCI reloaded the page */
		[ 'download', 'upload' ].forEach((k) => { this.ctx[k + 'Url'] = (this.state.urls || {})[k] || this.ctx[k + 'Url'] });

		this.header = E('ol', { 'class': 'reterm-wizard-steps' });
		this.body = E('div', { 'class': 'reterm-wizard-body' });
		this.nav = E('div', { 'class': 'reterm-wizard-nav cbi-page-actions' });
		this.run = wizardtest.create(this);

		panels.style();
		this.show();

		/* a test this wizard started before the page was left or reloaded */
		Promise.resolve().then(() => this.state.legacyPause ? this.resumeLegacy() : this.run.resume());

		return E('div', { 'class': 'reterm-wizard' }, [
			E('h2', {}, [ _('Setup wizard') ]),
			E('p', {}, [ _('Five steps from a slow, bloated line to a fixed one: look at the router, measure the line, set up shaping from what was measured, check the result, and help the devices with small TCP windows. Nothing is changed until you apply a step; you can leave and come back.') ]),
			this.header, this.body, this.nav
		]);
	},

	titles() {
		return { look: _('Look'), measure: _('Measure'), propose: _('Propose'), apply: _('Apply & verify'), devices: _('Devices') };
	},

	go(step) {
		this.state = steps.setFailure(wizard.go(this.state, step), null);
		this.failed = null;
		this.save();
		this.show();
	},

	record(ev) {
		this.state = wizard.record(this.state, ev);
		this.save();
	},

	/* a failed test (null: none); kept in the state, so that it is still
	 * shown after a reload */
	fail(kind, text, code) {
		this.failed = text ? { kind, text, code: code || null } : null;
		this.state = steps.setFailure(this.state, this.failed);
		this.save();
	},

	/* LuCI's apply with rollback; it reloads the page once confirmed */
	applyChanges() {
		this.state = steps.expectReload(this.state, Date.now());
		this.save();

		return ui.changes.apply(true);
	},

	show() {
		const st = this.state, titles = this.titles(), cur = wizard.index(st.step);

		dom.content(this.header, wizard.STEPS.map((s, i) => {
			const cls = (i === cur) ? 'active' : (i <= st.reached) ? 'done' : 'todo', label = _('%d. %s').format(i + 1, titles[s]);

			return E('li', { 'class': 'reterm-wizard-step ' + cls, 'data-step': s }, [
				(i !== cur && wizard.canEnter(st, s) && i <= st.reached)
					? E('a', { 'href': '#', 'click': (ev) => { ev && ev.preventDefault && ev.preventDefault(); this.go(s) } }, [ label ])
					: label
			]);
		}));

		const content = this['step_' + st.step]();

		dom.content(this.body, [ E('h3', {}, [ titles[st.step] ]),
			this.resumed ? note('info', _('Resumed where you left the wizard.')) : '', this.run.pauseNote(st.step === 'measure') ].concat(content));
		this.resumed = false;

		if (this.afterShow) {
			const fn = this.afterShow;
			this.afterShow = null;
			fn();
		}

		const back = (cur > 0) ? btn('cbi-button-neutral reterm-wizard-back', _('Back'), () => this.go(wizard.STEPS[cur - 1])) : '',
		      next = (cur + 1 < wizard.STEPS.length && wizard.canEnter(st, wizard.STEPS[cur + 1]) && st.step !== 'propose')
		      	? btn('cbi-button-action reterm-wizard-next', _('Next'), () => this.go(wizard.STEPS[cur + 1])) : '';

		dom.content(this.nav, [ btn('cbi-button-reset reterm-wizard-cancel', _('Cancel wizard'), () => this.cancel()), ' ', back, ' ', next ]);
	},

	/* ---- step 1: look --------------------------------------------------- */

	step_look() {
		const docsis = E('input', { 'type': 'checkbox', 'id': 'reterm-wizard-docsis', 'checked': this.state.docsis ? '' : null,
			'change': (ev) => { this.state.docsis = !!ev.target.checked; this.save() } });

		return panels.look(this.ctx, docsis);
	},

	/* ---- step 2: measure -------------------------------------------------- */

	step_measure() {
		const out = [ E('p', {}, [ _('The router downloads and uploads as fast as it can for about 45 seconds while it measures the latency. Pause big downloads on your network meanwhile.') ]) ];

		if (this.ctx.shapingOn && !this.run.running)
			out.push(note('warning', _('Shaping is on. To see what the line can do, the router pauses it for the test and turns it back on by itself as soon as the test ends, fails or is stopped, also when this page is closed; nothing in the configuration changes. You can also measure with shaping on (the proposal then starts from what the shaper lets through, which is less).')));

		if (this.failed && this.failed.kind === 'before')
			return out.concat(this.run.failure(this.failed.text, 'before', this.failed.code));

		return out.concat(this.run.box('before'));
	},

	/* ---- step 3: propose ------------------------------------------------ */

	proposal() {
		const snap = this.state.snapshot || {};

		if (!this.state.proposal)
			this.record({ type: 'proposed', proposal: propose.propose({
				result: this.state.before, device: this.ctx.device || '', proto: this.ctx.proto, docsis: this.state.docsis,
				servers: this.ctx.servers, queue: snap.sqm && snap.sqm.values, linkMbit: this.ctx.linkMbit,
				adaptiveOn: wizardautorate.isOn(this.ctx.queue && uci.get('reterm', this.ctx.queue['.name']))
			}) });

		return this.state.proposal;
	},

	step_propose() {
		const p = this.proposal(), out = panels.proposalNotes(this.state, p),
		      preview = E('div', { 'class': 'reterm-wizard-preview' }), error = E('div', { 'class': 'reterm-wizard-error' });

		/* the edited proposal: recorded and previewed, or its error */
		const update = () => {
			const r = panels.readProposal(this.body, this.state.proposal);

			if (!r.error) {
				this.record({ type: 'proposed', proposal: r.proposal });
				panels.preview(preview, propose.sqmValues(r.proposal, this.ctx.queue), this.ctx.profile);
			}

			dom.content(error, r.error ? [ note('danger', r.error) ] : []);

			return r.error;
		};

		out.push(...panels.proposalFields(p, propose.explain(p, this.state.before, (this.ctx.servers || []).length), this.ctx.proto, update));
		out.push(E('h4', {}, [ _('Commands sqm-scripts will run') ]), preview, error);
		out.push(btn('cbi-button-action reterm-wizard-accept', _('Use these settings'), () => update() ? null : this.go('apply')));

		/* the first preview once the nodes are in place (show()) */
		this.afterShow = update;

		return out;
	},

	/* ---- step 4: apply & verify ----------------------------------------- */

	step_apply() {
		const p = this.state.proposal, out = [];

		if (!this.state.applied.shaping)
			return [
				E('p', {}, [ _('Shaping %s at %s download and %s upload, rtt %s, overhead %s.').format(
					p.device, testrun.rate(p.download * 1000), testrun.rate(p.upload * 1000), p.rtt, p.overhead),
					p.adaptive ? ' ' + _('Adaptive shaping moves both rates with the line, from these rates.') : '' ]),
				E('p', {}, [ _('LuCI applies the change and checks that the router is still reachable; if it is not, the change is rolled back by itself after a while.') ]),
				btn('cbi-button-apply reterm-wizard-apply', _('Apply with rollback'), () => this.applyShaping()), ' ',
				btn('cbi-button-neutral reterm-wizard-skip', _('Skip, do not shape'), () => {
					this.record({ type: 'skipApply' });
					return this.go('devices');
				})
			];

		if (this.failed && this.failed.kind === 'after')
			out.push(...this.run.failure(this.failed.text, 'after', this.failed.code));
		else if (this.state.applyWait && this.ctx.monitorUp) {
			out.push(E('div', { 'class': 'spinning reterm-wizard-wait' }, [ _('Shaping is applied with rollback. Waiting for the router to confirm that the new shaping is active…') ]));
			Promise.resolve().then(() => this.confirmApplied());
		}
		else
			out.push(note('success', _('Shaping is applied. Now measure again to see the difference.')), this.run.box('after'));

		if (this.state.after)
			out.push(panels.comparison(this.state));

		return out;
	},

	applyShaping() {
		const p = this.state.proposal, staged = stage.shaping(p, this.ctx.queue);

		if (staged.error) {
			notify.show(null, E('p', {}, [ staged.error ]), 'danger');
			return Promise.resolve();
		}

		/* recorded first: LuCI reloads the page once the apply is confirmed */
		this.state.shaper = { rx: p.download * 1000, tx: p.upload * 1000 };
		this.record({ type: 'applied', rx: p.download * 1000, tx: p.upload * 1000, autorate: staged.autorate });

		return uci.save().then(() => this.applyChanges()).then(() => {
			/* a new section gets its final id when saved: find it again */
			this.ctx.queue = uci.sections('sqm', 'queue').filter((s) => s.interface === p.device)[0] || null;
			this.ctx.shapingOn = true;
			this.show();
		});
	},

	/* the "after" test waits until reterm-latencyd reports the applied rates
	 * (steps.confirmWait()), polling its status */
	confirmApplied() {
		if (!this.state.applyWait || this.waitFn)
			return;

		const t0 = Date.now(), fn = () => testrun.settle(callLatencyStatus()).then((r) => {
			const v = (this.waitFn === fn && this.state.applyWait) ? steps.confirmWait(this.state.applyWait, r, Date.now() - t0) : 'wait';

			if (v === 'wait')
				return;

			this.stopWaiting();

			if (v === 'confirmed')
				this.record({ type: 'applyConfirmed' });
			else
				this.fail('after', _('The router did not confirm within %d s that the new shaping is active, so the check cannot start. Retry to wait again, or check the queue on the Shaping page.').format(steps.CONFIRM_TIMEOUT_S), 'confirm_timeout');

			this.show();
		});

		this.waitFn = fn;
		poll.add(fn, 1);
	},

	stopWaiting() {
		if (this.waitFn)
			poll.remove(this.waitFn);

		this.waitFn = null;
	},

	/* ---- step 5: devices ------------------------------------------------- */

	step_devices() {
		const out = [], offers = wizard.offers(this.ctx.hosts || []),
		      finish = (label) => btn('cbi-button-neutral reterm-wizard-finish', label, () => { this.record({ type: 'finish' }); this.forget(); this.show() });

		if (this.state.done)
			return panels.done(this.state, () => {
				this.forget();
				this.state = wizard.create(this.snapshot());
				this.show();
			});

		out.push(E('p', {}, [ _('Some devices (game consoles, handhelds) download with a small TCP receive window, so far servers cannot send fast whatever the line does. The router can take over those connections (re-termination) and talk to the servers with large windows.') ]));

		if (!offers.length)
			return out.concat(E('p', {}, [ _('No console, handheld or device that needs it was found. An audit on the Devices page can find more.') ]),
				finish(_('Finish')));

		return out.concat(panels.offers(offers),
			btn('cbi-button-apply reterm-wizard-apply-devices', _('Re-terminate the chosen devices'), () => this.applyDevices(offers)), ' ',
			finish(_('Finish without')));
	},

	applyDevices(offers) {
		const staged = stage.devices(offers, panels.chosen(this.body));

		if (!staged) {
			notify.show(null, E('p', {}, [ _('No device chosen.') ]), 'info');
			return Promise.resolve();
		}

		/* kept after the apply: cancel can still take it back */
		this.record({ type: 'devicesApplied', added: staged.added, enabled: staged.enabled });

		return uci.save().then(() => this.applyChanges()).then(() => this.show());
	},

	/* ---- cancel --------------------------------------------------------- */

	cancel() {
		const c = wizard.cancel(this.state), sid = (c.sqm && c.sqm.sid) || (this.ctx.queue && this.ctx.queue['.name']);

		/* a running test is stopped: the router ends its pause itself */
		this.run.cancel();
		this.stopWaiting();

		const done = () => {
			this.forget();
			this.failed = null;
			this.state = wizard.create(this.snapshot());
			this.show();
			notify.show(null, E('p', {}, [ c.restore
				? _('The wizard was cancelled and the previous settings are back.')
				: _('The wizard was cancelled; nothing was changed.') ]), 'info');
		};

		if (!c.restore)
			return Promise.resolve().then(done);

		stage.cancel(c, sid, this.queues());

		if (c.sqm)
			this.ctx.queue = c.sqm.values ? Object.assign({ '.name': sid }, c.sqm.values) : null;

		return uci.save().then(() => ui.changes.apply(true)).then(done);
	},

	/* ---- a state of the previous version --------------------------------- */

	/* it paused shaping in UCI (sqm enabled 0) from the browser: what it
	 * left off goes back on, applied with rollback */
	resumeLegacy() {
		const sids = pause.legacyResume(this.state, this.queues());

		this.state = pause.legacyDone(this.state);
		this.save();

		if (!sids.length)
			return Promise.resolve();

		sids.forEach((sid) => uci.set('sqm', sid, 'enabled', '1'));
		notify.show(null, E('p', {}, [ pause.legacyText(sids) ]), 'info');

		return uci.save().then(() => this.applyChanges());
	},

	handleSaveApply: null,
	handleSave: null,
	handleReset: null
});
