import type { Services } from '../../context.js';
import type { Prisma, Revision, Space } from '../../generated/prisma/client.js';
import { nextChangeRequestNumber } from '../../change-request-numbers.js';
import { newId } from '../../ids.js';
import { Content, mergeContents, reindexSpace, type MergeConflict } from '../content/index.js';
import { contentFromLayout, knownOf, pathsOf } from './content-layout.js';
import { openCopy } from './credentials.js';
import type { WorkingCopy } from './git.js';
import { readLayout } from './read.js';

type Tx = Prisma.TransactionClient;

/**
 * Git → Lectern. The branch's files become a content (repository-layout.ts, in a worker thread); when main has
 * not moved since the last sync it becomes main's next revision, else a three-way merge (content's
 * mergeContents) with the last synced revision as the base; a true conflict opens a change request
 * holding Git's side (its subject names the pages), main is left as it is, nothing is lost.
 * Returns main's new revision (null: main did not change).
 */
export async function importFromGit(
  services: Services,
  spaceId: string,
  opts: { force?: boolean; userId?: string; copy?: WorkingCopy } = {},
): Promise<{ revision: string | null; conflict?: string }> {
  const prisma = services.db.prisma;
  const conn = await prisma.gitSyncConnection.findUnique({ where: { spaceId } });
  if (!conn) return { revision: null };
  const copy = opts.copy ?? (await openCopy(services, conn));
  try {
    if (!copy.head) return { revision: null }; // an empty branch: nothing to import
    if (copy.head === conn.lastCommit && !opts.force) return { revision: null };
    const files = await copy.files();
    const read = await readLayout(files, conn.folder, knownOf(conn));
    const now = new Date().toISOString();
    const paths = pathsOf(read.layout);
    return await prisma.$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT id FROM "Space" WHERE id = ${spaceId} FOR UPDATE`;
        const space = (await tx.space.findUnique({ where: { id: spaceId } }))!;
        const lastRevision = conn.lastRevisionId ? await tx.revision.findUnique({ where: { id: conn.lastRevisionId } }) : null;
        const base = await Content.load(
          tx,
          lastRevision?.manifest ?? (await tx.revision.findUnique({ where: { id: space.revisionId } }))!.manifest,
        );
        const ours = await Content.load(tx, (await tx.revision.findUnique({ where: { id: space.revisionId } }))!.manifest);
        // Git's side, on top of the last synced content (or of main, the first time).
        const theirsManifest = await contentFromLayout(tx, lastRevision ? base : ours, read, now);
        const author = opts.userId ?? conn.createdById;
        let manifest: string | null = theirsManifest;
        const parents = [space.revisionId];
        if (lastRevision && lastRevision.id !== space.revisionId) {
          const merged = await mergeContents(tx, base, ours, await Content.load(tx, theirsManifest), { main: 'ours' });
          if (!merged.manifest) {
            const conflict = await openConflictChangeRequest(tx, space, lastRevision, theirsManifest, author, merged.conflicts);
            await tx.gitSyncConnection.update({ where: { spaceId }, data: { lastCommit: copy.head } });
            return { revision: null, conflict };
          }
          manifest = merged.manifest;
        }
        const current = (await tx.revision.findUnique({ where: { id: space.revisionId } }))!;
        let revision = space.revisionId;
        if (manifest !== current.manifest) {
          revision = newId();
          await tx.revision.create({
            data: {
              id: revision,
              spaceId,
              parents,
              type: lastRevision && lastRevision.id !== space.revisionId ? 'merge' : 'edits',
              manifest,
              createdById: author,
            },
          });
          await tx.space.update({ where: { id: spaceId }, data: { revisionId: revision } });
          await reindexSpace(tx, spaceId, space.revisionId, revision);
        }
        await tx.gitSyncConnection.update({
          where: { spaceId },
          data: {
            lastCommit: copy.head,
            lastRevisionId: revision,
            paths: paths as Prisma.InputJsonValue,
            config: read.layout.config as unknown as Prisma.InputJsonValue,
          },
        });
        return { revision: revision === space.revisionId ? null : revision };
      },
      { timeout: 60_000 },
    );
  } finally {
    if (!opts.copy) await copy.close();
  }
}

/**
 * A true conflict: Git's side goes to a change request forked from the last synced revision.
 * Returns what the import's outcome says of it (its number and the pages in conflict).
 */
async function openConflictChangeRequest(
  tx: Tx,
  space: Space,
  lastRevision: Revision,
  theirsManifest: string,
  author: string | null,
  conflicts: MergeConflict[],
): Promise<string> {
  const spaceId = space.id;
  const theirs = newId();
  await tx.revision.create({
    data: { id: theirs, spaceId, parents: [lastRevision.id], type: 'edits', manifest: theirsManifest, createdById: author },
  });
  const pages = conflicts.map((c) => c.title || c.page).join(', ');
  const cr = await tx.changeRequest.create({
    data: {
      id: newId(),
      spaceId,
      number: await nextChangeRequestNumber(tx, spaceId),
      status: 'open',
      subject: `Git sync conflict: ${pages}`.slice(0, 100),
      createdById: author ?? space.organizationId,
      revisionId: theirs,
      revisionInitial: lastRevision.id,
      revisionMergedAncestor: lastRevision.id,
      contributors: author ? [author] : [],
    },
  });
  return `change request #${cr.number}: ${pages}`;
}
