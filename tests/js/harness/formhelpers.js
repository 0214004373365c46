/**
 * Test-side access to LuCI's real forms (form.js) on the page:
 *
 *   h.form.maps                      the form.Map instances rendered in #view
 *   h.form.widget(map, sid, opt)     the option's input element (cbid.<conf>.<sid>.<opt>)
 *   h.form.setValue(map, sid, opt, v)  as a user sets it: the widget's value,
 *                                    then its input, keyup, change and blur
 *                                    events (LuCI validates and runs depends
 *                                    and onchange from them)
 *   h.form.setValue(..., { tamper: true })  a <select> gets the value as an
 *                                    extra <option> first (what a tampered
 *                                    page sends)
 *   h.form.describe(map)             sections and options as plain data
 */

const EVENTS = ['input', 'keyup', 'change', 'blur'];

export function createFormHelpers(getWindow) {
	const instances = sel => {
		const w = getWindow();
		const vp = w.document.getElementById('view');
		if (!vp || !w.L)
			return [];
		return Array.from(vp.querySelectorAll(sel)).map(n => w.L.dom.findClassInstance(n)).filter(Boolean);
	};

	const cbid = (map, sid, opt) => `cbid.${map.config}.${sid}.${opt}`;

	const formClass = name => getWindow().L.form[name];

	return {
		get maps() { return instances('.cbi-map'); },

		/* LuCI's form classes, for instanceof checks */
		get Map() { return formClass('Map'); },
		get NamedSection() { return formClass('NamedSection'); },
		get TypedSection() { return formClass('TypedSection'); },
		get TableSection() { return formClass('TableSection'); },
		get GridSection() { return formClass('GridSection'); },

		/* the <input>/<select> LuCI's widget renders (its frame has the cbid) */
		widget(map, sid, opt) {
			if (!map.root)
				return null;
			const id = cbid(map, sid, opt);
			/* one [attribute="value"] at a time: those the tab answers from its
			 * index (browser.js), a list of selectors by a walk of the page */
			return map.root.querySelector(`[id="widget.${id}"]`) || map.root.querySelector(`[data-widget-id="widget.${id}"]`) ||
				map.root.querySelector(`[id="${id}"]`);
		},

		setValue(map, sid, opt, value, opts = {}) {
			const ref = map.lookupOption(opt, sid);
			const el = this.widget(map, sid, opt);
			if (!ref || !el)
				throw new Error(`no rendered widget for ${cbid(map, sid, opt)}`);
			const [option] = ref;
			const ui = option.getUIElement(sid);
			if (el.tagName === 'SELECT' && !Array.from(el.options).some(o => o.value === String(value))) {
				if (!opts.tamper)
					throw new Error(`${cbid(map, sid, opt)} offers no choice "${value}"`);
				el.appendChild(getWindow().document.createElement('option')).value = String(value);
			}
			if (el.type === 'checkbox')
				el.checked = (value === true || String(value) === String(option.enabled ?? '1'));
			else if (ui)
				ui.setValue(value);
			else
				el.value = value;
			const w = getWindow();
			const frame = el.closest('.cbi-dropdown');
			if (frame)
				frame.dispatchEvent(new w.CustomEvent('cbi-dropdown-change', { bubbles: true }));
			else
				for (const t of EVENTS)
					el.dispatchEvent(new w.Event(t, { bubbles: true }));
			return el;
		},

		describe(map) {
			return {
				config: map.config,
				title: map.title,
				sections: map.children.map(s => ({
					kind: String(s.__name__).replace(/^CBI\./, ''),
					type: s.sectiontype,
					section: s.section,
					title: s.title,
					anonymous: !!s.anonymous,
					addremove: !!s.addremove,
					options: s.children.map(o => ({
						name: o.option,
						kind: String(o.__name__).replace(/^CBI\./, ''),
						title: o.title,
						description: o.description,
						datatype: o.datatype,
						default: o.default,
						placeholder: o.placeholder ?? null,
						depends: o.deps,
						rmempty: o.rmempty,
						optional: o.optional,
						choices: (o.keylist || []).slice(),
						tab: o.tab || null,
						/* a validate() of the page's own (LuCI's classes have one) */
						hasValidate: Object.prototype.hasOwnProperty.call(o, 'validate')
					}))
				}))
			};
		}
	};
}
