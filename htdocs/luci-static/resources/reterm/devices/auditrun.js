'use strict';
'require baseclass';
'require rpc';
'require poll';
'require reterm.devices.audit as deviceaudit';
'require reterm.errtext as errtext';

/*
 * The window audit started from the Devices page: "Audit" in a device's
 * row asks the router to watch the TCP handshakes and windows of the LAN
 * for MINUTES (ubus "reterm audit_start"); the row then follows that
 * device ("reterm audit_result" with its MAC every POLL_S seconds): the
 * time left, and what the audit has learnt so far in words
 * (reterm.devices.audit). When the audit ends, the result stays.
 * Use as: 'require reterm.devices.auditrun as auditrun';
 *
 *   const run = auditrun.create(onChange);  onChange(mac) after each news
 *   run.cell(row)   → the nodes of the row's "Window audit" cell
 *   run.start(mac)  → Promise (the button does this)
 *   run.stop()      → stops following (the page goes away)
 */

const MINUTES = 10, POLL_S = 5;

/* "9 min 40 s", "35 s" */
function left(s) {
	s = Math.max(0, Math.round(+s || 0));

	return s >= 60 ? _('%d min %d s').format(Math.floor(s / 60), s % 60) : _('%d s').format(s);
}

const callStart = rpc.declare({ object: 'reterm', method: 'audit_start', params: [ 'minutes' ] });
const callResult = rpc.declare({ object: 'reterm', method: 'audit_result', params: [ 'mac' ] });

/* the sentence for a failed reply (an { error, message } object, a ubus
 * status number, or a rejected call) */
function failure(r) {
	if (r && r.error === 'not_running')
		return _('The audit needs re-termination on and applied (Save & Apply): its firewall rules come with it.');

	if (r && typeof r.message === 'string' && r.message !== '')
		return _('The audit could not run: %s').format(r.message.substring(0, 200));

	if (typeof r === 'number')
		return _('The audit could not run: ubus status %d (%s)').format(r, rpc.getStatusText(r));

	return _('The audit could not run: the router sent an unexpected reply.');
}

const Run = baseclass.extend({
	__init__(onChange) {
		this.onChange = onChange || (() => {});
		this.follow = null;	/* { mac, running, remaining_s, audit, error } */
		this.pollFn = null;
	},

	start(mac) {
		this.follow = { mac, running: true, remaining_s: MINUTES * 60, audit: null, error: null, starting: true };
		this.onChange(mac);

		return Promise.resolve(callStart(MINUTES)).then((r) => {
			if (!r || typeof r !== 'object' || r.error != null) {
				this.follow = { mac, running: false, error: failure(r) };
				return this.onChange(mac);
			}

			this.follow.starting = false;
			this.follow.remaining_s = +r.remaining_s || MINUTES * 60;
			this.onChange(mac);

			if (!this.pollFn) {
				this.pollFn = () => this.tick();
				poll.add(this.pollFn, POLL_S);
			}
		}, (e) => {
			this.follow = { mac, running: false, error: failure({ message: errtext.of(e) }) };
			this.onChange(mac);
		});
	},

	tick() {
		const f = this.follow;

		if (!f || !f.running)
			return this.stop();

		return Promise.resolve(callResult(f.mac)).then((r) => {
			if (this.follow !== f)
				return;

			/* not_found: no data for the device yet, the audit goes on */
			if (r && r.error === 'not_found')
				f.audit = null;
			else if (!r || typeof r !== 'object' || r.error != null || !Array.isArray(r.devices)) {
				f.running = false;
				f.error = failure(r);
			}
			else {
				f.running = !!r.running;
				f.remaining_s = r.remaining_s;
				f.audit = (r.devices[0] || {}).audit || null;
			}

			if (!f.running)
				this.stop();

			this.onChange(f.mac);
		}, () => {});
	},

	stop() {
		if (this.pollFn) {
			poll.remove(this.pollFn);
			this.pollFn = null;
		}
	},

	/* the cell: the audit hint (row.audit, or what this run learnt) and
	 * either the Audit button or the run's progress */
	cell(row, known) {
		const f = (this.follow && this.follow.mac === row.mac) ? this.follow : null;
		const audit = (f && f.audit) || row.audit;
		const level = deviceaudit.auditLevel(audit), hint = deviceaudit.auditHint(audit);
		const out = [ E('div', { 'class': 'reterm-hint' + (level ? ' reterm-hint-' + level : '') }, [
			hint || (known ? _('No audit data yet.') : '')
		]) ];

		if (f && f.error)
			out.push(E('div', { 'class': 'alert-message warning reterm-audit-error' }, [ f.error ]));

		if (f && f.running)
			out.push(E('div', { 'class': 'reterm-audit-progress' }, [
				f.starting ? _('Starting the audit…')
					: _('Auditing, %s left: use the device now (a download, a game update) so the router sees its connections.')
						.format(left(f.remaining_s))
			]));
		else
			out.push(E('button', {
				'class': 'cbi-button cbi-button-action reterm-audit-start',
				'title': _('Watch this device\'s TCP handshakes and windows for %d minutes').format(MINUTES),
				'click': (ev) => { ev.preventDefault(); this.start(row.mac); }
			}, [ f ? _('Audit again') : _('Audit') ]));

		return out;
	}
});

return baseclass.extend({
	__name__: 'reterm.devices.auditrun',

	MINUTES: MINUTES,
	POLL_S: POLL_S,

	create: (onChange) => new Run(onChange)
});
