import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Pothos loads graphql as CommonJS; without this, vite would load its ESM build too (two realms).
  resolve: { alias: { graphql: 'graphql/index.js' } },
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    include: ['test/**/*.test.ts'],
    // The headless-Chromium tests run with `npm run test:browser` (vitest.browser.config.ts).
    exclude: ['**/node_modules/**', 'test/**/browser*.test.ts'],
    // A per-test timeout is there to end a hang, not to time the machine: with both cores busy
    // elsewhere a test of 300 sequential requests took over 30 s. Nothing here asserts a duration.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // Each file gets its own database (a copy of a migrated template), so files may run in parallel.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2 } },
  },
});
