import { beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/auth/authenticate.js';
import { spaceCountsStatement } from '../../src/modules/spaces/loaders.js';
import { BASE, setupHarness, type Harness, type World } from '../support/harness.js';

/**
 * The statements every request sends are prepared, and PostgreSQL keeps one plan for each: it
 * plans a prepared statement with its values for the first five executions, then keeps the plan
 * made without values only when that one is costed no higher. The authentication statement was
 * costed higher (two possible callers, an array of unknown length), so it was planned anew on
 * every request: 0.6 ms of planning for 0.2 ms of execution, 2.4 ms for 0.6 ms with a space.
 * Read from pg_prepared_statements on every pooled connection after a dozen requests of each kind.
 */
let h: Harness;
let world: World;
let spaceId: string;

const RUNS = 12;
/** PostgreSQL's own rule: the first five executions of a prepared statement are planned with their values. */
const PLANNED_WITH_VALUES_FIRST = 5;

beforeAll(async () => {
  h = await setupHarness();
  world = await h.world('Generic plans');
  spaceId = (await h.call('POST', `/v1/orgs/${world.orgId}/spaces`, { token: world.owner.token, body: { title: 'Planned' } })).body.id;
});

interface PlanCounts {
  statement: string;
  generic: number;
  custom: number;
}

/** The plan counts of Lectern's prepared statements whose text starts with `prefix`, one row per pooled connection. */
async function plansOf(prefix: string): Promise<PlanCounts[]> {
  const clients = await Promise.all(Array.from({ length: h.db.pool.totalCount }, () => h.db.pool.connect()));
  try {
    const rows = await Promise.all(
      clients.map((client) =>
        client.query<{ statement: string; generic: number; custom: number }>(
          `SELECT statement, generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements
           WHERE name LIKE 'lectern\\_%' AND ltrim(statement) LIKE $1 || '%'`,
          [prefix],
        ),
      ),
    );
    return rows.flatMap((result) => result.rows);
  } finally {
    for (const client of clients) client.release();
  }
}

const expectOnePlanKept = (plans: PlanCounts[]) => {
  expect(plans.length).toBeGreaterThan(0);
  expect(plans.reduce((sum, p) => sum + p.generic, 0)).toBeGreaterThan(0);
  for (const p of plans) expect(p.custom, p.statement.slice(0, 200)).toBeLessThanOrEqual(PLANNED_WITH_VALUES_FIRST);
};

describe('prepared statements keep one plan', () => {
  it('the authentication statement, with and without the rate-limit counter', async () => {
    for (const limit of [0, 1000])
      for (let i = 0; i < RUNS; i++) await authenticate(h.db, world.reader.token, { limit, windowSeconds: 60 });
    expectOnePlanKept(await plansOf('WITH RECURSIVE caller AS ('));
  });

  it('the authentication of a space request, with the space counts riding on it', async () => {
    for (const rider of [null, spaceCountsStatement([spaceId])])
      for (let i = 0; i < RUNS; i++)
        await authenticate(h.db, world.reader.token, { limit: 1000, windowSeconds: 60 }, Date.now(), undefined, { spaceId, rider });
    const plans = await plansOf('WITH RECURSIVE caller AS (');
    expectOnePlanKept(plans.filter((p) => p.statement.includes('"__rows"')));
    expectOnePlanKept(plans.filter((p) => p.statement.includes('LEFT JOIN "Space" s') && !p.statement.includes('"__rows"')));
  });

  it('the authentication of an organization request', async () => {
    for (let i = 0; i < RUNS; i++)
      await authenticate(h.db, world.reader.token, { limit: 1000, windowSeconds: 60 }, Date.now(), undefined, {
        organizationId: world.orgId,
      });
    const plans = await plansOf('WITH RECURSIVE caller AS (');
    expectOnePlanKept(plans.filter((p) => p.statement.includes('LEFT JOIN "Organization" o ON o.id = $6')));
  });

  it('a space and a collection read with their rights, one at a time', async () => {
    const collectionId = (
      await h.call('POST', `/v1/orgs/${world.orgId}/collections`, { token: world.owner.token, body: { title: 'Planned shelf' } })
    ).body.id;
    for (let i = 0; i < RUNS; i++) {
      // Without a declared length the query takes the ordinary path: the space loader reads the space and its rights.
      const read = await h.call('POST', '/graphql', {
        token: world.reader.token,
        body: { query: 'query($id: ID!) { space(id: $id) { id title } }', variables: { id: spaceId } },
        unsized: true,
      });
      expect(read.body.data.space.id).toBe(spaceId);
      expect((await h.call('GET', `/v1/collections/${collectionId}`, { token: world.reader.token })).status).toBe(200);
    }
    expectOnePlanKept(await plansOf(`WITH RECURSIVE req(u, k, id) AS (SELECT $2::text, 's', $1::text)`));
    expectOnePlanKept(await plansOf('WITH RECURSIVE\n        req(u, k, id) AS (SELECT $1::text, $2::text, $3::text)'));
  });

  it('GET /v1/spaces/{id} and a GraphQL space(id) query, through the app', async () => {
    const query = JSON.stringify({
      query: `query($id: ID!) { space(id: $id) { id comments changeRequests } }`,
      variables: { id: spaceId },
    });
    for (let i = 0; i < RUNS; i++) {
      expect((await h.call('GET', `/v1/spaces/${spaceId}`, { token: world.reader.token })).status).toBe(200);
      const graphql = await h.app.fetch(
        new Request(`${BASE}/graphql`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${world.reader.token}`,
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(query)),
          },
          body: query,
        }),
      );
      expect(((await graphql.json()) as { data: { space: { id: string } } }).data.space.id).toBe(spaceId);
    }
    expectOnePlanKept((await plansOf('WITH RECURSIVE caller AS (')).filter((p) => p.statement.includes('"__rows"')));
  });

  it('every statement these requests sent (any that ran past its first five executions kept its plan)', async () => {
    const replanned = (await plansOf('')).filter((p) => p.custom > PLANNED_WITH_VALUES_FIRST);
    expect(replanned.map((p) => `${p.custom} plans: ${p.statement.replace(/\s+/g, ' ').slice(0, 160)}`)).toEqual([]);
  });
});
