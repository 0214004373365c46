#!/usr/bin/env node
// Our gettext .po tools: read, write, and merge a template into a
// translation.
//
//   node tools/po.mjs merge po/templates/reterm.pot po/de/reterm.po
//
// rewrites the .po with the template's messages, in its order and with its
// source references: translations (and "#," flags) kept by msgctxt + msgid,
// new messages untranslated, messages the template no longer has dropped;
// the header entry of the .po kept. Prints what changed.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Entries with msgctxt, msgid, msgid_plural, msgstr / msgstr[n] (as
// msgstr0, msgstr1, …), "#," flags and "#:" references; multi-line strings.
export function parsePo(text) {
	const entries = [];
	let cur = null, field = null;
	const unq = (s, raw) => {
		try { return JSON.parse(s); }
		catch { throw new Error(`po: bad string in line: ${raw}`); }
	};
	const flush = () => { if (cur && cur.msgid !== undefined) entries.push(cur); cur = null; field = null; };
	const entry = () => (cur = cur || { flags: [], refs: [] });
	for (const raw of text.split('\n')) {
		const line = raw.trim();
		if (line === '') { flush(); continue; }
		if (line.startsWith('#') && cur && cur.msgid !== undefined) flush();	// a new entry's comments
		if (line.startsWith('#,')) { entry().flags = line.slice(2).split(',').map(s => s.trim()).filter(Boolean); continue; }
		if (line.startsWith('#:')) { entry().refs.push(...line.slice(2).trim().split(/\s+/).filter(Boolean)); continue; }
		if (line.startsWith('#')) { entry(); continue; }
		let m;
		if ((m = /^(msgctxt|msgid|msgid_plural|msgstr(?:\[(\d+)\])?)\s+(".*")$/.exec(line))) {
			if ((m[1] === 'msgctxt' || m[1] === 'msgid') && cur && cur.msgid !== undefined)
				flush();
			field = m[2] !== undefined ? `msgstr${m[2]}` : m[1];
			if (entry()[field] !== undefined)
				throw new Error(`po: ${field} twice in one entry: ${raw}`);
			cur[field] = unq(m[3], raw);
		} else if (/^".*"$/.test(line) && field) {
			cur[field] += unq(line, raw);
		} else {
			throw new Error(`po: cannot parse line: ${raw}`);
		}
	}
	flush();
	return entries;
}

// The printf-style placeholders of a message (%s, %d, %.1f…; "%%" and a
// "%" followed by a space, as in "90 % of", are not placeholders here).
export function placeholders(s) {
	return (s.match(/%(?:\d+\$)?[-+0#]*\d*(?:\.\d+)?[sdfxXoc%]/g) || []).filter(p => p !== '%%');
}

export function poQuote(s) {
	return '"' + s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\t/g, '\\t') + '"';
}

/** The plural form strings of an entry: [msgstr0, msgstr1, …] */
export const forms = e => Object.keys(e).filter(k => /^msgstr\d+$/.test(k))
	.sort((a, b) => a.slice(6) - b.slice(6)).map(k => e[k]);

/** An entry's identity: msgctxt and msgid */
export const entryKey = e => (e.msgctxt !== undefined ? e.msgctxt + '\x04' : '') + e.msgid;

function renderEntry(e) {
	let out = '';
	if (e.refs?.length) out += '#: ' + e.refs.join(' ') + '\n';
	if (e.flags?.length) out += '#, ' + e.flags.join(', ') + '\n';
	if (e.msgctxt !== undefined) out += 'msgctxt ' + poQuote(e.msgctxt) + '\n';
	out += 'msgid ' + poQuote(e.msgid) + '\n';
	if (e.msgid_plural !== undefined) {
		out += 'msgid_plural ' + poQuote(e.msgid_plural) + '\n';
		forms(e).forEach((s, i) => { out += `msgstr[${i}] ${poQuote(s)}\n`; });
	}
	else
		out += 'msgstr ' + poQuote(e.msgstr ?? '') + '\n';
	return out;
}

/** A .po file: the header entry (msgid "") with one line per field, then the entries. */
export function renderPo(header, entries) {
	const lines = (header.msgstr || '').split(/(?<=\n)/).filter(Boolean);
	let out = 'msgid ""\nmsgstr ""\n' + lines.map(l => poQuote(l) + '\n').join('');
	for (const e of entries)
		out += '\n' + renderEntry(e);
	return out;
}

/** The number of plural forms the header declares (2 without one) */
export function nplurals(header) {
	const m = /(?:^|\n)Plural-Forms:.*?nplurals\s*=\s*(\d+)/i.exec(header?.msgstr || '');
	return m ? +m[1] : 2;
}

/**
 * The translation `po` (entries) brought to the template `pot` (entries):
 * { header, entries, added: [msgid], dropped: [msgid] }.
 */
export function mergePo(pot, po) {
	const header = po.find(e => e.msgid === '' && e.msgctxt === undefined) || { msgid: '', msgstr: '' };
	const old = new Map(po.filter(e => e !== header).map(e => [ entryKey(e), e ]));
	const n = nplurals(header), added = [];
	const entries = pot.filter(e => e.msgid !== '').map(t => {
		const o = old.get(entryKey(t)), e = { refs: t.refs, flags: o ? o.flags : [], msgid: t.msgid };
		if (!o) added.push(t.msgid);
		if (t.msgctxt !== undefined) e.msgctxt = t.msgctxt;
		if (t.msgid_plural !== undefined) {
			e.msgid_plural = t.msgid_plural;
			const had = o && o.msgid_plural !== undefined ? forms(o) : [];
			for (let i = 0; i < n; i++) e[`msgstr${i}`] = had[i] ?? '';
		}
		else
			e.msgstr = o && o.msgid_plural === undefined ? (o.msgstr ?? '') : '';
		if (o && (o.msgid_plural === undefined) !== (t.msgid_plural === undefined) && !e.flags.includes('fuzzy'))
			e.flags = [ ...e.flags, 'fuzzy' ];	// singular became plural or back: check it
		return e;
	});
	const keep = new Set(pot.map(entryKey));
	const dropped = [ ...old.values() ].filter(e => !keep.has(entryKey(e))).map(e => e.msgid);
	return { header, entries, added, dropped };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
	const [ cmd, potPath, poPath ] = process.argv.slice(2);
	if (cmd !== 'merge' || !potPath || !poPath) {
		console.error('usage: node tools/po.mjs merge <template.pot> <translation.po>');
		process.exit(2);
	}
	try {
		const r = mergePo(parsePo(readFileSync(potPath, 'utf8')), parsePo(readFileSync(poPath, 'utf8')));
		writeFileSync(poPath, renderPo(r.header, r.entries));
		for (const id of r.added) console.log(`new, untranslated: ${JSON.stringify(id)}`);
		for (const id of r.dropped) console.log(`dropped: ${JSON.stringify(id)}`);
		console.log(`${poPath}: ${r.entries.length} messages, ${r.added.length} new, ${r.dropped.length} dropped`);
	}
	catch (e) {
		console.error(`po: ${e.message}`);
		process.exit(1);
	}
}
