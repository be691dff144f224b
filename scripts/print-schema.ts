// Writes schema.graphql (committed; a test fails when it is stale): `npm run generate` runs it.
import fs from 'node:fs';
import { printedSchema, SCHEMA_FILE } from '../src/graphql/print-schema.js';
import { installModules } from '../src/modules/index.js';

installModules();
fs.writeFileSync(SCHEMA_FILE, printedSchema());
console.log(`wrote ${SCHEMA_FILE}`);
