/**
 * What LuCI's dispatcher (luci-base's dispatcher.uc and its templates)
 * puts around the JavaScript, for router.js: the environment header.ut
 * hands luci.js, the page of a menu entry (the bootstrap theme's
 * header.ut, view.ut, footer.ut), the menu tree (admin/menu) built from
 * the menu.d files, and the translation script (admin/translations).
 *
 *   luciEnv({ path, luci })     the object of `L = new LuCI({...})`
 *   const d = createDispatcher({ luciRoot, menuDirs });
 *   d.page(path, luci)          the HTML of admin/network/reterm/... or null
 *   d.menu()                    the tree ui.menu.load() reads
 *
 * The pages are rendered as the templates render them for a logged-in
 * session with a root password set, English, the bootstrap theme; a
 * menu entry's dependencies are taken as met (the session may do
 * everything).
 */

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const OWRT = process.env.RETERM_OWRT || '/opt/owrt';
/** The OpenWrt root with luci-base and the bootstrap theme. */
export const LUCI_ROOT = `${OWRT}/root`;
const RESOURCES = `${LUCI_ROOT}/www/luci-static/resources`;

/** Why LuCI cannot be run here, or null. */
export const luciMissing = existsSync(`${RESOURCES}/luci.js`) && existsSync(`${RESOURCES}/cbi.js`) ? null
	: `LuCI is not built: no ${RESOURCES}/luci.js (tests/deps.sh builds it with tools/owrt/build.sh; RETERM_OWRT=${OWRT})`;

export const SESSION_ID = '0123456789abcdef0123456789abcdef';

/** Sections of a uci file's text: { sid: { '.type', '.anonymous', option: value } } */
export function parseUci(text) {
	const out = {};
	let cur = null, n = 0;
	const unq = s => (s || '').replace(/^'(.*)'$|^"(.*)"$/, '$1$2');
	for (const line of text.split('\n')) {
		const m = /^\s*(config|option|list)\s+(\S+)(?:\s+(.*?))?\s*$/.exec(line);
		if (!m)
			continue;
		if (m[1] === 'config') {
			const sid = m[3] ? unq(m[3]) : `cfg${(++n).toString(16).padStart(6, '0')}`;
			cur = out[sid] = { '.type': m[2], '.anonymous': !m[3] };
		}
		else if (cur && m[1] === 'option')
			cur[m[2]] = unq(m[3]);
		else if (cur)
			(cur[m[2]] = Array.isArray(cur[m[2]]) ? cur[m[2]] : []).push(unq(m[3]));
	}
	return out;
}

/** /etc/config/<name> of an OpenWrt root, as sections ({} when absent). */
export function rootConfig(root, name) {
	const file = `${root}/etc/config/${name}`;
	return existsSync(file) ? parseUci(readFileSync(file, 'utf8')) : {};
}

/**
 * The environment luci's header.ut gives luci.js for request `path`
 * (admin/network/reterm/shaping), from /etc/config/luci (`luci`: its
 * sections) and `overrides`.
 */
export function luciEnv({ path, luci = {}, overrides = {} }) {
	const main = luci.main || {}, apply = luci.apply || {};
	const parts = path.split('/');
	return Object.assign({
		media: main.mediaurlbase || '/luci-static/bootstrap', resource: main.resourcebase || '/luci-static/resources',
		scriptname: '/cgi-bin/luci', pathinfo: `/${path}`, documentroot: '/www', requestpath: parts, dispatchpath: parts,
		pollinterval: +main.pollinterval || 5, ubuspath: main.ubuspath || '/ubus/',
		sessionid: SESSION_ID, token: SESSION_ID, nodespec: {},
		apply_rollback: Math.max(+apply.rollback || 90, 90), apply_holdoff: Math.max(+apply.holdoff || 4, 1),
		apply_timeout: Math.max(+apply.timeout || 5, 1), apply_display: Math.max(+apply.display || 1.5, 1),
		rollback_token: null
	}, overrides);
}

const esc = s => String(s).replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`);

/* the bootstrap theme's header.ut, LuCI's header.ut, view.ut and footer.ut
 * as they render a view for a logged-in session */
function viewPage({ env, node, view, hostname = 'OpenWrt' }) {
	const json = JSON.stringify(env).replace(/\//g, '\\/');
	return `<!DOCTYPE html>
<html lang="en">
	<head>
		<meta charset="utf-8">
		<title>${esc(hostname)}${node.title ? ` | ${esc(node.title)}` : ''}</title>
		<script>
			var mediaQuery = window.matchMedia('(prefers-color-scheme: dark)'),
			    rootElement = document.querySelector(':root'),
			    setDarkMode = function(match) { rootElement.setAttribute('data-darkmode', match.matches) };

			mediaQuery.addEventListener('change', setDarkMode);
			setDarkMode(mediaQuery);
		</script>
		<meta name="viewport" content="width=device-width, initial-scale=1">
		<link rel="stylesheet" href="${env.media}/cascade.css">
		<link rel="stylesheet" media="only screen and (max-device-width: 854px)" href="${env.media}/mobile.css" />
		<script src="${env.scriptname}/admin/translations/en"></script>
		<script src="${env.resource}/cbi.js"></script>
	</head>

	<body class="lang_en ${esc(node.title || '')}" data-page="${esc(env.requestpath.join('-'))}">
		<header>
			<a class="brand" href="/">${esc(hostname)}</a>
			<ul class="nav" id="topmenu" style="display:none"></ul>
			<div id="indicators" class="pull-right"></div>
		</header>

		<div id="maincontent" class="container">
			<div id="tabmenu" style="display:none"></div>

<script src="${env.resource}/luci.js?v=test"></script>
<script>
	L = new LuCI(${json});
</script>

<div id="view">
	<div class="spinning">Loading view…</div>
	<script>
		L.require('ui').then(function(ui) {
			ui.instantiateView('${view}');
		});
	</script>
</div>

		</div>
		<footer>
			<span>Powered by LuCI</span>
			<ul class="breadcrumb pull-right" id="modemenu" style="display:none"></ul>
		</footer>
		<script>L.require('menu-bootstrap')</script>
	</body>
</html>
`;
}

/**
 * LuCI's dispatcher for the pages: the menu from the menu.d files in
 * `menuDirs` (later files win), pages of its view entries.
 */
export function createDispatcher({ menuDirs }) {
	let tree = null;

	function menu() {
		if (tree)
			return tree;
		const entries = {};
		for (const dir of menuDirs)
			if (existsSync(dir))
				for (const f of readdirSync(dir).filter(f => f.endsWith('.json')).sort())
					Object.assign(entries, JSON.parse(readFileSync(join(dir, f), 'utf8')));
		tree = { satisfied: true, children: {} };
		for (const [path, e] of Object.entries(entries)) {
			if (path.includes('*'))
				continue;
			let node = tree;
			for (const p of path.split('/'))
				node = (node.children = node.children || {})[p] = node.children[p] || { satisfied: true };
			Object.assign(node, e, { satisfied: true });
			delete node.depends;
		}
		return tree;
	}

	/* the entry at `path` and its path, following firstchild to the child
	 * of the lowest order */
	function resolve(path) {
		const parts = path.split('/').filter(Boolean);
		let node = menu();
		for (const p of parts)
			node = node && node.children && node.children[p];
		while (node && node.action && node.action.type === 'firstchild') {
			const kids = Object.entries(node.children || {}).filter(([, c]) => c.title)
				.sort(([, a], [, b]) => (a.order ?? 1000) - (b.order ?? 1000));
			node = kids.length ? kids[0][1] : null;
			if (node)
				parts.push(kids[0][0]);
		}
		return node ? { node, dispatched: parts } : null;
	}

	return {
		menu,

		/** The HTML of the view at `path`, or null when the menu has none there. */
		page(path, luci, overrides) {
			const r = resolve(path);
			if (!r || !r.node.action || r.node.action.type !== 'view')
				return null;
			const env = luciEnv({ path, luci, overrides: Object.assign({ dispatchpath: r.dispatched }, overrides) });
			return viewPage({ env, node: r.node, view: r.node.action.path });
		}
	};
}
