/**
 * Fake `'require view'` (the View class, as in luci.js). Instantiating a
 * view starts the LuCI page flow: a "Loading view…" spinner in #view,
 * then load() → render(result) → #view gets the nodes plus the footer.
 * A failure is reported like L.error (a "danger" notification).
 *
 * The flow's promise is kept per instance: `viewReady(instance)` resolves
 * to the #view element or rejects with the load/render error (the
 * harness exposes it as `h.rendered(view)`).
 *
 * handleSave/handleReset call save()/reset() on every rendered form Map
 * in #maincontent; handleSaveApply(ev, mode) saves, then calls
 * ui.changes.apply(mode == '0') as LuCI does (the footer's Save & Apply
 * passes '0': apply with rollback check). A handler set to null drops
 * its footer button.
 */

const ready = new WeakMap();

export function viewReady(instance) {
	const p = ready.get(instance);
	if (!p)
		throw new Error('not a view instance created by the harness');
	return p;
}

export function createView({ Class, E, dom, document, ui, _ }) {
	const mapsIn = root => root.querySelectorAll('.cbi-map').map(n => dom.findClassInstance(n)).filter(Boolean);

	return Class.extend({
		__name__: 'LuCI.view',

		__init__() {
			const vp = document.getElementById('view');
			dom.content(vp, E('div', { class: 'spinning' }, [_('Loading view…')]));

			const p = Promise.resolve()
				.then(() => this.load())
				.then(data => this.render(data))
				.then(nodes => {
					dom.content(vp, nodes);
					dom.append(vp, this.addFooter());
					return vp;
				})
				.catch(e => {
					ui.addNotification(e.name || _('Runtime error'), E('pre', {}, [e.message]), 'danger');
					throw e;
				});
			p.catch(() => {});
			ready.set(this, p);
		},

		load() {},
		render() {},

		handleSave(ev) {
			const main = document.getElementById('maincontent');
			return Promise.all(main.querySelectorAll('.cbi-map').map(n => dom.callClassMethod(n, 'save')));
		},

		handleSaveApply(ev, mode) {
			return this.handleSave(ev).then(() => ui.changes.apply(mode == '0'));
		},

		handleReset(ev) {
			const main = document.getElementById('maincontent');
			return Promise.all(main.querySelectorAll('.cbi-map').map(n => dom.callClassMethod(n, 'reset')));
		},

		addFooter() {
			const footer = E([]);
			const vp = document.getElementById('view');
			const maps = mapsIn(vp);
			const readonly = maps.length ? maps.every(m => m.readonly) : false;

			if (this.handleSaveApply || this.handleSave || this.handleReset) {
				/* LuCI's Save & Apply is a ComboButton passing mode '0' (checked apply) */
				const button = (cls, handler, label, ...args) => this[handler] ? E('button', {
					class: `cbi-button ${cls}`,
					click: ui.createHandlerFn(this, ev => this[handler](ev, ...args)),
					disabled: readonly || null
				}, [label]) : '';
				footer.appendChild(E('div', { class: 'cbi-page-actions' }, [
					button('cbi-button-apply', 'handleSaveApply', _('Save & Apply'), '0'), ' ',
					button('cbi-button-save', 'handleSave', _('Save')), ' ',
					button('cbi-button-reset', 'handleReset', _('Reset'))
				]));
			}
			return footer;
		}
	});
}
