import { describe, expect, it } from 'vitest';
import { schemaFileJsonPositions } from '../../scripts/json-positions.js';

/**
 * `JSON` in the schema is for content that is free-form by nature (documents, variables, locale
 * maps, JSON schemas, audit payloads), each saying so in its description. STRUCTURED lists the
 * positions that still carry a structured shape as JSON: each is to become typed, and then leaves
 * this list (the test fails while a listed position is no longer JSON, so the list only shrinks).
 */
const MAX_FREE_FORM = 40;

const STRUCTURED: string[] = [];

describe('JSON positions of schema.graphql', () => {
  const positions = schemaFileJsonPositions();
  const freeForm = positions.filter((p) => !STRUCTURED.includes(p.position));

  it(`at most ${MAX_FREE_FORM} free-form positions, each description saying why it is free-form`, () => {
    expect(freeForm.length, freeForm.map((p) => p.position).join('\n')).toBeLessThanOrEqual(MAX_FREE_FORM);
    const unexplained = freeForm.filter((p) => !/^Free-form: \S/.test(p.description)).map((p) => p.position);
    expect(unexplained).toEqual([]);
  });

  it('every structured position still listed is JSON (a typed one leaves the list)', () => {
    const names = new Set(positions.map((p) => p.position));
    expect(STRUCTURED.filter((p) => !names.has(p))).toEqual([]);
  });
});
