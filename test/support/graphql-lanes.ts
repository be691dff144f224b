import { expect } from 'vitest';
import type { Harness } from './harness.js';

/**
 * The SQL statements one /graphql query sends on each of its lanes: yoga's (a body without
 * Content-Length, as a streamed upload sends it) and the direct one (a small body of a token the
 * process knows: src/graphql/direct-query.ts, where a `space(id:)` or `organization(id:)` query's
 * object is read by the authentication statement). Yoga's goes first, so the token is known for
 * the direct one. The answers must be the same.
 */
export async function statementsOnBothLanes(h: Harness, token: string, query: string, variables: Record<string, unknown>) {
  const run = async (unsized: boolean) => {
    const before = h.db.statements.count;
    const res = await h.call('POST', '/graphql', { token, body: { query, variables }, unsized });
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    return { statements: h.db.statements.count - before, body: res.body };
  };
  const yoga = await run(true);
  const direct = await run(false);
  expect(direct.body).toEqual(yoga.body);
  return { statements: { yoga: yoga.statements, direct: direct.statements }, body: direct.body };
}
