/* vitest's setup file (vitest.config.js): the harness's hooks for every
 * test file (files share modules: isolate is off) */
import { afterAll, afterEach, beforeEach } from 'vitest';
import { lifecycle } from './luci.js';

beforeEach(ctx => lifecycle.beforeEach(ctx));
afterEach(() => lifecycle.afterEach());
afterAll(() => lifecycle.afterAll());
