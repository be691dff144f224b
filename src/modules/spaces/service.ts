import type { Context } from '../../context.js';
import { requireCollection, requireOrg, requireSpace, visibleContentFilter, visibleSpacesSql } from '../../auth/permissions.js';
import { columnsOf, prepared, selectRows } from '../../db/rows.js';
import type { DefaultLevel } from '../../auth/roles.js';
import { badRequest, conflict, notFound, preconditionFailed } from '../../errors.js';
import type { Prisma, PrismaClient, Space } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import { paginateWindow, type PageArgs } from '../../pagination.js';
import * as check from '../../validate.js';
import { emptyManifest, copySearchIndex, dropSearchIndexStatement } from '../content/index.js';
import { placeAmongSiblings, type ContentPosition } from '../collections/index.js';
import { accessRows } from '../../auth/access-rows.js';

const _ORDER = [{ position: 'asc' as const }, { id: 'asc' as const }];
type Tx = Prisma.TransactionClient;

export interface CreateSpaceInput {
  title?: string | null;
  emoji?: string | null;
  parent?: string | null;
  language?: string | null;
  editMode?: string | null;
}

/** Creates a space row and its first (empty) revision, inside the caller's transaction. */
/** Creates a space row and its first revision (empty content, or `from` a revision's content). */
export async function insertSpace(
  tx: Tx,
  data: Omit<Prisma.SpaceUncheckedCreateInput, 'id' | 'revisionId'>,
  from?: { revisionId: string; manifest: string },
) {
  const id = newId();
  const revisionId = newId();
  const space = await tx.space.create({ data: { ...data, id, revisionId } });
  const manifest = from?.manifest || (await emptyManifest(tx));
  await tx.revision.create({ data: { id: revisionId, spaceId: id, parents: from ? [from.revisionId] : [], type: 'edits', manifest } });
  return space;
}

async function requireParentCollection(ctx: Context, organizationId: string, parentId: string) {
  const parent = await requireCollection(ctx, parentId, 'create').catch((error) => {
    throw error?.code === 'NOT_FOUND' ? notFound('Parent collection') : error;
  });
  if (parent.organizationId !== organizationId) throw badRequest('parent', 'is a collection of another organization');
  return parent;
}

export async function createSpace(ctx: Context, organizationId: string, input: CreateSpaceInput) {
  await requireOrg(ctx, organizationId, 'create');
  const title = check.text('title', input.title ?? '', { max: 50 });
  const emoji = check.text('emoji', input.emoji ?? '', { max: 50 });
  const parentId = input.parent ?? null;
  if (parentId !== null) await requireParentCollection(ctx, organizationId, parentId);
  return ctx.prisma.$transaction(async (tx) => {
    const position = await placeAmongSiblings(tx, { organizationId, parentId }, '', null);
    return insertSpace(tx, {
      organizationId,
      parentId,
      title,
      emoji,
      language: input.language ?? null,
      editMode: input.editMode ?? 'live',
      position,
    });
  });
}

/** Live spaces of an organization the caller can see. */
/**
 * An organization's spaces the caller sees, a page and the total in one prepared statement (a
 * page of 100 was a count and a findMany, each compiled by Prisma on every request).
 */
const SPACES_PAGE = prepared(
  `SELECT ${columnsOf('Space', 's')}, count(*) OVER ()::int AS "__total" FROM "Space" s
   WHERE s."organizationId" = $1 AND s."deletedAt" IS NULL AND ${visibleSpacesSql(2)}
   ORDER BY s.position, s.id OFFSET $6 LIMIT $7`,
);

export async function listSpaces(ctx: Context, organizationId: string, args: PageArgs) {
  await requireOrg(ctx, organizationId);
  const filter = await visibleContentFilter(ctx, organizationId);
  const where: Prisma.SpaceWhereInput = { AND: [{ organizationId, deletedAt: null }, filter.spaces] };
  return paginateWindow(
    args,
    async (w) => {
      const rows = await selectRows<Space & { __total: number }>(ctx.db.pool, SPACES_PAGE, [
        organizationId,
        ...filter.spacesSql,
        w.skip,
        w.take,
      ]);
      return { items: rows.map(({ __total: _, ...space }) => space), total: rows[0]?.__total ?? null };
    },
    () => ctx.prisma.space.count({ where }),
  );
}

/** Whether a deleted space is past its retention period (no longer restorable, awaiting the purge). */
const expired = (ctx: Context, space: Space) =>
  space.deletedAt !== null && space.deletedAt.getTime() < Date.now() - ctx.config.spaceRetentionMs;

/** A space; a deleted one (still restorable) only for its admins, so they can find and restore it. */
export async function getSpace(ctx: Context, id: string) {
  const space = await accessRows(ctx).space.load(id);
  if (space?.deletedAt) {
    if (expired(ctx, space)) throw notFound('Space');
    return requireSpace(ctx, id, 'admin', { deleted: true }).catch(() => Promise.reject(notFound('Space')));
  }
  return requireSpace(ctx, id);
}

export interface UpdateSpaceInput {
  title?: string | null;
  emoji?: string | null;
  editMode?: string | null;
  defaultLevel?: DefaultLevel;
  language?: string | null;
  mergeRules?: unknown;
}

export async function updateSpace(ctx: Context, id: string, input: UpdateSpaceInput) {
  await requireSpace(ctx, id, 'admin');
  const data: Prisma.SpaceUpdateInput = {};
  if (input.title !== undefined) {
    if (input.title === null) throw badRequest('title', 'cannot be null');
    data.title = check.text('title', input.title, { max: 50 });
  }
  if (input.emoji !== undefined) data.emoji = check.text('emoji', input.emoji ?? '', { max: 50 });
  if (input.editMode !== undefined) {
    if (input.editMode === null) throw badRequest('editMode', 'cannot be null');
    data.editMode = input.editMode;
  }
  if (input.defaultLevel !== undefined) data.defaultLevel = input.defaultLevel;
  if (input.language !== undefined) data.language = input.language;
  if (input.mergeRules !== undefined)
    data.mergeRules = check.mergeRules('mergeRules', input.mergeRules, { allowInherit: true }) as Prisma.InputJsonValue;
  const space = await ctx.prisma.space.update({ where: { id }, data });
  accessRows(ctx).space.clear(id).prime(id, space);
  return space;
}

/**
 * Soft-deletes a space (restorable for 7 days): true when deleted. A space the caller cannot see
 * is a 404 like a missing one (no oracle for another organization's ids). An already deleted space
 * that the caller could restore is false (it is still there for them); to anyone else it is hidden.
 */
export async function deleteSpace(ctx: Context, id: string) {
  const space = await accessRows(ctx).space.load(id);
  await requireSpace(ctx, id, 'admin', { deleted: !!space?.deletedAt });
  // A concurrent delete may have come first: only one of them deletes.
  const { count } = await ctx.prisma.space.updateMany({ where: { id, deletedAt: null }, data: { deletedAt: new Date() } });
  accessRows(ctx).space.clear(id);
  return count > 0;
}

const COPY_SUFFIX = ' (copy)';

/**
 * Duplicates a space's settings into a new space beside it, titled "<title> (copy)" (the title
 * shortened so the suffix fits in 50 characters). Creating it needs what creating a space in the
 * same place needs. Its first revision shares the source's content (content-addressed: nothing is
 * copied) and records the source revision as parent.
 */
export async function duplicateSpace(ctx: Context, id: string) {
  const source = await requireSpace(ctx, id, 'read');
  await requireOrg(ctx, source.organizationId, 'create');
  if (source.parentId) await requireParentCollection(ctx, source.organizationId, source.parentId);
  const title = [...source.title].slice(0, 50 - COPY_SUFFIX.length).join('') + COPY_SUFFIX;
  return ctx.prisma.$transaction(async (tx) => {
    const position = await placeAmongSiblings(tx, { organizationId: source.organizationId, parentId: source.parentId }, '', null);
    const space = await insertSpace(
      tx,
      {
        organizationId: source.organizationId,
        parentId: source.parentId,
        title,
        emoji: source.emoji,
        visibility: source.visibility,
        editMode: source.editMode,
        mergeRules: source.mergeRules as Prisma.InputJsonValue,
        language: source.language,
        defaultLevel: source.defaultLevel,
        position,
      },
      { revisionId: source.revisionId, manifest: (await tx.revision.findUnique({ where: { id: source.revisionId } }))?.manifest ?? '' },
    );
    // The copy is searchable at once: the source's index rows are copied (main of the source is
    // locked meanwhile, so its index matches the revision read here).
    const [locked] = await tx.$queryRaw<{ revisionId: string }[]>`SELECT "revisionId" FROM "Space" WHERE id = ${source.id} FOR SHARE`;
    await copySearchIndex(tx, source.id, locked!.revisionId, space.id, space.revisionId);
    return space;
  });
}

export async function restoreSpace(ctx: Context, id: string) {
  const existing = await accessRows(ctx).space.load(id);
  if (existing && expired(ctx, existing)) throw notFound('Space');
  const _space = await requireSpace(ctx, id, 'admin', { deleted: true });
  const restored = await ctx.prisma.space.update({ where: { id }, data: { deletedAt: null } });
  accessRows(ctx).space.clear(id).prime(id, restored);
  return restored;
}

export async function moveSpace(ctx: Context, id: string, input: { parent?: string | null; position?: ContentPosition | null }) {
  if (input.parent === undefined && !input.position) throw badRequest('body', 'give parent or position');
  const space = await requireSpace(ctx, id, 'admin');
  const parentId = input.parent === undefined ? space.parentId : input.parent;
  if (parentId !== null) await requireParentCollection(ctx, space.organizationId, parentId);
  const moved = await ctx.prisma.$transaction(async (tx) => {
    const position = await placeAmongSiblings(tx, { organizationId: space.organizationId, parentId }, id, input.position, space);
    return tx.space.update({ where: { id }, data: { parentId, position } });
  });
  accessRows(ctx).space.clear(id).prime(id, moved);
  return moved;
}

/** Moves a space to the top level of another organization the caller administers. */
export async function transferSpace(ctx: Context, id: string, input: { organization: string }) {
  const space = await requireSpace(ctx, id, 'admin');
  if (input.organization === space.organizationId) throw conflict('The space already belongs to this organization');
  await requireOrg(ctx, input.organization, 'admin');
  if (space.gitSync !== null) throw preconditionFailed('This space is synchronised with Git: disconnect Git Sync first');
  const moved = await ctx.prisma.$transaction(async (tx) => {
    const position = await placeAmongSiblings(tx, { organizationId: input.organization, parentId: null }, id, null);
    return tx.space.update({ where: { id }, data: { organizationId: input.organization, parentId: null, position } });
  });
  accessRows(ctx).space.clear(id).prime(id, moved);
  return moved;
}

/** Permanently removes spaces deleted more than the retention period ago. Safe to run from any process. */
export async function purgeDeletedSpaces(prisma: PrismaClient, retentionMs: number): Promise<number> {
  const expiredIds = (
    await prisma.space.findMany({ where: { deletedAt: { lt: new Date(Date.now() - retentionMs) } }, select: { id: true } })
  ).map((s) => s.id);
  if (!expiredIds.length) return 0;
  // The search index has no foreign key to its space (it is derived data): it goes with the space.
  const [, { count }] = await prisma.$transaction([
    dropSearchIndexStatement(prisma, expiredIds),
    prisma.space.deleteMany({ where: { id: { in: expiredIds } } }),
  ]);
  return count;
}

export type { Space };
