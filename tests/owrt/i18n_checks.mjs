#!/usr/bin/env node
/**
 * The owrt tier's translation checks: the German package from `make ipk`
 * (luci-i18n-reterm-de, installed by tests/owrt/run.sh) as the root's real
 * LuCI shows it in Chromium. Run by run.sh after the other LuCI checks:
 *   node tests/owrt/i18n_checks.mjs --root ROOT --port PORT
 *
 *   luci/i18n/installed  reterm.de.lmo in /usr/lib/lua/luci/i18n, luci.languages.de
 *                        set and its uci-defaults script gone (the postinst ran)
 *   luci/i18n/lang-de    luci.main.lang 'de' (what System → Language sets),
 *                        an English browser: the Overview's heading and our
 *                        menu entry in German, <html lang="de">
 *   luci/i18n/auto-de    lang 'auto', a browser asking for de-DE: German, as
 *                        the package listed German in luci.languages
 *   luci/i18n/auto-en    lang 'auto', an English browser: English
 *
 * The German texts come from po/de/reterm.po. luci.main.lang is restored.
 * Prints "ok - luci/i18n/...", "not ok - ..." with "#" lines, "skip - ...
 * (reason)" without Chromium or playwright-core, then "i18n-checks: done (...)".
 */

import { existsSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { parsePo } from '../../tools/po.mjs';

const TOP = join(dirname(fileURLToPath(import.meta.url)), '../..');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const arg = k => { const i = process.argv.indexOf(k); return i > 0 ? process.argv[i + 1] : null; };
const ROOT = arg('--root'), BASE = `http://127.0.0.1:${arg('--port') || 8080}/cgi-bin/luci/`;
const CHECKS = [ 'installed', 'lang-de', 'auto-de', 'auto-en' ];
const de = new Map(parsePo(readFileSync(join(TOP, 'po/de/reterm.po'), 'utf8')).map(e => [ e.msgid, e.msgstr ]));
const HEAD = [ 'Overview', de.get('Overview') ], MENU = [ 'Re-termination', de.get('Re-termination') ];
let passed = 0, failed = 0;

function report(name, problems) {
	problems.length ? failed++ : passed++;
	console.log(`${problems.length ? 'not ok' : 'ok'} - luci/i18n/${name}`);
	for (const p of problems)
		console.log('#   ' + String(p).split('\n').slice(0, 8).join('\n#   '));
}

const osh = cmd => execFileSync('chroot', [ ROOT, '/usr/bin/env', '-i', 'PATH=/usr/sbin:/usr/bin:/sbin:/bin',
	'/bin/sh', '-c', cmd ], { encoding: 'utf8', timeout: 60000 }).trim();

/* log in with a browser of `locale`, open the Overview: what it shows.
 * The page's polls are stopped and let finish before the browser goes:
 * an aborted LuCI request holds up uhttpd's next ones. */
async function overview(browser, locale) {
	const ctx = await browser.newContext({ locale, viewport: { width: 1280, height: 900 } });
	const page = await ctx.newPage(), go = url => page.goto(url, { timeout: 60000, waitUntil: 'domcontentloaded' });
	try {
		await go(BASE);
		await page.fill('#luci_username', 'root');
		await page.fill('#luci_password', 'reterm-test');
		await Promise.all([ page.waitForEvent('framenavigated'), page.press('#luci_password', 'Enter') ]);
		await page.waitForLoadState('networkidle', { timeout: 20000 }).catch(() => {});
		await go(BASE + 'admin/network/reterm/overview');
		await page.waitForFunction(() => document.querySelector('#view h2')?.textContent, null, { timeout: 30000 });
		return await page.evaluate(() => ({
			lang: document.documentElement.lang,
			head: document.querySelector('#view h2').textContent.trim(),
			menu: [ ...document.querySelectorAll('a[href*="admin/network/reterm"]') ].map(a => a.textContent.trim())
		}));
	}
	finally {
		await page.evaluate(() => window.L?.Poll?.stop()).catch(() => {});
		await page.waitForLoadState('networkidle', { timeout: 20000 }).catch(() => {});
		await ctx.close();
	}
}

/* problems unless the page is in `lang` (0 English, 1 German) */
function shown(got, lang, html) {
	const p = [];
	if (got.head !== HEAD[lang]) p.push(`heading "${got.head}", want "${HEAD[lang]}"`);
	if (!got.menu.includes(MENU[lang])) p.push(`menu [${got.menu.join(', ')}] has no "${MENU[lang]}"`);
	if (html && got.lang !== html) p.push(`<html lang="${got.lang}">, want "${html}"`);
	return p;
}

async function main() {
	const { chromium } = await import('playwright-core').catch(() => ({}));
	const why = !ROOT ? 'no --root given' : !existsSync(CHROMIUM) ? `chromium not found at ${CHROMIUM}` :
		!chromium ? 'playwright-core not found: npm ci' : !HEAD[1] || !MENU[1] ? 'po/de/reterm.po lacks the texts' : null;
	if (why)
		return CHECKS.forEach(c => console.log(`skip - luci/i18n/${c} (${why})`));

	report('installed', [
		existsSync(join(ROOT, 'usr/lib/lua/luci/i18n/reterm.de.lmo')) ? null : 'no /usr/lib/lua/luci/i18n/reterm.de.lmo',
		osh('uci -q get luci.languages.de || :') === 'Deutsch (German)' ? null : 'luci.languages.de not set',
		existsSync(join(ROOT, 'etc/uci-defaults/luci-i18n-reterm-de')) ? 'its uci-defaults script is still there' : null
	].filter(Boolean));

	const lang = osh('uci -q get luci.main.lang || echo auto'), home = mkdtempSync(join(tmpdir(), 'owrt-i18n-'));
	const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, env: { ...process.env, HOME: home },
		args: [ '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync' ] });
	const run = async (name, body) => report(name, await body().catch(e => [ String(e.stack || e) ]));
	try {
		osh('uci set luci.main.lang=de && uci commit luci');
		await run('lang-de', async () => shown(await overview(browser, 'en-US'), 1, 'de'));
		osh('uci set luci.main.lang=auto && uci commit luci');
		await run('auto-de', async () => shown(await overview(browser, 'de-DE'), 1, 'de'));
		await run('auto-en', async () => shown(await overview(browser, 'en-US'), 0, 'en'));
	}
	finally {
		osh(`uci set luci.main.lang='${lang.replace(/[^A-Za-z_-]/g, '')}' && uci commit luci`);
		await browser.close();
		rmSync(home, { recursive: true, force: true });
	}
}

/* exit status 0 once the lines are out: run.sh counts them; a crash before is 1 */
main().catch(e => report('run', [ String(e.stack || e) ])).finally(() =>
	console.log(`i18n-checks: done (${passed} passed, ${failed} failed)`));
