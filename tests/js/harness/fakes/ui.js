/**
 * Fake `'require ui'`: notifications, modals, indicators and the pending
 * changes helper are recorded instead of drawn. A few simple widgets
 * (Textfield, Textarea, Checkbox, Select, Dropdown, Hiddenfield,
 * DynamicList) render plain inputs and support getValue/setValue.
 *
 * Validation as LuCI's UIElement does it: a widget given `validate`
 * (fn(value) → true | message) and/or `datatype` checks its value when
 * rendered and on 'keyup'/'blur' (what LuCI's Textfield listens to),
 * marks the input `cbi-input-invalid` with LuCI's error tooltip
 * (`data-tooltip`, `data-tooltip-style="error"`; datatype failures read
 * "Expecting: …", a validate() message is shown as it is), and answers
 * isValid() / getValidationError() from that last check. An empty value
 * is valid when `optional` (LuCI's default) and then still goes to
 * validate().
 *
 * Test-side records (properties of the instance):
 *   notifications: [{ title, text, classes, node }]
 *   modals:        [{ title, text, classes, node, open }]
 *   modalOpen:     the currently shown modal record or null
 *   indicators:    { id: { label, style } }
 *   applied:       [{ checked }] one per ui.changes.apply() call
 */

import { text } from './dom.js';
import { checkDatatype } from './datatypes.js';

export function createUI({ Class, E, dom }) {
	const notifications = [], modals = [], indicators = {}, applied = [], reverted = [];

	const Widget = Class.extend({
		__name__: 'LuCI.ui.AbstractElement',
		__init__(value, options) {
			this.value = value;
			this.options = Object.assign({}, options);
		},
		getValue() {
			return this.node ? readWidget(this) : this.value;
		},
		setValue(v) {
			this.value = v;
			if (this.node) writeWidget(this, v);
		},
		isValid() { return this.validState !== false; },
		getValidationError() { return this.validationError || ''; },
		triggerValidation() {
			if (!this.node || !(this.options.validate || this.options.datatype))
				return true;
			const error = validationError(this);
			this.validState = !error;
			this.validationError = error;
			this.node.classList.toggle('cbi-input-invalid', !!error);
			if (error) {
				this.node.setAttribute('data-tooltip', error);
				this.node.setAttribute('data-tooltip-style', 'error');
			}
			else {
				this.node.removeAttribute('data-tooltip');
				this.node.removeAttribute('data-tooltip-style');
			}
			return !error;
		},
		setChangeEvents() {},
		setUpdateEvents() {},
		render() {
			this.node = buildWidget(this);
			dom.bindClassInstance(this.node, this);
			if (this.options.validate || this.options.datatype) {
				for (const type of ['keyup', 'blur'])
					this.node.addEventListener(type, () => this.triggerValidation());
				this.triggerValidation();
			}
			return this.node;
		}
	});

	/* '' when the widget's value passes, else LuCI's message */
	function validationError(w) {
		const v = String(readWidget(w) ?? ''), optional = w.options.optional ?? true;
		if (v === '' && !optional)
			return 'Expecting: non-empty value';
		if (v !== '' && w.options.datatype) {
			const r = checkDatatype(w.options.datatype, v);
			if (r !== true)
				return String(r);
		}
		const r = typeof w.options.validate === 'function' ? w.options.validate(v) : true;
		return (r === true || r == null) ? '' : String(r);
	}

	function buildWidget(w) {
		const id = w.options.id || null, name = w.options.name || null;
		switch (w.kind) {
		case 'checkbox':
			return E('input', { type: 'checkbox', id, name,
				checked: (w.value === (w.options.value_enabled ?? '1') || w.value === true) ? '' : null });
		case 'select': {
			const choices = w.choices || {};
			return E('select', { id, name }, Object.keys(choices).map(k =>
				E('option', { value: k, selected: String(w.value) === k ? '' : null }, [choices[k]])));
		}
		case 'textarea':
			return E('textarea', { id, name }, [w.value ?? '']);
		case 'dynlist':
			return E('div', { class: 'cbi-dynlist', id }, (Array.isArray(w.value) ? w.value : [])
				.map(v => E('input', { type: 'text', value: v, readonly: '' })));
		default:
			return E('input', { type: w.kind === 'hidden' ? 'hidden' : (w.options.password ? 'password' : 'text'),
				id, name, value: w.value ?? '', placeholder: w.options.placeholder ?? null });
		}
	}

	function readWidget(w) {
		if (w.kind === 'checkbox')
			return w.node.checked ? (w.options.value_enabled ?? '1') : (w.options.value_disabled ?? '0');
		if (w.kind === 'dynlist')
			return w.node.querySelectorAll('input').map(i => i.value);
		return w.node.value;
	}

	function writeWidget(w, v) {
		if (w.kind === 'checkbox')
			w.node.checked = (v === (w.options.value_enabled ?? '1') || v === true);
		else if (w.kind === 'dynlist')
			dom.content(w.node, (Array.isArray(v) ? v : []).map(x => E('input', { type: 'text', value: x })));
		else
			w.node.value = v;
	}

	const widget = (kind, name) => Widget.extend({ __name__: `LuCI.ui.${name}`, kind });
	const SelectWidget = (name) => Widget.extend({
		__name__: `LuCI.ui.${name}`,
		kind: 'select',
		__init__(value, choices, options) {
			this.super('__init__', [value, options]);
			this.choices = choices;
		}
	});

	const ui = Class.singleton({
		__name__: 'LuCI.ui',

		notifications, modals, indicators, applied,
		modalOpen: null,

		AbstractElement: Widget,
		Textfield: widget('text', 'Textfield'),
		Textarea: widget('textarea', 'Textarea'),
		Hiddenfield: widget('hidden', 'Hiddenfield'),
		Checkbox: widget('checkbox', 'Checkbox'),
		DynamicList: widget('dynlist', 'DynamicList'),
		Select: SelectWidget('Select'),
		Dropdown: SelectWidget('Dropdown'),

		addNotification(title, children, ...classes) {
			const node = E('div', { class: ['alert-message'].concat(classes).join(' ') }, [
				title ? E('h4', {}, [title]) : '',
				E('div', {}, Array.isArray(children) ? children : [children ?? ''])
			]);
			notifications.push({ title, text: text(children), classes, node });
			return node;
		},

		addTimeLimitedNotification(title, children, timeout, ...classes) {
			return this.addNotification(title, children, ...classes);
		},

		showModal(title, children, ...classes) {
			const node = E('div', { class: ['modal'].concat(classes).join(' ') }, [
				E('h4', {}, [title ?? '']),
				E('div', {}, Array.isArray(children) ? children : [children ?? ''])
			]);
			const rec = { title, text: text(children), classes, node, open: true };
			if (this.modalOpen)
				this.modalOpen.open = false;
			modals.push(rec);
			this.modalOpen = rec;
			return node;
		},

		hideModal() {
			if (this.modalOpen)
				this.modalOpen.open = false;
			this.modalOpen = null;
		},

		showIndicator(id, label, handler, style) {
			const isNew = !indicators[id];
			indicators[id] = { label, style: style || 'active', handler };
			return isNew;
		},

		hideIndicator(id) {
			const had = !!indicators[id];
			delete indicators[id];
			return had;
		},

		itemlist(node, items, separators) {
			const children = [];
			for (let i = 0; i < items.length; i += 2)
				if (items[i + 1] !== null && items[i + 1] !== undefined)
					children.push(E('span', { class: 'nowrap' }, [items[i] ? E('strong', {}, [`${items[i]}: `]) : '', items[i + 1]]));
			dom.content(node, children);
			return node;
		},

		/**
		 * Like LuCI: returns an event handler calling `fn` (a function or
		 * the name of a method of `ctx`) with the bound args plus the
		 * event. Unlike LuCI it returns the handler's promise so tests can
		 * await a click.
		 */
		createHandlerFn(ctx, fn, ...args) {
			if (typeof fn === 'string')
				fn = ctx[fn];
			if (typeof fn !== 'function')
				return null;
			return function(...callArgs) {
				return Promise.resolve(fn.apply(ctx, args.concat(callArgs)));
			};
		},

		changes: {
			apply(checked) { applied.push({ checked: !!checked }); return Promise.resolve(); },
			revert() { reverted.push(true); return Promise.resolve(); },
			setIndicator(n) { indicators['uci-changes'] = { label: `Unsaved Changes: ${n}`, style: 'active' }; },
			displayChanges() {},
			renderChangeIndicator() {}
		}
	});

	return ui;
}
