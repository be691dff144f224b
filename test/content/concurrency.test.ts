import { beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server.js';
import { setupHarness, type Harness } from '../support/harness.js';

/** Concurrent writers on one space and one change request; draining on shutdown. Bounded, loopback only. */
let h: Harness;
let owner: Awaited<ReturnType<Harness['owner']>>;
beforeAll(async () => {
  h = await setupHarness();
  owner = await h.owner();
});

const space = async () =>
  (await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { title: 'Busy' } })).body as { id: string };

describe('concurrent writers', () => {
  it('gives 30 concurrently created change requests 30 distinct numbers', async () => {
    const { id } = await space();
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        h.call('POST', `/v1/spaces/${id}/change-requests`, { token: owner.token, body: { subject: `CR ${i}` } }),
      ),
    );
    expect(results.every((r) => r.status === 201)).toBe(true);
    const numbers = results.map((r) => r.body.number as number).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });

  it('loses no update when 20 writers add pages to one change request at once', async () => {
    const { id } = await space();
    const cr = (await h.call('POST', `/v1/spaces/${id}/change-requests`, { token: owner.token, body: {} })).body;
    const writes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        h.call('POST', `/v1/spaces/${id}/change-requests/${cr.id}/content`, {
          token: owner.token,
          body: { changes: [{ operation: 'insert_page', title: `Page ${i}`, document: { markdown: `body ${i}` } }] },
        }),
      ),
    );
    expect(writes.map((w) => w.status)).toEqual(Array(20).fill(200));
    const pages = (await h.call('GET', `/v1/spaces/${id}/change-requests/${cr.id}/content/pages`, { token: owner.token })).body.pages;
    expect(pages.map((p: { title: string }) => p.title).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `Page ${i}`).sort());
    // Each write made exactly one revision on the change request's chain, each the parent of the next.
    const chain = await h.db.prisma.revision.findMany({ where: { changeRequestId: cr.id } });
    expect(chain).toHaveLength(20);
    expect(new Set(chain.flatMap((r) => r.parents)).size).toBe(20);
  });

  it('never applies half a batch: an invalid change anywhere leaves the content as it was', async () => {
    const { id } = await space();
    const before = (await h.call('GET', `/v1/spaces/${id}`, { token: owner.token })).body.revision;
    const res = await h.call('POST', `/v1/spaces/${id}/content`, {
      token: owner.token,
      body: {
        changes: [
          { operation: 'insert_page', title: 'Good' },
          { operation: 'insert_page', title: 'Also good' },
          { operation: 'update_page', page: 'missing' },
        ],
      },
    });
    expect(res.status).toBe(404);
    expect((await h.call('GET', `/v1/spaces/${id}`, { token: owner.token })).body.revision).toBe(before);
    expect((await h.call('GET', `/v1/spaces/${id}/content/pages`, { token: owner.token })).body.pages).toEqual([]);
  });

  it('merges concurrently submitted change requests one after another without losing any', async () => {
    const { id } = await space();
    const crs = await Promise.all(
      Array.from({ length: 8 }, () =>
        h.call('POST', `/v1/spaces/${id}/change-requests`, { token: owner.token, body: {} }).then((r) => r.body),
      ),
    );
    for (const [i, cr] of crs.entries()) {
      await h.call('POST', `/v1/spaces/${id}/change-requests/${cr.id}/content`, {
        token: owner.token,
        body: { changes: [{ operation: 'insert_page', title: `From ${i}` }] },
      });
    }
    const merges = await Promise.all(
      crs.map((cr) => h.call('POST', `/v1/spaces/${id}/change-requests/${cr.id}/merge`, { token: owner.token })),
    );
    expect(merges.map((m) => m.status)).toEqual(Array(8).fill(200));
    const pages = (await h.call('GET', `/v1/spaces/${id}/content/pages`, { token: owner.token })).body.pages;
    expect(pages).toHaveLength(8);
  });
});

describe('a failure between two steps of a merge', () => {
  it('leaves main at the old revision, then merges once the fault is gone', async () => {
    const { id } = await space();
    const cr = (await h.call('POST', `/v1/spaces/${id}/change-requests`, { token: owner.token, body: {} })).body;
    await h.call('POST', `/v1/spaces/${id}/change-requests/${cr.id}/content`, {
      token: owner.token,
      body: { changes: [{ operation: 'insert_page', title: 'Fault', document: { markdown: 'text' } }] },
    });
    const before = {
      space: await h.db.prisma.space.findUnique({ where: { id } }),
      revisions: await h.db.prisma.revision.count({ where: { spaceId: id } }),
    };
    // The search index is written after main moved, in the same transaction: fail there.
    await h.db.pool.query(
      `CREATE FUNCTION lectern_fault() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'injected fault'; END $$ LANGUAGE plpgsql`,
    );
    await h.db.pool.query(`CREATE TRIGGER lectern_fault BEFORE INSERT ON "SearchSection" FOR EACH ROW EXECUTE FUNCTION lectern_fault()`);
    try {
      const failed = await h.call('POST', `/v1/spaces/${id}/change-requests/${cr.id}/merge`, { token: owner.token });
      expect(failed.status).toBe(500);
      expect(failed.body).toEqual({ error: { code: 500, message: expect.not.stringContaining('injected') } });
      expect(await h.db.prisma.space.findUnique({ where: { id } })).toEqual(before.space);
      expect((await h.db.prisma.changeRequest.findUnique({ where: { id: cr.id } }))!.status).toBe('open');
    } finally {
      await h.db.pool.query('DROP TRIGGER lectern_fault ON "SearchSection"; DROP FUNCTION lectern_fault()');
    }
    const merged = await h.call('POST', `/v1/spaces/${id}/change-requests/${cr.id}/merge`, { token: owner.token });
    expect(merged.status).toBe(200);
    expect((await h.db.prisma.space.findUnique({ where: { id } }))!.revisionId).toBe(merged.body.revision);
    expect(await h.db.prisma.revision.count({ where: { spaceId: id } })).toBeGreaterThanOrEqual(before.revisions);
  });
});

describe('shutdown under load', () => {
  it('finishes every in-flight request, then stops', async () => {
    const server = await startServer({ ...h.config, host: '127.0.0.1', port: 0 }, { db: h.db, worker: false });
    const { id } = await space();
    const inflight = Array.from({ length: 40 }, (_, i) =>
      fetch(`${server.url}/v1/spaces/${id}/change-requests`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ subject: `S${i}` }),
      }).then((r) => r.status),
    );
    // Settle handlers go on at once: a request refused while closing rejects during `close()`.
    const settled = Promise.allSettled(inflight);
    await new Promise((r) => setTimeout(r, 5));
    await server.close();
    const statuses = await settled;
    const answered = statuses.filter((s) => s.status === 'fulfilled').map((s) => (s as PromiseFulfilledResult<number>).value);
    // Requests accepted before close complete normally; none is cut off with a 5xx.
    expect(answered.every((s) => s === 201)).toBe(true);
    const created = await h.db.prisma.changeRequest.count({ where: { spaceId: id } });
    expect(created).toBe(answered.length);
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });
});
