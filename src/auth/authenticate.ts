import type { Context } from '../context.js';
import type { Database } from '../db/database.js';
import type { User } from '../generated/prisma/client.js';
import { hashToken } from './tokens.js';

/**
 * Authentication and rate limiting in ONE statement (every request runs it): the token's user and
 * session (SSO tokens expire and carry the organization they reach), and the token's request count
 * in the current window, incremented. The counters live in PostgreSQL, so several Lectern
 * processes on one database share them.
 */
export interface RateLimit {
  limit: number;
  windowSeconds: number;
}

export interface RateState {
  limit: number;
  remaining: number;
  /** Unix time (seconds) when the window ends. */
  reset: number;
  exceeded: boolean;
}

export interface Authenticated {
  caller: User;
  session: Context['session'];
  rate: RateState | null;
}

type Row = User & { __ssoOrganizationId: string | null; __count: number | null };

export async function authenticate(db: Database, token: string, rate: RateLimit, now = Date.now()): Promise<Authenticated | null> {
  const hash = hashToken(token);
  const windowStart = Math.floor(now / 1000 / rate.windowSeconds) * rate.windowSeconds;
  const limited = rate.limit > 0;
  const { rows } = await db.pool.query<Row>(
    `WITH caller AS (
       SELECT u.*, t."ssoOrganizationId" AS "__ssoOrganizationId"
       FROM "ApiToken" t JOIN "User" u ON u.id = t."userId"
       WHERE t.hash = $1 AND (t."expiresAt" IS NULL OR t."expiresAt" > now())
     ), counted AS (
       INSERT INTO "RateLimitWindow" (key, "windowStart", count)
       SELECT $1, $2, 1 FROM caller WHERE $3
       ON CONFLICT (key, "windowStart") DO UPDATE SET count = "RateLimitWindow".count + 1
       RETURNING count
     )
     SELECT caller.*, (SELECT count FROM counted) AS "__count" FROM caller`,
    [hash, windowStart, limited],
  );
  const row = rows[0];
  if (!row) return null;
  const { __ssoOrganizationId: ssoOrganizationId, __count: count, ...caller } = row;
  const used = count ?? 0;
  return {
    caller: caller as User,
    session: { ssoOrganizationId },
    rate: limited ? { limit: rate.limit, remaining: Math.max(0, rate.limit - used), reset: windowStart + rate.windowSeconds, exceeded: used > rate.limit } : null,
  };
}

/** The headers GitBook's clients read. */
export function rateHeaders(rate: RateState | null, now = Date.now()): Record<string, string> {
  if (!rate) return {};
  return {
    'x-ratelimit-limit': String(rate.limit),
    'x-ratelimit-remaining': String(rate.remaining),
    'x-ratelimit-reset': String(rate.reset),
    ...(rate.exceeded ? { 'retry-after': String(Math.max(1, rate.reset - Math.floor(now / 1000))) } : {}),
  };
}

/** Removes finished windows (periodic maintenance). */
export async function purgeRateLimitWindows(db: Database, windowSeconds: number, now = Date.now()): Promise<void> {
  await db.pool.query('DELETE FROM "RateLimitWindow" WHERE "windowStart" < $1', [Math.floor(now / 1000) - 2 * windowSeconds]);
}
