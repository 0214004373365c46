/**
 * A tiny in-memory DOM: just enough Element/Text/DocumentFragment behaviour
 * for LuCI views (children, attributes, classList, events, textContent,
 * innerHTML, querySelector with simple selectors).
 *
 * Raw HTML assigned through `innerHTML` is NOT parsed: it is kept as a
 * single RawHTML child so tests can see exactly what markup a view
 * injected (`node.innerHTML`) while `textContent` shows it with tags
 * stripped.
 */

const ELEMENT = 1, TEXT = 3, FRAGMENT = 11;

function decodeEntities(s) {
	return s.replace(/&(#x?[0-9a-f]+|amp|lt|gt|quot|apos|nbsp);/gi, (m, e) => {
		const named = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
		if (named[e.toLowerCase()] != null)
			return named[e.toLowerCase()];
		const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
		return Number.isFinite(code) ? String.fromCodePoint(code) : m;
	});
}

function escapeText(s) {
	return String(s).replace(/[&<>]/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]);
}

function escapeAttr(s) {
	return escapeText(s).replace(/"/g, '&quot;');
}

class Node {
	constructor(nodeType, ownerDocument) {
		this.nodeType = nodeType;
		this.ownerDocument = ownerDocument || null;
		this.parentNode = null;
		this.childNodes = [];
	}

	get firstChild() { return this.childNodes[0] || null; }
	get lastChild() { return this.childNodes[this.childNodes.length - 1] || null; }
	get children() { return this.childNodes.filter(n => n.nodeType === ELEMENT); }
	get firstElementChild() { return this.children[0] || null; }
	get lastElementChild() { const c = this.children; return c[c.length - 1] || null; }
	get parentElement() { return this.parentNode && this.parentNode.nodeType === ELEMENT ? this.parentNode : null; }

	get nextSibling() {
		const p = this.parentNode;
		return p ? p.childNodes[p.childNodes.indexOf(this) + 1] || null : null;
	}

	get previousSibling() {
		const p = this.parentNode;
		return p ? p.childNodes[p.childNodes.indexOf(this) - 1] || null : null;
	}

	get nextElementSibling() {
		let n = this.nextSibling;
		while (n && n.nodeType !== ELEMENT) n = n.nextSibling;
		return n;
	}

	get previousElementSibling() {
		let n = this.previousSibling;
		while (n && n.nodeType !== ELEMENT) n = n.previousSibling;
		return n;
	}

	get textContent() {
		return this.childNodes.map(n => n.textContent).join('');
	}

	set textContent(value) {
		this.replaceChildren();
		if (value != null && value !== '')
			this.appendChild(new Text(String(value), this.ownerDocument));
	}

	appendChild(child) {
		return this.insertBefore(child, null);
	}

	insertBefore(child, ref) {
		if (!(child instanceof Node))
			throw new TypeError('insertBefore: argument is not a Node');
		const nodes = child.nodeType === FRAGMENT ? child.childNodes.slice() : [child];
		for (const n of nodes) {
			if (n === this || (n.nodeType === ELEMENT && n.contains(this)))
				throw new Error('HierarchyRequestError: cannot insert a node into itself');
			if (n.parentNode)
				n.parentNode.removeChild(n);
			const at = ref ? this.childNodes.indexOf(ref) : -1;
			if (at < 0)
				this.childNodes.push(n);
			else
				this.childNodes.splice(at, 0, n);
			n.parentNode = this;
		}
		return child;
	}

	removeChild(child) {
		const at = this.childNodes.indexOf(child);
		if (at < 0)
			throw new Error('NotFoundError: node is not a child');
		this.childNodes.splice(at, 1);
		child.parentNode = null;
		return child;
	}

	replaceChild(newChild, oldChild) {
		this.insertBefore(newChild, oldChild);
		return this.removeChild(oldChild);
	}

	replaceChildren(...nodes) {
		while (this.childNodes.length)
			this.removeChild(this.childNodes[0]);
		for (const n of nodes)
			this.appendChild(n instanceof Node ? n : new Text(String(n), this.ownerDocument));
	}

	remove() {
		if (this.parentNode)
			this.parentNode.removeChild(this);
	}

	contains(other) {
		for (let n = other; n; n = n.parentNode)
			if (n === this)
				return true;
		return false;
	}

	/** All descendant elements in document order. */
	*descendants() {
		for (const c of this.childNodes) {
			if (c.nodeType === ELEMENT) {
				yield c;
				yield* c.descendants();
			}
		}
	}

	querySelectorAll(selector) {
		const groups = parseSelectorList(selector);
		return [...this.descendants()].filter(el => groups.some(g => matchComplex(el, g, this)));
	}

	querySelector(selector) {
		return this.querySelectorAll(selector)[0] || null;
	}

	get innerHTML() {
		return this.childNodes.map(serialize).join('');
	}

	set innerHTML(html) {
		this.replaceChildren();
		if (html != null && String(html) !== '')
			this.appendChild(new RawHTML(String(html), this.ownerDocument));
	}
}

class Text extends Node {
	constructor(data, doc) {
		super(TEXT, doc);
		this.data = String(data);
	}
	get textContent() { return this.data; }
	set textContent(v) { this.data = String(v); }
	get nodeValue() { return this.data; }
	cloneNode() { return new Text(this.data, this.ownerDocument); }
}

/** Unparsed markup from an innerHTML assignment. */
class RawHTML extends Node {
	constructor(html, doc) {
		super(TEXT, doc);
		this.html = html;
		this.raw = true;
	}
	get textContent() { return decodeEntities(this.html.replace(/<[^>]*>/g, '')); }
	cloneNode() { return new RawHTML(this.html, this.ownerDocument); }
}

class DocumentFragment extends Node {
	constructor(doc) { super(FRAGMENT, doc); }
	cloneNode(deep) {
		const f = new DocumentFragment(this.ownerDocument);
		if (deep) for (const c of this.childNodes) f.appendChild(c.cloneNode(true));
		return f;
	}
}

class ClassList {
	constructor(el) { this.el = el; }
	_get() { return (this.el.getAttribute('class') || '').split(/\s+/).filter(Boolean); }
	_set(list) { this.el.setAttribute('class', list.join(' ')); }
	contains(c) { return this._get().includes(c); }
	add(...cs) { const l = this._get(); for (const c of cs) if (!l.includes(c)) l.push(c); this._set(l); }
	remove(...cs) { this._set(this._get().filter(c => !cs.includes(c))); }
	toggle(c, force) {
		const on = force === undefined ? !this.contains(c) : !!force;
		on ? this.add(c) : this.remove(c);
		return on;
	}
	get length() { return this._get().length; }
	[Symbol.iterator]() { return this._get()[Symbol.iterator](); }
}

class Element extends Node {
	constructor(tagName, doc) {
		super(ELEMENT, doc);
		this.localName = String(tagName).toLowerCase();
		/** attribute name → string value */
		this.attrs = {};
		this.listeners = {};
		this.style = {};
		this.classList = new ClassList(this);
	}

	get tagName() { return this.localName.toUpperCase(); }
	get nodeName() { return this.tagName; }
	/** Lower-case tag name (test convenience). */
	get tag() { return this.localName; }
	get id() { return this.getAttribute('id') || ''; }
	set id(v) { this.setAttribute('id', v); }
	get className() { return this.getAttribute('class') || ''; }
	set className(v) { this.setAttribute('class', v); }

	get value() {
		if (this._value !== undefined)
			return this._value;
		if (this.localName === 'select') {
			const opts = this.querySelectorAll('option');
			const sel = opts.find(o => o.hasAttribute('selected')) || opts[0];
			return sel ? sel.value : '';
		}
		if (this.localName === 'textarea')
			return this.textContent;
		if (this.localName === 'option' && !this.hasAttribute('value'))
			return this.textContent;
		return this.getAttribute('value') ?? '';
	}
	set value(v) { this._value = v == null ? '' : String(v); }

	get checked() { return this._checked !== undefined ? this._checked : this.hasAttribute('checked'); }
	set checked(v) { this._checked = !!v; }
	get disabled() { return this.hasAttribute('disabled'); }
	set disabled(v) { v ? this.setAttribute('disabled', '') : this.removeAttribute('disabled'); }
	get hidden() { return this.hasAttribute('hidden'); }
	set hidden(v) { v ? this.setAttribute('hidden', '') : this.removeAttribute('hidden'); }

	/** NamedNodeMap-like list of { name, value } */
	get attributes() { return Object.entries(this.attrs).map(([name, value]) => ({ name, value })); }

	setAttribute(name, value) { this.attrs[String(name).toLowerCase()] = String(value); }
	getAttribute(name) {
		const k = String(name).toLowerCase();
		return Object.prototype.hasOwnProperty.call(this.attrs, k) ? this.attrs[k] : null;
	}
	hasAttribute(name) { return this.getAttribute(name) !== null; }
	removeAttribute(name) { delete this.attrs[String(name).toLowerCase()]; }
	toggleAttribute(name, force) {
		const on = force === undefined ? !this.hasAttribute(name) : !!force;
		on ? this.setAttribute(name, '') : this.removeAttribute(name);
		return on;
	}

	addEventListener(type, fn) {
		(this.listeners[type] = this.listeners[type] || []).push(fn);
	}

	removeEventListener(type, fn) {
		this.listeners[type] = (this.listeners[type] || []).filter(f => f !== fn);
	}

	/**
	 * Deliver `event` ({type, bubbles, ...}) to listeners here and, when
	 * it bubbles, on the ancestors. Returns the listeners' results so tests
	 * can await promises from handlers.
	 */
	dispatchEvent(event) {
		const ev = Object.assign({
			bubbles: false, defaultPrevented: false, propagationStopped: false
		}, event);
		ev.target = ev.target || this;
		ev.preventDefault = () => { ev.defaultPrevented = true; };
		ev.stopPropagation = () => { ev.propagationStopped = true; };
		const results = [];
		for (let n = this; n; n = ev.bubbles ? n.parentNode : null) {
			ev.currentTarget = n;
			for (const fn of (n.listeners && n.listeners[ev.type]) || [])
				results.push(typeof fn === 'function' ? fn.call(n, ev) : fn.handleEvent(ev));
			if (ev.propagationStopped)
				break;
		}
		this.lastDispatch = results;
		return !ev.defaultPrevented;
	}

	/** Simulate a click; resolves once every handler's promise settled. */
	click() {
		this.dispatchEvent({ type: 'click', bubbles: true });
		return Promise.allSettled(this.lastDispatch || []);
	}

	matches(selector) {
		return parseSelectorList(selector).some(g => matchComplex(this, g, null));
	}

	closest(selector) {
		for (let n = this; n && n.nodeType === ELEMENT; n = n.parentNode)
			if (n.matches(selector))
				return n;
		return null;
	}

	getElementsByTagName(tag) {
		return [...this.descendants()].filter(e => tag === '*' || e.localName === String(tag).toLowerCase());
	}

	cloneNode(deep) {
		const el = new Element(this.localName, this.ownerDocument);
		Object.assign(el.attrs, this.attrs);
		Object.assign(el.style, this.style);
		if (deep) for (const c of this.childNodes) el.appendChild(c.cloneNode(true));
		return el;
	}

	get outerHTML() { return serialize(this); }
}

const VOID = new Set(['br', 'hr', 'img', 'input', 'meta', 'link', 'col', 'area', 'base', 'wbr', 'source']);

function serialize(n) {
	if (n instanceof RawHTML) return n.html;
	if (n.nodeType === TEXT) return escapeText(n.data);
	if (n.nodeType === FRAGMENT) return n.childNodes.map(serialize).join('');
	const attrs = Object.entries(n.attrs).map(([k, v]) => ` ${k}="${escapeAttr(v)}"`).join('');
	if (VOID.has(n.localName)) return `<${n.localName}${attrs}>`;
	return `<${n.localName}${attrs}>${n.childNodes.map(serialize).join('')}</${n.localName}>`;
}

/* ---- selectors: tag, #id, .class, [attr], [attr op "value"], *, and the
 *      descendant (space) and child (>) combinators; comma lists ---- */

function parseCompound(src) {
	const re = /^(\*|[a-zA-Z][\w-]*)?((?:#[\w-]+|\.[\w-]+|\[[^\]]+\])*)$/;
	const m = re.exec(src);
	if (!m)
		throw new SyntaxError(`unsupported selector part: ${src}`);
	const c = { tag: m[1] && m[1] !== '*' ? m[1].toLowerCase() : null, ids: [], classes: [], attrs: [] };
	const partRe = /#([\w-]+)|\.([\w-]+)|\[\s*([\w-]+)\s*(?:([~^$*|]?=)\s*(?:"([^"]*)"|'([^']*)'|([^\]\s]*)))?\s*\]/g;
	let p;
	while ((p = partRe.exec(m[2])) !== null) {
		if (p[1]) c.ids.push(p[1]);
		else if (p[2]) c.classes.push(p[2]);
		else c.attrs.push({ name: p[3].toLowerCase(), op: p[4] || null, value: p[5] ?? p[6] ?? p[7] ?? '' });
	}
	return c;
}

function parseSelectorList(selector) {
	return String(selector).split(',').map(s => s.trim()).filter(Boolean).map(s => {
		const tokens = s.replace(/\s*>\s*/g, ' > ').split(/\s+/);
		const chain = [];
		let combinator = ' ';
		for (const t of tokens) {
			if (t === '>') { combinator = '>'; continue; }
			chain.push({ combinator, compound: parseCompound(t) });
			combinator = ' ';
		}
		return chain;
	});
}

function matchCompound(el, c) {
	if (c.tag && el.localName !== c.tag) return false;
	if (c.ids.some(id => el.getAttribute('id') !== id)) return false;
	if (c.classes.some(cl => !el.classList.contains(cl))) return false;
	return c.attrs.every(a => {
		const v = el.getAttribute(a.name);
		if (v === null) return false;
		switch (a.op) {
		case null: return true;
		case '=': return v === a.value;
		case '~=': return v.split(/\s+/).includes(a.value);
		case '^=': return a.value !== '' && v.startsWith(a.value);
		case '$=': return a.value !== '' && v.endsWith(a.value);
		case '*=': return a.value !== '' && v.includes(a.value);
		case '|=': return v === a.value || v.startsWith(a.value + '-');
		}
		return false;
	});
}

/* match right-to-left; `scope` bounds ancestor search (querySelectorAll
 * matches against the whole tree like the DOM does, so scope is unused
 * except to stop at the document root) */
function matchComplex(el, chain, scope, idx = chain.length - 1) {
	if (!matchCompound(el, chain[idx].compound)) return false;
	if (idx === 0) return true;
	const comb = chain[idx].combinator;
	if (comb === '>') {
		const p = el.parentNode;
		return !!(p && p.nodeType === ELEMENT && matchComplex(p, chain, scope, idx - 1));
	}
	for (let p = el.parentNode; p && p.nodeType === ELEMENT; p = p.parentNode)
		if (matchComplex(p, chain, scope, idx - 1))
			return true;
	return false;
}

export { Node, Element, Text, RawHTML, DocumentFragment, ELEMENT, TEXT, FRAGMENT, serialize, decodeEntities };
