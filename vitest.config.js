import { defineConfig } from 'vitest/config';

export default defineConfig({
	test: {
		include: ['tests/js/**/*.test.js'],
		environment: 'node',
		/* the files share jsdom and LuCI's sources (each page has its own
		 * window); the harness's hooks run for each file from setup.js */
		isolate: false,
		setupFiles: ['tests/js/harness/setup.js'],
		/* a view test boots LuCI in jsdom and works its page: up to 1.5 s
		 * here; 5 s (the default) was exceeded with the machine's two cores
		 * shared by seven busy processes. A page that never settles fails
		 * sooner, in the harness */
		testTimeout: 20000,
		/* an unhandled rejection of a LuCI page (its stack is in the page's
		 * scripts, served from http://router.test/) is the harness's to
		 * report: tests/js/harness/luci.js records it for the test, which
		 * fails unless it expected it */
		onUnhandledError(error) {
			const stack = String((error && (error.stack || error.stackStr)) || '');
			if (/http:\/\/router\.test\//.test(stack))
				return false;
		}
	}
});
