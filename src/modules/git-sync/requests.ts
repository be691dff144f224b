import type { Context } from '../../context.js';
import { requireSpace } from '../../auth/permissions.js';
import { badRequest } from '../../errors.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { enqueueJob } from '../../jobs/queue.js';
import { credentialColumns, requestedCredential } from './credentials.js';
import { GitError, parseRemote, type Remote } from './git.js';
import { EXPORT_JOB, IMPORT_JOB, POLL_JOB } from './jobs.js';
import { gitSyncState } from './status.js';
import { newWebhookSecret } from './webhook-secret.js';
import { isObject } from '../../validate.js';

// What queues the sync jobs (jobs.ts): the official importGitRepository / exportToGitRepository
// requests, which record the space's connection first, and the writers of main (afterMainMoved).
type Tx = Prisma.TransactionClient;

interface GitRequest {
  url: string;
  ref: string;
  commitMessage?: string;
  repoProjectDirectory?: string;
  force?: boolean;
  standalone?: boolean;
  /** Lectern's additions for SSH remotes (credentials.ts). */
  sshPrivateKey?: string;
  sshHostKey?: string;
}

function readRequest(input: unknown, direction: 'import' | 'export'): GitRequest {
  if (!isObject(input)) throw badRequest('body', 'must be an object');
  const str = (key: string, required: boolean) => {
    const v = input[key];
    if (v === undefined || v === null) {
      if (required) throw badRequest(key, 'is required');
      return undefined;
    }
    if (typeof v !== 'string' || !v.trim()) throw badRequest(key, 'must be a non-empty string');
    if (v.length > 2048) throw badRequest(key, 'must be at most 2048 characters');
    return v.trim();
  };
  const url = str('url', true)!;
  const ref = str('ref', true)!;
  if (!/^refs\/heads\/[\w./-]+$/.test(ref) || ref.includes('..')) throw badRequest('ref', 'must be a branch ref, refs/heads/<name>');
  const commitMessage = str('commitMessage', direction === 'export');
  const folder = (str('repoProjectDirectory', false) ?? '').replace(/^\.?\/+|\/+$/g, '');
  if (folder.split('/').some((p) => p === '..' || p === '.git'))
    throw badRequest('repoProjectDirectory', 'must be a folder inside the repository');
  for (const key of ['force', 'standalone'] as const)
    if (input[key] !== undefined && typeof input[key] !== 'boolean') throw badRequest(key, 'must be true or false');
  for (const key of ['sshPrivateKey', 'sshHostKey'] as const) {
    const v = input[key];
    // Not str(): its message would be fine, but a key is never trimmed into an error or echoed.
    if (v !== undefined && v !== null && (typeof v !== 'string' || !v.trim() || v.length > 16_384))
      throw badRequest(key, 'must be a non-empty string of at most 16384 characters');
  }
  return {
    url,
    ref,
    commitMessage,
    repoProjectDirectory: folder,
    force: input.force as boolean | undefined,
    standalone: input.standalone as boolean | undefined,
    ...(typeof input.sshPrivateKey === 'string' ? { sshPrivateKey: input.sshPrivateKey } : {}),
    ...(typeof input.sshHostKey === 'string' ? { sshHostKey: input.sshHostKey } : {}),
  };
}

/**
 * importGitRepository / exportToGitRepository: records (or updates) the space's connection from
 * the request (the URL's credential sealed, the URL kept without it) and queues the job. 204.
 * `standalone` is refused: Lectern keeps one connection per space (say so rather than ignore it).
 */
export async function requestGitOperation(ctx: Context, spaceId: string, input: unknown, direction: 'import' | 'export'): Promise<boolean> {
  const space = await requireSpace(ctx, spaceId, 'admin');
  const req = readRequest(input, direction);
  if (req.standalone)
    throw badRequest('standalone', 'standalone operations are not supported by this server: a space has one Git connection');
  let remote: Remote;
  try {
    remote = parseRemote(req.url);
  } catch (error) {
    if (error instanceof GitError) throw badRequest('url', error.message);
    throw error;
  }
  const requested = await requestedCredential(ctx, space.id, remote, req);
  const now = new Date();
  await ctx.prisma.$transaction(async (tx) => {
    const existing = await tx.gitSyncConnection.findUnique({ where: { spaceId } });
    // Another remote, branch or folder: a new connection (the old sync state means nothing there).
    const moved = !!existing && (existing.url !== remote.url || existing.ref !== req.ref || existing.folder !== req.repoProjectDirectory);
    const data = {
      url: remote.url,
      ref: req.ref,
      folder: req.repoProjectDirectory ?? '',
      ...credentialColumns(requested, remote, existing, moved),
      operation: { state: 'running', direction, startedAt: now.toISOString() } as Prisma.InputJsonValue,
      ...(moved ? { lastCommit: null, lastRevisionId: null, paths: {}, config: undefined } : {}),
      // A new connection gets its webhook secret (webhook.ts); an update of the same one keeps it.
      webhookSecret: !moved && existing?.webhookSecret ? existing.webhookSecret : newWebhookSecret(requested.keys, spaceId),
    };
    const conn = existing
      ? await tx.gitSyncConnection.update({ where: { spaceId }, data })
      : await tx.gitSyncConnection.create({ data: { spaceId, createdById: ctx.caller.id, ...data } });
    await tx.space.update({ where: { id: spaceId }, data: { gitSync: gitSyncState(conn) as Prisma.InputJsonValue } });
    const payload = {
      spaceId,
      userId: ctx.caller.id,
      force: req.force ?? false,
      ...(req.commitMessage ? { message: req.commitMessage } : {}),
    };
    await enqueueJob(tx, direction === 'import' ? IMPORT_JOB : EXPORT_JOB, payload, { maxAttempts: 2 });
    if (!existing && conn.pollSeconds > 0)
      await enqueueJob(tx, POLL_JOB, { spaceId }, { runAfter: new Date(now.getTime() + conn.pollSeconds * 1000) });
  });
  return true;
}

/**
 * Called by writers of main (change request merges, live edits) inside their transaction: a
 * connected space gets an export job (one commit per call). One indexed read when not connected.
 */
export async function afterMainMoved(
  tx: Tx,
  event: { spaceId: string; revisionId: string; userId: string; changeRequest?: { number: number; subject: string | null } },
): Promise<void> {
  const conn = await tx.gitSyncConnection.findUnique({ where: { spaceId: event.spaceId }, select: { spaceId: true } });
  if (!conn) return;
  const message = event.changeRequest
    ? `${event.changeRequest.subject || 'Untitled change request'} (#${event.changeRequest.number})`
    : 'Live edits in Lectern';
  await enqueueJob(
    tx,
    EXPORT_JOB,
    { spaceId: event.spaceId, userId: event.userId, revisionId: event.revisionId, message },
    { maxAttempts: 2 },
  );
}
