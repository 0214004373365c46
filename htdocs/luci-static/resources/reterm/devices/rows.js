'use strict';
'require baseclass';
'require reterm.devices.ports as deviceports';
'require reterm.devices.audit as deviceaudit';

/*
 * Devices logic shared by the Devices view and its tests: LAN hosts from
 * ubus "reterm hosts" merged with the `device` sections of the (staged)
 * reterm UCI config, their order, what saving the form writes, the
 * validators and the words for the window audit and the live numbers.
 * Pure: the view passes hosts and UCI sections in as plain objects.
 * Use as: 'require reterm.devices.rows as devices';
 *
 * Grammars are those of /usr/share/ucode/reterm/validate.uc (the router
 * checks again): MAC six hex pairs, unicast, not all-zero; name 1–32 of
 * A-Z a-z 0-9 . _ - starting with a letter or digit; ports 'all', 'web'
 * or up to 64 ports / ranges "a-b" (1–65535, a <= b, no leading zeros)
 * separated by blanks. Every validator returns null or a translated
 * message and never throws.
 */

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/;

const { isCount, isPct } = deviceaudit;

const CLASSES = { console: true, handheld: true };

function str(v) {
	return (v == null) ? '' : String(v);
}

/* printable ASCII strings from an untrusted array */
function strings(list, max) {
	return (Array.isArray(list) ? list : []).filter((s) => {
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
	__name__: 'reterm.devices.rows',

	MAX_PORT_TOKENS: deviceports.MAX_PORT_TOKENS,
	DEFAULT_RTT_MS: deviceaudit.DEFAULT_RTT_MS,

	/* the ports (reterm.devices.ports) and the audit words (reterm.devices.audit) */
	parsePorts: (v) => deviceports.parse(v),
	validatePorts: (v) => deviceports.validate(v),
	portsText: (v) => deviceports.text(v),
	portsChoice: (v) => deviceports.choice(v),
	describePorts: (v) => deviceports.describe(v),
	badge: (cls) => deviceaudit.badge(cls),
	auditHint: (audit, rttMs) => deviceaudit.auditHint(audit, rttMs),
	auditLevel: (audit) => deviceaudit.auditLevel(audit),
	liveLines: (st) => deviceaudit.liveLines(st),

	/**
	 * A MAC as typed → "aa:bb:cc:dd:ee:ff". Pairs may be separated by ":"
	 * or "-" (all the same) or not at all; blanks and tabs around it are
	 * ignored, upper case is lowered.
	 * @returns {string|null} null unless a unicast, non-zero MAC
	 */
	normalizeMac(value) {
		if (typeof value !== 'string' || value.length > 32)
			return null;

		let s = value.replace(/^[ \t]+|[ \t]+$/g, ''), m;

		if (!(m = /^([0-9A-Fa-f]{2})([:-]?)([0-9A-Fa-f]{2})\2([0-9A-Fa-f]{2})\2([0-9A-Fa-f]{2})\2([0-9A-Fa-f]{2})\2([0-9A-Fa-f]{2})$/.exec(s)))
			return null;

		let mac = [ m[1], m[3], m[4], m[5], m[6], m[7] ].join(':').toLowerCase();

		if ((parseInt(m[1], 16) & 1) || mac === '00:00:00:00:00:00')
			return null;

		return mac;
	},

	/** @returns {string|null} null if normalizeMac() accepts the value */
	validateMac(value) {
		if (typeof value !== 'string' || value.replace(/^[ \t]+|[ \t]+$/g, '') === '')
			return _('Enter a MAC address, e.g. 02:00:00:00:3d:51');

		if (this.normalizeMac(value) !== null)
			return null;

		let s = value.replace(/^[ \t]+|[ \t]+$/g, '');

		if (/^[0-9A-Fa-f]{2}([:-]?)(?:[0-9A-Fa-f]{2}\1){4}[0-9A-Fa-f]{2}$/.test(s)) {
			if (/^0{2}(?:[:-]?0{2}){5}$/.test(s))
				return _('00:00:00:00:00:00 is not the address of a device');

			return _('%s is a multicast address, not the address of a device').format(s);
		}

		return _('Enter six pairs of hex digits separated by ":", e.g. 02:00:00:00:3d:51');
	},

	/** Device section name (option name). @returns {string|null} */
	validateName(value) {
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
	deviceName(host) {
		let n = str(host && host.name).replace(/[^A-Za-z0-9._-]+/g, '-')
			.replace(/^[^A-Za-z0-9]+/, '').substring(0, 32).replace(/[-.]+$/, '');

		if (this.validateName(n) === null)
			return n;

		let mac = str(host && host.mac).replace(/[^0-9a-f]/g, '');

		return 'device-' + (mac.length === 12 ? mac.substring(8) : 'new');
	},

	/** Row id for the form: "h" + the MAC's hex digits. */
	rowKey(mac) {
		return 'h' + str(mac).replace(/[^0-9a-f]/g, '');
	},

	/** Whether a device section is on: an unset option counts as '1'. */
	sectionEnabled(s) {
		return (s == null || s.enabled == null) ? true : String(s.enabled) === '1';
	},

	/** Device sections whose MAC is not valid: [{ section, mac }] */
	invalidSections(sections) {
		let self = this;

		return (sections || []).filter((s) => {
			return s && s['.type'] === 'device' && self.normalizeMac(typeof s.mac === 'string' ? s.mac : null) === null;
		}).map((s) => {
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
	merge(hosts, sections) {
		let rows = {}, order = [], self = this;

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

		(Array.isArray(hosts) ? hosts : []).forEach((h) => {
			let mac = (h && typeof h.mac === 'string') ? self.normalizeMac(h.mac) : null;

			if (!mac || (rows[mac] && rows[mac].known))
				return;

			let r = row(mac);

			r.known = true;
			r.name = cleanName(h.name);
			r.ipv4 = strings(h.ipv4, 15);
			r.ipv6 = strings(h.ipv6, 45);
			r.vendor = cleanName(h.vendor) || null;
			r.class = CLASSES[h.class] ? h.class : 'other';
			r.online = h.online === true;
			r.audit = (h.audit && typeof h.audit === 'object' && !Array.isArray(h.audit)) ? h.audit : null;
		});

		(sections || []).forEach((s) => {
			if (!s || s['.type'] !== 'device')
				return;

			let mac = self.normalizeMac(typeof s.mac === 'string' ? s.mac : null);

			if (!mac)
				return;

			let r = row(mac);

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

		return order.map((mac) => rows[mac]).sort(this.compare);
	},

	/**
	 * Consoles and handhelds first, then by name (case-insensitive, rows
	 * without a name last), then by MAC: the order of the router's list.
	 */
	compare(a, b) {
		let ra = rank(a), rb = rank(b);

		if (ra !== rb)
			return ra - rb;

		if ((a.name === '') !== (b.name === ''))
			return (a.name === '') ? 1 : -1;

		let na = a.name.toLowerCase(), nb = b.name.toLowerCase();

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
	plan(rows, edits) {
		let ops = [];

		for (let i = 0; i < (rows || []).length; i++) {
			let r = rows[i], e = (edits || {})[r.key];

			if (!e)
				continue;

			if (e.remove) {
				r.sections.forEach((sid) => { ops.push({ op: 'remove', section: sid }) });
				continue;
			}

			let ports = null;

			if (e.ports != null) {
				let err = this.validatePorts(e.ports);

				if (err !== null)
					return { ops: [], error: _('%s: %s').format(r.name || r.mac, err) };

				ports = this.portsText(e.ports);
			}

			if (r.section === null) {
				if (e.enabled === true)
					ops.push({ op: 'add', values: { name: this.deviceName(r), mac: r.mac, enabled: '1', ports: ports || 'all' } });

				continue;
			}

			let values = {};

			if (e.enabled != null && e.enabled !== r.enabled)
				values.enabled = e.enabled ? '1' : '0';

			if (ports !== null && ports !== this.portsText(r.ports))
				values.ports = ports;

			if (Object.keys(values).length)
				r.sections.forEach((sid) => { ops.push({ op: 'set', section: sid, values: values }) });
		}

		return { ops: ops, error: null };
	},

	/**
	 * Live numbers per MAC from a stats reply (ubus "reterm device_stats",
	 * see the view) or, lacking it, from a hosts reply (only the
	 * rwnd-limited share is there).
	 * @returns {Object<string, {sessions, bytesTo, bytesFrom, rwndPct}>|null}
	 *   null when the reply has neither shape
	 */
	liveStats(reply) {
		let out = {}, self = this, list;

		if (reply && Array.isArray(reply.devices))
			list = reply.devices.map((d) => {
				return d && {
					mac: d.mac,
					sessions: isCount(d.sessions) ? d.sessions : null,
					bytesTo: isCount(d.bytes_to) ? d.bytes_to : null,
					bytesFrom: isCount(d.bytes_from) ? d.bytes_from : null,
					rwndPct: isPct(d.rwnd_limited_pct) ? d.rwnd_limited_pct : null
				};
			});
		else if (reply && Array.isArray(reply.hosts))
			list = reply.hosts.map((h) => {
				return h && {
					mac: h.mac, sessions: null, bytesTo: null, bytesFrom: null,
					rwndPct: (h.audit && isPct(h.audit.rwnd_limited_pct)) ? h.audit.rwnd_limited_pct : null
				};
			});
		else
			return null;

		list.forEach((s) => {
			let mac = (s && typeof s.mac === 'string') ? self.normalizeMac(s.mac) : null;

			if (mac) {
				delete s.mac;
				out[mac] = s;
			}
		});

		return out;
	}
});
