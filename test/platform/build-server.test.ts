import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { transformSync } from 'esbuild';
import { mendOutput, TRANSPILE, withExtension } from '../../scripts/build-server.js';

const from = (file: string) => path.resolve(import.meta.dirname, '../../src', file);

describe('the compiled build: what Node needs mended in transpiled files', () => {
  it('gives extensionless relative imports the extension of the file the source tree holds', () => {
    expect(withExtension('./errors', from('app.ts'))).toBe('./errors.js');
    expect(withExtension('./errors.js', from('app.ts'))).toBe('./errors.js');
    expect(withExtension('./modules', from('app.ts'))).toBe('./modules/index.js');
    expect(withExtension('./no-such-file', from('app.ts'))).toBe('./no-such-file');
  });

  it('rewrites imports and worker task URLs, and leaves other strings alone', () => {
    const code = [
      'import { a } from "./errors";',
      'export * from "./config";',
      'const m = await import("./modules");',
      'const TASKS = new URL("./tasks.ts", import.meta.url);',
      'const text = "from ./errors";',
    ].join('\n');
    expect(mendOutput(code, from('app.ts')).split('\n')).toEqual([
      'import { a } from "./errors.js";',
      'export * from "./config.js";',
      'const m = await import("./modules/index.js");',
      'const TASKS = new URL("./tasks.js", import.meta.url);',
      'const text = "from ./errors";',
    ]);
  });

  it('keeps import attributes (a JSON import without `with { type: "json" }` fails to load in Node)', () => {
    const source = "import official from './official-operations.json' with { type: 'json' };\nexport const n = official;\n";
    const { code } = transformSync(source, { ...TRANSPILE, loader: 'ts' });
    expect(code).toContain('with { type: "json" }');
  });
});
