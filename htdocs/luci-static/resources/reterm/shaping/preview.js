'use strict';
'require baseclass';
'require reterm.shaping.cake as cake';

/*
 * The tc / ip commands sqm-scripts runs for one `queue` section with
 * piece_of_cake.qos or layer_cake.qos. Pure, no DOM.
 * Use as: 'require reterm.shaping.preview as tcpreview';
 *
 * Mirrors sqm-scripts (github.com/tohojo/sqm-scripts), as shipped by
 * OpenWrt (1.6.0; 1.7.x in newer releases):
 *  - src/run-openwrt.sh start_sqm_section(): which UCI options become
 *    which variables (upload -> UPLINK, iqdisc_opts -> IQDISC_OPTS,
 *    squash_dscp -> ZERO_DSCP_INGRESS, squash_ingress ->
 *    IGNORE_DSCP_INGRESS, linklayer_adaptation_mechanism -> LLAM, ...).
 *  - src/defaults.sh: defaults for unset options (LINKLAYER none,
 *    OVERHEAD 0, STAB_MPU 0, STAB_MTU 2047, STAB_TSIZE 512, LLAM default,
 *    ZERO/IGNORE_DSCP_INGRESS 1) and the default *_CAKE_OPTS:
 *    "diffserv3" in 1.6.0, "diffserv3 nat" from 1.7.
 *  - src/functions.sh sqm_start_default(): order of the steps. The IFB is
 *    looked up or created (get_ifb_for_if -> create_ifb, named by
 *    ifb_name(): "ifb4" + device, cut to 15 characters) before either
 *    direction, even when download is 0; a direction whose rate is 0 (or
 *    not a number: the shell test fails) is skipped and its old qdisc
 *    deleted. get_cake_lla_string() / get_stab_string() for linklayer.
 *  - src/piece_of_cake.qos egress()/ingress(): *_CAKE_OPTS =
 *    "besteffort" (1.6.0: replaces the defaults; 1.7: appended to them),
 *    ingress adds "wash" when ZERO_DSCP_INGRESS is 1.
 *  - src/layer_cake.qos egress()/ingress(): the defaults (diffserv3),
 *    ingress adds "besteffort" when IGNORE_DSCP_INGRESS is 1 and "wash"
 *    when ZERO_DSCP_INGRESS is 1.
 * Both scripts: tc qdisc add dev $IFACE root $(get_stab_string) cake
 * bandwidth ${UPLINK}kbit $(get_cake_lla_string) ${EGRESS_CAKE_OPTS}
 * ${EQDISC_OPTS}; then the ingress qdisc on $IFACE, CAKE on the IFB with
 * ${DOWNLINK}, "ip link set dev IFB up", and a u32 match-all filter with
 * "action mirred egress redirect dev IFB". The unquoted option strings
 * are split on blanks by the shell; so are they here.
 *
 * Not listed: sqm's transient probes (verify_qdisc creates and deletes a
 * scratch SQM_IFB_xxxxx device), module loading, and the error-tolerant
 * "tc qdisc del" clean-ups, which are in `steps` with silent: true.
 */

const PROFILES = {
	'1.6': { defaults: 'diffserv3', pocAppends: false },
	'1.7': { defaults: 'diffserv3 nat', pocAppends: true }
};

const SCRIPTS = { 'piece_of_cake.qos': true, 'layer_cake.qos': true };

const DEVICE_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,14}$/;
const UINT_RE = /^[0-9]{1,10}$/;
const INT_RE = /^-?[0-9]{1,10}$/;

function has(obj, key) {
	return Object.prototype.hasOwnProperty.call(obj, key);
}

function str(v) {
	return (v == null) ? '' : String(v);
}

/* config_get gives '' for unset options; defaults.sh fills in */
function opt(section, name, def) {
	const v = str(section[name]);
	return (v === '') ? def : v;
}

/* shell "[ "$X" -eq 1 ]": true only for a number equal to 1 */
function isOne(v) {
	return /^[0-9]+$/.test(v) && +v === 1;
}

function words(s) {
	const t = cake.tokens(s);
	return t || [];
}

function ifbName(dev) {
	return ('ifb4' + dev).substring(0, 15);
}

return baseclass.extend({
	__name__: 'reterm.shaping.preview',

	/** known sqm-scripts behaviours: '1.6' (OpenWrt 23.05/24.10), '1.7' */
	PROFILES: PROFILES,

	/** the scripts this preview understands */
	SCRIPTS: SCRIPTS,

	/**
	 * sqm's IFB name for a device ("ifb4" + device, at most 15 chars).
	 * @returns {string|null} null for an invalid device name
	 */
	ifbName(dev) {
		return (typeof dev === 'string' && DEVICE_RE.test(dev)) ? ifbName(dev) : null;
	},

	/**
	 * Which profile an installed /usr/lib/sqm/defaults.sh belongs to.
	 * @param {string} text the file's contents
	 * @returns {string|null} '1.6', '1.7', or null if unrecognised
	 */
	profileFromDefaults(text) {
		if (typeof text !== 'string')
			return null;

		const m = /INGRESS_CAKE_OPTS="([^"]*)"/.exec(text);

		if (!m)
			return null;

		return (words(m[1]).indexOf('nat') > -1) ? '1.7' : '1.6';
	},

	/**
	 * The commands sqm-scripts runs to start this queue.
	 *
	 * @param {Object} section the queue section's UCI values (strings):
	 *   interface, download, upload (kbit/s), script, linklayer, overhead,
	 *   tcMPU, tcMTU, tcTSIZE, linklayer_adaptation_mechanism,
	 *   iqdisc_opts, eqdisc_opts, squash_dscp, squash_ingress, use_mq,
	 *   enabled
	 * @param {Object} [opts]
	 * @param {string} [opts.sqm='1.6'] profile, see PROFILES
	 * @returns {{ok: boolean, commands: string[], steps: Array<{cmd:
	 *   string, argv: string[], silent: boolean}>, ifb: string|null,
	 *   egress: boolean, ingress: boolean, notes: string[], errors:
	 *   string[]}|null} `commands` = the non-silent steps (what must
	 *   succeed); ok is false (and commands empty) when a value would not
	 *   be safe or valid on a tc command line; null for non-object input
	 */
	commands(section, opts) {
		if (section == null || typeof section !== 'object' || Array.isArray(section))
			return null;

		opts = opts || {};

		const profile = PROFILES[opts.sqm || '1.6'],
		    res = { ok: false, commands: [], steps: [], ifb: null, egress: false, ingress: false, notes: [], errors: [] };

		if (!profile) {
			res.errors.push(_('Unknown sqm-scripts version'));
			return res;
		}

		const iface = str(section.interface),
		    script = str(section.script),
		    up = str(section.upload),
		    down = str(section.download),
		    llam = opt(section, 'linklayer_adaptation_mechanism', 'default'),
		    linklayer = opt(section, 'linklayer', 'none'),
		    overhead = opt(section, 'overhead', '0'),
		    mpu = opt(section, 'tcMPU', '0'),
		    mtu = opt(section, 'tcMTU', '2047'),
		    tsize = opt(section, 'tcTSIZE', '512'),
		    iq = str(section.iqdisc_opts),
		    eq = str(section.eqdisc_opts),
		    zeroDscp = isOne(opt(section, 'squash_dscp', '1')),
		    ignoreDscp = isOne(opt(section, 'squash_ingress', '1'));

		if (!DEVICE_RE.test(iface))
			res.errors.push(iface === '' ? _('No interface set') : _('Invalid interface name "%s"').format(iface.substring(0, 40)));

		if (!has(SCRIPTS, script))
			res.errors.push(_('The script "%s" is not previewed; only piece_of_cake.qos and layer_cake.qos are').format(script.substring(0, 40)));

		const e1 = cake.validateOpts(iq), e2 = cake.validateOpts(eq);

		if (e1 !== null)
			res.errors.push(_('Download options: %s').format(e1));

		if (e2 !== null)
			res.errors.push(_('Upload options: %s').format(e2));

		/* sqm: [ "$UPLINK" -ne 0 ]; an unset option fails the test and
		 * skips the direction, anything else non-numeric we refuse */
		if (up !== '' && !UINT_RE.test(up))
			res.errors.push(_('Upload "%s" is not a whole number of kbit/s').format(up.substring(0, 20)));

		if (down !== '' && !UINT_RE.test(down))
			res.errors.push(_('Download "%s" is not a whole number of kbit/s').format(down.substring(0, 20)));

		let lla = [], stab = [];

		if (linklayer !== 'none') {
			if (!/^(?:ethernet|atm)$/.test(linklayer) || !INT_RE.test(overhead) || !UINT_RE.test(mpu) ||
			    !UINT_RE.test(mtu) || !UINT_RE.test(tsize) || !/^(?:default|cake|tc_stab|htb_private)$/.test(llam))
				res.errors.push(_('Invalid link layer settings (linklayer, overhead, tcMPU, tcMTU, tcTSIZE)'));

			/* get_cake_lla_string(): LLAM default or cake, for QDISC=cake */
			if (llam === 'default' || llam === 'cake')
				lla = ((linklayer === 'atm') ? [ 'atm' ] : []).concat([ 'overhead', overhead, 'mpu', mpu ]);

			/* get_stab_string(): only when tc_stab is chosen explicitly */
			if (llam === 'tc_stab')
				stab = [ 'stab', 'mtu', mtu, 'tsize', tsize, 'mpu', mpu, 'overhead', overhead, 'linklayer', linklayer ];

			res.notes.push(_('sqm adds link layer options (linklayer "%s") before the CAKE options').format(linklayer));
		}

		if (res.errors.length)
			return res;

		let ifb = ifbName(iface),
		    defaults = words(profile.defaults),
		    poc = (script === 'piece_of_cake.qos'),
		    egressOpts, ingressOpts;

		if (poc) {
			egressOpts = (profile.pocAppends ? defaults : []).concat([ 'besteffort' ]);
			ingressOpts = egressOpts.slice();

			if (zeroDscp)
				ingressOpts.push('wash');
		}
		else {
			egressOpts = defaults.slice();
			ingressOpts = defaults.slice();

			if (ignoreDscp)
				ingressOpts.push('besteffort');

			if (zeroDscp)
				ingressOpts.push('wash');
		}

		function step(argv, silent) {
			res.steps.push({ cmd: argv.join(' '), argv: argv, silent: !!silent });
		}

		res.ifb = ifb;

		/* get_ifb_for_if(): runs before either direction */
		step([ 'ip', 'link', 'add', 'name', ifb, 'type', 'ifb' ]);

		if (up !== '' && +up !== 0) {
			res.egress = true;
			step([ 'tc', 'qdisc', 'del', 'dev', iface, 'root' ], true);
			step([ 'tc', 'qdisc', 'add', 'dev', iface, 'root' ].concat(stab, [ 'cake', 'bandwidth', up + 'kbit' ],
				lla, egressOpts, words(eq)));
		}
		else {
			res.notes.push(_('Upload is 0 or not set: sqm does not shape the upload'));
			step([ 'tc', 'qdisc', 'del', 'dev', iface, 'root' ], true);
		}

		if (down !== '' && +down !== 0) {
			res.ingress = true;
			step([ 'tc', 'qdisc', 'del', 'dev', iface, 'handle', 'ffff:', 'ingress' ], true);
			step([ 'tc', 'qdisc', 'add', 'dev', iface, 'handle', 'ffff:', 'ingress' ]);
			step([ 'tc', 'qdisc', 'del', 'dev', ifb, 'root' ], true);
			step([ 'tc', 'qdisc', 'add', 'dev', ifb, 'root' ].concat(stab, [ 'cake', 'bandwidth', down + 'kbit' ],
				lla, ingressOpts, words(iq)));
			step([ 'ip', 'link', 'set', 'dev', ifb, 'up' ]);
			step([ 'tc', 'filter', 'add', 'dev', iface, 'parent', 'ffff:', 'protocol', 'all', 'prio', '10',
				'u32', 'match', 'u32', '0', '0', 'flowid', '1:1', 'action', 'mirred', 'egress', 'redirect', 'dev', ifb ]);
		}
		else {
			res.notes.push(_('Download is 0 or not set: sqm does not shape the download'));
			step([ 'tc', 'qdisc', 'del', 'dev', ifb, 'root' ], true);
			step([ 'tc', 'qdisc', 'del', 'dev', iface, 'ingress' ], true);
		}

		if (str(section.use_mq) === '1')
			res.notes.push(_('use_mq is on: on multi-core routers sqm 1.7 may create a multi-queue IFB and use cake_mq instead of cake'));

		if (str(section.enabled) !== '' && str(section.enabled) !== '1')
			res.notes.push(_('This queue is disabled: sqm runs none of these commands until it is enabled'));

		res.commands = res.steps.filter((s) => !s.silent).map((s) => s.cmd);
		res.ok = true;

		return res;
	}
});
