#!/usr/bin/env node
// The `lectern` command. Runs the compiled build in dist/ (made by `npm run build:server`, which the
// install runs); while a source file is newer than that build, or there is none, it runs the
// TypeScript sources through tsx instead, so a checkout being edited never runs stale code.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// A server runs in production mode unless told otherwise: graphql-js's development-only type checks
// (its `instanceOf`) took a tenth of the CPU of a large nested query. Set before graphql loads.
process.env.NODE_ENV ??= 'production';

const src = fileURLToPath(new URL('../src/', import.meta.url));
const built = fileURLToPath(new URL('../dist/.built', import.meta.url));

function buildIsCurrent() {
  if (!existsSync(built)) return false;
  const builtAt = statSync(built).mtimeMs;
  // src/generated/ is left out: every type check and test run rewrites it with the same content;
  // what it is generated from changes with the other sources.
  const sources = readdirSync(src, { recursive: true }).filter((file) => !file.startsWith('generated'));
  return sources.every((file) => statSync(src + file).mtimeMs <= builtAt);
}

if (buildIsCurrent()) {
  await import('../dist/cli.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
