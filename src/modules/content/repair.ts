import type { PrismaClient } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import { reindexSpace } from './search-index.js';
import { Content, ContentWriter, type PageEntry } from './store.js';
import { uniqueSlug } from './tree.js';

/**
 * `lectern repair`: pages whose parent is missing, or that sit in a ring of parents, can only come
 * from data written before merges settled the tree (structure.ts). Reading shows them at the top
 * level already (tree.ts); this writes that repair down: each such page is re-attached at the top
 * level (a ring opens at its page with the smallest id), with a slug unique there, in a new revision
 * of every head that needs it — main and each open change request. Nothing is deleted.
 */
export interface TreeRepair {
  spaceId: string;
  changeRequestId: string | null;
  revision: string;
  pages: string[];
}

/** The pages to re-attach at the top level: each orphan, and one page per ring. */
function brokenPages(pages: Map<string, PageEntry>): string[] {
  const settled = new Set<string>();
  const broken: string[] = [];
  for (const page of [...pages.values()].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    const path: string[] = [];
    const onPath = new Set<string>();
    let current: PageEntry | undefined = page;
    while (current && !settled.has(current.id)) {
      if (onPath.has(current.id)) {
        const ring = path.slice(path.indexOf(current.id));
        broken.push(ring.sort()[0]!);
        break;
      }
      path.push(current.id);
      onPath.add(current.id);
      if (!current.parent) break;
      const parent = pages.get(current.parent);
      if (!parent) {
        broken.push(current.id);
        break;
      }
      current = parent;
    }
    for (const id of path) settled.add(id);
  }
  return broken;
}

/** Repairs one content; null when its tree is sound. */
export async function repairTree(db: PrismaClient, manifest: string): Promise<{ manifest: string; pages: string[] } | null> {
  const content = await Content.load(db, manifest);
  const pages = new Map((await content.allPages()).map((p) => [p.id, p]));
  const broken = brokenPages(pages);
  if (!broken.length) return null;
  const writer = new ContentWriter(content);
  for (const id of broken) {
    const page = pages.get(id)!;
    const topLevel = (await writer.allPages()).filter((p) => !p.parent && p.id !== id);
    await writer.put({ ...page, parent: null, slug: uniqueSlug(page.slug, topLevel, id) });
  }
  return { manifest: await writer.write(db), pages: broken };
}

/** Repairs the heads of every space (main and open change requests); answers what it changed. */
export async function repairSpaces(db: PrismaClient): Promise<TreeRepair[]> {
  const done: TreeRepair[] = [];
  const spaces = await db.space.findMany({ select: { id: true } });
  for (const { id: spaceId } of spaces) {
    await db.$transaction(
      async (tx) => {
        const client = tx as unknown as PrismaClient;
        const [space] = await tx.$queryRaw<{ revisionId: string }[]>`SELECT "revisionId" FROM "Space" WHERE id = ${spaceId} FOR UPDATE`;
        if (!space) return;
        const heads = [
          { changeRequestId: null as string | null, revisionId: space.revisionId },
          ...(await tx.changeRequest.findMany({ where: { spaceId, status: 'open' }, select: { id: true, revisionId: true } })).map(
            (cr) => ({ changeRequestId: cr.id, revisionId: cr.revisionId }),
          ),
        ];
        for (const head of heads) {
          const current = await tx.revision.findUnique({ where: { id: head.revisionId } });
          if (!current) continue;
          const repaired = await repairTree(client, current.manifest);
          if (!repaired) continue;
          const revision = newId();
          await tx.revision.create({
            data: {
              id: revision,
              spaceId,
              parents: [current.id],
              type: 'edits',
              manifest: repaired.manifest,
              changeRequestId: head.changeRequestId,
            },
          });
          if (head.changeRequestId) await tx.changeRequest.update({ where: { id: head.changeRequestId }, data: { revisionId: revision } });
          else {
            await tx.space.update({ where: { id: spaceId }, data: { revisionId: revision } });
            await reindexSpace(tx, spaceId, current.id, revision);
          }
          done.push({ spaceId, changeRequestId: head.changeRequestId, revision, pages: repaired.pages });
        }
      },
      { timeout: 60_000 },
    );
  }
  return done;
}
