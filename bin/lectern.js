#!/usr/bin/env node
// The `lectern` command: runs the TypeScript sources through tsx (no build step).
import { register } from 'tsx/esm/api';

// A server runs in production mode unless told otherwise: graphql-js's development-only type checks
// (its `instanceOf`) took a tenth of the CPU of a large nested query. Set before graphql loads.
process.env.NODE_ENV ??= 'production';

register();
await import('../src/cli.ts');
