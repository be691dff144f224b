import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { analyse, compare, specifiersOf, toBaseline } from '../../scripts/import-graph.js';

/**
 * The import graph script on a small tree whose answer is known, so the script cannot silently
 * report 0 (for instance after a change of how imports are found or paths resolved).
 */
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'import-graph-'));
const write = (rel: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
};
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

// Entry points and registry: on top, allowed to import modules; an entry point only through a
// module's face (index.ts), the registry any file of a module.
write('src/app.ts', `import { a } from './modules/a/index.js';\nimport { all } from './modules/index.js';\n`);
write('src/cli.ts', `import { routes } from './modules/a/routes.js';\n`);
write('src/modules/index.ts', `export * as a from './a/index.js';\nimport './b/service.js';\n`);
// Mechanisms reaching up: a static value import and a type-only import of the same file (one edge),
// a dynamic import of a folder (its index), the registry, and a worker task URL.
write(
  'src/http/router.ts',
  `import { routes } from '../modules/a/routes.js';\nimport type { R } from '../modules/a/routes.js';\n` +
    `export const later = () => import('../modules/b');\n`,
);
write('src/rest/routes.ts', `import { a } from '../modules/index.js';\n`);
write('src/jobs/run.ts', `const TASK = new URL('../modules/c/x.ts', import.meta.url);\n`);
// Mechanism to mechanism: fine.
write('src/db/pool.ts', `import { fail } from '../errors.js';\n`);
write('src/errors.ts', `export const fail = 1;\n`);
// Generated code is not looked at.
write('src/generated/g.ts', `import '../modules/a/routes.js';\n`);
// Modules a and b import each other (a type-only import and a re-export).
write('src/modules/a/index.ts', `export const a = 1;\n`);
write('src/modules/a/routes.ts', `import type { S } from '../b/service.js';\nexport const routes = [];\n`);
write('src/modules/b/index.ts', `export const b = 1;\n`);
write('src/modules/b/service.ts', `export { a } from '../a/index.js';\n`);
// A circle of three without any mutual pair: c → d → e → c.
write('src/modules/c/x.ts', `import { y } from '../d/y';\n`);
write('src/modules/d/y.ts', `import { z } from '../e/z.js';\n`);
write('src/modules/e/z.ts', `import type { X } from '../c/x.js';\n`);

describe('import graph', () => {
  it('reads every form of import from the syntax tree, not from text', () => {
    const text = [
      `import a from './a.js';`,
      `import type { B } from './b.js';`,
      `import './c.js';`,
      `export { d } from './d.js';`,
      `export * from './e.js';`,
      `const f = await import('./f.js');`,
      `let g: import('./g.js').G;`,
      `import h = require('./h.js');`,
      `declare module './i.js' { interface I { x: 1 } }`,
      `const worker = new URL('./j.ts', import.meta.url);`,
      `const data = new URL('./k.json', import.meta.url);`,
      `// import z from './commented.js';`,
      "const s = `import y from './in-a-string.js'`;",
    ].join('\n');
    expect(specifiersOf('x.ts', text)).toEqual([
      './a.js',
      './b.js',
      './c.js',
      './d.js',
      './e.js',
      './f.js',
      './g.js',
      './h.js',
      './i.js',
      './j.ts',
    ]);
  });

  it('counts mechanism → module imports, mutual module pairs and circles', () => {
    const r = analyse(root);
    expect(r.mechanismIntoModules.map((e) => `${e.from} → ${e.to}`)).toEqual([
      'src/http/router.ts → src/modules/a/routes.ts',
      'src/http/router.ts → src/modules/b/index.ts',
      'src/jobs/run.ts → src/modules/c/x.ts',
      'src/rest/routes.ts → src/modules/index.ts',
    ]);
    expect(r.entryIntoModules).toHaveLength(3);
    expect(r.mutualModulePairs).toEqual([['a', 'b']]);
    expect(r.moduleCircles).toEqual([
      ['a', 'b'],
      ['c', 'd', 'e'],
    ]);
    expect(r.modulesInCircles).toBe(5);
    // Internals reached past a face: by an entry point, by a module (b has an index.ts, d, e and c
    // have none: counted all the same); not b → a's index.ts, nor the registry → b/service.ts.
    expect(r.internalReaches.map((e) => `${e.from} → ${e.to}`)).toEqual([
      'src/cli.ts → src/modules/a/routes.ts',
      'src/modules/a/routes.ts → src/modules/b/service.ts',
      'src/modules/c/x.ts → src/modules/d/y.ts',
      'src/modules/d/y.ts → src/modules/e/z.ts',
      'src/modules/e/z.ts → src/modules/c/x.ts',
    ]);
    expect(r.unresolved).toEqual([]);
  });

  it('fails a check when a number grows, names the new edge, and asks to lower when it shrinks', () => {
    const baseline = toBaseline(analyse(root));
    write('src/auth/session.ts', `import { a } from '../modules/a/index.js';\n`);
    try {
      const grown = compare(toBaseline(analyse(root)), baseline);
      expect(grown.ok).toBe(false);
      expect(grown.lines).toContain('  new edge: src/auth/session.ts → src/modules/a/index.ts');

      // A module reaching past another's face is a new internal import, named.
      write('src/modules/b/extra.ts', `import { routes } from '../a/routes.js';\n`);
      const reached = compare(toBaseline(analyse(root)), baseline);
      expect(reached.lines).toContain('FAIL internalReaches: 6, above the baseline 5');
      expect(reached.lines).toContain('  new internal import: src/modules/b/extra.ts → src/modules/a/routes.ts');
      fs.rmSync(path.join(root, 'src/modules/b/extra.ts'));

      const lower = compare(toBaseline(analyse(root)), { ...toBaseline(analyse(root)), mutualModulePairs: 2 });
      expect(lower.ok).toBe(true);
      expect(lower.lines.join('\n')).toMatch(/mutualModulePairs: 1, below the baseline 2: lower the baseline/);

      // The command line exits non-zero on growth.
      const file = path.join(root, 'baseline.json');
      fs.writeFileSync(file, JSON.stringify(baseline));
      const script = fileURLToPath(new URL('../../scripts/import-graph.ts', import.meta.url));
      const run = spawnSync(process.execPath, ['--import', 'tsx', script, '--check', '--root', root, '--baseline', file], {
        encoding: 'utf8',
      });
      expect(run.stdout).toMatch(/FAIL mechanismIntoModules: 5, above the baseline 4/);
      expect(run.status).toBe(1);
    } finally {
      fs.rmSync(path.join(root, 'src/auth'), { recursive: true });
    }
  });
});
