import type { Context } from '../../context.js';
import { requireSpace } from '../../auth/permissions.js';
import { badRequest, notFound } from '../../errors.js';
import { Prisma } from '../../generated/prisma/client.js';
import { bodyRefusal, readBody } from '../../http/body.js';
import { errorResponse, json } from '../../http/respond.js';
import type { HttpRoute, RouteCall } from '../../http/routes.js';
import { enqueueJob } from '../../jobs/queue.js';
import { serverKeys } from '../../secrets.js';
import { IMPORT_JOB, POLL_JOB } from './jobs.js';
import { gitSyncState } from './status.js';
import { newWebhookSecret, openWebhookSecret, verifyDelivery } from './webhook-secret.js';

/**
 * The push webhook of a connected space: `POST /git-sync/webhooks/<spaceId>`, outside /v1 (the
 * provider sends no Lectern token: the delivery's signature is its authentication), one URL for
 * GitHub, GitLab and Gitea/Forgejo (webhook-secret.ts tells them apart by their headers).
 *
 * - no connection, no secret, a missing or wrong signature: 401, the same answer for each (the
 *   URL tells nothing about which spaces are connected);
 * - a signed delivery of another event (GitHub's `ping`, tag pushes, issues…): 202, ignored;
 * - a push to another branch than the connected one, a branch deletion, or the commit Lectern
 *   already synced (its own export coming back): 202, ignored, with the reason;
 * - a push to the connected branch: the Git → Lectern job is queued (once: a pending one is
 *   reused), 202. The job itself fetches the branch: nothing of the payload but `ref` and `after`
 *   is trusted.
 * Form-encoded GitHub deliveries (`payload=<json>`) are read too. Bodies above 5 MB: 413.
 */
const MAX_BODY = 5 * 1024 * 1024;
const unauthorized = () => errorResponse(401, 'this delivery is not signed with the webhook secret of a connected space');

function payloadOf(request: Request, body: Uint8Array): Record<string, unknown> | null {
  const text = new TextDecoder().decode(body);
  const type = request.headers.get('content-type') ?? '';
  try {
    const raw = type.includes('application/x-www-form-urlencoded') ? (new URLSearchParams(text).get('payload') ?? '') : text;
    const value = JSON.parse(raw) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

async function receive({ services, request, params }: RouteCall): Promise<Response> {
  let body: Uint8Array;
  try {
    body = await readBody(request, MAX_BODY);
  } catch (error) {
    const refusal = bodyRefusal(error);
    if (refusal) return refusal;
    throw error;
  }
  const spaceId = params.spaceId!;
  const prisma = services.db.prisma;
  const conn = await prisma.gitSyncConnection.findUnique({ where: { spaceId } });
  if (!conn?.webhookSecret) return unauthorized();
  const secret = openWebhookSecret(await serverKeys(services), spaceId, conn.webhookSecret);
  if (!secret || !verifyDelivery(request.headers, body, secret)) return unauthorized();

  const event =
    request.headers.get('x-github-event') ??
    request.headers.get('x-gitea-event') ??
    request.headers.get('x-forgejo-event') ??
    request.headers.get('x-gitlab-event') ??
    '';
  if (event !== 'push' && event !== 'Push Hook')
    return json(202, { status: 'ignored', reason: `the ${event || 'unnamed'} event does not start a sync: only pushes do` });
  const payload = payloadOf(request, body);
  if (!payload) return errorResponse(400, 'body: must be the JSON push payload');
  if (typeof payload.ref !== 'string') return errorResponse(400, 'ref: the push payload has no ref');
  const after = typeof payload.after === 'string' ? payload.after : undefined;
  if (payload.ref !== conn.ref) return json(202, { status: 'ignored', reason: `a push to ${payload.ref}; this space follows ${conn.ref}` });
  if (after && /^0+$/.test(after)) return json(202, { status: 'ignored', reason: `${conn.ref} was deleted: the space keeps its content` });
  if (after && after === conn.lastCommit) return json(202, { status: 'ignored', reason: 'this commit is already synced' });

  const pending = await prisma.job.findFirst({
    where: { kind: IMPORT_JOB, status: 'pending', payload: { path: ['spaceId'], equals: spaceId } },
    select: { id: true },
  });
  if (!pending) await enqueueJob(prisma, IMPORT_JOB, { spaceId }, { maxAttempts: 2 });
  return json(202, { status: 'queued' });
}

export const gitSyncHttpRoutes: HttpRoute[] = [{ method: 'POST', path: '/git-sync/webhooks/:spaceId', handle: receive }];

// ---------------------------------------------------------------------------------------------
// Lectern's additions under /v1 (routes.ts): the webhook's URL and secret, the settings, disconnect
// ---------------------------------------------------------------------------------------------

async function connectionOf(ctx: Context, spaceId: string) {
  await requireSpace(ctx, spaceId, 'admin');
  const conn = await ctx.prisma.gitSyncConnection.findUnique({ where: { spaceId } });
  if (!conn) throw notFound('Git Sync configuration');
  return conn;
}

/**
 * The webhook to configure at the provider: URL, secret, content type, events. Space admins only
 * (the secret is shown again on each call rather than once: the official importGitRepository
 * answers 204, so there is no answer to show it in, and an admin may already read the sealed
 * credential's effects; `regenerate` replaces it).
 */
export async function spaceGitWebhook(ctx: Context, spaceId: string, regenerate = false) {
  let conn = await connectionOf(ctx, spaceId);
  const keys = await serverKeys(ctx);
  let secret = openWebhookSecret(keys, spaceId, conn.webhookSecret);
  if (regenerate || !secret) {
    conn = await ctx.prisma.gitSyncConnection.update({ where: { spaceId }, data: { webhookSecret: newWebhookSecret(keys, spaceId) } });
    secret = openWebhookSecret(keys, spaceId, conn.webhookSecret)!;
  }
  return {
    object: 'git-webhook',
    url: `${ctx.config.publicUrl.replace(/\/$/, '')}/git-sync/webhooks/${spaceId}`,
    secret,
    contentType: 'application/json',
    events: ['push'],
    ref: conn.ref,
  };
}

/** PATCH /spaces/:spaceId/git: `pollSeconds` (0 turns polling off; else 30..86400). Answers the state. */
export async function updateGitSync(ctx: Context, spaceId: string, input: unknown) {
  const conn = await connectionOf(ctx, spaceId);
  if (!input || typeof input !== 'object' || Array.isArray(input)) throw badRequest('body', 'must be an object');
  const body = input as Record<string, unknown>;
  for (const key of Object.keys(body)) if (key !== 'pollSeconds') throw badRequest(key, 'is not a setting of Git Sync (pollSeconds)');
  const poll = body.pollSeconds;
  if (poll === undefined) return gitSyncState(conn);
  if (typeof poll !== 'number' || !Number.isInteger(poll) || (poll !== 0 && (poll < 30 || poll > 86_400)))
    throw badRequest('pollSeconds', 'must be 0 (off) or an integer from 30 to 86400');
  return ctx.prisma.$transaction(async (tx) => {
    const updated = await tx.gitSyncConnection.update({ where: { spaceId }, data: { pollSeconds: poll } });
    // Turned on (or shortened): a poll chain starts now; the running chain of the old interval ends
    // at its next turn when polling is off, and otherwise a second chain is avoided by the check below.
    if (poll > 0 && (conn.pollSeconds === 0 || poll < conn.pollSeconds)) {
      const waiting = await tx.job.findMany({
        where: { kind: POLL_JOB, status: 'pending', payload: { path: ['spaceId'], equals: spaceId } },
        select: { id: true },
      });
      if (waiting.length)
        await tx.job.updateMany({
          where: { id: { in: waiting.map((j) => j.id) } },
          data: { runAfter: new Date(Date.now() + poll * 1000) },
        });
      else await enqueueJob(tx, POLL_JOB, { spaceId }, { runAfter: new Date(Date.now() + poll * 1000) });
    }
    await tx.space.update({ where: { id: spaceId }, data: { gitSync: gitSyncState(updated) as Prisma.InputJsonValue } });
    return gitSyncState(updated);
  });
}

/** DELETE /spaces/:spaceId/git: the space is no longer synced (its content stays); the credential and secret are gone. */
export async function disconnectGitSync(ctx: Context, spaceId: string): Promise<boolean> {
  await requireSpace(ctx, spaceId, 'admin');
  return ctx.prisma.$transaction(async (tx) => {
    const { count } = await tx.gitSyncConnection.deleteMany({ where: { spaceId } });
    if (!count) return false;
    // Queued syncs find no connection and end; the space's gitSync state is cleared.
    await tx.job.deleteMany({
      where: { kind: { in: [IMPORT_JOB, POLL_JOB] }, status: 'pending', payload: { path: ['spaceId'], equals: spaceId } },
    });
    await tx.space.update({ where: { id: spaceId }, data: { gitSync: Prisma.DbNull } });
    return true;
  });
}
