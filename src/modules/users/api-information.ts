import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { builder } from '../../graphql/builder.js';

/**
 * getApiInformation: which Lectern answers. `version` is package.json's; `build`, "the date of the
 * latest release", is the commit date of the checkout being run (git), or, where the sources are not
 * a git checkout (a copied or packed installation), the time its package.json was written.
 * Read once per process.
 */
const packageJson = fileURLToPath(new URL('../../../package.json', import.meta.url));
const root = fileURLToPath(new URL('../../../', import.meta.url));

function commitDate(): Promise<string | null> {
  return new Promise((resolve) => {
    execFile('git', ['log', '-1', '--format=%cI'], { cwd: root, timeout: 2000 }, (error, stdout) => {
      const date = new Date(stdout.trim());
      resolve(error || Number.isNaN(date.getTime()) ? null : date.toISOString());
    });
  });
}

let information: Promise<{ version: string; build: string }> | undefined;

export function apiInformation() {
  information ??= (async () => {
    const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string };
    const build = (await commitDate()) ?? statSync(packageJson).mtime.toISOString();
    return { version, build };
  })();
  return information;
}

const ApiInformation = builder.objectRef<{ version: string; build: string }>('ApiInformation').implement({
  fields: (t) => ({
    version: t.exposeString('version', { description: 'Lectern’s release (package.json)' }),
    build: t.exposeString('build', { description: 'Date of the running release in ISO format (its commit date)' }),
  }),
});

builder.queryField('apiInformation', (t) => t.field({ type: ApiInformation, resolve: () => apiInformation() }));
