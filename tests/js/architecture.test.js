import { describe, it, expect } from 'vitest';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * docs/architecture.md's source tree is the tree: every shared JS module
 * and style sheet, every ucode module and every libexec program is named
 * there, and every name there exists (a module added, renamed or deleted
 * without the page fails here).
 */

const top = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const doc = readFileSync(join(top, 'docs', 'architecture.md'), 'utf8');
const tree = doc.slice(doc.indexOf('## The source tree'), doc.indexOf('Module names follow'));

/* the lines of the tree block from the one containing `from` up to the one containing `to` */
function part(from, to) {
	const lines = tree.split('\n'), a = lines.findIndex((l) => l.includes(from)),
	      b = lines.findIndex((l, i) => i > a && l.includes(to));
	expect(a, `tree block line '${from}'`).toBeGreaterThan(-1);
	expect(b, `tree block line '${to}'`).toBeGreaterThan(a);
	return lines.slice(a, b).join('\n');
}

function files(dir, re) {
	const out = new Set();
	for (const n of readdirSync(dir)) {
		const p = join(dir, n);
		if (statSync(p).isDirectory())
			files(p, re).forEach((f) => out.add(f));
		else if (re.test(n))
			out.add(n);
	}
	return out;
}

const named = (text, re) => new Set((text.match(re) || []).map((w) => w.replace(/^.*\//, '')));

describe('docs/architecture.md names what ls shows', () => {
	it('the shared JS modules and style sheets', () => {
		const text = part('reterm/                         shared modules', 'root/ ');
		expect([...named(text, /[a-z0-9]+\.(js|css)\b/g)].sort())
			.toEqual([...files(join(top, 'htdocs/luci-static/resources/reterm'), /\.(js|css)$/)].sort());
	});

	it('the views', () => {
		const text = part('view/reterm/', 'reterm/                         shared modules');
		expect([...named(text, /[a-z0-9]+\.js\b/g)].sort())
			.toEqual([...files(join(top, 'htdocs/luci-static/resources/view/reterm'), /\.js$/)].sort());
	});

	it('the ucode modules', () => {
		const text = part('usr/share/ucode/reterm/', 'po/ ');
		expect([...named(text, /[a-z0-9_]+\.uc\b/g)].sort())
			.toEqual([...files(join(top, 'root/usr/share/ucode/reterm'), /\.uc$/)].sort());
	});

	it('the programs in /usr/libexec/reterm', () => {
		const text = part('usr/libexec/reterm/', 'usr/share/rpcd/ucode/reterm');
		const listed = new Set(text.split('\n').slice(1).map((l) => l.trim().split(/\s+/)[0]).filter(Boolean));
		expect([...listed].sort()).toEqual(readdirSync(join(top, 'root/usr/libexec/reterm')).sort());
	});
});
