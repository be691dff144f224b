import type { Context } from '../../context.js';
import { requireCollection, requireOrg, visibleContentFilter } from '../../auth/permissions.js';
import type { DefaultLevel } from '../../auth/roles.js';
import { badRequest, conflict, notFound, preconditionFailed } from '../../errors.js';
import { Prisma, type Collection } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import DataLoader from 'dataloader';
import { groupBy, perRequest } from '../../loaders.js';
import { paginate, paginateArray, type PageArgs } from '../../pagination.js';
import * as check from '../../validate.js';
import { placeAmongSiblings, type ContentPosition } from './siblings.js';
import { accessRows } from '../../auth/access-rows.js';

const ORDER = [{ position: 'asc' as const }, { id: 'asc' as const }];

export async function createCollection(ctx: Context, organizationId: string, input: { title?: string | null; parent?: string | null }) {
  await requireOrg(ctx, organizationId, 'create');
  const title = check.text('title', input.title?.trim() || 'Untitled', { max: 50 });
  const parentId = input.parent ?? null;
  if (parentId !== null) {
    if (!parentId) throw badRequest('parent', 'must be a collection id');
    const parent = await requireCollection(ctx, parentId, 'create');
    if (parent.organizationId !== organizationId) throw badRequest('parent', 'is a collection of another organization');
  }
  return ctx.prisma.$transaction(async (tx) => {
    const id = newId();
    const position = await placeAmongSiblings(tx, { organizationId, parentId }, id, null);
    return tx.collection.create({ data: { id, organizationId, parentId, title, position } });
  });
}

/** Collections of an organization the caller can see; `nested: false` keeps only top-level ones. */
export async function listCollections(ctx: Context, organizationId: string, args: PageArgs & { nested?: boolean | null }) {
  await requireOrg(ctx, organizationId);
  const filter = await visibleContentFilter(ctx, organizationId);
  const where: Prisma.CollectionWhereInput = {
    organizationId,
    ...filter.collections,
    ...(args.nested === false ? { parentId: null } : {}),
  };
  return paginate(
    args,
    () => ctx.prisma.collection.count({ where }),
    (w) => ctx.prisma.collection.findMany({ where, orderBy: ORDER, ...w }),
  );
}

export async function updateCollection(
  ctx: Context,
  id: string,
  input: { title?: string | null; description?: string | null; defaultLevel?: DefaultLevel },
) {
  await requireCollection(ctx, id, 'admin');
  const data: Prisma.CollectionUpdateInput = {};
  if (input.title !== undefined) {
    if (input.title === null) throw badRequest('title', 'cannot be null');
    data.title = check.text('title', input.title, { max: 50 });
  }
  if (input.description !== undefined)
    data.description = input.description === null ? null : check.text('description', input.description, { max: 100 });
  if (input.defaultLevel !== undefined) data.defaultLevel = input.defaultLevel;
  const updated = await ctx.prisma.collection.update({ where: { id }, data });
  accessRows(ctx).collection.clear(id).prime(id, updated);
  return updated;
}

/** Ids of a collection and every collection below it. */
async function subtree(tx: Pick<Context['prisma'], 'collection'>, root: Collection): Promise<string[]> {
  const all = await tx.collection.findMany({ where: { organizationId: root.organizationId }, select: { id: true, parentId: true } });
  const ids = [root.id];
  for (let i = 0; i < ids.length; i++) for (const c of all) if (c.parentId === ids[i]) ids.push(c.id);
  return ids;
}

/**
 * Deletes a collection and the collections below it. Their spaces are deleted the way a space is
 * (restorable for 7 days, then purged); a restored space comes back at the top level.
 * A collection the caller cannot see is a 404 like a missing one (no oracle for another
 * organization's ids); one they see but do not administer, a 403.
 */
export async function deleteCollection(ctx: Context, id: string) {
  const collection = await requireCollection(ctx, id, 'admin');
  await ctx.prisma.$transaction(async (tx) => {
    const ids = await subtree(tx, collection);
    await tx.space.updateMany({ where: { parentId: { in: ids }, deletedAt: null }, data: { deletedAt: new Date() } });
    await tx.space.updateMany({ where: { parentId: { in: ids } }, data: { parentId: null } });
    await tx.collection.deleteMany({ where: { id: { in: ids } } });
  });
  accessRows(ctx).collection.clear(id);
  return true;
}

export async function moveCollection(ctx: Context, id: string, input: { parent?: string | null; position?: ContentPosition | null }) {
  if (input.parent === undefined && !input.position) throw badRequest('body', 'give parent or position');
  const collection = await requireCollection(ctx, id, 'admin');
  const parentId = input.parent === undefined ? collection.parentId : input.parent;
  if (parentId === '') throw badRequest('parent', 'must be a collection id, or null for the top level');
  if (parentId) {
    const parent = await requireCollection(ctx, parentId, 'create').catch((error) => {
      throw error?.code === 'NOT_FOUND' ? notFound('Parent collection') : error;
    });
    if (parent.organizationId !== collection.organizationId) throw badRequest('parent', 'is a collection of another organization');
  }
  return ctx.prisma.$transaction(async (tx) => {
    if (parentId && (await subtree(tx, collection)).includes(parentId)) {
      throw badRequest('parent', 'cannot be the collection itself or one of its descendants');
    }
    const position = await placeAmongSiblings(tx, { organizationId: collection.organizationId, parentId }, id, input.position, collection);
    return tx.collection.update({ where: { id }, data: { parentId, position } });
  });
}

/** Moves a collection, its sub-collections and their spaces to the top level of another organization. */
export async function transferCollection(ctx: Context, id: string, input: { organization: string }) {
  const collection = await requireCollection(ctx, id, 'admin');
  if (input.organization === collection.organizationId) throw conflict('The collection already belongs to this organization');
  await requireOrg(ctx, input.organization, 'admin');
  return ctx.prisma.$transaction(async (tx) => {
    const ids = await subtree(tx, collection);
    const synced = await tx.space.count({ where: { parentId: { in: ids }, NOT: { gitSync: { equals: Prisma.DbNull } } } });
    if (synced > 0) throw preconditionFailed('A space in this collection is synchronised with Git: disconnect Git Sync first');
    const position = await placeAmongSiblings(tx, { organizationId: input.organization, parentId: null }, id, null);
    await tx.space.updateMany({ where: { parentId: { in: ids } }, data: { organizationId: input.organization } });
    await tx.collection.updateMany({ where: { id: { in: ids } }, data: { organizationId: input.organization } });
    return tx.collection.update({ where: { id }, data: { parentId: null, position } });
  });
}

/**
 * The visible items of many collections at once, per kind: one query per organization, however many
 * collections a nested query lists (a collection holds few enough items to page in memory).
 */
function childrenLoader<T extends { parentId: string | null }>(
  fetch: (ctx: Context, where: { organizationId: string; parentIds: string[] }) => Promise<T[]>,
) {
  return perRequest(
    (ctx: Context) =>
      new DataLoader<string, T[]>(async (ids) => {
        const collections = (await Promise.all(ids.map((id) => accessRows(ctx).collection.load(id)))).filter((c) => c !== null);
        const byOrg = groupBy(collections, (c) => c.organizationId);
        const rows = (
          await Promise.all([...byOrg].map(([organizationId, cs]) => fetch(ctx, { organizationId, parentIds: cs.map((c) => c.id) })))
        ).flat();
        const byParent = groupBy(rows, (r) => r.parentId);
        return ids.map((id) => byParent.get(id) ?? []);
      }),
  );
}

const spacesIn = childrenLoader(async (ctx, { organizationId, parentIds }) =>
  ctx.prisma.space.findMany({
    where: {
      AND: [{ organizationId, parentId: { in: parentIds }, deletedAt: null }, (await visibleContentFilter(ctx, organizationId)).spaces],
    },
    orderBy: ORDER,
  }),
);

const collectionsIn = childrenLoader(async (ctx, { organizationId, parentIds }) =>
  ctx.prisma.collection.findMany({
    where: { AND: [{ organizationId, parentId: { in: parentIds } }, (await visibleContentFilter(ctx, organizationId)).collections] },
    orderBy: ORDER,
  }),
);

export async function listCollectionSpaces(ctx: Context, id: string, args: PageArgs) {
  await requireCollection(ctx, id);
  return paginateArray(args, await spacesIn(ctx).load(id));
}

/** The collections directly inside a collection, that the caller can see. */
export async function listChildCollections(ctx: Context, id: string, args: PageArgs) {
  await requireCollection(ctx, id);
  return paginateArray(args, await collectionsIn(ctx).load(id));
}
