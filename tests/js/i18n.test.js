import { describe, it, expect } from 'vitest';
import { readFileSync, existsSync } from 'node:fs';
import { scanJs, collect, renderPot, POT } from '../../tools/i18n-scan.mjs';
import { parsePo, placeholders } from '../../tools/po.mjs';

describe('i18n scanner', () => {
	it('finds _() with either quote, escapes and N_() plurals', () => {
		const src = "x = _('Save');\ny = _(\"It's \\\"on\\\"\");\nz = N_(n, '%d host', '%d hosts');";
		expect(scanJs(src)).toEqual([
			{ msgid: 'Save', line: 1 },
			{ msgid: 'It\'s "on"', line: 2 },
			{ msgid: '%d host', plural: '%d hosts', line: 3 }
		]);
	});
	it('ignores other calls, template literals and non-literals', () => {
		expect(scanJs("foo_('a'); obj._('b'); _(`c`); _(name); _('')")).toEqual([]);
	});
	it('po/templates/reterm.pot is up to date (node tools/i18n-scan.mjs)', () => {
		expect(readFileSync(POT, 'utf8')).toBe(renderPot(collect()));
	});
});

describe('German translation', () => {
	const path = new URL('../../po/de/reterm.po', import.meta.url);
	const pot = collect();
	const de = existsSync(path) ? parsePo(readFileSync(path, 'utf8')).filter(e => e.msgid !== '') : [];
	const byId = new Map(de.map(e => [e.msgid, e]));

	it('translates every message of the template', () => {
		const missing = pot.filter(e => {
			const t = byId.get(e.msgid);
			return !t || (e.plural ? !t.msgstr0 || !t.msgstr1 : !t.msgstr) || t.flags.includes('fuzzy');
		}).map(e => e.msgid);
		expect(missing).toEqual([]);
	});
	it('has no messages the template no longer has', () => {
		const ids = new Set(pot.map(e => e.msgid));
		expect(de.filter(e => !ids.has(e.msgid)).map(e => e.msgid)).toEqual([]);
	});
	it('keeps the placeholders of every message', () => {
		const bad = de.filter(e => e.msgstr !== undefined && e.msgstr !== '' &&
			JSON.stringify(placeholders(e.msgstr).sort()) !== JSON.stringify(placeholders(e.msgid).sort()))
			.map(e => e.msgid);
		expect(bad).toEqual([]);
	});
});
