// Minimal gettext .po reader for our own files: entries with msgid,
// optional msgid_plural, msgstr / msgstr[n], "#," flags; multi-line strings.
export function parsePo(text) {
	const entries = [];
	let cur = null, field = null;
	const unq = (s) => JSON.parse(s.replace(/\\t/g, '\\t'));
	const flush = () => { if (cur && cur.msgid !== undefined) entries.push(cur); cur = null; field = null; };
	for (const raw of text.split('\n')) {
		const line = raw.trim();
		if (line === '') { flush(); continue; }
		if (line.startsWith('#,')) { cur = cur || { flags: [] }; cur.flags = line.slice(2).split(',').map(s => s.trim()); continue; }
		if (line.startsWith('#')) { cur = cur || { flags: [] }; continue; }
		cur = cur || { flags: [] };
		let m;
		if ((m = /^(msgid|msgid_plural|msgstr(?:\[(\d+)\])?)\s+(".*")$/.exec(line))) {
			field = m[2] !== undefined ? `msgstr${m[2]}` : m[1];
			cur[field] = unq(m[3]);
		} else if (/^".*"$/.test(line) && field) {
			cur[field] += unq(line);
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
