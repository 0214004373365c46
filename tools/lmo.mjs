// LuCI's compiled translation catalogue (.lmo): our writer and reader.
//
// The format, as LuCI's loaders read it (luci-base's lmo.c for the ucode
// module luci.core, cbi.js's sfh() for the browser side):
//
//   strings   every translation, UTF-8, each padded with NULs to 4 bytes
//   index     16-byte entries sorted by key id, big endian:
//             key id, value id (unused by the loaders), offset, length
//   trailer   4 bytes, big endian: the offset of the index
//
// A key id is Paul Hsieh's SuperFastHash (seeded with the length) of the
// canonical key: whitespace runs made one space, trimmed; with a context,
// "context \x01 msgid"; a plural form i appends "\x02" and the digit i.
// Key id 0 holds the Plural-Forms expression ("nplurals=2; plural=(n != 1);").
// The loaders search the index by bisection and return the string as is.

const enc = new TextEncoder();
const dec = new TextDecoder('utf-8', { fatal: true });

/** SuperFastHash of the bytes `b` with the seed `init` (LuCI's sfh_hash). */
export function sfh(b, init = b.length) {
	if (!b.length)
		return 0;
	const u16 = i => b[i] | (b[i + 1] << 8);
	const s8 = i => (b[i] << 24) >> 24;
	let h = init >>> 0, i = 0;
	for (let n = b.length >> 2; n > 0; n--, i += 4) {
		h = (h + u16(i)) >>> 0;
		const tmp = ((u16(i + 2) << 11) ^ h) >>> 0;
		h = ((h << 16) ^ tmp) >>> 0;
		h = (h + (h >>> 11)) >>> 0;
	}
	switch (b.length & 3) {
	case 3:
		h = (h + u16(i)) >>> 0;
		h = (h ^ (h << 16)) >>> 0;
		h = (h ^ (s8(i + 2) << 18)) >>> 0;
		h = (h + (h >>> 11)) >>> 0;
		break;
	case 2:
		h = (h + u16(i)) >>> 0;
		h = (h ^ (h << 11)) >>> 0;
		h = (h + (h >>> 17)) >>> 0;
		break;
	case 1:
		h = (h + s8(i)) >>> 0;
		h = (h ^ (h << 10)) >>> 0;
		h = (h + (h >>> 1)) >>> 0;
	}
	h = (h ^ (h << 3)) >>> 0;
	h = (h + (h >>> 5)) >>> 0;
	h = (h ^ (h << 4)) >>> 0;
	h = (h + (h >>> 17)) >>> 0;
	h = (h ^ (h << 25)) >>> 0;
	h = (h + (h >>> 6)) >>> 0;
	return h;
}

// The C loader folds every isspace() byte, the browser trims Unicode
// whitespace and folds [ \t\n]: a message both see alike has only those.
const canonC = s => s.replace(/[ \t\n\v\f\r]+/g, ' ').replace(/^ | $/g, '');
const canonJs = s => s.trim().replace(/[ \t\n]+/g, ' ');
const MAX_KEY = 4000;	// lmo.c canonicalises into a 4096-byte buffer

function canon(s, what) {
	const c = canonC(s);
	if (c !== canonJs(s))
		throw new Error(`lmo: ${what} ${JSON.stringify(s)} has whitespace that LuCI's C and browser lookups fold differently`);
	return c;
}

/** The canonical key of a message: what LuCI hashes to find it. */
export function lmoKey(msgid, { ctx, plural } = {}) {
	let k = (ctx != null ? canon(ctx, 'context') + '\x01' : '') + canon(msgid, 'msgid');
	if (plural != null)
		k += '\x02' + plural;
	return k;
}

export const keyId = key => sfh(enc.encode(key));

/**
 * The .lmo of `messages`: [{ msgid, ctx?, msgstr } | { msgid, ctx?, plural:
 * true, msgstr: [form0, form1, …] }]; `pluralForms` is the Plural-Forms
 * expression or null. Throws on an empty catalogue (LuCI's bisection reads
 * outside an empty index), more than 10 plural forms, a key of 4000 bytes or
 * more, a key hashing to 0, and two keys with one id.
 */
export function writeLmo(messages, pluralForms = null) {
	const entries = [];	// [keyId, valId, string, label]
	if (pluralForms)
		entries.push([ 0, 0, pluralForms, 'Plural-Forms' ]);
	for (const m of messages) {
		const forms = m.plural ? m.msgstr : [ m.msgstr ];
		if (forms.length > 10)
			throw new Error(`lmo: ${JSON.stringify(m.msgid)} has ${forms.length} plural forms (at most 10)`);
		forms.forEach((str, i) => {
			const key = lmoKey(m.msgid, { ctx: m.ctx, plural: m.plural ? i : null });
			if (enc.encode(key).length >= MAX_KEY)
				throw new Error(`lmo: the key of ${JSON.stringify(m.msgid.slice(0, 40))}… is too long for LuCI's loader`);
			const id = keyId(key);
			if (id === 0)
				throw new Error(`lmo: ${JSON.stringify(key)} hashes to 0, the Plural-Forms slot`);
			entries.push([ id, forms.length, str, key ]);
		});
	}
	if (!entries.some(e => e[0] !== 0))
		throw new Error('lmo: no translations to write');
	entries.sort((a, b) => a[0] - b[0]);
	for (let i = 1; i < entries.length; i++)
		if (entries[i][0] === entries[i - 1][0])
			throw new Error(`lmo: ${JSON.stringify(entries[i - 1][3])} and ${JSON.stringify(entries[i][3])} have the same key id`);

	const strings = [], index = [];
	let off = 0;
	for (const [ id, val, str ] of entries) {
		const b = enc.encode(str), padded = (b.length + 3) & ~3;
		strings.push(b, new Uint8Array(padded - b.length));
		index.push([ id, val, off, b.length ]);
		off += padded;
	}
	const tail = new DataView(new ArrayBuffer(index.length * 16 + 4));
	index.forEach((e, i) => e.forEach((v, j) => tail.setUint32(i * 16 + j * 4, v)));
	tail.setUint32(index.length * 16, off);
	return Buffer.concat([ ...strings, new Uint8Array(tail.buffer) ]);
}

/**
 * Our reader: { pluralForms, strings: Map(keyId -> string), get(msgid,
 * { ctx, plural }) }. Checks what LuCI's loader relies on: the trailer, the
 * index size and order, every string inside the strings area and UTF-8.
 */
export function readLmo(buf) {
	const b = new Uint8Array(buf), v = new DataView(b.buffer, b.byteOffset, b.byteLength);
	if (b.length < 20 || b.length % 4)
		throw new Error(`lmo: ${b.length} bytes is not a catalogue`);
	const idx = v.getUint32(b.length - 4);
	if (idx >= b.length || idx % 4 || (b.length - 4 - idx) % 16)
		throw new Error(`lmo: bad index offset ${idx} in ${b.length} bytes`);
	const strings = new Map();
	let last = -1;
	for (let p = idx; p < b.length - 4; p += 16) {
		const id = v.getUint32(p), off = v.getUint32(p + 8), len = v.getUint32(p + 12);
		if (id <= last)
			throw new Error(`lmo: index not strictly ascending at key ${id.toString(16)}`);
		if (off % 4 || off + len > idx)
			throw new Error(`lmo: string of key ${id.toString(16)} outside the strings area`);
		strings.set(id, dec.decode(b.subarray(off, off + len)));
		last = id;
	}
	return {
		pluralForms: strings.get(0) ?? null,
		strings,
		get: (msgid, opts) => strings.get(keyId(lmoKey(msgid, opts)))
	};
}
