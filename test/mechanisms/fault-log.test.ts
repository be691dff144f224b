import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer, type RunningServer } from '../../src/server.js';
import { setupHarness, type Harness } from '../support/harness.js';
import { subscribe } from '../support/sse.js';

/**
 * A fault met while a request is answered is logged with that request's id (its X-Request-Id), so a
 * 500 can be matched to its stack: over REST and GraphQL, through the real HTTP server, with a real
 * failure (a trigger that raises in PostgreSQL).
 */
let h: Harness;
let server: RunningServer;
let owner: Awaited<ReturnType<Harness['owner']>>;
const logged: string[] = [];

beforeAll(async () => {
  h = await setupHarness();
  server = await startServer({ ...h.config, port: 0, host: '127.0.0.1' }, { db: h.db, worker: false });
  owner = await h.owner('Faulty');
  await h.db.pool.query(
    `CREATE FUNCTION lectern_log_fault() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'injected fault'; END $$ LANGUAGE plpgsql`,
  );
  await h.db.pool.query(`CREATE TRIGGER lectern_log_fault BEFORE INSERT ON "Collection" FOR EACH ROW EXECUTE FUNCTION lectern_log_fault()`);
  // Captured, not printed: the expected faults would read as failures in the test output.
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    logged.push(String(chunk));
    return true;
  });
});

afterAll(async () => {
  vi.restoreAllMocks();
  await server?.close();
  // harness closes itself
});

const send = (path: string, requestId: string, body: unknown) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json', 'x-request-id': requestId },
    body: JSON.stringify(body),
  });

/** The fault lines logged with `requestId`, whatever the log format (JSON lines, or `[id] message`). */
const faultsOf = (requestId: string, fault = 'injected fault') =>
  logged.filter((line) => line.includes(requestId) && line.includes(fault) && /unexpected error in a resolver/.test(line));

describe('the log of a fault', () => {
  it('carries the id of the REST request it was met in, and the answer is a bare 500', async () => {
    const res = await send(`/v1/orgs/${owner.orgId}/collections`, 'fault-rest-1', { title: 'Boom' });
    expect(res.status).toBe(500);
    expect(res.headers.get('x-request-id')).toBe('fault-rest-1');
    expect(JSON.stringify(await res.json())).not.toContain('injected');
    expect(faultsOf('fault-rest-1')).toHaveLength(1);
  });

  it('carries the id of the GraphQL request it was met in, once', async () => {
    const res = await send('/graphql', 'fault-gql-1', {
      query: 'mutation($org: ID!) { createCollection(organizationId: $org, input: { title: "Boom" }) { id } }',
      variables: { org: owner.orgId },
    });
    const body = (await res.json()) as { errors?: { message: string; extensions?: { code?: string } }[] };
    expect(body.errors?.[0]?.extensions?.code).toBe('INTERNAL');
    expect(JSON.stringify(body)).not.toContain('injected');
    expect(faultsOf('fault-gql-1')).toHaveLength(1);
    expect(logged.filter((line) => line.includes('injected fault') && !line.includes('fault-'))).toEqual([]);
  });
});

/** How Prisma words the failure below. */
const MISSING_COLUMN = 'does not exist in the current database';

describe('the log of a fault in a query the direct lane runs (src/graphql/direct-query.ts)', () => {
  it('carries the id of its request, once, and the answer is masked', async () => {
    // A column gone (as after a botched migration): every read of collections fails in PostgreSQL.
    await h.db.pool.query('ALTER TABLE "Collection" RENAME COLUMN "title" TO "title_gone"');
    try {
      const query = 'query($org: ID!) { organization(id: $org) { collections { items { id title } } } }';
      // The second request at the latest takes the direct lane: its token is known by then.
      for (const id of ['fault-direct-1', 'fault-direct-2']) {
        const res = await send('/graphql', id, { query, variables: { org: owner.orgId } });
        const body = (await res.json()) as { errors?: { message: string; extensions?: { code?: string } }[] };
        expect(body.errors?.[0]).toMatchObject({ message: 'Unexpected error.', extensions: { code: 'INTERNAL' } });
        expect(faultsOf(id, MISSING_COLUMN)).toHaveLength(1);
      }
      expect(logged.filter((line) => line.includes(MISSING_COLUMN) && !line.includes('fault-direct-'))).toEqual([]);
    } finally {
      await h.db.pool.query('ALTER TABLE "Collection" RENAME COLUMN "title_gone" TO "title"');
    }
  });
});

describe('the log of a fault in a subscription', () => {
  it("carries the id of the request that subscribed, once per event, and the event's answer is masked", async () => {
    const space = await fetch(`${server.url}/v1/orgs/${owner.orgId}/spaces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Subscribed' }),
    }).then((res) => res.json() as Promise<{ id: string }>);
    const events = await subscribe(
      { url: server.url },
      owner.token,
      'subscription ($id: ID!) { changeRequestEvents(spaceId: $id) { action changeRequest { id reviewList { count } } } }',
      { id: space.id },
      { 'x-request-id': 'fault-sub-1' },
    );
    // Reviews cannot be read any more; creating a change request does not touch them, reading its reviews fails.
    await h.db.pool.query('ALTER TABLE "ChangeRequestReview" RENAME COLUMN "status" TO "status_gone"');
    try {
      const created = await fetch(`${server.url}/v1/spaces/${space.id}/change-requests`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ subject: 'Watched' }),
      });
      expect(created.status).toBe(201);
      const event = await events.next();
      expect(event.data.errors?.[0]).toMatchObject({ message: 'Unexpected error.', extensions: { code: 'INTERNAL' } });
      expect(faultsOf('fault-sub-1', MISSING_COLUMN)).toHaveLength(1);
    } finally {
      events.close();
      await h.db.pool.query('ALTER TABLE "ChangeRequestReview" RENAME COLUMN "status_gone" TO "status"');
    }
  });
});
