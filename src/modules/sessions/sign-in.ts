import { createHash, randomBytes } from 'node:crypto';
import { GraphQLError } from 'graphql';
import type { Context, Services } from '../../context.js';
import { SIGN_IN_WINDOW_SECONDS } from '../../auth/authenticate.js';
import { requireOrg } from '../../auth/permissions.js';
import { hashToken } from '../../auth/tokens.js';
import { badRequest, forbidden, LecternError, notFound } from '../../errors.js';
import type { User } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import { revokeOtherSessions, signInContext } from './browser-sessions.js';
import { checkPassword, hashPassword, verifyPassword } from './passwords.js';

const WRONG = 'Email or password is incorrect';
/** How long a one-time password link stays usable. */
export const PASSWORD_LINK_HOURS = { reset: 2, set: 7 * 24 } as const;

/**
 * Counts one sign-in attempt against the account and the client address, in RateLimitWindow (the
 * table the request budget uses, so every process shares the counts): 15-minute windows, keys
 * `signin:account:<SHA-256 of the email>` and `signin:address:<address>`. Counted before the password
 * is checked, in one statement, so parallel guesses cannot slip past the limit. Over either limit:
 * RATE_LIMITED with `retryAfter` (seconds).
 */
async function countAttempt(services: Services, email: string, address: string | null | undefined): Promise<void> {
  const { perAccount, perAddress } = services.config.signInLimits;
  const keys: [string, number][] = [];
  if (perAccount > 0) keys.push([`signin:account:${createHash('sha256').update(email).digest('hex')}`, perAccount]);
  if (perAddress > 0) keys.push([`signin:address:${address ?? 'unknown'}`, perAddress]);
  if (!keys.length) return;
  const now = Date.now() / 1000;
  const windowStart = Math.floor(now / SIGN_IN_WINDOW_SECONDS) * SIGN_IN_WINDOW_SECONDS;
  const { rows } = await services.db.pool.query<{ key: string; count: number }>(
    `INSERT INTO "RateLimitWindow" (key, "windowStart", count) SELECT k, $2, 1 FROM unnest($1::text[]) AS k
     ON CONFLICT (key, "windowStart") DO UPDATE SET count = "RateLimitWindow".count + 1 RETURNING key, count`,
    [keys.map(([key]) => key), windowStart],
  );
  const limitOf = new Map(keys);
  if (rows.some((r) => r.count > limitOf.get(r.key)!)) {
    const retryAfter = Math.max(1, Math.ceil(windowStart + SIGN_IN_WINDOW_SECONDS - now));
    throw new GraphQLError(`Too many sign-in attempts; retry after ${retryAfter} s`, {
      extensions: { code: 'RATE_LIMITED', retryAfter, http: { status: 429, headers: { 'retry-after': String(retryAfter) } } },
    });
  }
}

/** Password sign-in: the session cookie is set on the answer. Which of email or password was wrong is not said. */
export async function signIn(ctx: Context, emailInput: string, password: string): Promise<User> {
  const email = emailInput.trim().toLowerCase();
  await countAttempt(ctx, email, ctx.session.clientAddress);
  const found = email ? await ctx.prisma.user.findUnique({ where: { email }, include: { password: true } }) : null;
  const ok = await verifyPassword(found?.password?.hash ?? null, password.slice(0, 1024));
  if (!found || !ok) throw new LecternError('UNAUTHENTICATED', WRONG);
  const { password: _hash, ...user } = found;
  await signInContext(ctx, user);
  return user;
}

/** A one-time link's token (shown once, in the URL); only its SHA-256 is kept. */
const newLinkToken = () => `lpl_${randomBytes(24).toString('base64url')}`;

/**
 * An organization admin's one-time link for a member to set (no password yet: an invited person)
 * or reset their password. Earlier unused links of that person stop working.
 */
export async function createPasswordResetLink(ctx: Context, organizationId: string, userId: string) {
  await requireOrg(ctx, organizationId, 'admin');
  const member = await ctx.prisma.member.findUnique({
    where: { organizationId_userId: { organizationId, userId } },
    include: { user: { select: { password: { select: { userId: true } } } } },
  });
  if (!member) throw notFound('Member');
  // A person who also belongs to an organization the caller does not administer is not theirs to
  // take over: a link signs in to every organization of the account.
  const elsewhere = await ctx.prisma.member.findMany({
    where: { userId, organizationId: { not: organizationId } },
    select: { organizationId: true },
  });
  if (elsewhere.length && userId !== ctx.caller.id) {
    const administered = await ctx.prisma.member.count({
      where: { userId: ctx.caller.id, role: 'admin', organizationId: { in: elsewhere.map((m) => m.organizationId) } },
    });
    if (administered < elsewhere.length)
      throw forbidden(
        'This person also belongs to an organization you do not administer: only they (or the server operator) can change their password',
      );
  }
  const purpose = member.user.password ? 'reset' : 'set';
  const token = newLinkToken();
  const expiresAt = new Date(Date.now() + PASSWORD_LINK_HOURS[purpose] * 3600_000);
  await ctx.prisma.$transaction([
    ctx.prisma.passwordLink.updateMany({ where: { userId, usedAt: null }, data: { usedAt: new Date() } }),
    ctx.prisma.passwordLink.create({ data: { id: newId(), userId, hash: hashToken(token), purpose, expiresAt } }),
  ]);
  return { url: `${ctx.config.publicUrl}/app/reset-password?token=${encodeURIComponent(token)}`, expiresAt, purpose };
}

/**
 * Uses a one-time link: the password is set, the link spent (a second use fails, also when two
 * arrive at once: the UPDATE is conditional), the person's other sessions end, and this browser
 * is signed in.
 */
export async function resetPassword(ctx: Context, token: string, password: string): Promise<User> {
  checkPassword('password', password);
  const hash = await hashPassword(password);
  const user = await ctx.prisma.$transaction(async (tx) => {
    const spent = await tx.passwordLink.updateManyAndReturn({
      where: { hash: hashToken(token), usedAt: null, expiresAt: { gt: new Date() } },
      data: { usedAt: new Date() },
    });
    if (spent.length !== 1) return null;
    const userId = spent[0]!.userId;
    await tx.userPassword.upsert({ where: { userId }, create: { userId, hash }, update: { hash } });
    return tx.user.findUniqueOrThrow({ where: { id: userId } });
  });
  if (!user) throw badRequest('token', 'this link is invalid, expired or already used: ask an administrator for a new one');
  await revokeOtherSessions(ctx, user.id, null);
  await signInContext(ctx, user);
  return user;
}

/**
 * Changes the caller's password. The current one is required when one is set (a stolen session
 * alone cannot take the account over); the caller's other sessions end.
 */
export async function changePassword(ctx: Context, currentPassword: string | null | undefined, newPassword: string): Promise<boolean> {
  checkPassword('newPassword', newPassword);
  const userId = ctx.caller.id;
  const stored = await ctx.prisma.userPassword.findUnique({ where: { userId } });
  if (stored) {
    if (!currentPassword) throw badRequest('currentPassword', 'is required to change a password');
    await countAttempt(ctx, ctx.caller.email, ctx.session.clientAddress);
    if (!(await verifyPassword(stored.hash, currentPassword))) throw badRequest('currentPassword', 'is incorrect');
  }
  await storePassword(ctx, userId, newPassword);
  await revokeOtherSessions(ctx, userId, ctx.session.browserSessionId);
  return true;
}

/** Sets a user's password outright (the CLI, run by the operator); their browser sessions end. Answers how many. */
export async function setPassword(services: Pick<Services, 'db'>, userId: string, password: string): Promise<number> {
  checkPassword('password', password);
  await storePassword(services, userId, password);
  const { count } = await services.db.prisma.session.updateMany({ where: { userId, revokedAt: null }, data: { revokedAt: new Date() } });
  return count;
}

async function storePassword(services: Pick<Services, 'db'>, userId: string, password: string): Promise<void> {
  const hash = await hashPassword(password);
  await services.db.prisma.userPassword.upsert({ where: { userId }, create: { userId, hash }, update: { hash } });
}
