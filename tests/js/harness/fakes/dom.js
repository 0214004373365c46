/**
 * `document`, `window`, `E()` and the `'require dom'` module, on top of
 * the tiny DOM in nodes.js. `E`/`dom.create` follow LuCI's rules:
 *  - E(tag, attrs?, children?); if the 2nd argument is not a plain object
 *    (array, string, node) it is the children;
 *  - attribute values: function → event listener, object → JSON,
 *    null/undefined → skipped, else String();
 *  - children: array → nodes appended, every other item becomes a text
 *    node — including null/undefined, which LuCI renders as "null" /
 *    "undefined" text (kept here so tests catch it); a function is
 *    called with the node; a single non-node value is assigned to
 *    innerHTML (raw markup, not escaped — as in LuCI).
 */

import { Element, Text, RawHTML, DocumentFragment, ELEMENT } from './nodes.js';

/**
 * @param {Function} Class the baseclass implementation
 * @returns {{document, window, E, dom, text}}
 */
export function createDOM(Class) {
	const document = {
		nodeType: 9,
		createElement: tag => new Element(tag, document),
		createTextNode: data => new Text(data, document),
		createDocumentFragment: () => new DocumentFragment(document),
		listeners: {},
		addEventListener(type, fn) { (this.listeners[type] = this.listeners[type] || []).push(fn); },
		removeEventListener(type, fn) {
			this.listeners[type] = (this.listeners[type] || []).filter(f => f !== fn);
		},
		dispatchEvent(ev) {
			for (const fn of this.listeners[ev.type] || []) fn(ev);
			return true;
		},
		getElementById(id) { return this.documentElement.querySelector(`#${id}`); },
		querySelector(sel) { return this.documentElement.querySelector(sel); },
		querySelectorAll(sel) { return this.documentElement.querySelectorAll(sel); }
	};

	document.documentElement = new Element('html', document);
	/* <head>: where modules link their style sheets */
	document.head = new Element('head', document);
	document.documentElement.appendChild(document.head);
	document.body = new Element('body', document);
	document.documentElement.appendChild(document.body);

	/* the page skeleton LuCI views live in */
	const main = new Element('div', document);
	main.setAttribute('id', 'maincontent');
	const view = new Element('div', document);
	view.setAttribute('id', 'view');
	main.appendChild(view);
	document.body.appendChild(main);

	const window = {
		document,
		location: { protocol: 'http:', host: '192.168.1.1', hostname: '192.168.1.1',
			pathname: '/cgi-bin/luci/', search: '', hash: '', href: 'http://192.168.1.1/cgi-bin/luci/' },
		setTimeout, clearTimeout, setInterval, clearInterval,
		requestAnimationFrame: fn => setTimeout(() => fn(Date.now()), 0),
		addEventListener() {},
		removeEventListener() {}
	};

	const registry = {};

	const isNode = e => e != null && typeof e === 'object' && 'nodeType' in e;

	const dom = Class.singleton({
		__name__: 'LuCI.dom',

		elem: isNode,

		/** Markup is not parsed: returns a <div> holding the raw HTML. */
		parse(s) {
			const holder = new Element('div', document);
			holder.appendChild(new RawHTML(String(s), document));
			return holder;
		},

		matches(node, selector) {
			return isNode(node) && node.nodeType === ELEMENT ? node.matches(selector) : false;
		},

		parent(node, selector) {
			return isNode(node) && node.closest ? node.closest(selector) : null;
		},

		append(node, children) {
			if (!isNode(node))
				return null;
			if (Array.isArray(children)) {
				for (let i = 0; i < children.length; i++)
					if (isNode(children[i]))
						node.appendChild(children[i]);
					else
						node.appendChild(new Text(`${children[i]}`, document));
				return node.lastChild;
			}
			if (typeof children === 'function')
				return this.append(node, children(node));
			if (isNode(children))
				return node.appendChild(children);
			if (children !== null && children !== undefined) {
				node.innerHTML = `${children}`;
				return node.lastChild;
			}
			return null;
		},

		content(node, children) {
			if (!isNode(node))
				return null;
			for (const el of node.querySelectorAll('[data-idref]'))
				delete registry[el.getAttribute('data-idref')];
			node.replaceChildren();
			return this.append(node, children);
		},

		attr(node, key, val) {
			if (!isNode(node))
				return null;
			const attrs = (typeof key === 'object' && key !== null) ? key
				: (typeof key === 'string' ? { [key]: val } : null);
			for (const k in attrs) {
				if (!Object.prototype.hasOwnProperty.call(attrs, k) || attrs[k] == null)
					continue;
				const v = attrs[k];
				if (typeof v === 'function')
					node.addEventListener(k, v);
				else if (typeof v === 'object')
					node.setAttribute(k, JSON.stringify(v));
				else
					node.setAttribute(k, v);
			}
		},

		create(html, attr, data) {
			if (!(attr instanceof Object) || Array.isArray(attr))
				data = attr, attr = null;
			let elem;
			if (Array.isArray(html)) {
				elem = new DocumentFragment(document);
				for (const h of html)
					elem.appendChild(this.create(h));
			}
			else if (isNode(html))
				elem = html;
			else if (String(html).charCodeAt(0) === 60)
				elem = this.parse(html);
			else
				elem = new Element(html, document);
			this.attr(elem, attr);
			this.append(elem, data);
			return elem;
		},

		registry,

		data(node, key, val) {
			if (!node || !node.getAttribute)
				return null;
			let id = node.getAttribute('data-idref');
			if (arguments.length > 1 && key == null) {
				if (id == null) return null;
				node.removeAttribute('data-idref');
				const all = registry[id];
				delete registry[id];
				return all;
			}
			if (arguments.length > 2 && key != null && val == null) {
				if (id == null) return null;
				const old = registry[id][key];
				delete registry[id][key];
				return old;
			}
			if (arguments.length > 2) {
				if (id == null) {
					do id = Math.floor(Math.random() * 0xffffffff).toString(16);
					while (Object.prototype.hasOwnProperty.call(registry, id));
					node.setAttribute('data-idref', id);
					registry[id] = {};
				}
				return (registry[id][key] = val);
			}
			if (id == null)
				return null;
			return arguments.length === 1 ? registry[id] : registry[id][key];
		},

		bindClassInstance(node, inst) {
			if (!(inst instanceof Class))
				throw new TypeError('Argument must be a class instance');
			return this.data(node, '_class', inst);
		},

		findClassInstance(node) {
			let inst = null;
			do {
				inst = this.data(node, '_class');
				node = node.parentNode;
			} while (!(inst instanceof Class) && node != null);
			return inst;
		},

		callClassMethod(node, method, ...args) {
			const inst = this.findClassInstance(node);
			return (inst && typeof inst[method] === 'function') ? inst[method](...args) : null;
		},

		isEmpty(node, ignoreFn) {
			for (const child of (node ? node.children : []))
				if (!child.classList.contains('hidden') && !(ignoreFn && ignoreFn(child)))
					return false;
			return true;
		}
	});

	const E = (...args) => dom.create(...args);

	return { document, window, dom, E, text };
}

/**
 * Visible text of a node (or array of nodes / strings), whitespace
 * collapsed. Nodes with the `hidden` attribute are still included.
 */
export function text(node) {
	const raw = Array.isArray(node) ? node.map(text).join(' ')
		: (node && typeof node === 'object' && 'textContent' in node) ? node.textContent
		: (node == null ? '' : String(node));
	return raw.replace(/\s+/g, ' ').trim();
}
