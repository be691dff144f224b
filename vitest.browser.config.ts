import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * `npm run test:browser`: the reader, GraphiQL and the landing page in headless Chromium (the files
 * named browser*.test.ts anywhere under test/), kept out of `npm test` (vitest.config.ts excludes
 * them); CI runs it after `npm test`. The same database setup, alias, timeouts and two forks as the
 * main suite (each file launches one Chromium).
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/**/browser*.test.ts'],
    exclude: ['**/node_modules/**'],
  },
});
