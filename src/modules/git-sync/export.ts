import type { Services } from '../../context.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { knownOf, layoutOfMain, pathsOf } from './content-layout.js';
import { openCopy } from './credentials.js';
import { GitError } from './git.js';
import { importFromGit } from './import.js';
import { assignPaths, INCLUDES } from './repository-layout.js';
import { writeLayout } from './read.js';

/**
 * Lectern → Git: main's content written as files, one commit authored by the person who merged
 * (message: the change request's subject and number), pushed; a push the remote refuses because
 * the branch moved runs the import first, then pushes again once. Returns the commit (null:
 * nothing to commit).
 */
export async function exportToGit(
  services: Services,
  spaceId: string,
  opts: { message?: string; userId?: string } = {},
  retried = false,
): Promise<string | null> {
  const prisma = services.db.prisma;
  let conn = await prisma.gitSyncConnection.findUnique({ where: { spaceId } });
  if (!conn) return null;
  const copy = await openCopy(services, conn);
  try {
    // The branch moved since the last sync: bring its commits in first (three-way), then export.
    if (copy.head && conn.lastCommit && copy.head !== conn.lastCommit) {
      await importFromGit(services, spaceId, { copy, userId: opts.userId });
      conn = (await prisma.gitSyncConnection.findUnique({ where: { spaceId } }))!;
    }
    const space = (await prisma.space.findUnique({ where: { id: spaceId } }))!;
    const revision = (await prisma.revision.findUnique({ where: { id: space.revisionId } }))!;
    const layout = await layoutOfMain(services, conn, revision.manifest);
    const files = await writeLayout(layout, conn.folder);
    const root = layout.config.root;
    const under = (p: string) => (root ? `${root}/${p}` : p);
    // What the previous sync owned, and GitBook's own files: replaced; anything else in the folder stays.
    const existing = (await copy.files(root)).map((f) => f.path);
    const owned = new Set(
      [...Object.keys(knownOf(conn).pages ?? {}), ...Object.keys(knownOf(conn).files ?? {})].filter((p) => !p.startsWith('#')).map(under),
    );
    const remove = existing.filter(
      (p) =>
        owned.has(p) ||
        p === under(layout.config.summary) ||
        p.startsWith(under('.gitbook/assets/')) ||
        p.startsWith(under(`${INCLUDES}/`)),
    );
    await copy.replace(files, remove);
    const user = opts.userId ? await prisma.user.findUnique({ where: { id: opts.userId } }) : null;
    const commit = await copy.commit(opts.message || 'Update from Lectern', {
      name: user?.displayName ?? 'Lectern',
      email: user?.email ?? 'lectern@localhost',
    });
    if (commit) {
      try {
        await copy.push();
      } catch (error) {
        if (error instanceof GitError && error.kind === 'rejected' && !retried) {
          await copy.close();
          // Someone pushed meanwhile: their commits come in first, then this export again.
          await importFromGit(services, spaceId, { userId: opts.userId });
          return exportToGit(services, spaceId, opts, true);
        }
        throw error;
      }
    }
    const assigned = pathsOf(layout, assignPaths(layout));
    await prisma.gitSyncConnection.update({
      where: { spaceId },
      data: { lastCommit: copy.head, lastRevisionId: space.revisionId, paths: assigned as Prisma.InputJsonValue },
    });
    return commit;
  } finally {
    await copy.close();
  }
}
