/**
 * Writes src/rest/official-operations.json: method, path template and operationId of every operation
 * of the official GitBook description (@gitbook/api@0.202.0, the dev dependency `gitbook-api-0202`).
 * The REST adapter reads that committed file to answer 501 for an official operation Lectern does not
 * serve: the server never loads a dev dependency. `--check` exits 1 when the committed file differs.
 *
 *   npx tsx scripts/official-operations.ts [--check]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const target = fileURLToPath(new URL('../src/rest/official-operations.json', import.meta.url));
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export function officialOperationsText(): string {
  const spec = require('gitbook-api-0202/spec/openapi.json');
  // The package's version (its description says 0.0.1-beta); its exports do not include package.json.
  const specPath = require.resolve('gitbook-api-0202/spec/openapi.json');
  const version = JSON.parse(readFileSync(new URL('../package.json', `file://${specPath}`), 'utf8')).version as string;
  const operations: { method: string; path: string; operationId: string }[] = [];
  for (const [path, item] of Object.entries<Record<string, { operationId?: string }>>(spec.paths)) {
    for (const method of METHODS) {
      const operationId = item[method]?.operationId;
      if (operationId) operations.push({ method: method.toUpperCase(), path, operationId });
    }
  }
  operations.sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
  // One operation per line: diffs between versions of the description stay readable.
  return `{\n  "source": "@gitbook/api@${version}",\n  "operations": [\n${operations.map((o) => `    ${JSON.stringify(o)}`).join(',\n')}\n  ]\n}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = officialOperationsText();
  if (process.argv.includes('--check')) {
    const committed = readFileSync(target, 'utf8');
    if (committed !== text) {
      console.error('src/rest/official-operations.json is stale: run npx tsx scripts/official-operations.ts');
      process.exit(1);
    }
    console.log('src/rest/official-operations.json is up to date');
  } else {
    writeFileSync(target, text);
    console.log(`wrote ${target}`);
  }
}
