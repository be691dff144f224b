import { describe, expect, it } from 'vitest';
import { canonicalJson, EMPTY_MANIFEST, hashOf, sameJson } from '../../src/modules/content/store.js';

/**
 * Content objects are addressed by the SHA-256 of their canonical JSON: the form must never change,
 * or an unchanged object would get a new address (and a merge would see every shard as changed).
 * `reference` is the form as first written (recursive, keys sorted); canonicalJson must write
 * exactly the same text for every value, whichever way it gets there.
 */
function reference(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${reference((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

// A deterministic generator of JSON-like values with the awkward cases: integer-like keys (engines
// list them first), keys that sort differently by code unit, unicode, nesting, undefined values.
let seed = 7;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const KEYS = ['id', 'title', 'slug', '10', '2', '0', 'Z', 'a', 'é', 'ä', '_', 'parent', 'position', 'body', '$', '😀', 'updatedAt'];
function value(depth: number): unknown {
  const r = random();
  if (depth > 3 || r < 0.3) return [null, true, false, 0, -0, 1.5, -12, 1e21, 'text', '', 'ü\n"\\', '\ud800'][Math.floor(random() * 12)];
  if (r < 0.5) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
  const object: Record<string, unknown> = {};
  for (let i = Math.floor(random() * 6); i > 0; i--)
    object[KEYS[Math.floor(random() * KEYS.length)]!] = random() < 0.1 ? undefined : value(depth + 1);
  return object;
}

describe('canonicalJson', () => {
  it('writes exactly what the recursive form writes, for 5,000 generated values', () => {
    for (let i = 0; i < 5000; i++) {
      const v = value(0);
      expect(canonicalJson(v), JSON.stringify(v)).toBe(reference(v));
    }
  });

  it('takes the recursive form where the engine would write differently (undefined in arrays, toJSON, functions)', () => {
    for (const v of [
      [1, undefined, 2],
      { at: new Date(0) },
      { f: () => 1, a: 1 },
      { nested: [{ b: 1, a: undefined }] },
      Object.assign(Object.create({ inherited: 1 }), { own: 2 }),
    ]) {
      expect(canonicalJson(v)).toBe(reference(v));
    }
  });

  it('keeps the address of a stored object (the empty manifest’s, as every space has it)', () => {
    expect(hashOf('manifest', EMPTY_MANIFEST)).toBe(hashOf('manifest', JSON.parse(reference(EMPTY_MANIFEST))));
    const shard = {
      b: { id: 'b', title: 'B', position: 2, parent: null },
      a: { id: 'a', title: 'A', position: 1, parent: 'b', hidden: undefined },
    };
    expect(canonicalJson(shard)).toBe(
      '{"a":{"id":"a","parent":"b","position":1,"title":"A"},"b":{"id":"b","parent":null,"position":2,"title":"B"}}',
    );
  });
});

/** A value like `v` but changed a little (a member changed, added or removed, keys reordered) or not at all. */
function variant(v: unknown): unknown {
  const r = random();
  if (Array.isArray(v)) return r < 0.3 && v.length ? v.slice(1) : v.map((x) => (random() < 0.3 ? variant(x) : x));
  if (v && typeof v === 'object') {
    const entries = Object.entries(v).reverse();
    if (r < 0.2) entries.push([KEYS[Math.floor(random() * KEYS.length)]!, random() < 0.5 ? undefined : value(2)]);
    else if (r < 0.35 && entries.length) entries.shift();
    return Object.fromEntries(entries.map(([k, x]) => [k, random() < 0.3 ? variant(x) : x]));
  }
  return r < 0.2 ? value(3) : v;
}

describe('sameJson', () => {
  it('says two values are the same exactly when their canonical JSON is, for 10,000 generated pairs', () => {
    let same = 0;
    for (let i = 0; i < 10_000; i++) {
      const a = value(0);
      const b = random() < 0.5 ? JSON.parse(JSON.stringify(a ?? null)) : variant(a);
      const expected = reference(a) === reference(b);
      same += expected ? 1 : 0;
      expect(sameJson(a, b), `${JSON.stringify(a)} / ${JSON.stringify(b)}`).toBe(expected);
    }
    // Both answers were exercised.
    expect(same).toBeGreaterThan(1000);
    expect(same).toBeLessThan(9000);
  });

  it('treats undefined members as absent and falls back to the text for what it does not compare itself', () => {
    expect(sameJson({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(sameJson(undefined, undefined)).toBe(true);
    expect(sameJson(NaN, null)).toBe(true);
    expect(sameJson([1, undefined], [1])).toBe(reference([1, undefined]) === reference([1]));
    expect(sameJson({ at: new Date(0) }, { at: new Date(1) })).toBe(reference({ at: new Date(0) }) === reference({ at: new Date(1) }));
  });
});
