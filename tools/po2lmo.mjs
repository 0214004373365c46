#!/usr/bin/env node
// Compile a gettext .po into LuCI's .lmo catalogue (tools/lmo.mjs).
//
//   node tools/po2lmo.mjs po/de/reterm.po out/reterm.de.lmo
//
// Kept: every translated message with its msgctxt, plural messages with all
// their forms, the header's Plural-Forms expression. Left out, as gettext
// does: the header, fuzzy entries, untranslated ones (an empty msgstr or an
// empty plural form): LuCI shows the English text for those. Errors (bad
// .po, nothing translated, a key LuCI cannot look up) write nothing.
import { readFileSync, writeFileSync, renameSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parsePo, forms } from './po.mjs';
import { writeLmo } from './lmo.mjs';

/** { messages, pluralForms } for writeLmo() from .po entries */
export function catalogue(entries) {
	const header = entries.find(e => e.msgid === '' && e.msgctxt === undefined);
	const pf = /(?:^|\n)Plural-Forms:[ \t]*([^\n]*)/i.exec(header?.msgstr || '');
	const messages = [];
	for (const e of entries) {
		if (e === header || e.flags.includes('fuzzy'))
			continue;
		const plural = e.msgid_plural !== undefined;
		const strs = plural ? forms(e) : [ e.msgstr ?? '' ];
		if (!strs.length || strs.some(s => s === ''))
			continue;
		messages.push({ msgid: e.msgid, ctx: e.msgctxt, plural, msgstr: plural ? strs : strs[0] });
	}
	return { messages, pluralForms: pf ? pf[1].trim() : null };
}

export function po2lmo(text) {
	const { messages, pluralForms } = catalogue(parsePo(text));
	return writeLmo(messages, pluralForms);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
	const [ input, output ] = process.argv.slice(2);
	if (!input || !output || process.argv.length !== 4) {
		console.error('usage: node tools/po2lmo.mjs <input.po> <output.lmo>');
		process.exit(2);
	}
	try {
		const lmo = po2lmo(readFileSync(input, 'utf8'));
		writeFileSync(output + '.tmp', lmo);
		renameSync(output + '.tmp', output);
	}
	catch (e) {
		console.error(`po2lmo: ${input}: ${e.message.replace(/^(po|lmo): /, '')}`);
		process.exit(1);
	}
}
