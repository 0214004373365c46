import { describe, it, expect } from 'vitest';
import { join } from 'node:path';
import { createHarness, parseDirectives, moduleFile, REPO_ROOT } from './loader.js';

/* a minimal LuCI class module body */
const CLASS = `return baseclass.extend({ hello: function() { return 'hi'; } });`;

describe('parseDirectives', () => {
	it('reads use strict and require directives with aliases', () => {
		const d = parseDirectives(`'use strict';\n'require baseclass';\n'require reterm.units as units';\n'require view';\n\nreturn 1;`);
		expect(d.strict).toBe(true);
		expect(d.requires).toEqual([
			{ name: 'baseclass', alias: 'baseclass' },
			{ name: 'reterm.units', alias: 'units' },
			{ name: 'view', alias: 'view' }
		]);
	});

	it('derives the default alias like luci.js: non-identifier chars become _', () => {
		const d = parseDirectives(`'require reterm.units';\n'require tools.widgets';\n'require my-mod';`);
		expect(d.requires.map(r => r.alias)).toEqual(['reterm_units', 'tools_widgets', 'my_mod']);
	});

	it('accepts double quotes, tabs, missing semicolons and comments between directives', () => {
		const d = parseDirectives(`// header\n"use strict"\n/* block\n comment */\n'require\tui'   // why\n"require  form  as  f";\nvar x;`);
		expect(d.requires).toEqual([{ name: 'ui', alias: 'ui' }, { name: 'form', alias: 'f' }]);
	});

	it('stops at the first statement that is not a directive', () => {
		expect(parseDirectives(`'require a';\nvar x = 'require b';\n'require c';`).requires.map(r => r.name)).toEqual(['a']);
		expect(parseDirectives(`'require a';\n'hello';\n'require b';`).requires.map(r => r.name)).toEqual(['a']);
		expect(parseDirectives(`return 1;\n'require a';`).requires).toEqual([]);
	});

	it('does not take a string that is part of an expression for a directive', () => {
		expect(parseDirectives(`'require a' + b;`).requires).toEqual([]);
		expect(parseDirectives(`'require a'.length;`).requires).toEqual([]);
	});

	it('stops at a malformed require (alias must start with a letter or _)', () => {
		expect(parseDirectives(`'require a as 1b';\n'require c';`).requires).toEqual([]);
	});
});

describe('moduleFile', () => {
	it('maps dotted names below htdocs/luci-static/resources', () => {
		expect(moduleFile('reterm.units')).toBe(join(REPO_ROOT, 'htdocs/luci-static/resources/reterm/units.js'));
		expect(moduleFile('view.reterm.devices', '/r')).toBe('/r/htdocs/luci-static/resources/view/reterm/devices.js');
	});

	it('rejects names that could escape the tree', () => {
		expect(() => moduleFile('../etc/passwd')).toThrow(/invalid module name/);
		expect(() => moduleFile('a..b')).toThrow(/invalid module name/);
	});
});

describe('createHarness().require', () => {
	it('evaluates a module and returns an instance of the returned class', async () => {
		const h = createHarness({ sources: { 'test.a': `'use strict';\n'require baseclass';\n${CLASS}` } });
		const a = await h.require('test.a');
		expect(a.hello()).toBe('hi');
		expect(a).toBeInstanceOf(h.baseclass);
	});

	it('instantiates each module once and caches it', async () => {
		const h = createHarness({ sources: {
			'test.once': `'require baseclass';\nreturn baseclass.extend({ __init__: function() { L.env.inits = (L.env.inits || 0) + 1; } });`
		} });
		const [a, b] = await Promise.all([h.require('test.once'), h.require('test.once')]);
		const c = await h.require('test.once');
		expect(a).toBe(b);
		expect(a).toBe(c);
		expect(h.env.inits).toBe(1);
		expect(h.instantiations['test.once']).toBe(1);
	});

	it('keeps harnesses isolated from each other', async () => {
		const src = { 'test.a': `'require baseclass';\n${CLASS}` };
		const a1 = await createHarness({ sources: src }).require('test.a');
		const a2 = await createHarness({ sources: src }).require('test.a');
		expect(a1).not.toBe(a2);
	});

	it('binds required modules to their aliases, including another module of ours', async () => {
		const h = createHarness({ sources: {
			'reterm.dep': `'require baseclass';\nreturn baseclass.extend({ twice: function(x) { return 2 * x; } });`,
			'reterm.user': `'require baseclass';\n'require reterm.dep as dep';\n'require reterm.dep';\n` +
				`return baseclass.extend({ run: function() { return [dep.twice(2), reterm_dep === dep]; } });`
		} });
		expect((await h.require('reterm.user')).run()).toEqual([4, true]);
	});

	it('loads the real reterm.units file from the repository', async () => {
		const h = createHarness({ sources: {
			'test.rate': `'require baseclass';\n'require reterm.units as units';\n` +
				`return baseclass.extend({ mbit: function(s) { return units.parseRate(s) / 1e6; } });`
		} });
		expect((await h.require('test.rate')).mbit('20M')).toBe(20);
		expect(h.instantiations['reterm.units']).toBe(1);
	});

	it('resolves LuCI modules to the harness fakes', async () => {
		const h = createHarness({ sources: {
			'test.f': `'require baseclass';\n'require rpc';\n'require uci';\n'require ui';\n'require form';\n'require poll';\n'require dom';\n'require view';\n` +
				`return baseclass.extend({ got: function() { return [rpc, uci, ui, form, poll, dom, view]; } });`
		} });
		expect((await h.require('test.f')).got()).toEqual([h.rpc, h.uci, h.ui, h.form, h.poll, h.dom, h.view]);
	});

	it('gives modules window, document, L, E, _ and N_', async () => {
		const h = createHarness({ sources: {
			'test.g': `'require baseclass';\nreturn baseclass.extend({ got: function() {\n` +
				`return [typeof window.setTimeout, document.getElementById('view').id, L.env.pollinterval,\n` +
				`E('b', {}, 'x').tagName, _('%d of %s').format(3, 'x'), N_(1, 'one', 'many'), N_(2, 'one', 'many')]; } });`
		} });
		expect((await h.require('test.g')).got()).toEqual(['function', 'view', 5, 'B', '3 of x', 'one', 'many']);
	});

	it('rejects a missing module with a NetworkError naming it', async () => {
		const h = createHarness({ root: '/nonexistent' });
		await expect(h.require('reterm.nothere')).rejects.toMatchObject({
			name: 'NetworkError', message: expect.stringContaining('reterm.nothere')
		});
	});

	it('rejects a module whose dependency is missing', async () => {
		const h = createHarness({ root: '/nonexistent', sources: { 'test.a': `'require baseclass';\n'require reterm.gone';\n${CLASS}` } });
		await expect(h.require('test.a')).rejects.toThrow(/reterm\.gone/);
	});

	it('rejects a factory that does not return a baseclass subclass', async () => {
		const h = createHarness({ sources: {
			'test.obj': `'require baseclass';\nreturn { hello: 1 };`,
			'test.fn': `'require baseclass';\nreturn function() {};`,
			'test.none': `'require baseclass';\n`
		} });
		for (const n of ['test.obj', 'test.fn', 'test.none'])
			await expect(h.require(n)).rejects.toMatchObject({ name: 'TypeError', message: `"${n}" factory yields invalid constructor` });
	});

	it('reports syntax errors with the module source', async () => {
		const h = createHarness({ sources: { 'test.bad': `'require baseclass';\nreturn baseclass.extend({ a: });` } });
		await expect(h.require('test.bad')).rejects.toMatchObject({ name: 'SyntaxError', message: expect.stringContaining('sources:test.bad') });
	});

	it('detects circular dependencies', async () => {
		const h = createHarness({ sources: {
			'test.x': `'require baseclass';\n'require test.y';\n${CLASS}`,
			'test.y': `'require baseclass';\n'require test.x';\n${CLASS}`
		} });
		await expect(h.require('test.x')).rejects.toMatchObject({ name: 'DependencyError' });
	});

	it('lets opts.modules provide extra modules', async () => {
		const widgets = { marker: true };
		const h = createHarness({ modules: { 'tools.widgets': widgets }, sources: {
			'test.w': `'require baseclass';\n'require tools.widgets as widgets';\nreturn baseclass.extend({ w: function() { return widgets; } });`
		} });
		expect((await h.require('test.w')).w()).toBe(widgets);
	});
});

describe('baseclass (as modules see it)', () => {
	async function classes() {
		const h = createHarness({ sources: { 'test.cls': `'require baseclass';
var A = baseclass.extend({
	__init__: function(x) { this.x = x; this.log = ['A']; },
	name: 'A',
	greet: function(s) { return 'A:' + s; },
	sum: function(a, b) { return a + b; }
});
var B = A.extend({
	__init__: function(x, y) { this.super('__init__', [x]); this.y = y; this.log.push('B'); },
	greet: function(s) { return 'B>' + this.super('greet', [s]); },
	sum: function() { return 10 + this.super('sum', arguments); }
});
var C = B.extend({
	greet: function(s) { return 'C>' + this.super('greet', s); }
});
return baseclass.extend({ A: A, B: B, C: C });` } });
		return { h, k: await h.require('test.cls') };
	}

	it('runs __init__ with constructor arguments and chains super __init__', async () => {
		const { k } = await classes();
		const b = new k.B(1, 2);
		expect([b.x, b.y, b.log]).toEqual([1, 2, ['A', 'B']]);
	});

	it('uses the nearest inherited __init__ when a class declares none', async () => {
		const { k } = await classes();
		const c = new k.C(5, 6);
		expect([c.x, c.y, c.log]).toEqual([5, 6, ['A', 'B']]);
	});

	it('walks super calls up several levels with array, arguments and spread forms', async () => {
		const { k } = await classes();
		expect(new k.C(0, 0).greet('x')).toBe('C>B>A:x');
		expect(new k.B(0, 0).sum(1, 2)).toBe(13);
	});

	it('keeps LuCI\'s quirk: super from an inherited, not overridden method re-runs it once', async () => {
		/* C does not override sum: luci.js starts the super search at B,
		 * so B.sum runs twice before A.sum (10 + 10 + 3) */
		const { k } = await classes();
		expect(new k.C(0, 0).sum(1, 2)).toBe(23);
	});

	it('returns a parent member without calling it, and null when absent', async () => {
		const { k } = await classes();
		const b = new k.B(0, 0);
		expect(b.super('name')).toBe('A');
		expect(b.super('nope')).toBeNull();
		expect(() => b.super('name', [])).toThrow(ReferenceError);
	});

	it('refuses to be called without new and keeps statics and isSubclass', async () => {
		const { h, k } = await classes();
		expect(() => k.A(1)).toThrow(/without "new"/);
		expect(typeof k.C.extend).toBe('function');
		expect(h.baseclass.isSubclass(k.C)).toBe(true);
		expect(k.A.isSubclass(k.C)).toBe(true);
		expect(k.C.isSubclass(k.A)).toBe(false);
		expect(new k.C(1, 2)).toBeInstanceOf(k.A);
	});

	it('makes singletons and instantiates from an argument array', async () => {
		const { h, k } = await classes();
		const s = h.baseclass.singleton({ __init__: function(v) { this.v = v; } }, 7);
		expect(s.v).toBe(7);
		expect(k.B.instantiate([3, 4]).y).toBe(4);
	});
});

describe('fake i18n and format', () => {
	it('formats like LuCI String.prototype.format', () => {
		createHarness();
		expect('%s|%d|%.1f|%%|%x|%5s|%-3d|%03d'.format('a', 7.9, 19.06, 255, 'ab', 4, 7)).toBe('a|7|19.1|%|ff|   ab|4  |007');
		expect('%1024.2mB'.format(16384)).toBe('16.00 KiB');
		expect('%.2mB|%mB'.format(1500, 500)).toBe('1.50 KB|500 B');
		expect('%t'.format(90061)).toBe('1d 1h 1m 1s');
		expect('%h|%q'.format('<a href="x">', 'x"y')).toBe('&#60;a href=&#34;x&#34;&#62;|"x\\"y"');
	});
});

describe('fake DOM / E()', () => {
	it('follows dom.create rules for attributes and children', async () => {
		const { E, text } = createHarness();
		let clicked = 0;
		const n = E('div', { class: 'x', 'data-o': { a: 1 }, title: null, click: () => clicked++ }, [
			E('span', { id: 's' }, ['hello ']), null, 'world', 3
		]);
		expect(n.getAttribute('data-o')).toBe('{"a":1}');
		expect(n.hasAttribute('title')).toBe(false);
		expect(text(n)).toBe('hello nullworld3');
		await n.querySelector('#s').click();
		expect(clicked).toBe(1);
		expect(n.querySelector('div > span#s')).toBe(n.firstChild);
		expect(n.querySelector('p span')).toBeNull();
		expect(E('p', {}, E('b', 'x')).outerHTML).toBe('<p><b>x</b></p>');
	});

	it('keeps a single string child as raw HTML, as innerHTML would', () => {
		const { E } = createHarness();
		const n = E('p', {}, '<b>bold</b> &amp; more');
		expect(n.innerHTML).toBe('<b>bold</b> &amp; more');
		expect(n.textContent).toBe('bold & more');
		expect(E('p', {}, ['<b>']).innerHTML).toBe('&lt;b&gt;');
	});
});

describe('fake rpc', () => {
	it('maps params, applies expect/filter and records calls', async () => {
		const h = createHarness();
		h.rpc.handle('reterm', 'hosts', p => ({ hosts: [{ mac: p.mac, skip: undefined }] }));
		const call = h.rpc.declare({ object: 'reterm', method: 'hosts', params: ['mac'], expect: { hosts: [] },
			filter: (data, args, extra) => ({ data, args, extra }) });
		expect(await call('aa:bb', 'x')).toEqual({ data: [{ mac: 'aa:bb' }], args: { mac: 'aa:bb' }, extra: 'x' });
		expect(h.rpc.callsTo('reterm', 'hosts')).toEqual([{ object: 'reterm', method: 'hosts', params: { mac: 'aa:bb' } }]);
	});

	it('turns ubus errors into the expect default, the code, or a rejection', async () => {
		const h = createHarness();
		h.rpc.handle('reterm', 'status', () => h.rpc.status(6));
		expect(await h.rpc.declare({ object: 'reterm', method: 'status', expect: { '': {} } })()).toEqual({});
		expect(await h.rpc.declare({ object: 'reterm', method: 'status' })()).toBe(6);
		await expect(h.rpc.declare({ object: 'reterm', method: 'status', reject: true })())
			.rejects.toThrow(/ubus code 6: Permission denied/);
	});

	it('replaces a reply of the wrong type by the expect default', async () => {
		const h = createHarness();
		h.rpc.handle('reterm.latency', 'samples', { samples: 'oops' });
		expect(await h.rpc.declare({ object: 'reterm.latency', method: 'samples', expect: { samples: [] } })()).toEqual([]);
	});

	it('rejects calls nobody handles', async () => {
		const h = createHarness();
		await expect(h.rpc.declare({ object: 'reterm', method: 'nope' })()).rejects.toThrow(/no fake handler for ubus reterm.nope/);
	});
});

describe('fake uci', () => {
	function seeded() {
		const h = createHarness();
		h.uci.seed('reterm', {
			main: { '.type': 'reterm', port: '15001' },
			d1: { '.type': 'device', '.anonymous': true, name: '3ds', ports: ['80', '443'] }
		});
		return h;
	}

	it('loads, reads and addresses anonymous sections', async () => {
		const h = seeded();
		expect(await h.uci.load('reterm')).toEqual(['reterm']);
		expect(h.uci.get('reterm', 'main', 'port')).toBe('15001');
		expect(h.uci.get('reterm', '@device[0]', 'ports')).toEqual(['80', '443']);
		expect(h.uci.get('reterm', '@device[-1]', 'name')).toBe('3ds');
		expect(h.uci.sections('reterm', 'device').map(s => s['.name'])).toEqual(['d1']);
		expect(h.uci.get('reterm', 'main')['.type']).toBe('reterm');
		await expect(h.uci.load('nope')).rejects.toThrow(/Resource not found/);
	});

	it('stages edits on save() with cfg ids for new sections, and commits on apply()', async () => {
		const h = seeded();
		await h.uci.load('reterm');
		h.uci.set('reterm', 'main', 'port', 8080);
		h.uci.set('reterm', 'ghost', 'x', '1');
		const sid = h.uci.add('reterm', 'device');
		h.uci.set('reterm', sid, 'name', 'ps4');
		h.uci.unset('reterm', 'd1', 'ports');
		expect(sid).toMatch(/^new/);
		expect(h.uci.pendingChanges().reterm).toHaveLength(4);

		await h.uci.save();
		const staged = (await h.uci.changes()).reterm;
		expect(staged[0]).toEqual(['set', 'main', 'port', '8080']);
		expect(staged[1]).toEqual(['add', expect.stringMatching(/^cfg/), 'device']);
		expect(staged[2]).toEqual(['set', staged[1][1], 'name', 'ps4']);
		expect(staged[3]).toEqual(['remove', 'd1', 'ports']);
		expect(h.uci.get('reterm', '@device[1]', 'name')).toBe('ps4');
		expect(h.uci.pendingChanges()).toEqual({});

		await h.uci.apply();
		expect(h.uci.commits).toHaveLength(1);
		expect(await h.uci.changes()).toEqual({});
	});
});

describe('fake poll', () => {
	it('runs callbacks by interval on tick() and surfaces their errors', async () => {
		const h = createHarness();
		const runs = [];
		const every2 = () => runs.push('two');
		expect(h.poll.add(() => runs.push('one'), 1)).toBe(true);
		expect(h.poll.add(every2, 2)).toBe(true);
		expect(h.poll.add(every2, 2)).toBe(false);
		await h.poll.tick(3);
		expect(runs).toEqual(['one', 'two', 'one', 'one', 'two']);
		h.poll.add(() => { throw new Error('boom'); }, 1);
		await expect(h.poll.tick()).rejects.toThrow('boom');
	});
});

describe('fake view + form (a small settings page)', () => {
	const VIEW = `'use strict';
'require view';
'require form';
'require rpc';

var callStatus = rpc.declare({ object: 'reterm', method: 'status', expect: { '': {} } });

return view.extend({
	load: function() { return callStatus(); },
	render: function(status) {
		var m = new form.Map('reterm', _('Re-termination'), _('Running: %s').format(status.running ? _('yes') : _('no')));
		var s = m.section(form.NamedSection, 'main', 'reterm', _('General'));
		var o = s.option(form.Flag, 'enabled', _('Enable'));
		o = s.option(form.Value, 'port', _('Listener port'));
		o.datatype = 'port';
		o.default = '15001';
		o.placeholder = '15001';
		o.validate = function(sid, v) { return v === '22' ? _('Port 22 is reserved') : true; };
		o = s.option(form.Value, 'maxconn', _('Max connections'));
		o.datatype = 'uinteger';
		o.depends('enabled', '1');
		return m.render();
	}
});`;

	async function page(cfg) {
		const h = createHarness({ sources: { 'view.test.settings': VIEW } });
		h.rpc.handle('reterm', 'status', { running: true });
		h.uci.seed('reterm', { main: Object.assign({ '.type': 'reterm' }, cfg) });
		const v = await h.require('view.test.settings');
		const root = await h.rendered(v);
		return { h, v, root, map: h.form.maps[0] };
	}

	it('records the declared structure', async () => {
		const { h, map } = await page({ enabled: '1' });
		const d = h.form.describe(map);
		expect(d.config).toBe('reterm');
		expect(d.sections[0]).toMatchObject({ kind: 'NamedSection', section: 'main', type: 'reterm' });
		expect(d.sections[0].options.map(o => [o.name, o.kind, o.datatype])).toEqual([
			['enabled', 'Flag', null], ['port', 'Value', 'port'], ['maxconn', 'Value', 'uinteger']]);
		expect(d.sections[0].options[2].depends).toEqual([{ enabled: '1' }]);
		expect(d.sections[0].options[1]).toMatchObject({ default: '15001', placeholder: '15001', hasValidate: true });
	});

	it('renders values, description and the footer into #view', async () => {
		const { h, root } = await page({ enabled: '1', port: '15002' });
		expect(h.text(root.querySelector('.cbi-map-descr'))).toBe('Running: yes');
		expect(h.form.widget(h.form.maps[0], 'main', 'port').value).toBe('15002');
		expect(root.querySelectorAll('.cbi-page-actions button').map(b => h.text(b))).toEqual(['Save & Apply', 'Save', 'Reset']);
	});

	it('saves a valid edit into staged uci changes and applies on Save & Apply', async () => {
		const { h, map, root } = await page({ enabled: '1', port: '15001' });
		h.form.setValue(map, 'main', 'port', '8080');
		await root.querySelector('.cbi-button-apply').click();
		expect(h.uci.stagedChanges().reterm).toEqual([['set', 'main', 'port', '8080']]);
		expect(h.ui.applied).toEqual([{ checked: true }]);
	});

	it('rejects invalid values with the datatype or validate message and saves nothing', async () => {
		const { h, v, map } = await page({ enabled: '1', port: '15001' });
		h.form.setValue(map, 'main', 'port', '70000');
		await expect(v.handleSave()).rejects.toThrow(/Listener port.*valid port value/);
		h.form.setValue(map, 'main', 'port', '22');
		await expect(v.handleSave()).rejects.toThrow(/Port 22 is reserved/);
		expect(h.ui.modals.map(m => m.title)).toEqual(['Save error', 'Save error']);
		expect(h.uci.stagedChanges()).toEqual({});
	});

	it('writes defaults and removes options whose depends are unmet', async () => {
		const { h, map, v } = await page({ enabled: '1', maxconn: '64' });
		expect(map.lookupOption('maxconn', 'main')[0].isActive('main')).toBe(true);
		h.form.setValue(map, 'main', 'enabled', '0');
		expect(map.lookupOption('maxconn', 'main')[0].isActive('main')).toBe(false);
		await v.handleSave();
		expect(h.uci.stagedChanges().reterm).toEqual(expect.arrayContaining([
			['remove', 'main', 'enabled'], ['set', 'main', 'port', '15001'], ['remove', 'main', 'maxconn']]));
	});

	it('reports a failing load() like L.error and rejects rendered()', async () => {
		const h = createHarness({ sources: { 'view.test.settings': VIEW } });
		const v = await h.require('view.test.settings');
		await expect(h.rendered(v)).rejects.toThrow(/no fake handler for ubus reterm.status/);
		expect(h.ui.notifications[0].classes).toEqual(['danger']);
	});
});
