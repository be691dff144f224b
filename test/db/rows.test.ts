import { beforeAll, describe, expect, it } from 'vitest';
import { accessRows } from '../../src/auth/access-rows.js';
import { authenticate } from '../../src/auth/authenticate.js';
import type { Context } from '../../src/context.js';
import { rowsById, selectRows, type HotTable } from '../../src/db/rows.js';
import type { Member } from '../../src/generated/prisma/client.js';
import { setupHarness, type Harness } from '../support/harness.js';

/**
 * The hot-path loaders read rows with plain SQL instead of Prisma (src/db/rows.ts): the rows must be
 * exactly what Prisma answers for the same ids — every field, every JS type (Date as UTC, jsonb,
 * arrays, enums, nulls) — or resolvers would see different data depending on how a row was loaded.
 */
let h: Harness;
let ids: Record<HotTable, string>;
let ownerId: string;
let ownerToken: string;
let orgId: string;

beforeAll(async () => {
  h = await setupHarness();
  const world = await h.world();
  ownerId = world.owner.id;
  ownerToken = world.owner.token;
  orgId = world.orgId;
  const call = (method: string, path: string, body?: unknown) =>
    h.call(method, path, { token: world.owner.token, body }).then((r) => r.body);
  // Values that exercise each column type: json and nulls, arrays, fractional positions, dates with milliseconds.
  await h.db.prisma.organization.update({
    where: { id: orgId },
    data: { emailDomains: ['acme.test', 'b.test'], defaultContent: { a: [1, 'x', null] }, hostname: 'docs.acme.test' },
  });
  const collection = await call('POST', `/v1/orgs/${orgId}/collections`, { title: 'Guides' });
  await h.db.prisma.collection.update({ where: { id: collection.id }, data: { description: 'All guides', position: 1.5 } });
  const space = await call('POST', `/v1/orgs/${orgId}/spaces`, { title: 'Handbook', emoji: '1f4d8', parent: collection.id });
  await h.db.prisma.space.update({
    where: { id: space.id },
    data: { gitSync: { repo: 'x/y', branch: 'main' }, deletedAt: new Date('2026-01-02T03:04:05.678Z'), language: 'fr' },
  });
  const site = await call('POST', `/v1/orgs/${orgId}/sites`, { title: 'Docs' });
  await h.db.prisma.site.update({
    where: { id: site.id },
    data: { adaptiveSchema: { type: 'object', properties: {} }, adaptiveSchemaUpdatedAt: new Date('2026-03-04T05:06:07.089Z') },
  });
  const revision = (await h.db.prisma.space.findUniqueOrThrow({ where: { id: space.id } })).revisionId;
  ids = { Organization: orgId, User: ownerId, Member: '', Space: space.id, Revision: revision, Collection: collection.id, Site: site.id };
});

/** `viaSql` equals `viaPrisma` field for field, each value of the same JS type (a Date where Prisma has one). */
const expectSameRow = (viaSql: Record<string, unknown> | null | undefined, viaPrisma: Record<string, unknown> | null) => {
  expect(viaSql ?? null).toEqual(viaPrisma);
  if (viaPrisma)
    for (const [key, value] of Object.entries(viaPrisma))
      expect(Object.prototype.toString.call(viaSql![key]), key).toBe(Object.prototype.toString.call(value));
};

describe('plain-SQL rows', () => {
  const tables: Exclude<HotTable, 'Member'>[] = ['Organization', 'User', 'Space', 'Revision', 'Collection', 'Site'];
  it.each(tables)('%s rows equal Prisma’s (fields, types, values)', async (table) => {
    const delegate = (h.db.prisma as any)[table[0]!.toLowerCase() + table.slice(1)];
    const viaPrisma = await delegate.findMany({ where: { id: { in: [ids[table], 'missing'] } } });
    expect(viaPrisma).toHaveLength(1);
    // Two statements: one id (the row as JSON) and several (columns).
    for (const asked of [[ids[table]], [ids[table], 'missing']]) {
      const viaSql = await rowsById<any>(h.db.pool, table)(asked);
      expect(viaSql).toHaveLength(1);
      // toEqual would accept a string where a Date is expected only if both were strings: expectSameRow checks the types too.
      expectSameRow(viaSql[0], viaPrisma[0]);
    }
  });

  it('a space is read with the caller’s membership in one statement, both rows equal to Prisma’s', async () => {
    const outsider = await h.user();
    for (const [callerId, member] of [
      [
        ownerId,
        await h.db.prisma.member.findUniqueOrThrow({ where: { organizationId_userId: { organizationId: orgId, userId: ownerId } } }),
      ],
      [outsider.id, null],
    ] as const) {
      const rows = accessRows({ db: h.db, caller: { id: callerId } } as unknown as Context);
      const before = h.db.statements.count;
      const space = await rows.space.load(ids.Space);
      expect(await rows.callerMembership.load(orgId)).toEqual(member);
      expect(h.db.statements.count - before).toBe(1);
      expect(space).toEqual(await h.db.prisma.space.findUnique({ where: { id: ids.Space } }));
      expect(space!.deletedAt).toBeInstanceOf(Date);
      if (member) expect((await rows.callerMembership.load(orgId))!.joinedAt).toBeInstanceOf(Date);
    }
  });

  it('Member rows equal Prisma’s, including a null role (guest) and a null lastSeenAt', async () => {
    const viaPrisma = await h.db.prisma.member.findMany({ where: { organizationId: orgId }, orderBy: { userId: 'asc' } });
    const viaSql = await selectRows<Member>(h.db.pool, 'SELECT * FROM "Member" WHERE "organizationId" = $1 ORDER BY "userId"', [orgId]);
    expect(viaPrisma.some((m) => m.role === null)).toBe(true);
    expect(viaSql).toEqual(viaPrisma);
    expect(viaSql[0]!.joinedAt).toBeInstanceOf(Date);
  });
});

describe('rows read as JSON by the authentication statement', () => {
  it('give the caller, the space, its organization and the membership exactly as Prisma does', async () => {
    const outsider = await h.user();
    const member = await h.db.prisma.member.findUniqueOrThrow({
      where: { organizationId_userId: { organizationId: orgId, userId: ownerId } },
    });
    const owner = await h.db.prisma.user.findUniqueOrThrow({ where: { id: ownerId } });
    const space = await h.db.prisma.space.findUniqueOrThrow({ where: { id: ids.Space } });
    const organization = await h.db.prisma.organization.findUniqueOrThrow({ where: { id: orgId } });
    const rate = { limit: 0, windowSeconds: 60 };
    const orgOwnerToken = ownerToken;
    const asOwner = await authenticate(h.db, orgOwnerToken, rate, Date.now(), undefined, { spaceId: ids.Space });
    expectSameRow(asOwner!.caller as never, owner as never);
    expectSameRow(asOwner!.spaceAccess!.space as never, space as never);
    expectSameRow(asOwner!.spaceAccess!.organization as never, organization as never);
    expectSameRow(asOwner!.spaceAccess!.member as never, member as never);
    const byOrganization = await authenticate(h.db, orgOwnerToken, rate, Date.now(), undefined, { organizationId: orgId });
    expectSameRow(byOrganization!.organizationAccess!.organization as never, organization as never);
    expectSameRow(byOrganization!.organizationAccess!.member as never, member as never);
    // No membership (a LEFT JOIN without a match) is null, not a row of nulls.
    const asOutsider = await authenticate(h.db, outsider.token, rate, Date.now(), undefined, { spaceId: ids.Space });
    expect(asOutsider!.spaceAccess!.member).toBeNull();
    expectSameRow(asOutsider!.caller as never, (await h.db.prisma.user.findUniqueOrThrow({ where: { id: outsider.id } })) as never);
  });
});

describe('prepared statements of the hot path', () => {
  it('keep answering after another process adds a column to their tables (a rolling upgrade’s migration)', async () => {
    const world = await h.world('Prepared');
    const space = (await h.call('POST', `/v1/orgs/${world.orgId}/spaces`, { token: world.owner.token, body: { title: 'Prepared' } })).body;
    // Every connection of the pool prepares the statements (enough concurrent requests to use several).
    const burst = () =>
      Promise.all(Array.from({ length: 12 }, () => h.call('GET', `/v1/spaces/${space.id}`, { token: world.owner.token })));
    for (const r of await burst()) expect(r.status).toBe(200);
    const tables = ['User', 'Space', 'Organization', 'Member'];
    try {
      for (const table of tables) await h.db.pool.query(`ALTER TABLE "${table}" ADD COLUMN "addedByANewerRelease" text`);
      // `SELECT u.*` prepared before the change would now fail with "cached plan must not change result type".
      for (const r of await burst()) expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect((await h.call('GET', '/v1/user', { token: world.owner.token })).status).toBe(200);
      expect(Object.keys((await rowsById<any>(h.db.pool, 'User')([world.owner.id]))[0])).not.toContain('addedByANewerRelease');
    } finally {
      for (const table of tables) await h.db.pool.query(`ALTER TABLE "${table}" DROP COLUMN IF EXISTS "addedByANewerRelease"`);
    }
  });
});
