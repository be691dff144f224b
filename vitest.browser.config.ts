import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * `npm run test:browser`: the reader, GraphiQL and the landing page in headless Chromium (the files
 * named browser*.test.ts anywhere under test/), kept out of `npm test` (vitest.config.ts excludes
 * them); CI runs it after `npm test`. The same database setup and alias as the main suite; one file
 * at a time, each with longer timeouts: a file runs a server and a Chromium, and two of them side
 * by side on a 2-core machine made keystrokes and axe passes slow enough to fail journeys.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/**/browser*.test.ts'],
    exclude: ['**/node_modules/**'],
    testTimeout: 120_000,
    poolOptions: { forks: { maxForks: 1 } },
  },
});
