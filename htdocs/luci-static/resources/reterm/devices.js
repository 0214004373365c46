'use strict';
'require baseclass';
'require reterm.units as units';

/*
 * Devices logic shared by the Devices view and its tests: LAN hosts from
 * ubus "reterm hosts" merged with the `device` sections of the (staged)
 * reterm UCI config, their order, what saving the form writes, the
 * validators and the words for the window audit and the live numbers.
 * Pure: the view passes hosts and UCI sections in as plain objects.
 * Use as: 'require reterm.devices as devices';
 *
 * Grammars are those of /usr/share/ucode/reterm/validate.uc (the router
 * checks again): MAC six hex pairs, unicast, not all-zero; name 1–32 of
 * A-Z a-z 0-9 . _ - starting with a letter or digit; ports 'all', 'web'
 * or up to 64 ports / ranges "a-b" (1–65535, a <= b, no leading zeros)
 * separated by blanks. Every validator returns null or a translated
 * message and never throws.
 */

var MAX_PORT_TOKENS = 64;
var MAX_PORTS_LENGTH = MAX_PORT_TOKENS * 12;
var NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/;
var PORT_RE = /^(?:0|[1-9][0-9]{0,4})$/;
var DEFAULT_RTT_MS = 130;
var MAX_RTT_MS = 2000;

/* the most an unscaled TCP window can ever be */
var MAX_UNSCALED_WINDOW = 65535;

var CLASSES = { console: true, handheld: true };

function str(v) {
	return (v == null) ? '' : String(v);
}

function isCount(v) {
	return typeof v === 'number' && isFinite(v) && v >= 0 && v % 1 === 0 && v <= Number.MAX_SAFE_INTEGER;
}

function isPct(v) {
	return typeof v === 'number' && isFinite(v) && v >= 0 && v <= 100;
}

function port(s) {
	return PORT_RE.test(s) && +s >= 1 && +s <= 65535 ? +s : null;
}

/* blank-separated tokens of a ports string or a UCI list; null if neither */
function portTokens(value) {
	if (Array.isArray(value))
		return value.every(function(t) { return typeof t === 'string' }) ? value.slice() : null;

	if (typeof value !== 'string')
		return null;

	return value.split(/[ \t]+/).filter(function(t) { return t !== '' });
}

/* printable ASCII strings from an untrusted array */
function strings(list, max) {
	return (Array.isArray(list) ? list : []).filter(function(s) {
		return typeof s === 'string' && s.length > 0 && s.length <= max && /^[\x21-\x7e]+$/.test(s);
	});
}

/* a host name as shown: printable ASCII, at most 63 characters */
function cleanName(s) {
	return (typeof s === 'string') ? s.replace(/[^\x20-\x7e]/g, '').trim().substring(0, 63) : '';
}

function rank(row) {
	return CLASSES[row.class] ? 0 : 1;
}

return baseclass.extend({
	__name__: 'reterm.devices',

	MAX_PORT_TOKENS: MAX_PORT_TOKENS,
	DEFAULT_RTT_MS: DEFAULT_RTT_MS,

	/**
	 * A MAC as typed → "aa:bb:cc:dd:ee:ff". Pairs may be separated by ":"
	 * or "-" (all the same) or not at all; blanks and tabs around it are
	 * ignored, upper case is lowered.
	 * @returns {string|null} null unless a unicast, non-zero MAC
	 */
	normalizeMac: function(value) {
		if (typeof value !== 'string' || value.length > 32)
			return null;

		var s = value.replace(/^[ \t]+|[ \t]+$/g, ''), m;

		if (!(m = /^([0-9A-Fa-f]{2})([:-]?)([0-9A-Fa-f]{2})\2([0-9A-Fa-f]{2})\2([0-9A-Fa-f]{2})\2([0-9A-Fa-f]{2})\2([0-9A-Fa-f]{2})$/.exec(s)))
			return null;

		var mac = [ m[1], m[3], m[4], m[5], m[6], m[7] ].join(':').toLowerCase();

		if ((parseInt(m[1], 16) & 1) || mac === '00:00:00:00:00:00')
			return null;

		return mac;
	},

	/** @returns {string|null} null if normalizeMac() accepts the value */
	validateMac: function(value) {
		if (typeof value !== 'string' || value.replace(/^[ \t]+|[ \t]+$/g, '') === '')
			return _('Enter a MAC address, e.g. 02:00:00:00:3d:51');

		if (this.normalizeMac(value) !== null)
			return null;

		var s = value.replace(/^[ \t]+|[ \t]+$/g, '');

		if (/^[0-9A-Fa-f]{2}([:-]?)(?:[0-9A-Fa-f]{2}\1){4}[0-9A-Fa-f]{2}$/.test(s)) {
			if (/^0{2}(?:[:-]?0{2}){5}$/.test(s))
				return _('00:00:00:00:00:00 is not the address of a device');

			return _('%s is a multicast address, not the address of a device').format(s);
		}

		return _('Enter six pairs of hex digits separated by ":", e.g. 02:00:00:00:3d:51');
	},

	/** Device section name (option name). @returns {string|null} */
	validateName: function(value) {
		if (typeof value !== 'string' || value === '')
			return _('Enter a name');

		if (value.length > 32)
			return _('At most 32 characters');

		if (!NAME_RE.test(value))
			return _('Use letters, digits, ".", "_" and "-" only, starting with a letter or digit');

		return null;
	},

	/**
	 * A name for a new device section from a host: its host name made
	 * valid ("Nintendo 3DS" → "Nintendo-3DS"), else "device-<last 4 hex
	 * digits of the MAC>".
	 * @param {{name: string, mac: string}} host
	 * @returns {string}
	 */
	deviceName: function(host) {
		var n = str(host && host.name).replace(/[^A-Za-z0-9._-]+/g, '-')
			.replace(/^[^A-Za-z0-9]+/, '').substring(0, 32).replace(/[-.]+$/, '');

		if (this.validateName(n) === null)
			return n;

		var mac = str(host && host.mac).replace(/[^0-9a-f]/g, '');

		return 'device-' + (mac.length === 12 ? mac.substring(8) : 'new');
	},

	/**
	 * Parse a ports spec like validate.uc ports().
	 * @param {string|string[]} value 'all', 'web', "80 443 8080-8090" or a
	 *   UCI list of such tokens
	 * @returns {'all'|Array<number[]>|null} 'all' or sorted, merged
	 *   [lo, hi] ranges; null when invalid
	 */
	parsePorts: function(value) {
		if (value === 'all')
			return 'all';

		if (value === 'web')
			return [ [ 80, 80 ], [ 443, 443 ] ];

		if (typeof value === 'string' && value.length > MAX_PORTS_LENGTH)
			return null;

		var tokens = portTokens(value), ranges = [];

		if (!tokens || tokens.length < 1 || tokens.length > MAX_PORT_TOKENS)
			return null;

		for (var i = 0; i < tokens.length; i++) {
			var t = tokens[i], p = port(t), m;

			if (p !== null) {
				ranges.push([ p, p ]);
				continue;
			}

			m = /^([0-9]+)-([0-9]+)$/.exec(t);

			if (!m || t.length > 11 || port(m[1]) === null || port(m[2]) === null || +m[1] > +m[2])
				return null;

			ranges.push([ +m[1], +m[2] ]);
		}

		ranges.sort(function(a, b) { return (a[0] - b[0]) || (a[1] - b[1]) });

		return ranges.reduce(function(out, r) {
			var last = out[out.length - 1];

			if (last && r[0] <= last[1] + 1)
				last[1] = Math.max(last[1], r[1]);
			else
				out.push([ r[0], r[1] ]);

			return out;
		}, []);
	},

	/**
	 * @returns {string|null} null if parsePorts() accepts the value, else
	 *   what is wrong, naming the first bad word
	 */
	validatePorts: function(value) {
		if (this.parsePorts(value) !== null)
			return null;

		if (typeof value !== 'string' && !Array.isArray(value))
			return _('Enter ports or ranges separated by spaces, e.g. 80 443 8080-8090');

		if (typeof value === 'string' && value.length > MAX_PORTS_LENGTH)
			return _('Too long: at most %d ports or ranges').format(MAX_PORT_TOKENS);

		var tokens = portTokens(value) || [];

		if (!tokens.length)
			return _('Enter ports or ranges separated by spaces, e.g. 80 443 8080-8090');

		if (typeof value === 'string' && /[^0-9 \t-]/.test(value) && /^[0-9 \t,;-]+$/.test(value))
			return _('Separate ports with spaces, e.g. 80 443 8080-8090');

		for (var i = 0; i < tokens.length; i++) {
			var t = tokens[i], m = /^([0-9]+)-([0-9]+)$/.exec(t), shown = t.substring(0, 24);

			if (port(t) !== null)
				continue;

			if (!m && !/^[0-9]+$/.test(t))
				return _('"%s" is not a port (1–65535) or a range like 8080-8090').format(shown);

			if (!m || port(m[1]) === null || port(m[2]) === null)
				return _('"%s": ports must be between 1 and 65535, without leading zeros').format(shown);

			if (+m[1] > +m[2])
				return _('In range "%s" the first port must not be above the second').format(shown);
		}

		return _('At most %d ports or ranges').format(MAX_PORT_TOKENS);
	},

	/**
	 * The ports option as stored: 'all' (also for an unset option),
	 * 'web' or the tokens separated by single spaces, as typed.
	 * @returns {string|null} null when invalid
	 */
	portsText: function(value) {
		if (value == null)
			return 'all';

		if (this.parsePorts(value) === null)
			return null;

		if (value === 'all' || value === 'web')
			return value;

		return portTokens(value).join(' ');
	},

	/**
	 * Stored ports → the form's choice: { choice: 'all'|'web'|'custom',
	 * custom: text for the custom field }. An invalid stored value is a
	 * custom value (the field shows what is wrong).
	 */
	portsChoice: function(value) {
		var t = this.portsText(value);

		if (t === 'all' || t === 'web')
			return { choice: t, custom: '' };

		return { choice: 'custom', custom: (t !== null) ? t : (Array.isArray(value) ? value.join(' ') : str(value)) };
	},

	/** The ports of a device in words. */
	describePorts: function(value) {
		var t = this.portsText(value);

		if (t === 'all')
			return _('all TCP ports');

		if (t === 'web')
			return _('web (80, 443)');

		return (t === null) ? _('invalid ports') : _('ports %s').format(t);
	},

	/** Row id for the form: "h" + the MAC's hex digits. */
	rowKey: function(mac) {
		return 'h' + str(mac).replace(/[^0-9a-f]/g, '');
	},

	/** Whether a device section is on: an unset option counts as '1'. */
	sectionEnabled: function(s) {
		return (s == null || s.enabled == null) ? true : String(s.enabled) === '1';
	},

	/** Device sections whose MAC is not valid: [{ section, mac }] */
	invalidSections: function(sections) {
		var self = this;

		return (sections || []).filter(function(s) {
			return s && s['.type'] === 'device' && self.normalizeMac(typeof s.mac === 'string' ? s.mac : null) === null;
		}).map(function(s) {
			return { section: s['.name'], mac: str(s.mac) };
		});
	},

	/**
	 * One row per MAC from the hosts reply and the device sections (the
	 * UCI working copy: what is saved or staged wins over what the router
	 * answered in `reterm`, `enabled`, `ports`, `section`).
	 *
	 * @param {Object[]} hosts the `hosts` array of ubus "reterm hosts"
	 *   (untrusted: checked field by field)
	 * @param {Object[]} sections uci.sections('reterm', 'device')
	 * @returns {Object[]} rows { key, mac, name, ipv4, ipv6, vendor, class,
	 *   online, audit, known (listed by the router), sections (ids of all
	 *   sections with this MAC), section (the first), sectionName,
	 *   enabled, ports (as stored), portsValid }, sorted by compare()
	 */
	merge: function(hosts, sections) {
		var rows = {}, order = [], self = this;

		function row(mac) {
			if (!rows[mac]) {
				rows[mac] = {
					key: self.rowKey(mac), mac: mac, name: '', ipv4: [], ipv6: [], vendor: null,
					class: 'other', online: false, audit: null, known: false,
					sections: [], section: null, sectionName: null, enabled: false,
					ports: 'all', portsValid: true
				};
				order.push(mac);
			}

			return rows[mac];
		}

		(Array.isArray(hosts) ? hosts : []).forEach(function(h) {
			var mac = (h && typeof h.mac === 'string') ? self.normalizeMac(h.mac) : null;

			if (!mac || (rows[mac] && rows[mac].known))
				return;

			var r = row(mac);

			r.known = true;
			r.name = cleanName(h.name);
			r.ipv4 = strings(h.ipv4, 15);
			r.ipv6 = strings(h.ipv6, 45);
			r.vendor = cleanName(h.vendor) || null;
			r.class = CLASSES[h.class] ? h.class : 'other';
			r.online = h.online === true;
			r.audit = (h.audit && typeof h.audit === 'object' && !Array.isArray(h.audit)) ? h.audit : null;
		});

		(sections || []).forEach(function(s) {
			if (!s || s['.type'] !== 'device')
				return;

			var mac = self.normalizeMac(typeof s.mac === 'string' ? s.mac : null);

			if (!mac)
				return;

			var r = row(mac);

			r.sections.push(s['.name']);

			if (r.section !== null)
				return;

			r.section = s['.name'];
			r.sectionName = (typeof s.name === 'string') ? s.name : null;
			r.enabled = self.sectionEnabled(s);
			r.ports = (s.ports == null) ? 'all' : s.ports;
			r.portsValid = self.portsText(s.ports) !== null;

			if (!r.name)
				r.name = cleanName(r.sectionName);
		});

		return order.map(function(mac) { return rows[mac] }).sort(this.compare);
	},

	/**
	 * Consoles and handhelds first, then by name (case-insensitive, rows
	 * without a name last), then by MAC: the order of the router's list.
	 */
	compare: function(a, b) {
		var ra = rank(a), rb = rank(b);

		if (ra !== rb)
			return ra - rb;

		if ((a.name === '') !== (b.name === ''))
			return (a.name === '') ? 1 : -1;

		var na = a.name.toLowerCase(), nb = b.name.toLowerCase();

		if (na !== nb)
			return (na < nb) ? -1 : 1;

		return (a.mac < b.mac) ? -1 : ((a.mac > b.mac) ? 1 : 0);
	},

	/**
	 * What saving the form writes.
	 *
	 * @param {Object[]} rows merge() rows
	 * @param {Object<string, Object>} edits per row key: { enabled:
	 *   true|false|null, ports: text|null, remove: bool }; null means "not
	 *   in the form" (unchanged). Rows without an entry are unchanged.
	 * @returns {{ops: Object[], error: string|null}} ops in row order:
	 *   { op: 'add', values: { name, mac, enabled, ports } },
	 *   { op: 'set', section, values: { option: value } },
	 *   { op: 'remove', section }. On error ops is empty: nothing is
	 *   written unless everything is valid.
	 */
	plan: function(rows, edits) {
		var ops = [];

		for (var i = 0; i < (rows || []).length; i++) {
			var r = rows[i], e = (edits || {})[r.key];

			if (!e)
				continue;

			if (e.remove) {
				r.sections.forEach(function(sid) { ops.push({ op: 'remove', section: sid }) });
				continue;
			}

			var ports = null;

			if (e.ports != null) {
				var err = this.validatePorts(e.ports);

				if (err !== null)
					return { ops: [], error: _('%s: %s').format(r.name || r.mac, err) };

				ports = this.portsText(e.ports);
			}

			if (r.section === null) {
				if (e.enabled === true)
					ops.push({ op: 'add', values: { name: this.deviceName(r), mac: r.mac, enabled: '1', ports: ports || 'all' } });

				continue;
			}

			var values = {};

			if (e.enabled != null && e.enabled !== r.enabled)
				values.enabled = e.enabled ? '1' : '0';

			if (ports !== null && ports !== this.portsText(r.ports))
				values.ports = ports;

			if (Object.keys(values).length)
				r.sections.forEach(function(sid) { ops.push({ op: 'set', section: sid, values: values }) });
		}

		return { ops: ops, error: null };
	},

	/** { text, cls } of the class badge, or null for other devices. */
	badge: function(cls) {
		if (cls === 'console')
			return { text: _('Console'), cls: 'label reterm-badge reterm-badge-console' };

		if (cls === 'handheld')
			return { text: _('Handheld'), cls: 'label reterm-badge reterm-badge-handheld' };

		return null;
	},

	/**
	 * The window audit in words, from its numbers (not the router's
	 * English summary), e.g. "16 KiB window, no scaling: at most 1 Mbit/s
	 * at 130 ms. Re-termination helps."
	 *
	 * @param {Object|null} audit the `audit` of a host
	 * @param {number} [rttMs] RTT for the ceiling (1–2000 ms); default
	 *   the audit's rtt_ms, else 130
	 * @returns {string|null} null without audit data
	 */
	auditHint: function(audit, rttMs) {
		if (!audit || typeof audit !== 'object')
			return null;

		var rtt = [ rttMs, audit.rtt_ms, DEFAULT_RTT_MS ].filter(function(v) {
			return isCount(v) && v >= 1 && v <= MAX_RTT_MS;
		})[0];

		var win = isCount(audit.window) ? audit.window : null,
		    syn = isCount(audit.syn_count) ? audit.syn_count : 0,
		    noscale = isCount(audit.noscale_syns) ? audit.noscale_syns : 0,
		    pct = isPct(audit.rwnd_limited_pct) ? audit.rwnd_limited_pct : null,
		    out = [];

		if (audit.scaling === false) {
			if (win !== null)
				out.push(_('%s window, no scaling: at most %s at %d ms.').format(
					units.formatBytes(win, 2), units.formatRate(units.maxThroughput(win, rtt), 2), rtt));
			else
				out.push(_('No window scaling: at most %s at %d ms.').format(
					units.formatRate(units.maxThroughput(MAX_UNSCALED_WINDOW, rtt), 2), rtt));
		}
		else if (audit.scaling === true) {
			if (win !== null && pct !== null)
				out.push(_('%s window with scaling.').format(units.formatBytes(win, 2)));
			else if (syn > 0)
				out.push(_('Uses window scaling.'));
		}

		if (syn > 0 && noscale > 0 && noscale < syn)
			out.push(_('%d of %d connections without window scaling.').format(noscale, syn));

		if (pct !== null)
			out.push(_('Its receive window held the router back %d%% of the busy time.').format(Math.round(pct)));

		if (audit.recommendation === 'reterm')
			out.push(_('Re-termination helps.'));
		else if (audit.recommendation === 'ok')
			out.push(_('The TCP window is not what limits it.'));
		else
			out.push(_('Not enough data yet: run an audit while the device downloads.'));

		return out.join(' ');
	},

	/** CSS level of the audit: 'warning' (re-terminate), 'success', 'info' or null. */
	auditLevel: function(audit) {
		if (!audit || typeof audit !== 'object')
			return null;

		return { reterm: 'warning', ok: 'success' }[audit.recommendation] || 'info';
	},

	/**
	 * Live numbers per MAC from a stats reply (ubus "reterm device_stats",
	 * see the view) or, lacking it, from a hosts reply (only the
	 * rwnd-limited share is there).
	 * @returns {Object<string, {sessions, bytesTo, bytesFrom, rwndPct}>|null}
	 *   null when the reply has neither shape
	 */
	liveStats: function(reply) {
		var out = {}, self = this, list;

		if (reply && Array.isArray(reply.devices))
			list = reply.devices.map(function(d) {
				return d && {
					mac: d.mac,
					sessions: isCount(d.sessions) ? d.sessions : null,
					bytesTo: isCount(d.bytes_to) ? d.bytes_to : null,
					bytesFrom: isCount(d.bytes_from) ? d.bytes_from : null,
					rwndPct: isPct(d.rwnd_limited_pct) ? d.rwnd_limited_pct : null
				};
			});
		else if (reply && Array.isArray(reply.hosts))
			list = reply.hosts.map(function(h) {
				return h && {
					mac: h.mac, sessions: null, bytesTo: null, bytesFrom: null,
					rwndPct: (h.audit && isPct(h.audit.rwnd_limited_pct)) ? h.audit.rwnd_limited_pct : null
				};
			});
		else
			return null;

		list.forEach(function(s) {
			var mac = (s && typeof s.mac === 'string') ? self.normalizeMac(s.mac) : null;

			if (mac) {
				delete s.mac;
				out[mac] = s;
			}
		});

		return out;
	},

	/** Lines for the live cell of one device (liveStats() entry or null). */
	liveLines: function(st) {
		if (!st || st.sessions === 0)
			return [ _('No open connections') ];

		var out = [];

		if (st.sessions !== null)
			out.push(N_(st.sessions, '%d open connection', '%d open connections').format(st.sessions));

		if (st.bytesTo !== null || st.bytesFrom !== null)
			out.push(_('%s to the device, %s from it').format(
				(st.bytesTo !== null) ? units.formatBytes(st.bytesTo) : '?',
				(st.bytesFrom !== null) ? units.formatBytes(st.bytesFrom) : '?'));

		if (st.rwndPct !== null)
			out.push(_('Window-limited %d%% of the busy time').format(Math.round(st.rwndPct)));

		return out.length ? out : [ _('No busy connection right now') ];
	}
});
