/**
 * A working re-implementation of LuCI's class helper (`'require baseclass'`).
 *
 * Semantics follow luci.js so module code behaves here as it does in the
 * browser:
 *  - `Base.extend(props)` returns a constructor whose prototype inherits
 *    from `Base.prototype`; statics (extend, singleton, ...) are copied.
 *  - `new C(...)` runs the `__init__` the class itself declares, otherwise
 *    the nearest inherited one (via `this.super('__init__', arguments)`).
 *    Calling a class without `new` throws a TypeError.
 *  - `this.super('name')` returns the member found on a parent class;
 *    `this.super('name', [a, b])`, `this.super('name', arguments)` or
 *    `this.super('name', a, b)` call it with `this` bound. Nested super
 *    calls walk further up the chain. Missing members yield `null`.
 *
 * Like LuCI, the search for `super` starts at the parent of the instance's
 * own class (not at the class that defined the calling method), so a
 * method that calls `super` and is merely inherited by a subclass runs
 * the same parent method a second time. This quirk is kept on purpose:
 * code that relies on it behaves here as it does in LuCI.
 */

let classCounter = 0;

/* per instance: member name -> stack of prototypes currently executing */
const superStacks = new WeakMap();

function isArguments(v) {
	return Object.prototype.toString.call(v) === '[object Arguments]';
}

function camel(s) {
	return String(s).replace(/(?:^|[. -])(.)/g, (m, c) => c.toUpperCase());
}

const Class = Object.assign(function BaseClass() {}, {
	/**
	 * Create a subclass of this class.
	 * @param {Object} properties members of the new prototype
	 * @returns {Function} the new class constructor
	 */
	extend(properties) {
		const id = classCounter++;
		const descriptors = {
			__id__: { value: id },
			__base__: { value: this.prototype },
			__name__: { value: (properties && properties.__name__) || `anonymous${id}` }
		};

		const Ctor = function() {
			if (!(this instanceof Ctor))
				throw new TypeError('Constructor must not be called without "new"');

			if (Object.prototype.hasOwnProperty.call(Object.getPrototypeOf(this), '__init__')) {
				if (typeof this.__init__ !== 'function')
					throw new TypeError('Class __init__ member is not a function');
				this.__init__.apply(this, arguments);
			}
			else {
				this.super('__init__', arguments);
			}
		};

		for (const key in properties)
			if (!descriptors[key] && Object.prototype.hasOwnProperty.call(properties, key))
				descriptors[key] = { value: properties[key], writable: true };

		Ctor.prototype = Object.create(this.prototype, descriptors);
		Ctor.prototype.constructor = Ctor;
		Object.assign(Ctor, this);
		Ctor.displayName = camel(`${descriptors.__name__.value}Class`);

		return Ctor;
	},

	/**
	 * Extend and instantiate in one step.
	 * @param {Object} properties members of the new prototype
	 * @param {...*} args constructor arguments
	 * @returns {Object} the instance
	 */
	singleton(properties, ...args) {
		return Class.extend(properties).instantiate(args);
	},

	/** Instantiate with an argument array. */
	instantiate(args) {
		return new this(...(args || []));
	},

	/** True when `cls` is a constructor derived from this class. */
	isSubclass(cls) {
		return typeof cls === 'function' && cls.prototype instanceof this;
	},

	prototype: {
		/** Copy `args` from `offset`, with `extra` prepended. */
		varargs(args, offset, ...extra) {
			return extra.concat(Array.prototype.slice.call(args, offset));
		},

		super(key, ...callArgs) {
			if (key == null)
				return null;

			let stacks = superStacks.get(this);
			if (!stacks)
				superStacks.set(this, (stacks = new Map()));

			const stack = stacks.get(key) || [];
			let proto = Object.getPrototypeOf(stack.length ? stack[0] : Object.getPrototypeOf(this));

			while (proto != null && !Object.prototype.hasOwnProperty.call(proto, key))
				proto = Object.getPrototypeOf(proto);

			if (proto == null)
				return null;

			const member = proto[key];

			if (callArgs.length === 0)
				return member;

			if (typeof member !== 'function')
				throw new ReferenceError(`${key} is not a function in base class`);

			const args = (Array.isArray(callArgs[0]) || isArguments(callArgs[0]))
				? Array.prototype.slice.call(callArgs[0]) : callArgs;

			stack.unshift(proto);
			stacks.set(key, stack);

			try {
				return member.apply(this, args);
			}
			finally {
				stack.shift();
				if (!stack.length)
					stacks.delete(key);
			}
		},

		toString() {
			const own = Object.keys(this).map(k => `  ${k}: ${typeof this[k]}`);
			return `[${this.constructor.displayName}]` + (own.length ? ` {\n${own.join('\n')}\n}` : '');
		}
	}
});

export { Class, isArguments };
export default Class;
