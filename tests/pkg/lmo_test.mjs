#!/usr/bin/env node
// Our .lmo writer (tools/lmo.mjs, tools/po2lmo.mjs) read back by our reader
// and, when present, by LuCI's real loader: the ucode module luci.core
// (lmo.c; $RETERM_OWRT/host/bin/ucode with luci/core.so from
// tools/owrt/build.sh, or $LUCI_CORE_DIR). LuCI's own
// po2lmo, when found ($RETERM_OWRT/tools/po2lmo or on
// $PATH), cross-checks the key ids on the repo's German catalogue.
//
// Prints "ok - lmo/...", "not ok - lmo/..." (with "#" lines), "skip -
// lmo/... (why)" and a last line "lmo: N passed, N failed, N skipped".
import { readFileSync, writeFileSync, mkdtempSync, rmSync, existsSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { readLmo, writeLmo, lmoKey, keyId } from '../../tools/lmo.mjs';
import { po2lmo, catalogue } from '../../tools/po2lmo.mjs';
import { parsePo } from '../../tools/po.mjs';

const TOP = join(dirname(fileURLToPath(import.meta.url)), '../..');
const OWRT = process.env.RETERM_OWRT || '/opt/owrt';
const T = mkdtempSync(join(tmpdir(), 'lmo_test.'));
let passed = 0, failed = 0, skipped = 0;

function check(name, problems) {
	problems = [].concat(problems).filter(Boolean);
	problems.length ? failed++ : passed++;
	console.log(`${problems.length ? 'not ok' : 'ok'} - lmo/${name}`);
	problems.slice(0, 10).forEach(p => console.log('#   ' + p));
}
const skip = (name, why) => { skipped++; console.log(`skip - lmo/${name} (${why})`); };
const throws = (f, re) => { try { f(); return 'did not throw'; } catch (e) { return re.test(e.message) ? null : e.message; } };

// every case of the format: contexts (one msgid in three), plurals with and
// without context, escapes, folded whitespace, UTF-8 tails of 1..3 bytes
// with bytes >= 0x80 (signed chars in sfh), a long message
const FIXTURE = String.raw`msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"

msgid "Save"
msgstr "Speichern"

msgctxt "verb"
msgid "Open"
msgstr "Öffnen"

msgctxt "state"
msgid "Open"
msgstr "Offen"

msgid "Open"
msgstr "Auf"

msgid "%d host"
msgid_plural "%d hosts"
msgstr[0] "%d Gerät"
msgstr[1] "%d Geräte"

msgctxt "queue"
msgid "%d drop"
msgid_plural "%d drops"
msgstr[0] "%d verworfenes Paket"
msgstr[1] "%d verworfene Pakete"

msgid "Say \"hi\" \\ bye\tnow"
msgstr "Sag \"hallo\" \\ tschüss\tjetzt"

msgid "  Two  spaces and\na newline "
msgstr "Zwei Leerzeichen"

msgid "ä"
msgstr "1"

msgid "äö"
msgstr "2"

msgid "aäö"
msgstr "3"

msgid "über"
msgstr "4"

msgid "aä"
msgstr "5"

msgid "` + 'Long message. '.repeat(150) + String.raw`"
msgstr "Lange Nachricht."

#, fuzzy
msgid "Fuzzy"
msgstr "Unsicher"

msgid "Untranslated"
msgstr ""

msgid "%d half"
msgid_plural "%d halves"
msgstr[0] "%d Hälfte"
msgstr[1] ""
`;

const entries = parsePo(FIXTURE);
const { messages } = catalogue(entries);
const lmo = po2lmo(FIXTURE);
const cat = readLmo(lmo);
// what must resolve: [msgid, ctx, plural index or null, expected string]
const expect = messages.flatMap(m => m.plural ? m.msgstr.map((s, i) => [ m.msgid, m.ctx, i, s ]) : [ [ m.msgid, m.ctx, null, m.msgstr ] ]);

check('fixture: 14 messages kept (fuzzy, untranslated, half-translated left out)', [
	messages.length === 14 ? null : `${messages.length} messages: ${messages.map(m => m.msgid).join(', ')}`,
	...[ 'Fuzzy', 'Untranslated', '%d half' ].map(id => messages.some(m => m.msgid === id) ? `${id} kept` : null)
]);
check('our reader: every msgid resolves to its msgstr (contexts, plural forms)',
	expect.map(([ id, ctx, pl, s ]) => {
		const got = cat.get(id, { ctx, plural: pl });
		return got === s ? null : `${JSON.stringify(id)} ctx ${ctx} form ${pl}: ${JSON.stringify(got)}`;
	}));
check('our reader: nothing else in the catalogue, Plural-Forms kept', [
	cat.strings.size === expect.length + 1 ? null : `${cat.strings.size} strings for ${expect.length} + 1`,
	cat.pluralForms === 'nplurals=2; plural=(n != 1);' ? null : `Plural-Forms ${cat.pluralForms}`,
	...[ 'Fuzzy', 'Untranslated' ].map(id => cat.get(id) === undefined ? null : `${id} present`)
]);
check('whitespace folded as LuCI looks it up', [
	cat.get('Two spaces and a newline') === 'Zwei Leerzeichen' ? null : 'folded msgid not found',
	cat.get('Open', { ctx: '  verb ' }) === 'Öffnen' ? null : 'context not folded'
]);
check('layout: strings 4-byte aligned, index sorted, trailer = index offset', (() => {
	const v = new DataView(lmo.buffer, lmo.byteOffset, lmo.length), idx = v.getUint32(lmo.length - 4);
	const p = [];
	if ((lmo.length - 4 - idx) / 16 !== expect.length + 1) p.push(`index of ${(lmo.length - 4 - idx) / 16} entries`);
	for (let o = idx; o < lmo.length - 4; o += 16)
		if (v.getUint32(o + 8) % 4) p.push(`string at ${v.getUint32(o + 8)}`);
	if (v.getUint32(idx) !== 0 || v.getUint32(idx + 4) !== 0) p.push('Plural-Forms is not the first entry (key 0)');
	return p;
})());
check('same input, same bytes', Buffer.compare(lmo, po2lmo(FIXTURE)) === 0 ? [] : [ 'two writes differ' ]);
check('refused: empty catalogue, a key id twice, whitespace C and JS fold apart, > 10 forms', [
	throws(() => po2lmo('msgid "a"\nmsgstr ""\n'), /no translations/),
	throws(() => writeLmo([ { msgid: 'a  b', msgstr: 'x' }, { msgid: 'a b', msgstr: 'y' } ]), /same key id/),
	throws(() => writeLmo([ { msgid: 'a\rb', msgstr: 'x' } ]), /fold differently/),
	throws(() => writeLmo([ { msgid: 'a', plural: true, msgstr: Array(11).fill('x') } ]), /at most 10/)
]);
{
	const bad = join(T, 'bad.po'), out = join(T, 'bad.lmo');
	writeFileSync(bad, 'msgid "a"\nmsgstr "b"\nnonsense\n');
	const r = spawnSync(process.execPath, [ join(TOP, 'tools/po2lmo.mjs'), bad, out ], { encoding: 'utf8' });
	check('po2lmo.mjs: bad .po -> exit 1, a message naming the file, no output',
		[ r.status === 1 ? null : `exit ${r.status}`, /bad\.po: cannot parse line/.test(r.stderr) ? null : `stderr: ${r.stderr}`,
			existsSync(out) || existsSync(out + '.tmp') ? 'output written' : null ]);
}

// the repo's German catalogue
const dePo = readFileSync(join(TOP, 'po/de/reterm.po'), 'utf8');
const de = catalogue(parsePo(dePo));
const deLmo = po2lmo(dePo), deCat = readLmo(deLmo);
check(`po/de/reterm.po: all ${de.messages.length} translated messages resolve`,
	de.messages.flatMap(m => (m.plural ? m.msgstr : [ m.msgstr ]).map((s, i) =>
		deCat.get(m.msgid, { ctx: m.ctx, plural: m.plural ? i : null }) === s ? null : JSON.stringify(m.msgid))));

// ---- LuCI's real loader ---------------------------------------------------
const coreDir = [ process.env.LUCI_CORE_DIR, join(OWRT, 'host/lib/ucode') ]
	.find(d => d && existsSync(join(d, 'luci/core.so')) && existsSync(join(d, 'fs.so')));
const ucode = [ process.env.RETERM_UCODE, join(OWRT, 'host/bin/ucode') ]
	.find(u => u && spawnSync(u, [ '-e', 'print(1)' ], { encoding: 'utf8' }).stdout === '1') || null;

// translate()/ntranslate() of luci.core on the catalogues in `dir`: the
// answers to `queries` ([msgid, ctx, n or null, plural msgid]) in order
function luciCore(dir, lang, queries) {
	writeFileSync(join(T, 'q.json'), JSON.stringify(queries));
	const out = execFileSync(ucode, [ '-L', coreDir, '-e', `
		import { load_catalog, change_catalog, translate, ntranslate } from 'luci.core';
		import { readfile } from 'fs';
		if (!load_catalog('${lang}', '${dir}') || !change_catalog('${lang}')) die('load_catalog failed');
		print(sprintf('%J', map(json(readfile('${T}/q.json')), q =>
			q[2] == null ? translate(q[0], q[1]) : ntranslate(q[2], q[0], q[3], q[1]))));
	` ], { encoding: 'utf8' });
	return JSON.parse(out);
}

if (!ucode || !coreDir) {
	skip('luci.core: the fixture through LuCI\'s loader', ucode ? 'luci/core.so not found' : 'ucode not found');
	skip('luci.core: po/de/reterm.po through LuCI\'s loader', ucode ? 'luci/core.so not found' : 'ucode not found');
}
else {
	writeFileSync(join(T, 'fixture.xx.lmo'), lmo);
	const plurals = new Map(messages.filter(m => m.plural).map(m => [ m.msgid + m.ctx, m ]));
	// n = 1 picks form 0, n = 5 form 1 through the Plural-Forms expression
	const qs = expect.map(([ id, ctx, pl ]) => [ id, ctx ?? null, pl == null ? null : [ 1, 5 ][pl], plurals.get(id + ctx)?.msgid_plural ?? 'x' ]);
	qs.push([ 'Two spaces and a newline', null, null, null ], [ 'Open', ' verb', null, null ], [ 'Fuzzy', null, null, null ], [ '%d half', null, 1, '%d halves' ]);
	const got = luciCore(T, 'xx', qs);
	const want = [ ...expect.map(e => e[3]), 'Zwei Leerzeichen', 'Öffnen', null, '%d half' ];
	check(`luci.core (${coreDir}): the fixture resolves, contexts and plural forms by n`,
		want.map((w, i) => got[i] === w ? null : `${JSON.stringify(qs[i])}: ${JSON.stringify(got[i])}, want ${JSON.stringify(w)}`));

	rmSync(join(T, 'fixture.xx.lmo'));
	writeFileSync(join(T, 'reterm.de.lmo'), deLmo);
	const dq = de.messages.map(m => m.plural ? [ m.msgid, m.ctx ?? null, 5, m.msgid_plural ?? 'x' ] : [ m.msgid, m.ctx ?? null, null, null ]);
	const dg = luciCore(T, 'de', dq);
	check('luci.core: po/de/reterm.po resolves in LuCI\'s loader',
		de.messages.map((m, i) => dg[i] === (m.plural ? m.msgstr[1] : m.msgstr) ? null : `${JSON.stringify(m.msgid)}: ${JSON.stringify(dg[i])}`));
}

// ---- LuCI's own po2lmo: same key ids ---------------------------------------
const real = [ join(OWRT, 'tools/po2lmo'), ...(process.env.PATH || '').split(':').map(d => join(d, 'po2lmo')) ]
	.find(p => existsSync(p));
if (!real)
	skip('LuCI po2lmo: same key ids and strings', 'po2lmo not found');
else {
	execFileSync(real, [ join(TOP, 'po/de/reterm.po'), join(T, 'real.lmo') ]);
	const theirs = readLmo(readFileSync(join(T, 'real.lmo')));
	// po2lmo keeps escapes such as \n unprocessed (LuCI cannot find those)
	// and compiles fuzzy entries: those left out
	const fuzzy = new Set(parsePo(dePo).filter(e => e.flags.includes('fuzzy')).flatMap(e =>
		e.msgid_plural === undefined ? [ lmoKey(e.msgid, { ctx: e.msgctxt }) ] : [ 0, 1, 2, 3, 4, 5 ].map(i => lmoKey(e.msgid, { ctx: e.msgctxt, plural: i })))
		.map(keyId));
	const diff = [ ...theirs.strings ].filter(([ k, v ]) => !v.includes('\\') && !fuzzy.has(k) && deCat.strings.get(k) !== v);
	check(`LuCI po2lmo (${real}): its ${theirs.strings.size} entries are ours, same key ids`,
		diff.map(([ k, v ]) => `${k.toString(16)} ${JSON.stringify(v)}: ours ${JSON.stringify(deCat.strings.get(k))}`));
}

rmSync(T, { recursive: true, force: true });
console.log(`lmo: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exitCode = failed ? 1 : 0;
