import type { Context, Services } from '../../context.js';
import { requireSpace } from '../../auth/permissions.js';
import { notFound } from '../../errors.js';
import type { GitSyncConnection, Prisma } from '../../generated/prisma/client.js';

/**
 * Where a space's sync stands: the latest operation (running, success, failure with a message that
 * says what to do), on the connection and on the space's `gitSync` (the official GitSyncState).
 */
export interface Operation {
  state: 'running' | 'failure' | 'success' | 'timeout';
  direction: 'import' | 'export';
  startedAt: string;
  endedAt?: string;
  error?: string;
}

/** The official GitSyncState of a connection (no credential in it, ever). */
export function gitSyncState(conn: GitSyncConnection) {
  const url = conn.url.startsWith('/') ? `file://${conn.url}` : conn.url;
  // The repository's path: a URL's path (https://host/owner/repo.git, ssh://git@host:2222/owner/repo.git),
  // what follows the colon of an scp-like SSH remote (git@host:owner/repo.git), or the local path.
  const isUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(conn.url);
  const repoPath = isUrl
    ? URL.canParse(conn.url)
      ? new URL(conn.url).pathname
      : conn.url
    : conn.url.startsWith('/')
      ? conn.url
      : conn.url.replace(/^[^:]*:/, '');
  const repoName = repoPath
    .replace(/\.git$/, '')
    .split('/')
    .filter(Boolean)
    .slice(-2)
    .join('/');
  return {
    repoName,
    installationId: conn.spaceId,
    // Lectern's own remote-and-credential connection: shown as GitHub's provider (the only values the official enum has).
    installationProvider: 'github',
    installationStatus:
      conn.operation && (conn.operation as unknown as Operation).error?.startsWith('the remote refused the credential')
        ? 'unauthenticated'
        : 'active',
    url: `${url.replace(/\/$/, '')}${conn.folder ? `/tree/${conn.ref.replace('refs/heads/', '')}/${conn.folder}` : ''}`,
    ...(conn.operation ? { operation: conn.operation } : {}),
    operationTimeout: 120_000,
    updatedAt: conn.updatedAt.toISOString(),
    // Lectern's additions (not secret): where the sync stands.
    ref: conn.ref,
    folder: conn.folder,
    lastCommit: conn.lastCommit,
    // SSH remotes: the deploy key's PUBLIC key (to add to the repository) and the host key trusted.
    ...(conn.sshPublicKey ? { sshPublicKey: conn.sshPublicKey } : {}),
    ...(conn.sshHostKey ? { sshHostKey: conn.sshHostKey } : {}),
  };
}

export async function getSpaceGitInfo(ctx: Context, spaceId: string) {
  await requireSpace(ctx, spaceId, 'read');
  const conn = await ctx.prisma.gitSyncConnection.findUnique({ where: { spaceId } });
  if (!conn) throw notFound('Git Sync configuration');
  return gitSyncState(conn);
}

/** A sync job's outcome, recorded on the connection and on the space. */
export async function recordOutcome(
  services: Services,
  spaceId: string,
  direction: 'import' | 'export',
  outcome: { error?: string; startedAt: Date },
) {
  const operation: Operation = {
    state: outcome.error ? 'failure' : 'success',
    direction,
    startedAt: outcome.startedAt.toISOString(),
    endedAt: new Date().toISOString(),
    ...(outcome.error ? { error: outcome.error } : {}),
  };
  const prisma = services.db.prisma;
  const conn = await prisma.gitSyncConnection
    .update({ where: { spaceId }, data: { operation: operation as unknown as Prisma.InputJsonValue } })
    .catch(() => null);
  if (conn) await prisma.space.update({ where: { id: spaceId }, data: { gitSync: gitSyncState(conn) as Prisma.InputJsonValue } });
}
