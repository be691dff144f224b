import type { Context, Services } from '../../context.js';
import { clearedSessionCookie, cookieSecure, newSessionSecret, sessionCookie } from '../../auth/session-cookie.js';
import { hashToken } from '../../auth/tokens.js';
import { notFound } from '../../errors.js';
import { newId } from '../../ids.js';

const DAY_MS = 86_400_000;
const nowUtc = () => new Date();

export interface OpenedSession {
  /** The cookie's value: shown to the browser once, never stored. */
  secret: string;
  id: string;
  expiresAt: Date;
}

/**
 * Opens a browser session for a user: a random secret (only its SHA-256 stored), ending after the
 * absolute limit (LECTERN_SESSION_MAX_DAYS) at the latest, or sooner at `expiresAt`.
 * `ssoOrganizationId` scopes it like an SSO token (a SAML sign-in, which also ends it when such a
 * token would).
 */
export async function openSession(
  services: Services,
  userId: string,
  opts: { userAgent?: string | null; ssoOrganizationId?: string | null; expiresAt?: Date } = {},
): Promise<OpenedSession> {
  const secret = newSessionSecret();
  const id = newId();
  const longest = Date.now() + services.config.sessions.maxDays * DAY_MS;
  const expiresAt = new Date(Math.min(longest, opts.expiresAt?.getTime() ?? longest));
  await services.db.prisma.session.create({
    data: {
      id,
      userId,
      hash: hashToken(secret),
      expiresAt,
      userAgent: opts.userAgent?.slice(0, 512) ?? null,
      ssoOrganizationId: opts.ssoOrganizationId ?? null,
    },
  });
  return { secret, id, expiresAt };
}

/** The Set-Cookie header value that hands an opened session to the browser. */
export function sessionCookieFor(services: Services, request: Request, opened: OpenedSession): string {
  return sessionCookie(opened.secret, Math.round((opened.expiresAt.getTime() - Date.now()) / 1000), cookieSecure(services.config, request));
}

/** Opens a session for the context's request and sets its cookie on the answer; the caller becomes that user. */
export async function signInContext(
  ctx: Context,
  user: Context['caller'],
  opts: { ssoOrganizationId?: string | null } = {},
): Promise<void> {
  const opened = await openSession(ctx, user.id, { userAgent: ctx.request?.headers.get('user-agent'), ...opts });
  // `set`, not `append`: it replaces the removal of an ended session's cookie this answer carried.
  if (ctx.request) ctx.responseHeaders?.set('set-cookie', sessionCookieFor(ctx, ctx.request, opened));
  // The rest of the operation (the User it answers, the audit event) is the signed-in person's.
  ctx.caller = user;
  ctx.session = { ...ctx.session, anonymous: false, browserSessionId: opened.id };
}

/** Signs the current browser session out: revoked, its cookie removed. False for a token (nothing to end). */
export async function signOut(ctx: Context): Promise<boolean> {
  if (ctx.request) ctx.responseHeaders?.append('set-cookie', clearedSessionCookie(cookieSecure(ctx.config, ctx.request)));
  const id = ctx.session.browserSessionId;
  if (!id) return false;
  await ctx.prisma.session.updateMany({ where: { id, userId: ctx.caller.id, revokedAt: null }, data: { revokedAt: nowUtc() } });
  return true;
}

/** The caller's live sessions, most recently seen first (expired and revoked ones are not listed). */
export async function viewerSessions(ctx: Context) {
  const idleFloor = new Date(Date.now() - ctx.config.sessions.idleDays * DAY_MS);
  const rows = await ctx.prisma.session.findMany({
    where: { userId: ctx.caller.id, revokedAt: null, expiresAt: { gt: nowUtc() }, lastSeenAt: { gt: idleFloor } },
    orderBy: [{ lastSeenAt: 'desc' }, { id: 'asc' }],
    take: 200,
  });
  return rows.map((s) => ({ ...s, current: s.id === ctx.session.browserSessionId }));
}

/** Revokes one of the caller's sessions (it stops working at once: every request reads it). */
export async function revokeSession(ctx: Context, id: string): Promise<boolean> {
  const { count } = await ctx.prisma.session.updateMany({
    where: { id, userId: ctx.caller.id, revokedAt: null },
    data: { revokedAt: nowUtc() },
  });
  if (!count) throw notFound('Session');
  if (id === ctx.session.browserSessionId && ctx.request)
    ctx.responseHeaders?.append('set-cookie', clearedSessionCookie(cookieSecure(ctx.config, ctx.request)));
  return true;
}

/** Revokes every session of a user but one (a password change ends the others). */
export async function revokeOtherSessions(services: Services, userId: string, keep: string | null | undefined): Promise<void> {
  await services.db.prisma.session.updateMany({
    where: { userId, revokedAt: null, ...(keep ? { id: { not: keep } } : {}) },
    data: { revokedAt: nowUtc() },
  });
}

/**
 * Periodic maintenance: forgets sessions that ended (revoked, expired or idle past the limit) more
 * than 30 days ago, password links likewise, and OIDC sign-ins never finished. Kept a while first so
 * a person's list of sessions and an audit of them outlive the end by a little.
 */
export async function purgeEndedSessions(services: Pick<Services, 'db' | 'config'>): Promise<void> {
  const prisma = services.db.prisma;
  const before = new Date(Date.now() - 30 * DAY_MS);
  const idleBefore = new Date(before.getTime() - services.config.sessions.idleDays * DAY_MS);
  await prisma.session.deleteMany({
    where: { OR: [{ revokedAt: { lt: before } }, { expiresAt: { lt: before } }, { lastSeenAt: { lt: idleBefore } }] },
  });
  await prisma.passwordLink.deleteMany({ where: { OR: [{ usedAt: { lt: before } }, { expiresAt: { lt: before } }] } });
  await prisma.oidcSignIn.deleteMany({ where: { expiresAt: { lt: new Date() } } });
}
