import { beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../../src/context.js';
import { spacePermissions, spaceRole, visibleContentFilter } from '../../src/auth/permissions.js';
import type { User } from '../../src/generated/prisma/client.js';
import { setupHarness, type Harness, type World } from '../support/harness.js';

/**
 * A list of spaces filters in one prepared statement (`visibleSpacesSql`, src/auth/permissions.ts):
 * it must answer exactly the spaces the Prisma form of the same filter answers, for every kind of
 * caller, over default levels up and down a collection tree, grants on collections and spaces,
 * public, unlisted and private spaces.
 */
let h: Harness;
let w: World;

beforeAll(async () => {
  h = await setupHarness();
  w = await h.world('Visible Co');
  const as = { token: w.owner.token };
  const top = (await h.call('POST', `/v1/orgs/${w.orgId}/collections`, { ...as, body: { title: 'Top' } })).body.id;
  const closed = (await h.call('POST', `/v1/orgs/${w.orgId}/collections`, { ...as, body: { title: 'Closed', parent: top } })).body.id;
  const open = (await h.call('POST', `/v1/orgs/${w.orgId}/collections`, { ...as, body: { title: 'Open', parent: closed } })).body.id;
  await h.db.prisma.collection.update({ where: { id: closed }, data: { defaultLevel: null } });
  await h.db.prisma.collection.update({ where: { id: open }, data: { defaultLevel: 'comment' } });
  const spaces: string[] = [];
  for (const [i, parent] of [undefined, top, closed, open, closed, closed, undefined].entries()) {
    spaces.push(
      (await h.call('POST', `/v1/orgs/${w.orgId}/spaces`, { ...as, body: { title: `S${i}`, ...(parent ? { parent } : {}) } })).body.id,
    );
  }
  await h.db.prisma.space.update({ where: { id: spaces[4]! }, data: { visibility: 'public' } });
  await h.db.prisma.space.update({ where: { id: spaces[5]! }, data: { visibility: 'unlisted' } });
  await h.db.prisma.space.update({ where: { id: spaces[6]! }, data: { defaultLevel: null } });
  await h.db.prisma.space.update({ where: { id: spaces[1]! }, data: { defaultLevel: 'edit' } });
  await h.db.prisma.userSpacePermission.create({
    data: { spaceId: spaces[2]!, organizationId: w.orgId, userId: w.guest.id, role: 'read' },
  });
  await h.db.prisma.userCollectionPermission.create({
    data: { collectionId: closed, organizationId: w.orgId, userId: w.reader.id, role: 'edit' },
  });
  await h.db.prisma.space.update({ where: { id: spaces[3]! }, data: { deletedAt: new Date() } });
});

describe('the list of spaces filtered in SQL', () => {
  it('answers the same spaces as the Prisma filter for the admin, a reader, a creator, a guest and an outsider', async () => {
    for (const who of [w.owner, w.reader, w.creator, w.guest, w.outsider]) {
      const user = (await h.db.prisma.user.findUnique({ where: { id: who.id } })) as User;
      const filter = await visibleContentFilter(createContext({ db: h.db, config: h.config, urls: h.app as never }, user), w.orgId);
      const byPrisma = await h.db.prisma.space.findMany({
        where: { AND: [{ organizationId: w.orgId, deletedAt: null }, filter.spaces] },
        orderBy: [{ position: 'asc' }, { id: 'asc' }],
      });
      const listed = await h.call('GET', `/v1/orgs/${w.orgId}/spaces?limit=3`, { token: who.token });
      const pages = [listed];
      while (pages.at(-1)!.body?.next)
        pages.push(await h.call('GET', `/v1/orgs/${w.orgId}/spaces?limit=3&page=${pages.at(-1)!.body.next.page}`, { token: who.token }));
      if (who === w.outsider) {
        expect(listed.status).toBe(404);
        continue;
      }
      expect(pages.flatMap((p) => p.body.items.map((s: { id: string }) => s.id))).toEqual(byPrisma.map((s) => s.id));
      expect(listed.body.count).toBe(byPrisma.length);
    }
  });

  it('gives each listed space the permissions the rule gives it read on its own, and its counts', async () => {
    // A listed space's permissions are decided from the rows the list read (no promise per item);
    // a fresh context has read nothing, so the rule reads its inputs for the space alone.
    await h.call(
      'POST',
      `/v1/spaces/${(await h.call('GET', `/v1/orgs/${w.orgId}/spaces`, { token: w.owner.token })).body.items[0].id}/change-requests`,
      {
        token: w.owner.token,
        body: { subject: 'Counted' },
      },
    );
    for (const who of [w.owner, w.reader, w.creator, w.guest]) {
      const user = (await h.db.prisma.user.findUnique({ where: { id: who.id } })) as User;
      const listed = await h.call('GET', `/v1/orgs/${w.orgId}/spaces`, { token: who.token });
      expect(listed.body.items.length).toBeGreaterThan(0);
      for (const item of listed.body.items) {
        const ctx = createContext({ db: h.db, config: h.config, urls: h.app as never }, user);
        const space = (await h.db.prisma.space.findUnique({ where: { id: item.id } }))!;
        expect(item.permissions, `${who.email} on ${item.title}`).toEqual(spacePermissions(await spaceRole(ctx, space)));
        const alone = await h.call('GET', `/v1/spaces/${item.id}`, { token: who.token });
        expect(alone.body).toEqual(item);
      }
    }
  });

  it('counts a page past the end as the whole list does', async () => {
    const all = await h.call('GET', `/v1/orgs/${w.orgId}/spaces`, { token: w.owner.token });
    const past = Buffer.from(JSON.stringify({ o: 500 })).toString('base64url');
    const beyond = await h.call('GET', `/v1/orgs/${w.orgId}/spaces?page=${past}`, { token: w.owner.token });
    expect(beyond.body).toMatchObject({ items: [], count: all.body.count });
    expect(all.body.count).toBeGreaterThan(3);
  });
});
