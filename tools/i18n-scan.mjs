#!/usr/bin/env node
// Collect the translatable strings of the app into po/templates/reterm.pot.
//
//   node tools/i18n-scan.mjs          write po/templates/reterm.pot
//   node tools/i18n-scan.mjs --check  exit 1 if the .pot is out of date
//
// Sources: `_('…')` / `_("…")` / `N_(n, '…', '…')` calls with string literals
// in htdocs/**/*.js, and, as LuCI's own scanner takes them, every "title" and
// "description" string of root/usr/share/luci/menu.d/*.json (menu entries)
// and root/usr/share/rpcd/acl.d/*.json (the ACL descriptions LuCI shows
// where access rights are granted).
// Template literals and concatenations are not translatable: keep each
// message one literal and use .format() for the variable parts.
import { readFileSync, writeFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join, relative, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderPo } from './po.mjs';

const TOP = join(dirname(fileURLToPath(import.meta.url)), '..');
export const POT = join(TOP, 'po', 'templates', 'reterm.pot');

function walk(dir, ext, out = []) {
	if (!existsSync(dir)) return out;
	for (const name of readdirSync(dir).sort()) {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) walk(path, ext, out);
		else if (path.endsWith(ext)) out.push(path);
	}
	return out;
}

// A JS string literal starting at src[i] (a quote): [value, end index].
function readLiteral(src, i) {
	const q = src[i];
	let out = '';
	for (let j = i + 1; j < src.length; j++) {
		const c = src[j];
		if (c === q) return [out, j + 1];
		if (c === '\n') return null;
		if (c !== '\\') { out += c; continue; }
		const n = src[++j];
		const esc = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '`': '`' };
		if (n in esc) out += esc[n];
		else if (n === 'u') { out += String.fromCharCode(parseInt(src.substr(j + 1, 4), 16)); j += 4; }
		else out += n;
	}
	return null;
}

function skipSpace(src, i) {
	while (i < src.length && /\s/.test(src[i])) i++;
	return i;
}

/** Messages in one JS source: [{msgid, plural?, line}] */
export function scanJs(src) {
	const found = [];
	const re = /(^|[^\w$.])(N?_)\(/g;
	let m;
	while ((m = re.exec(src))) {
		let i = skipSpace(src, m.index + m[0].length);
		if (m[2] === 'N_') {  // N_(count, 'singular', 'plural')
			const comma = src.indexOf(',', i);
			if (comma < 0) continue;
			i = skipSpace(src, comma + 1);
		}
		if (src[i] !== "'" && src[i] !== '"') continue;
		const lit = readLiteral(src, i);
		if (!lit) continue;
		const line = src.slice(0, m.index).split('\n').length;
		const entry = { msgid: lit[0], line };
		if (m[2] === 'N_') {
			const j = skipSpace(src, lit[1]);
			if (src[j] !== ',') continue;
			const k = skipSpace(src, j + 1);
			const pl = (src[k] === "'" || src[k] === '"') ? readLiteral(src, k) : null;
			if (!pl) continue;
			entry.plural = pl[0];
		}
		if (entry.msgid !== '') found.push(entry);
	}
	return found;
}

/** "title" and "description" strings in a JSON file: [{msgid, line}] */
export function scanJson(src) {
	JSON.parse(src);	// a broken file is an error, not a silent gap
	const found = [];
	const re = /"(?:title|description)"\s*:\s*("(?:[^"\\\n]|\\.)*")/g;
	let m;
	while ((m = re.exec(src))) {
		const msgid = JSON.parse(m[1]);
		if (msgid !== '')
			found.push({ msgid, line: src.slice(0, m.index).split('\n').length });
	}
	return found;
}

/** All messages of the tree, merged by msgid, with source references. */
export function collect(top = TOP) {
	const msgs = new Map();
	const add = (msgid, plural, ref) => {
		const e = msgs.get(msgid) || { msgid, plural, refs: [] };
		e.plural = e.plural || plural;
		e.refs.push(ref);
		msgs.set(msgid, e);
	};
	for (const f of walk(join(top, 'htdocs'), '.js'))
		for (const e of scanJs(readFileSync(f, 'utf8')))
			add(e.msgid, e.plural, `${relative(top, f)}:${e.line}`);
	for (const dir of [ [ 'luci', 'menu.d' ], [ 'rpcd', 'acl.d' ] ])
		for (const f of walk(join(top, 'root', 'usr', 'share', ...dir), '.json'))
			for (const e of scanJson(readFileSync(f, 'utf8')))
				add(e.msgid, undefined, `${relative(top, f)}:${e.line}`);
	return [...msgs.values()].sort((a, b) => a.msgid < b.msgid ? -1 : a.msgid > b.msgid ? 1 : 0);
}

export function renderPot(entries) {
	return renderPo({ msgstr: 'Content-Type: text/plain; charset=UTF-8\n' }, entries.map(e => e.plural
		? { refs: e.refs, msgid: e.msgid, msgid_plural: e.plural, msgstr0: '', msgstr1: '' }
		: { refs: e.refs, msgid: e.msgid, msgstr: '' }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
	const entries = collect(), pot = renderPot(entries);
	if (process.argv.includes('--check')) {
		const cur = existsSync(POT) ? readFileSync(POT, 'utf8') : '';
		if (cur !== pot) {
			console.error('po/templates/reterm.pot is out of date: run node tools/i18n-scan.mjs');
			process.exit(1);
		}
	} else {
		writeFileSync(POT, pot);
		console.log(`${POT}: ${entries.length} messages`);
	}
}
