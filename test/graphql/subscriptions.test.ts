/**
 * Live updates across processes: two Lectern servers (real child processes, `lectern serve`) on one
 * database. A subscriber over SSE (plain fetch, Accept: text/event-stream) on process B receives
 * what is written through process A's REST API, delivered by PostgreSQL LISTEN/NOTIFY.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupHarness, type Harness, type World } from '../support/harness.js';
import { databaseUrl, startChildServer, stopChildServer, type ChildServer } from '../support/child-server.js';
import { subscribe } from '../support/sse.js';

type Server = ChildServer;

/** A `lectern serve` child on `url`'s database, ready once it logs that it listens (no start-up deadline of its own). */
const startLectern = (url: string) =>
  startChildServer({ ...process.env, DATABASE_URL: url, LECTERN_RATE_LIMIT: '0', LECTERN_DB_POOL: '4' });
const stopLectern = (server: Server) => stopChildServer(server);

let h: Harness;
let w: World;
let a: Server;
let b: Server;
let database: string;
let spaceId: string;

async function rest(server: Server, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.url}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const listeners = async () =>
  Number(
    (
      await h.db.pool.query<{ n: string }>(
        `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND query = 'LISTEN lectern_live'`,
        [database],
      )
    ).rows[0]!.n,
  );

beforeAll(async () => {
  h = await setupHarness();
  database = (await h.db.pool.query<{ db: string }>('SELECT current_database() AS db')).rows[0]!.db;
  // One database URL for both processes.
  const url = await databaseUrl(h);
  [a, b, w] = await Promise.all([startLectern(url), startLectern(url), h.world('Live')]);
  spaceId = (await rest(a, w.owner.token, 'POST', `/orgs/${w.orgId}/spaces`, { title: 'Live docs' })).body.id;
  // Two servers starting on a busy machine take what they take: generous, so a slow start is not a skip.
}, 300_000);

afterAll(async () => {
  await Promise.all([a, b].filter(Boolean).map(stopLectern));
  // The LISTEN connections closed with their servers: nothing left on the database.
  if (h) expect(await listeners()).toBe(0);
});

describe('GraphQL subscriptions over SSE, across two processes on one database', () => {
  it("delivers a change request merged through process A, and a live edit, to a subscriber of process B's", async () => {
    const sub = await subscribe(
      b,
      w.reader.token,
      `subscription ($id: ID!) { spaceContentEvents(spaceId: $id) { action space { id } revision { id } changeRequest { id status } } }`,
      { id: spaceId },
    );
    expect(sub.status).toBe(200);
    // The response started only once process B LISTENs: what commits from now on reaches it.
    expect(await listeners()).toBeGreaterThanOrEqual(1);

    const cr = (await rest(a, w.owner.token, 'POST', `/spaces/${spaceId}/change-requests`, { subject: 'Intro' })).body;
    const write = await rest(a, w.owner.token, 'POST', `/spaces/${spaceId}/change-requests/${cr.id}/content`, {
      changes: [{ operation: 'insert_page', title: 'Intro', document: { markdown: 'Hello' } }],
    });
    expect(write.status).toBe(200);
    const merged = await rest(a, w.owner.token, 'POST', `/spaces/${spaceId}/change-requests/${cr.id}/merge`);
    expect(merged.status).toBe(200);

    const first = await sub.next();
    expect(first).toEqual({
      event: 'next',
      data: {
        data: {
          spaceContentEvents: {
            action: 'merged',
            space: { id: spaceId },
            revision: { id: merged.body.revision },
            changeRequest: { id: cr.id, status: 'merged' },
          },
        },
      },
    });

    const live = await rest(a, w.owner.token, 'POST', `/spaces/${spaceId}/content`, {
      changes: [{ operation: 'insert_page', title: 'Live', document: { markdown: 'Now' } }],
    });
    expect(live.status).toBe(200);
    expect((await sub.next()).data.data.spaceContentEvents).toEqual({
      action: 'edited',
      space: { id: spaceId },
      revision: { id: live.body.revision },
      changeRequest: null,
    });
    sub.close();
  });

  it('delivers change-request and comment events; a member removed meanwhile is refused at the next event', async () => {
    const crs = await subscribe(
      b,
      w.owner.token,
      `subscription ($id: ID!) { changeRequestEvents(spaceId: $id) { action changeRequest { id number status subject } } }`,
      { id: spaceId },
    );
    const comments = await subscribe(
      b,
      w.reader.token,
      `subscription ($id: ID!) { commentEvents(spaceId: $id) { action commentId comment { id body { markdown } } } }`,
      { id: spaceId },
    );

    const cr = (await rest(a, w.owner.token, 'POST', `/spaces/${spaceId}/change-requests`, { subject: 'Draft' })).body;
    expect((await crs.next()).data.data.changeRequestEvents).toEqual({
      action: 'created',
      changeRequest: { id: cr.id, number: cr.number, status: 'open', subject: 'Draft' },
    });
    // A review submitted: the author's review panel learns it without a reload.
    expect(
      (await rest(a, w.owner.token, 'POST', `/spaces/${spaceId}/change-requests/${cr.id}/reviews`, { status: 'approved' })).status,
    ).toBe(201);
    expect((await crs.next()).data.data.changeRequestEvents).toEqual({
      action: 'reviewed',
      changeRequest: { id: cr.id, number: cr.number, status: 'open', subject: 'Draft' },
    });
    await rest(a, w.owner.token, 'PATCH', `/spaces/${spaceId}/change-requests/${cr.id}`, { status: 'archived' });
    expect((await crs.next()).data.data.changeRequestEvents).toMatchObject({
      action: 'status_changed',
      changeRequest: { id: cr.id, status: 'archived' },
    });
    crs.close();

    const posted = await rest(a, w.owner.token, 'POST', `/spaces/${spaceId}/comments`, { body: { markdown: 'Looks good' } });
    expect(posted.status).toBe(200);
    expect((await comments.next()).data.data.commentEvents).toEqual({
      action: 'created',
      commentId: posted.body.id,
      comment: { id: posted.body.id, body: { markdown: 'Looks good' } },
    });

    // Rights are checked again before each delivery: the reader leaves the organization, and the
    // next event ends their stream with the refusal the query would give them now.
    const expected = (await h.graphql(w.reader.token, `query ($id: ID!) { space(id: $id) { id } }`, { id: spaceId })).body.errors;
    expect((await rest(a, w.owner.token, 'DELETE', `/orgs/${w.orgId}/members/${w.reader.id}`)).status).toBeLessThan(300);
    const refusedNow = (await h.graphql(w.reader.token, `query ($id: ID!) { space(id: $id) { id } }`, { id: spaceId })).body.errors;
    expect(refusedNow?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect(expected).toBeUndefined();
    await rest(a, w.owner.token, 'DELETE', `/spaces/${spaceId}/comments/${posted.body.id}`);
    const refused = await comments.next();
    expect(refused.data.data).toBeNull();
    expect(refused.data.errors[0]).toMatchObject({ message: refusedNow[0].message, extensions: { code: 'NOT_FOUND' } });
    expect((await comments.next()).event).toBe('complete');
    comments.close();
  });

  it('delivers site publication events of the organization', async () => {
    const sub = await subscribe(
      b,
      w.guest.token,
      `subscription ($org: ID!) { sitePublicationEvents(organizationId: $org) { action site { id published } } }`,
      { org: w.orgId },
    );
    const site = (await rest(a, w.owner.token, 'POST', `/orgs/${w.orgId}/sites`, {})).body;
    expect((await rest(a, w.owner.token, 'POST', `/orgs/${w.orgId}/sites/${site.id}/publish`)).status).toBe(200);
    expect((await sub.next()).data.data.sitePublicationEvents).toEqual({ action: 'published', site: { id: site.id, published: true } });
    // Publishing again changes nothing: no event; unpublishing is the next one.
    await rest(a, w.owner.token, 'POST', `/orgs/${w.orgId}/sites/${site.id}/publish`);
    await rest(a, w.owner.token, 'POST', `/orgs/${w.orgId}/sites/${site.id}/unpublish`);
    expect((await sub.next()).data.data.sitePublicationEvents).toEqual({ action: 'unpublished', site: { id: site.id, published: false } });
    sub.close();
  });

  it('ends subscriptions with UNAVAILABLE when the LISTEN connection drops, and reconnects for the next subscriber', async () => {
    const sub = await subscribe(b, w.owner.token, `subscription ($id: ID!) { commentEvents(spaceId: $id) { action } }`, { id: spaceId });
    // A failover or restart, as PostgreSQL shows it: the LISTEN connections end.
    await h.db.pool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND query = 'LISTEN lectern_live'`, [
      database,
    ]);
    const ended = await sub.next();
    expect(ended.data.errors[0].extensions.code).toBe('UNAVAILABLE');
    expect((await sub.next()).event).toBe('complete');

    const again = await subscribe(b, w.owner.token, `subscription ($id: ID!) { commentEvents(spaceId: $id) { action commentId } }`, {
      id: spaceId,
    });
    const posted = await rest(a, w.owner.token, 'POST', `/spaces/${spaceId}/comments`, { body: { markdown: 'Back' } });
    expect((await again.next()).data.data.commentEvents).toEqual({ action: 'created', commentId: posted.body.id });
    again.close();
  });

  it('refuses a caller without rights when subscribing, exactly as the query field refuses them', async () => {
    const query = (await h.graphql(w.outsider.token, `query ($id: ID!) { space(id: $id) { id } }`, { id: spaceId })).body;
    const sub = await subscribe(b, w.outsider.token, `subscription ($id: ID!) { spaceContentEvents(spaceId: $id) { action } }`, {
      id: spaceId,
    });
    const refused = await sub.next();
    // A subscription refused at subscribe time answers its errors only (no data), then completes.
    expect(refused.data.data).toBeUndefined();
    expect(refused.data.errors.map((e: any) => ({ message: e.message, code: e.extensions.code }))).toEqual(
      query.errors.map((e: any) => ({ message: e.message, code: e.extensions.code })),
    );
    expect((await sub.next()).event).toBe('complete');

    const sites = await subscribe(
      b,
      w.outsider.token,
      `subscription ($org: ID!) { sitePublicationEvents(organizationId: $org) { action } }`,
      { org: w.orgId },
    );
    expect((await sites.next()).data.errors[0].extensions.code).toBe('NOT_FOUND');
    const anonymous = await fetch(`${b.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { commentEvents(spaceId: "x") { action } }' }),
    });
    expect(anonymous.status).toBe(401);
  });
});
