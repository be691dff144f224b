import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { parse } from 'graphql';
import { DOCUMENT_LIMITS, repeatedNameProblem, textNesting } from '../../src/graphql/armor.js';
import { setupHarness, type Harness, type TestUser } from '../support/harness.js';
import { describeHealth, serveOnLoopback, whileProbing } from '../support/stall.js';

/**
 * Finding 5 of the audit: any token holder (even a user in no organization) could send a document
 * of any size; it was parsed and validated before any limit applied. Each test sends the audit's
 * size, over real HTTP, and asserts a quick 400 naming the limit while /healthz stays quick.
 */
let h: Harness;
let loner: TestUser;
let live: Awaited<ReturnType<typeof serveOnLoopback>>;
beforeAll(async () => {
  h = await setupHarness();
  loner = await h.user('No organization');
  live = await serveOnLoopback(h.app);
  // The process's first GraphQL answer builds what it keeps (schema checks, compiled plans): 86–93 ms
  // on a quiet machine. That is paid once per process, not per document, so it is paid here.
  expect((await post('{ viewer { id } }')).status).toBe(200);
});
afterAll(() => live.close());

async function post(query: string) {
  const t0 = performance.now();
  const response = await fetch(`${live.url}/graphql`, {
    method: 'POST',
    // The GraphQL-over-HTTP media type: request errors answer 400 (with plain JSON they answer 200, as the spec says).
    headers: { authorization: `Bearer ${loner.token}`, 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify({ query }),
  });
  return { status: response.status, body: (await response.json()) as any, ms: performance.now() - t0 };
}

const cases: Array<[string, () => string, RegExp]> = [
  [
    '8,000 aliased fields (1.38 MB)',
    () =>
      `{ ${Array.from({ length: 8000 }, (_, i) => `alias${i}: viewer { id displayName email photoURL }`).join(' ')} ${'#'.repeat(1_000_000)}\n }`,
    /larger than 100000 characters/,
  ],
  [
    '20,000 operations in one document',
    () =>
      Array.from({ length: 20_000 }, (_, i) => `query q${i}{viewer{id}}`)
        .join('')
        .slice(0, 99_000),
    /more than 10000 tokens/,
  ],
  [
    '60,000 fragment spreads and definitions',
    () => `{viewer{...f0}} ${Array.from({ length: 60_000 }, (_, i) => `fragment f${i} on User{id}`).join(' ')}`.slice(0, 99_000),
    /more than 10000 tokens/,
  ],
  [
    '1,000 aliases spread over small selections',
    () =>
      `{${Array.from({ length: 10 }, (_, j) => `v${j}:viewer{${Array.from({ length: 100 }, (_, i) => `a${i}:id`).join(' ')}}`).join(' ')}}`,
    /more than 400 aliases/,
  ],
  ['the same field 1,000 times in one selection', () => `{${'viewer{id} '.repeat(1000)}}`, /more than 400 fields in one selection set/],
  [
    'the same field with subfields 100 times in one selection',
    () => `{${'viewer{id displayName email} '.repeat(100)}}`,
    /more than 32 fields named "viewer" in one selection set/,
  ],
  [
    'the same field brought 100 times by fragments',
    () =>
      `{ ${Array.from({ length: 100 }, (_, i) => `...f${i}`).join(' ')} } ${Array.from({ length: 100 }, (_, i) => `fragment f${i} on Query { viewer { id displayName email } }`).join(' ')}`,
    /more than 32 fields named "viewer" in one selection set/,
  ],
  ['30 operations', () => Array.from({ length: 30 }, (_, i) => `query q${i}{viewer{id}}`).join(' '), /more than 20 operations/],
  ['nesting 20,000 levels deep', () => `${'{viewer'.repeat(20_000)}`.slice(0, 99_000), /nested more than 64 levels/],
];

describe('GraphQL documents are bounded before parsing and validation', () => {
  for (const [name, build, message] of cases) {
    it(`refuses ${name} with a 400, the event loop free`, async () => {
      const query = build();
      const { result, health } = await whileProbing(live.url, () => post(query));
      expect(result.status).toBe(400);
      expect(result.body.errors[0].message).toMatch(message);
      expect(health.free, describeHealth(health)).toBe(true);
    });
  }

  it('answers a document of 32 same-named fields, each with subfields, the event loop free', async () => {
    // Validation's overlapping-fields check compares same-named fields pairwise: the same-name cap keeps it small.
    const query = `{${'viewer{id displayName email} '.repeat(DOCUMENT_LIMITS.sameNamePerSelection)}}`;
    const { result, health } = await whileProbing(live.url, () => post(query));
    expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
    expect(result.status).toBe(200);
    expect(result.body.data.viewer.id).toBe(loner.id);
    expect(health.free, describeHealth(health)).toBe(true);
  });

  it('still serves ordinary documents: fragments, aliases, block strings and comments with braces', async () => {
    const res = await post(`# a comment with { braces (
      query Me { me: viewer { ...who } again: viewer { id } }
      fragment who on User { id displayName }`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ me: { id: loner.id, displayName: 'No organization' }, again: { id: loner.id } });
  });

  it('counts one response name across fragments without walking them once per spread, and ends on cycles', () => {
    const problem = (text: string) => repeatedNameProblem(parse(text));
    // Aliases are other names; inline fragments and spreads bring their fields into the selection.
    expect(problem(`{ ${Array.from({ length: 40 }, (_, i) => `a${i}: viewer { id }`).join(' ')} }`)).toBeNull();
    expect(problem(`{ ${'... on Query { viewer { id } } '.repeat(33)} }`)).toMatch(/more than 32 fields named "viewer"/);
    expect(problem(`{ viewer { ${'id '.repeat(33)} } }`)).toMatch(/more than 32 fields named "id"/);
    // Each fragment spreads the next twice: 2^30 spreads of `id` in all, counted in 30 steps.
    const doubling = Array.from({ length: 30 }, (_, i) => `fragment f${i} on User { ...f${i + 1} ...f${i + 1} }`).join(' ');
    expect(problem(`{ viewer { ...f0 } } ${doubling} fragment f30 on User { id }`)).toMatch(/fields named "id"/);
    // A cycle (validation refuses it) does not keep the count going.
    expect(problem('{ viewer { ...a } } fragment a on User { id ...b } fragment b on User { ...a }')).toBeNull();
    expect(problem(`{ viewer { ${'id '.repeat(DOCUMENT_LIMITS.sameNamePerSelection)} } }`)).toBeNull();
  });

  it('measures nesting on the text without counting strings or comments', () => {
    expect(textNesting('{ a(b: "{{{{") { c } }', 64)).toBe(2);
    expect(textNesting('{ a(b: """ {{{ \\""" {{ """) }', 64)).toBe(2);
    expect(textNesting('# {{{{\n{ a }', 64)).toBe(1);
    expect(textNesting('{'.repeat(100), 64)).toBe(65);
    expect(DOCUMENT_LIMITS.nesting).toBe(64);
  });
});
