import { complexityFromQuery } from '@pothos/plugin-complexity';
import fc from 'fast-check';
import { Kind, parse, type DocumentNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { operationCost } from '../../src/graphql/complexity.js';
import { buildSchema } from '../../src/graphql/schema.js';
import { installModules } from '../../src/modules/index.js';

/**
 * An operation's cost is remembered per document and the values of its Int and list variables
 * (src/graphql/complexity.ts): whatever the variables, the remembered cost is the one computed
 * afresh for them.
 */
installModules();
const schema = buildSchema();

const DOCUMENTS = [
  'query One($id: ID!) { space(id: $id) { id title permissions { view } } }',
  'query Page($org: ID!, $limit: Int, $page: String) { organization(id: $org) { spaces(limit: $limit, page: $page) { items { id title } } } }',
  'query Nested($org: ID!, $a: Int, $b: Int) { organization(id: $org) { collections(limit: $a) { items { id spaces(limit: $b) { items { id } } } } } }',
  'query Nodes($ids: [ID!]!) { nodes(ids: $ids) { __typename } }',
  'query A($org: ID!, $limit: Int) { organization(id: $org) { spaces(limit: $limit) { items { id } } } } query B($id: ID!) { space(id: $id) { id } }',
].map((text) => parse(text));

const named = (document: DocumentNode) =>
  document.definitions.flatMap((d) => (d.kind === Kind.OPERATION_DEFINITION && d.name ? [d.name.value] : []));

const fresh = (document: DocumentNode, operationName: string, variables: Record<string, unknown>) => {
  const alone = {
    ...document,
    definitions: document.definitions.filter((d) => d.kind !== Kind.OPERATION_DEFINITION || d.name?.value === operationName),
  };
  try {
    return complexityFromQuery(alone, { schema, variables });
  } catch {
    return null;
  }
};

const limit = fc.oneof(fc.constant(undefined), fc.integer({ min: -5, max: 1200 }));
const variables = fc.record({
  id: fc.string({ maxLength: 8 }),
  org: fc.string({ maxLength: 8 }),
  limit,
  a: limit,
  b: limit,
  page: fc.oneof(fc.constant(undefined), fc.string({ maxLength: 4 })),
  ids: fc.array(fc.string({ maxLength: 4 }), { maxLength: 120 }),
});

describe('remembered operation costs', () => {
  it('equal the costs computed afresh, for any variables', () => {
    fc.assert(
      fc.property(fc.constantFrom(...DOCUMENTS), variables, fc.nat(), (document, values, pick) => {
        const names = named(document);
        const operationName = names[pick % names.length]!;
        const asked = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
        const expected = fresh(document, operationName, asked);
        expect(expected).not.toBeNull();
        expect(operationCost(schema, document, names.length > 1 ? operationName : null, asked)).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('tell a page of 1000 from a page of 10 of the same document', () => {
    const [, page] = DOCUMENTS;
    const small = operationCost(schema, page!, null, { org: 'o', limit: 10 })!;
    const large = operationCost(schema, page!, null, { org: 'o', limit: 1000 })!;
    expect(large.complexity).toBeGreaterThan(small.complexity * 50);
  });
});
