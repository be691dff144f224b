import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashToken, issueToken } from '../../src/auth/tokens.js';
import { pruneAuditEvents } from '../../src/modules/audit/index.js';
import { BASE, setupHarness, type Harness, type World } from '../support/harness.js';

/**
 * The audit log: every successful write appends one event (REST and GraphQL through the
 * same mutation wrapper), the table is append-only (its trigger), admins read it by the official
 * 0.202.0 operations, tokens never appear, and the retention job prunes only old events.
 */
let h: Harness;
let w: World;
let spaceId: string;
let collectionId: string;
const tokenIdOf = async (token: string) => (await h.db.prisma.apiToken.findFirstOrThrow({ where: { hash: hashToken(token) } })).id;
const eventsOf = (organizationId: string) =>
  h.db.prisma.auditEvent.findMany({ where: { organizationId }, orderBy: [{ occurredAt: 'asc' }, { id: 'asc' }] });

beforeAll(async () => {
  h = await setupHarness();
  w = await h.world('Audited');
  spaceId = (await h.call('POST', `/v1/orgs/${w.orgId}/spaces`, { token: w.owner.token, body: { title: 'Handbook' } })).body.id;
  collectionId = (await h.call('POST', `/v1/orgs/${w.orgId}/collections`, { token: w.owner.token, body: { title: 'Guides' } })).body.id;
});

describe('recording', () => {
  it('a REST write appends one event with the actor, token id, target, organization, client address and before/after', async () => {
    const before = (await eventsOf(w.orgId)).length;
    const res = await h.app.fetch(
      new Request(`${BASE}/v1/spaces/${spaceId}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${w.owner.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Staff handbook' }),
      }),
      { address: '203.0.113.7' },
    );
    expect(res.status).toBe(200);
    const events = await eventsOf(w.orgId);
    expect(events.length).toBe(before + 1);
    const e = events.at(-1)!;
    expect(e).toMatchObject({
      organizationId: w.orgId,
      action: 'updateSpace',
      actorType: 'user',
      actorId: w.owner.id,
      tokenId: await tokenIdOf(w.owner.token),
      source: 'rest',
      targetType: 'space',
      targetId: spaceId,
      targetLabel: 'Staff handbook',
      clientAddress: '203.0.113.7',
      payload: { before: { title: 'Handbook' }, after: { title: 'Staff handbook' } },
    });
  });

  it('a GraphQL mutation appends one event; a refused write and a delete of nothing append none', async () => {
    const before = (await eventsOf(w.orgId)).length;
    const res = await h.graphql(
      w.owner.token,
      `mutation($id: ID!) { updateCollection(id: $id, input: { description: "How we work" }) { id } }`,
      { id: collectionId },
    );
    expect(res.body.errors).toBeUndefined();
    let events = await eventsOf(w.orgId);
    expect(events.length).toBe(before + 1);
    expect(events.at(-1)).toMatchObject({
      action: 'updateCollection',
      source: 'graphql',
      targetType: 'collection',
      targetId: collectionId,
      organizationId: w.orgId,
      payload: { after: { description: 'How we work' } },
    });

    expect((await h.call('PATCH', `/v1/spaces/${spaceId}`, { token: w.reader.token, body: { title: 'Nope' } })).status).toBe(403);
    expect((await h.call('DELETE', `/v1/orgs/${w.orgId}/link-invites/nothing-here`, { token: w.owner.token })).status).toBe(404);
    events = await eventsOf(w.orgId);
    expect(events.length).toBe(before + 1);
  });

  it('grant changes and deletions are recorded against their resource', async () => {
    expect(
      (await h.call('PATCH', `/v1/spaces/${spaceId}/permissions/users/${w.guest.id}`, { token: w.owner.token, body: { role: 'edit' } }))
        .status,
    ).toBe(204);
    const grant = (await eventsOf(w.orgId)).at(-1)!;
    expect(grant).toMatchObject({
      action: 'updateUserPermissionInSpace',
      targetType: 'space',
      targetId: spaceId,
      payload: { after: { role: 'edit' } },
    });
    const doomed = (await h.call('POST', `/v1/orgs/${w.orgId}/spaces`, { token: w.owner.token, body: { title: 'Doomed' } })).body.id;
    expect((await h.call('DELETE', `/v1/spaces/${doomed}`, { token: w.owner.token })).status).toBe(205);
    expect((await eventsOf(w.orgId)).at(-1)).toMatchObject({
      action: 'deleteSpace',
      targetType: 'space',
      targetId: doomed,
      organizationId: w.orgId,
      targetLabel: 'Doomed',
    });
  });

  it('token creation records the token id, never the token; no token text appears in any event', async () => {
    const token = await issueToken(h.db.prisma, w.reader.id, 'laptop');
    const id = await tokenIdOf(token);
    const created = await h.db.prisma.auditEvent.findFirstOrThrow({ where: { tokenId: id, action: 'createApiToken' } });
    expect(created).toMatchObject({ actorId: w.reader.id, targetType: 'api-token', targetId: id, source: 'cli', organizationId: null });
    // A token pasted into an input is redacted too.
    expect(
      (await h.call('PATCH', `/v1/spaces/${spaceId}`, { token: w.owner.token, body: { title: `oops ${w.owner.token}` } })).status,
    ).toBe(200);
    const all = JSON.stringify(await h.db.prisma.auditEvent.findMany());
    for (const t of [token, w.owner.token, w.reader.token, w.guest.token, w.creator.token]) expect(all).not.toContain(t);
    expect(all).toContain('oops [redacted]');
  });
});

describe('append-only', () => {
  it('the database refuses UPDATE and DELETE of AuditEvent outside the prune job', async () => {
    const [one] = await eventsOf(w.orgId);
    await expect(h.db.pool.query(`UPDATE "AuditEvent" SET action = 'forged' WHERE id = $1`, [one!.id])).rejects.toThrow(/append-only/);
    await expect(h.db.pool.query(`DELETE FROM "AuditEvent" WHERE id = $1`, [one!.id])).rejects.toThrow(/append-only/);
    await expect(h.db.prisma.auditEvent.deleteMany({ where: { organizationId: w.orgId } })).rejects.toThrow();
    expect((await eventsOf(w.orgId)).find((e) => e.id === one!.id)?.action).toBe(one!.action);
  });

  it('the prune job removes only events older than the retention', async () => {
    const old = randomUUID();
    const recent = randomUUID();
    const day = 24 * 60 * 60 * 1000;
    for (const [id, age] of [
      [old, 400 * day],
      [recent, 300 * day],
    ] as const) {
      await h.db.pool.query(
        `INSERT INTO "AuditEvent" (id, "organizationId", "occurredAt", action, "actorId", "targetType", "targetId") VALUES ($1, $2, $3, 'updateSpace', $4, 'space', $5)`,
        [id, w.orgId, new Date(Date.now() - age), w.owner.id, spaceId],
      );
    }
    const count = (await eventsOf(w.orgId)).length;
    expect(await pruneAuditEvents({ db: h.db, config: { ...h.config, auditRetentionDays: 365 } })).toBe(1);
    const left = await eventsOf(w.orgId);
    expect(left.length).toBe(count - 1);
    expect(left.some((e) => e.id === old)).toBe(false);
    expect(left.some((e) => e.id === recent)).toBe(true);
    // The setting was for the job's transaction only.
    await expect(h.db.pool.query(`DELETE FROM "AuditEvent" WHERE id = $1`, [recent])).rejects.toThrow(/append-only/);
  });
});

describe('reading (official 0.202.0 operations)', () => {
  const list = (query = '', token = w.owner.token) =>
    h.rest('listOrganizationAuditEvents', 'GET', `/v1/orgs/${w.orgId}/audit-events${query}`, { token });

  it('lists newest first, filters by actor, action, target and time, and pages', async () => {
    const all = await list('?limit=100');
    expect(all.status).toBe(200);
    const times = all.body.items.map((e: any) => e.occurredAt);
    expect([...times].sort().reverse()).toEqual(times);
    expect(all.body.items[0]).toMatchObject({
      object: 'audit-event',
      actor: { type: 'user' },
      source: 'api',
      urls: { location: expect.stringContaining('/audit-events/') },
    });

    const byAction = await list('?action=updateSpace');
    expect(byAction.body.items.length).toBeGreaterThan(0);
    expect(byAction.body.items.every((e: any) => e.action === 'updateSpace')).toBe(true);
    const byTarget = await list(`?target=${collectionId}`);
    expect(byTarget.body.items.map((e: any) => e.target.id)).toEqual(byTarget.body.items.map(() => collectionId));
    const byActor = await list(`?actor=${w.reader.id}`);
    expect(byActor.body.items).toEqual([]);
    const future = await list(`?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`);
    expect(future.body).toMatchObject({ items: [], count: 0 });
    const past = await list(`?to=${encodeURIComponent(new Date(Date.now() - 350 * 24 * 3600 * 1000).toISOString())}`);
    expect(past.body.items.length).toBe(0);

    const first = await list('?limit=2');
    expect(first.body.items).toHaveLength(2);
    const second = await list(`?limit=2&page=${first.body.next.page}`);
    expect(second.body.items[0].id).toBe(all.body.items[2].id);

    const one = await h.rest('getOrganizationAuditEvent', 'GET', `/v1/orgs/${w.orgId}/audit-events/${first.body.items[0].id}`, {
      token: w.owner.token,
    });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: first.body.items[0].id, schemaVersion: 1, payload: expect.any(Object) });
    const actions = await h.rest('listOrganizationAuditEventActions', 'GET', `/v1/orgs/${w.orgId}/audit-event-actions`, {
      token: w.owner.token,
    });
    expect(actions.body.items).toContainEqual({ object: 'audit-event-action', id: 'updateSpace', label: 'Update space' });
    expect(actions.body.items.map((a: any) => a.id)).toContain('ssoSignIn');
  });

  it('GraphQL reads the same log', async () => {
    const res = await h.graphql(
      w.owner.token,
      `query($id: ID!) { organization(id: $id) { auditEvents(limit: 1, action: "updateCollection") { count items { action interface tokenId target { id } } } } }`,
      { id: w.orgId },
    );
    expect(res.body.data.organization.auditEvents.items[0]).toMatchObject({
      action: 'updateCollection',
      interface: 'graphql',
      target: { id: collectionId },
    });
  });

  it('refuses bad input (400 naming the field) and callers who are not admins', async () => {
    for (const [query, field] of [
      ['?limit=101', 'limit'],
      ['?from=yesterday', 'from'],
      ['?to=2026-13-45T00:00:00Z', 'to'],
      ['?page=bogus', 'page'],
    ]) {
      const res = await h.call('GET', `/v1/orgs/${w.orgId}/audit-events${query}`, { token: w.owner.token });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(new RegExp(`^${field}`));
    }
    expect((await h.call('GET', `/v1/orgs/${w.orgId}/audit-events/not-a-uuid`, { token: w.owner.token })).status).toBe(404);
    expect((await h.call('GET', `/v1/orgs/${w.orgId}/audit-events/${randomUUID()}`, { token: w.owner.token })).status).toBe(404);
    for (const user of [w.reader, w.creator, w.guest]) {
      expect((await h.call('GET', `/v1/orgs/${w.orgId}/audit-events`, { token: user.token })).status).toBe(403);
      expect((await h.call('GET', `/v1/orgs/${w.orgId}/audit-event-actions`, { token: user.token })).status).toBe(403);
    }
    expect((await h.call('GET', `/v1/orgs/${w.orgId}/audit-events`, { token: w.outsider.token })).status).toBe(404);
  });
});
