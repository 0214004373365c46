/**
 * Fake `'require poll'`: no timers. Callbacks are queued as in LuCI
 * (duplicates refused, interval defaults to L.env.pollinterval) and run
 * when a test calls `poll.tick()`.
 *
 * `tick(seconds = 1)` advances the fake clock one second at a time; at
 * each second every active entry whose interval divides the elapsed tick
 * count runs (tick 0 runs them all, like LuCI's first step); each second's
 * callbacks settle before the next second. Resolves when all have
 * settled and rejects with the first
 * callback error (LuCI would leave it unhandled; tests should see it).
 * Ticking while stopped does nothing, as in LuCI.
 *
 * Test-side: `poll.queue` ([{ fn, interval }]), `poll.ticks` (count).
 */

export function createPoll({ Class, env }) {
	const queue = [];

	return Class.singleton({
		__name__: 'LuCI.poll',

		queue,
		ticks: 0,
		running: false,

		add(fn, interval) {
			if (interval == null || interval <= 0)
				interval = env.pollinterval;
			if (isNaN(interval) || typeof fn !== 'function')
				throw new TypeError('Invalid argument to LuCI.poll.add()');
			if (queue.some(e => e.fn === fn))
				return false;
			queue.push({ fn, interval: interval >>> 0, busy: false });
			if (!this.running)
				this.start();
			return true;
		},

		remove(fn) {
			if (typeof fn !== 'function')
				throw new TypeError('Invalid argument to LuCI.poll.remove()');
			const before = queue.length;
			for (let i = queue.length - 1; i >= 0; i--)
				if (queue[i].fn === fn)
					queue.splice(i, 1);
			if (!queue.length)
				this.stop();
			return queue.length !== before;
		},

		start() {
			if (this.running)
				return false;
			this.running = true;
			this.ticks = 0;
			return true;
		},

		stop() {
			if (!this.running)
				return false;
			this.running = false;
			return true;
		},

		active() {
			return this.running;
		},

		/* ---- test-side API ---- */

		async tick(seconds = 1) {
			let failure = null;
			for (let s = 0; s < seconds && this.running; s++) {
				const started = [];
				for (const e of queue.slice()) {
					if (this.ticks % e.interval !== 0 || e.busy)
						continue;
					e.busy = true;
					started.push(Promise.resolve().then(() => e.fn()).finally(() => { e.busy = false; }));
				}
				this.ticks++;
				for (const r of await Promise.allSettled(started))
					if (r.status === 'rejected' && !failure)
						failure = r;
			}
			if (failure)
				throw failure.reason;
		}
	});
}
