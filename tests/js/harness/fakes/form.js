/**
 * Fake `'require form'`: records what a view declares (maps, sections,
 * options and their datatype/depends/validate/default/placeholder/...)
 * and renders a plain DOM tree with widgets from the fake `ui`, so a test
 * can change an input and save the form the way a user would.
 *
 * Semantics kept from LuCI's form.js:
 *  - Map.render() loads the UCI config(s), then each option's load() /
 *    cfgvalue(); widgets start at cfgvalue ?? default.
 *  - formvalue() reads the rendered widget (ids "cbid.<conf>.<sid>.<opt>").
 *  - Map.save(): options whose depends are unmet are removed (unless
 *    `retain`); an invalid value rejects the save (and shows the "Save
 *    error" modal unless silent); empty values are removed when
 *    rmempty/optional, else "must not be empty"; a value differing from
 *    cfgvalue is written; Flag removes the default value when rmempty,
 *    else writes its value on every save (changed or not), as LuCI's does.
 *    Then uci.save(), reload, re-render.
 *  - depends(field, value) / depends({a: x, b: y}): entries are OR-ed,
 *    keys inside one entry AND-ed; `!reverse`, `!default` supported.
 *  - validate(section_id, value) is called after the datatype check.
 * Inactive options stay in the DOM with class "hidden" (LuCI detaches
 * them), so use `option.isActive(sid)` to test visibility.
 *
 * Test-side: `form.maps` lists every Map constructed; `form.describe(map)`
 * returns a plain summary; `form.widget(map, sid, opt)` returns the input
 * node; `form.setValue(map, sid, opt, value)` sets it (and calls the
 * option's onchange(ev, sid, value) like LuCI's widget-change handler).
 */

import { checkDatatype } from './datatypes.js';
import { createUCI } from './uci.js';

const isEqual = (a, b) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const str = v => (v == null ? '' : String(v));

export function createForm({ Class, E, dom, uci, ui, _ }) {
	const maps = [];

	const Node = Class.extend({
		__name__: 'CBI.Node',
		__init__(title, description) {
			this.title = title || '';
			this.description = description || '';
			this.children = [];
		},
		append(obj) { this.children.push(obj); },
		stripTags(s) { return str(s).replace(/<[^>]*>/g, ''); },
		titleFn(attr, ...args) {
			const v = this[attr];
			return typeof v === 'function' ? v.call(this, ...args) : v;
		}
	});

	/* ------------------------------------------------------------ Map */

	const CBIMap = Node.extend({
		__name__: 'CBI.Map',
		__init__(config, title, description) {
			this.super('__init__', [title, description]);
			this.config = config;
			this.parsechain = [config];
			this.data = uci;
			this.readonly = false;
			maps.push(this);
		},

		section(cls, ...args) {
			if (!CBIAbstractSection.isSubclass(cls))
				throw new TypeError('Class must be a descendant of CBIAbstractSection');
			const s = new cls(this, ...args);
			this.append(s);
			return s;
		},

		chain(config) {
			if (!this.parsechain.includes(config))
				this.parsechain.push(config);
		},

		load() {
			return this.data.load(this.parsechain)
				.then(() => Promise.all(this.children.map(s => s.load())));
		},

		parse() {
			return Promise.all(this.children.map(s => s.parse()));
		},

		lookupOption(name, section_id, config_name) {
			if (config_name && config_name !== this.config)
				return null;
			for (const s of this.children) {
				const sids = s.cfgsections();
				if (section_id != null && !sids.includes(section_id))
					continue;
				const o = s.children.find(c => c.option === name);
				if (o)
					return [o, section_id ?? sids[0]];
			}
			return null;
		},

		findElement(attr, value) {
			return this.root ? this.root.querySelector(value === undefined ? `[${attr}]` : `[${attr}="${value}"]`) : null;
		},

		findElements(attr, value) {
			return this.root ? this.root.querySelectorAll(value === undefined ? `[${attr}]` : `[${attr}="${value}"]`) : [];
		},

		checkDepends() {
			for (const s of this.children)
				for (const sid of s.cfgsections())
					for (const o of s.children) {
						const node = this.root && this.root.querySelector(`[data-field="${o.cbid(sid)}"]`);
						if (node)
							node.classList.toggle('hidden', !o.isActive(sid));
					}
		},

		renderContents() {
			const children = [];
			if (this.title) children.push(E('h2', { name: 'content' }, [this.title]));
			if (this.description) children.push(E('div', { class: 'cbi-map-descr' }, [this.description]));
			for (const s of this.children) children.push(s.render());
			if (!this.root) {
				this.root = E('div', { class: 'cbi-map', id: `cbi-${this.config}` });
				dom.bindClassInstance(this.root, this);
			}
			dom.content(this.root, children);
			this.checkDepends();
			return this.root;
		},

		render() {
			return this.load().then(() => this.renderContents());
		},

		save(cb, silent) {
			this.checkDepends();
			return this.parse()
				.then(cb)
				.then(() => this.data.save())
				.then(() => this.load())
				.catch(e => {
					if (!silent)
						ui.showModal(_('Save error'), [
							E('p', {}, [_('An error occurred while saving the form:')]),
							E('p', {}, [E('em', {}, [e.message])])
						]);
					return Promise.reject(e);
				})
				.then(() => this.renderContents());
		},

		reset() {
			return this.renderContents();
		}
	});

	const CBIJSONMap = CBIMap.extend({
		__name__: 'CBI.JSONMap',
		__init__(data, title, description) {
			this.super('__init__', ['json', title, description]);
			this.data = createUCI({ Class });
			const sections = {};
			for (const [key, val] of Object.entries(data || {})) {
				if (Array.isArray(val))
					val.forEach((v, i) => { sections[`${key}${i}`] = Object.assign({}, v, { '.type': key, '.anonymous': true }); });
				else if (val && typeof val === 'object')
					sections[key] = Object.assign({}, val, { '.type': key });
			}
			this.data.seed('json', sections);
		}
	});

	/* ------------------------------------------------------- Sections */

	const CBIAbstractSection = Node.extend({
		__name__: 'CBI.AbstractSection',
		__init__(map, sectionType, title, description) {
			this.super('__init__', [title, description]);
			this.map = map;
			this.sectiontype = sectionType;
			this.tabs = null;
			this.anonymous = false;
			this.addremove = false;
			this.optional = true;
		},

		filter() { return true; },
		cfgsections() { throw new Error('cfgsections() not implemented'); },

		tab(name, title, description) {
			this.tabs = this.tabs || {};
			this.tabs[name] = { title, description, children: [] };
		},

		option(cls, ...args) {
			if (!CBIAbstractValue.isSubclass(cls))
				throw new TypeError('Class must be a descendant of CBIAbstractValue');
			const o = new cls(this.map, this, ...args);
			this.append(o);
			return o;
		},

		taboption(tabName, ...args) {
			if (!this.tabs || !this.tabs[tabName])
				throw new Error(`Associated tab "${tabName}" not declared`);
			const o = this.option(...args);
			o.tab = tabName;
			this.tabs[tabName].children.push(o);
			return o;
		},

		load() {
			const tasks = [];
			for (const sid of this.cfgsections())
				for (const o of this.children)
					tasks.push(Promise.resolve(o.load(sid)).then(v => { o.cfgvalue(sid, v); }));
			return Promise.all(tasks);
		},

		parse() {
			const tasks = [];
			for (const sid of this.cfgsections())
				for (const o of this.children)
					tasks.push(o.parse(sid));
			return Promise.all(tasks);
		},

		handleAdd(ev, name) {
			this.map.data.add(this.uciconfig || this.map.config, this.sectiontype, name);
			return this.map.save(null, true);
		},

		handleRemove(section_id) {
			this.map.data.remove(this.uciconfig || this.map.config, section_id);
			return this.map.save(null, true);
		},

		renderOptions(sid) {
			return this.children.map(o => o.render(sid));
		},

		renderSectionNode(sid) {
			return E('div', { class: 'cbi-section-node', 'data-section-id': sid }, [
				(this.addremove && !this.anonymous) ? E('h3', {}, [sid]) : '',
				...this.renderOptions(sid),
				this.addremove ? E('button', { class: 'cbi-button cbi-button-remove',
					click: ui.createHandlerFn(this, 'handleRemove', sid) }, [_('Delete')]) : ''
			]);
		},

		render() {
			const sids = this.cfgsections();
			return E('fieldset', { class: 'cbi-section', id: `cbi-${this.map.config}-${this.sectiontype}` }, [
				this.title ? E('h3', {}, [this.title]) : '',
				this.description ? E('div', { class: 'cbi-section-descr' }, [this.description]) : '',
				...(sids.length ? sids.map(sid => this.renderSectionNode(sid))
					: [E('em', {}, [_('This section contains no values yet')])]),
				this.addremove ? E('button', { class: 'cbi-button cbi-button-add',
					click: ui.createHandlerFn(this, 'handleAdd') }, [this.addbtntitle || _('Add')]) : ''
			]);
		}
	});

	const CBITypedSection = CBIAbstractSection.extend({
		__name__: 'CBI.TypedSection',
		cfgsections() {
			return this.map.data.sections(this.uciconfig || this.map.config, this.sectiontype)
				.map(s => s['.name'])
				.filter(sid => this.filter(sid));
		}
	});

	const CBITableSection = CBITypedSection.extend({ __name__: 'CBI.TableSection' });
	const CBIGridSection = CBITableSection.extend({ __name__: 'CBI.GridSection' });

	const CBINamedSection = CBIAbstractSection.extend({
		__name__: 'CBI.NamedSection',
		__init__(map, sectionId, sectionType, title, description) {
			this.super('__init__', [map, sectionType, title, description]);
			this.section = sectionId;
		},
		cfgsections() {
			const s = this.map.data.get(this.uciconfig || this.map.config, this.section);
			return (s && (this.sectiontype == null || s['.type'] === this.sectiontype)) ? [this.section] : [];
		},
		handleAdd() {
			this.map.data.add(this.uciconfig || this.map.config, this.sectiontype, this.section);
			return this.map.save(null, true);
		}
	});

	/* --------------------------------------------------------- Values */

	const CBIAbstractValue = Node.extend({
		__name__: 'CBI.AbstractValue',
		__init__(map, section, option, title, description) {
			this.super('__init__', [title, description]);
			this.map = map;
			this.section = section;
			this.option = option;
			this.data = {};
			this.deps = [];
			this.keylist = [];
			this.vallist = [];
			this.rmempty = true;
			this.optional = false;
			this.retain = false;
			this.default = null;
			this.placeholder = null;
			this.datatype = null;
			this.readonly = false;
		},

		depends(field, value) {
			const dep = (typeof field === 'string') ? { [field]: value } : field;
			this.deps.push(dep);
		},

		value(key, label) {
			this.keylist.push(str(key));
			this.vallist.push(label != null ? label : str(key));
		},

		cbid(sid) {
			return `cbid.${this.uciconfig || this.map.config}.${sid}.${this.option}`;
		},

		load(sid) {
			return this.map.data.get(this.uciconfig || this.section.uciconfig || this.map.config,
				this.ucisection || sid, this.ucioption || this.option);
		},

		cfgvalue(sid, setValue) {
			if (arguments.length > 1)
				this.data[sid] = setValue;
			return this.data[sid];
		},

		textvalue(sid) {
			const v = this.cfgvalue(sid) ?? this.default;
			return Array.isArray(v) ? v.join(' ') : str(v);
		},

		formvalue(sid) {
			const node = this.map.findElement('id', this.cbid(sid));
			return node ? dom.callClassMethod(node, 'getValue') : null;
		},

		/** Dependency evaluation like LuCI's checkDepends. */
		isActive(sid) {
			if (!this.deps.length)
				return true;
			return this.deps.some(dep => {
				const reverse = !!dep['!reverse'];
				let ok = true;
				for (const key of Object.keys(dep)) {
					if (key.charAt(0) === '!')
						continue;
					const ref = this.lookupDependency(key, sid);
					const current = (ref && ref[0].isActive(ref[1]))
						? ref[0].formvalue(ref[1]) ?? ref[0].cfgvalue(ref[1]) ?? ref[0].default : null;
					const want = dep[key];
					const hit = want instanceof RegExp ? want.test(str(current)) : isEqual(str(current), str(want));
					if (!hit) { ok = false; break; }
				}
				if (dep['!default'])
					ok = true;
				return reverse ? !ok : ok;
			});
		},

		lookupDependency(key, sid) {
			const parts = key.split('.');
			if (parts.length === 1) {
				const o = this.section.children.find(c => c.option === key);
				return o ? [o, sid] : null;
			}
			const [conf, secId, opt] = parts.length === 3 ? parts : [this.map.config, parts[0], parts[1]];
			return this.map.lookupOption(opt, secId, conf);
		},

		getValidationError(sid) {
			const v = this.formvalue(sid);
			const values = Array.isArray(v) ? v : [v];
			if (this.keylist.length && this.strictChoices)
				for (const x of values)
					if (str(x) !== '' && !this.keylist.includes(str(x)))
						return `Expecting: one of ${this.keylist.join(', ')}`;
			for (const x of values.length ? values : ['']) {
				const s = str(x);
				if (s === '' && !(this.optional || this.rmempty))
					return 'Expecting: non-empty value';
				if (s !== '' && this.datatype) {
					const r = checkDatatype(this.datatype, s);
					if (r !== true)
						return r;
				}
				if (typeof this.validate === 'function') {
					const r = this.validate(sid, s);
					if (r !== true && r != null)
						return str(r);
				}
			}
			return '';
		},

		isValid(sid) {
			return this.getValidationError(sid) === '';
		},

		write(sid, value) {
			return this.map.data.set(this.uciconfig || this.section.uciconfig || this.map.config,
				this.ucisection || sid, this.ucioption || this.option, value);
		},

		remove(sid) {
			return this.map.data.unset(this.uciconfig || this.section.uciconfig || this.map.config,
				this.ucisection || sid, this.ucioption || this.option);
		},

		parse(sid) {
			const title = this.stripTags(this.title).trim() || this.option;
			if (!this.isActive(sid))
				return Promise.resolve(this.retain ? undefined : this.remove(sid));
			if (!this.isValid(sid))
				return Promise.reject(new TypeError(`Option "${title}" contains an invalid input value. ${this.getValidationError(sid)}`));
			const fval = this.formvalue(sid);
			const empty = fval == null || fval === '' || (Array.isArray(fval) && !fval.length);
			if (empty) {
				if (this.rmempty || this.optional)
					return Promise.resolve(this.remove(sid));
				return Promise.reject(new TypeError(`Option "${title}" must not be empty.`));
			}
			if (this.forcewrite || !isEqual(this.cfgvalue(sid), fval))
				return Promise.resolve(this.write(sid, fval));
			return Promise.resolve();
		},

		renderWidget(sid) {
			return E('span', {}, [this.textvalue(sid)]);
		},

		render(sid) {
			const active = this.isActive(sid);
			return E('div', {
				class: 'cbi-value' + (active ? '' : ' hidden'),
				id: `cbi-${this.map.config}-${sid}-${this.option}`,
				'data-name': this.option,
				'data-field': this.cbid(sid),
				'data-widget': this.__name__
			}, [
				E('label', { class: 'cbi-value-title', for: this.cbid(sid) }, [this.title || '']),
				E('div', { class: 'cbi-value-field' }, [
					this.renderWidget(sid),
					this.description ? E('div', { class: 'cbi-value-description' }, [this.description]) : ''
				])
			]);
		}
	});

	const widgetValue = (o, sid) => o.cfgvalue(sid) ?? o.default;

	const CBIValue = CBIAbstractValue.extend({
		__name__: 'CBI.Value',
		renderWidget(sid) {
			const w = this.keylist.length
				? new ui.Dropdown(widgetValue(this, sid), Object.fromEntries(this.keylist.map((k, i) => [k, this.vallist[i]])),
					{ id: this.cbid(sid) })
				: new ui.Textfield(widgetValue(this, sid), { id: this.cbid(sid), password: this.password,
					placeholder: this.placeholder,
					/* as LuCI's form.Value: the widget validates itself (see the ui fake) */
					optional: this.optional || this.rmempty, datatype: this.datatype,
					validate: typeof this.validate === 'function' ? v => this.validate(sid, v) : null });
			return w.render();
		}
	});

	const CBIListValue = CBIValue.extend({
		__name__: 'CBI.ListValue',
		strictChoices: true,
		renderWidget(sid) {
			return new ui.Select(widgetValue(this, sid) ?? this.keylist[0],
				Object.fromEntries(this.keylist.map((k, i) => [k, this.vallist[i]])), { id: this.cbid(sid) }).render();
		}
	});

	const CBIFlag = CBIValue.extend({
		__name__: 'CBI.Flag',
		__init__(...args) {
			this.super('__init__', args);
			this.enabled = '1';
			this.disabled = '0';
			this.default = this.disabled;
		},
		renderWidget(sid) {
			return new ui.Checkbox(widgetValue(this, sid), { id: this.cbid(sid),
				value_enabled: this.enabled, value_disabled: this.disabled }).render();
		},
		textvalue(sid) {
			return (this.cfgvalue(sid) ?? this.default) === this.enabled ? _('Yes') : _('No');
		},
		parse(sid) {
			if (!this.isActive(sid))
				return Promise.resolve(this.retain ? undefined : this.remove(sid));
			if (!this.isValid(sid))
				return Promise.reject(new TypeError(`Option "${this.option}" contains an invalid input value. ${this.getValidationError(sid)}`));
			const fval = this.formvalue(sid);
			if (fval === this.default && (this.optional || this.rmempty))
				return Promise.resolve(this.remove(sid));
			/* LuCI's Flag writes on every save, changed or not */
			return Promise.resolve(this.write(sid, fval));
		}
	});

	const CBIDynamicList = CBIValue.extend({
		__name__: 'CBI.DynamicList',
		cfgvalue(sid, setValue) {
			const v = this.super('cfgvalue', arguments);
			return v == null ? v : (Array.isArray(v) ? v : String(v).split(/\s+/).filter(Boolean));
		},
		renderWidget(sid) {
			const v = widgetValue(this, sid);
			return new ui.DynamicList(Array.isArray(v) ? v : (v == null ? [] : [String(v)]), { id: this.cbid(sid) }).render();
		}
	});

	const CBIDummyValue = CBIValue.extend({
		__name__: 'CBI.DummyValue',
		renderWidget(sid) {
			const v = this.textvalue(sid);
			const node = E('div', { id: this.cbid(sid) });
			if (this.rawhtml) node.innerHTML = v;
			else node.textContent = v;
			return this.href ? E('a', { href: this.href }, [node]) : node;
		},
		parse() { return Promise.resolve(); },
		formvalue() { return null; },
		write() {},
		remove() {}
	});

	const CBITextValue = CBIValue.extend({
		__name__: 'CBI.TextValue',
		renderWidget(sid) {
			return new ui.Textarea(widgetValue(this, sid), { id: this.cbid(sid) }).render();
		}
	});

	const CBIHiddenValue = CBIValue.extend({
		__name__: 'CBI.HiddenValue',
		renderWidget(sid) {
			return new ui.Hiddenfield(widgetValue(this, sid), { id: this.cbid(sid) }).render();
		}
	});

	const CBIButtonValue = CBIValue.extend({
		__name__: 'CBI.ButtonValue',
		renderWidget(sid) {
			return E('button', { class: `cbi-button cbi-button-${this.inputstyle || 'button'}`, id: this.cbid(sid),
				click: typeof this.onclick === 'function' ? ui.createHandlerFn(this, this.onclick, sid) : null },
			[this.inputtitle || this.title || '']);
		},
		parse() { return Promise.resolve(); },
		formvalue() { return null; },
		write() {},
		remove() {}
	});

	/* summary of a map for assertions */
	function describe(map) {
		return {
			config: map.config,
			title: map.title,
			sections: map.children.map(s => ({
				kind: s.__name__.replace(/^CBI\./, ''),
				type: s.sectiontype,
				section: s.section,
				title: s.title,
				anonymous: !!s.anonymous,
				addremove: !!s.addremove,
				options: s.children.map(o => ({
					name: o.option,
					kind: o.__name__.replace(/^CBI\./, ''),
					title: o.title,
					description: o.description,
					datatype: o.datatype,
					default: o.default,
					placeholder: o.placeholder,
					depends: o.deps,
					rmempty: o.rmempty,
					optional: o.optional,
					choices: o.keylist.slice(),
					tab: o.tab || null,
					hasValidate: typeof o.validate === 'function'
				}))
			}))
		};
	}

	return Class.singleton({
		__name__: 'LuCI.form',

		Map: CBIMap,
		JSONMap: CBIJSONMap,
		AbstractSection: CBIAbstractSection,
		TypedSection: CBITypedSection,
		TableSection: CBITableSection,
		GridSection: CBIGridSection,
		NamedSection: CBINamedSection,
		AbstractValue: CBIAbstractValue,
		Value: CBIValue,
		ListValue: CBIListValue,
		Flag: CBIFlag,
		DynamicList: CBIDynamicList,
		DummyValue: CBIDummyValue,
		TextValue: CBITextValue,
		HiddenValue: CBIHiddenValue,
		Button: CBIButtonValue,

		/* ---- test-side API ---- */
		maps,
		describe,

		widget(map, sid, option) {
			return map.findElement('id', `cbid.${map.config}.${sid}.${option}`);
		},

		setValue(map, sid, option, value) {
			const node = this.widget(map, sid, option);
			if (!node)
				throw new Error(`no rendered widget for ${map.config}.${sid}.${option}`);
			dom.callClassMethod(node, 'setValue', value);
			map.checkDepends();
			/* [shaping] like LuCI's widget-change -> handleValueChange: call
			 * the option's onchange(ev, section_id, value) after the depends */
			const ref = map.lookupOption(option, sid);
			if (ref && typeof ref[0].onchange === 'function')
				ref[0].onchange.call(ref[0], { type: 'widget-change', target: node }, sid, ref[0].formvalue(sid));
			return node;
		}
	});
}
