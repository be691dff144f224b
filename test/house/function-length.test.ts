import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { functionsOf, longFunctions } from '../../scripts/long-functions.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const LIMIT = 120;

describe('function length', () => {
  it('counts every kind of function from the syntax tree, by its own lines', () => {
    const text = [
      '// a comment above is not counted',
      'function declared() {',
      '  const s = "}";',
      '  return s;',
      '}',
      'const arrow = (x: number) => {',
      '  return x;',
      '};',
      'class C {',
      '  constructor() {}',
      '  method() {',
      '    return [1].map(function inner(n) {',
      '      return n;',
      '    });',
      '  }',
      '  get value() { return 1; }',
      '}',
      'run(() => 1);',
    ].join('\n');
    const found = functionsOf(text, 'x.ts').map((f) => [f.name, f.line, f.lines]);
    expect(found).toEqual([
      ['declared', 2, 4],
      ['arrow', 6, 3],
      ['constructor', 10, 1],
      ['method', 11, 5],
      ['inner', 12, 3],
      ['value', 16, 1],
      ['(callback of run)', 18, 1],
    ]);
  });

  it(`finds no function in src/ longer than ${LIMIT} lines`, () => {
    const long = longFunctions(root, LIMIT).map((f) => `${f.lines} lines: ${f.file}:${f.line} ${f.name}`);
    expect(long).toEqual([]);
  });
});
