import type { Context } from '../context.js';
import type { Database } from '../db/database.js';
import type { User } from '../generated/prisma/client.js';
import type { ServerKeys } from '../secrets.js';
import { columnsOf, prepared, rowOf, selectRowGroups, selectRows, type Prepared } from '../db/rows.js';
import { contentRoleRowOf, contentRoleSql, type OrganizationAccess, type SpaceAccess } from './access-rows.js';
import { readSiteToken, SITE_TOKEN_PREFIX } from './site-token.js';
import type { Statement } from '../db/early-reads.js';
import { hashToken } from './tokens.js';

/**
 * Authentication and rate limiting in ONE statement (every request runs it): the token's user and
 * session (SSO tokens expire and carry the organization they reach), and the USER's request count
 * in the current window, incremented, with the previous window's count. The budget is per user,
 * not per token: a new token (each SSO sign-in mints one) does not bring a new budget. The counters
 * live in PostgreSQL, so several Lectern processes on one database share them.
 *
 * Sliding window (the previous window's count weighted by how much of it still overlaps the last
 * `windowSeconds`): a fixed window let 2 × limit through around a window boundary; here the
 * requests just before the boundary still count just after it.
 */
export interface RateLimit {
  limit: number;
  windowSeconds: number;
}

export interface RateState {
  limit: number;
  remaining: number;
  /** Unix time (seconds) when the current window ends. */
  reset: number;
  exceeded: boolean;
  /** Seconds until one more request would be accepted (when exceeded). */
  retryAfter: number;
}

export interface Authenticated {
  caller: User;
  session: Context['session'];
  rate: RateState | null;
  /**
   * Whose share of the server this request uses (the per-organization concurrency gate): the
   * organization an SSO token reaches, else the caller's first organization (earliest joined), else
   * the user alone.
   */
  tenant: string;
  /**
   * Asked with `spaceId` (a `/v1/spaces/:id…` request): the rows `requireSpace` decides from (the
   * space, its organization, the caller's membership), read by the same statement; null when there
   * is no such space.
   */
  spaceAccess?: SpaceAccess | null;
  /**
   * Asked with `organizationId` (a `/v1/orgs/:id…` request): the organization and the caller's
   * membership, read by the same statement.
   */
  organizationAccess?: OrganizationAccess;
  /** Asked with a `rider`: its rows, read by the same statement (src/db/early-reads.ts). */
  riderRows?: unknown[];
}

type Row = User & {
  __ssoOrganizationId: string | null;
  __tokenId: string;
  __count: number | null;
  __previous: number | null;
  __tenant: string | null;
};

/** The sliding-window state after this request (`current` includes it). */
export function slidingWindow(rate: RateLimit, windowStart: number, previous: number, current: number, now: number): RateState {
  const W = rate.windowSeconds;
  const elapsed = Math.min(1, Math.max(0, (now / 1000 - windowStart) / W));
  const estimate = previous * (1 - elapsed) + current;
  const exceeded = estimate > rate.limit;
  // When would one more request fit? Within this window once enough of the previous one has slid
  // out; else in the next one, once enough of this one has.
  let at: number;
  if (current + 1 <= rate.limit) at = windowStart + W * Math.max(elapsed, 1 - (rate.limit - current - 1) / Math.max(previous, 1));
  else at = windowStart + W + W * Math.max(0, 1 - (rate.limit - 1) / current);
  return {
    limit: rate.limit,
    remaining: Math.max(0, Math.floor(rate.limit - estimate)),
    reset: windowStart + W,
    exceeded,
    retryAfter: Math.max(1, Math.ceil(at - now / 1000)),
  };
}

/**
 * The statement: the caller (by token hash, or by id for a site token), the token's last use noted
 * (at most once a minute), the rate-limit counter incremented, the previous window's count and the
 * caller's first organization. What the request's path names rides on it (left joins on the one
 * caller row, `$6`) rather than going in statements of its own: with `space`, a space's access rows
 * with the caller's content role inputs on it (src/auth/access-rows.ts), two round trips fewer on
 * every /v1/spaces/:id… request; with `organization`, the organization and the caller's membership,
 * two fewer on every /v1/orgs/:id… request. Prepared (every request sends it), and costed so that
 * PostgreSQL keeps one plan for it: parsing and planning were 3–4 times its execution
 * (test/db/generic-plans.test.ts).
 */
function authenticationStatement(scope: keyof typeof SCOPE_JOINS, rider?: string): Prepared {
  // `LIMIT 1` (the two branches exclude each other: at most one row) tells the planner so; without
  // it the plan without values was costed for two callers and PostgreSQL planned every execution anew.
  return prepared(`WITH RECURSIVE caller AS (SELECT * FROM (
       SELECT u.id, ${rowOf('User', 'u')}, t."ssoOrganizationId" AS "__ssoOrganizationId", t.id AS "__tokenId"
       FROM "ApiToken" t JOIN "User" u ON u.id = t."userId"
       WHERE $5::text IS NULL AND t.hash = $1 AND (t."expiresAt" IS NULL OR t."expiresAt" > now())
       UNION ALL
       SELECT u.id, ${rowOf('User', 'u')}, NULL::text, NULL::text FROM "User" u WHERE u.id = $5::text
     ) callers LIMIT 1), used AS (
       UPDATE "ApiToken" t SET "lastUsedAt" = now() AT TIME ZONE 'UTC' FROM caller
       WHERE t.id = caller."__tokenId" AND (t."lastUsedAt" IS NULL OR t."lastUsedAt" < now() AT TIME ZONE 'UTC' - interval '1 minute')
     ), counted AS (
       INSERT INTO "RateLimitWindow" (key, "windowStart", count)
       SELECT 'user:' || caller.id, $2, 1 FROM caller WHERE $3
       ON CONFLICT (key, "windowStart") DO UPDATE SET count = "RateLimitWindow".count + 1
       RETURNING count
     )${scope === 'space' ? `, req(u, k, id) AS (SELECT caller.id, 's', $6::text FROM caller), ${contentRoleSql.ctes}` : ''}
     SELECT caller.*, (SELECT count FROM counted) AS "__count",
       (SELECT w.count FROM "RateLimitWindow" w WHERE $3 AND w.key = 'user:' || caller.id AND w."windowStart" = $2::int - $4::int) AS "__previous",
       (SELECT m."organizationId" FROM "Member" m WHERE m."userId" = caller.id ORDER BY m."joinedAt", m."organizationId" LIMIT 1) AS "__tenant"${
         SCOPE_COLUMNS[scope]
       }${rider ? `, NULL AS "__next", (SELECT coalesce(json_agg(x), '[]'::json) FROM (${rider}) x) AS "__rows"` : ''}
     FROM caller${SCOPE_JOINS[scope]}`);
}
/** The column groups (each after a `NULL AS "__next"`) of what rides on the authentication. */
const SCOPE_COLUMNS = {
  none: '',
  space: `, NULL AS "__next", ${rowOf('Space', 's')}, NULL AS "__next", ${rowOf('Organization', 'o')}, NULL AS "__next", ${rowOf('Member', 'sm')}, NULL AS "__next", ${contentRoleSql.columns}`,
  organization: `, NULL AS "__next", ${rowOf('Organization', 'o')}, NULL AS "__next", ${rowOf('Member', 'om')}`,
};
const SCOPE_JOINS = {
  none: '',
  space: `
     LEFT JOIN "Space" s ON s.id = $6
     LEFT JOIN "Organization" o ON o.id = s."organizationId"
     LEFT JOIN "Member" sm ON sm."organizationId" = s."organizationId" AND sm."userId" = caller.id
     LEFT JOIN req r ON r.u = caller.id`,
  organization: `
     LEFT JOIN "Organization" o ON o.id = $6
     LEFT JOIN "Member" om ON om."organizationId" = o.id AND om."userId" = caller.id`,
};
const AUTHENTICATE = authenticationStatement('none');
const AUTHENTICATE_WITH_SPACE = authenticationStatement('space');
const AUTHENTICATE_WITH_ORGANIZATION = authenticationStatement('organization');
/** The values the authentication of a space request binds before a rider's ($1…$6). */
const AUTHENTICATION_VALUES = 6;
/** One prepared statement per rider text (riders have fixed texts: src/db/early-reads.ts). */
const withRiders = new Map<string, Prepared>();
const authenticationWithRider = (text: string): Prepared => {
  let statement = withRiders.get(text);
  if (!statement) {
    const renumbered = text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + AUTHENTICATION_VALUES}`);
    statement = authenticationStatement('space', renumbered);
    withRiders.set(text, statement);
  }
  return statement;
};

/**
 * `keys`: the server's keys, to check a site token (`lst_…`, src/auth/site-token.ts): signed rather
 * than stored, its caller is the user who resolved the URL (their rate budget), its session scoped
 * to the site. Without keys a site token is no token.
 */
export async function authenticate(
  db: Database,
  token: string,
  rate: RateLimit,
  now = Date.now(),
  keys?: ServerKeys,
  opts: { spaceId?: string | null; organizationId?: string | null; rider?: Statement | null; tokenHash?: string } = {},
): Promise<Authenticated | null> {
  const site = token.startsWith(SITE_TOKEN_PREFIX) ? (keys ? readSiteToken(keys, token, now) : null) : undefined;
  if (site === null) return null;
  // `tokenHash`: the request's own `hashToken(token)`, computed once for everything that needs it.
  const hash = opts.tokenHash ?? hashToken(token);
  const windowStart = Math.floor(now / 1000 / rate.windowSeconds) * rate.windowSeconds;
  const limited = rate.limit > 0;
  const spaceId = site ? null : (opts.spaceId ?? null);
  const organizationId = site || spaceId ? null : (opts.organizationId ?? null);
  const values = [hash, windowStart, limited, rate.windowSeconds, site?.userId ?? null];
  let row: Row | undefined;
  let spaceAccess: SpaceAccess | null | undefined;
  let organizationAccess: OrganizationAccess | undefined;
  let riderRows: unknown[] | undefined;
  if (spaceId) {
    const rider = opts.rider ?? null;
    const statement = rider ? authenticationWithRider(rider.text) : AUTHENTICATE_WITH_SPACE;
    const [groups] = await selectRowGroups(db.pool, statement, [...values, spaceId, ...(rider?.values ?? [])]);
    row = groups?.[0] as Row | undefined;
    const [, space, organization, member, role, rode] = groups ?? [];
    if (row && rider) riderRows = (rode?.__rows as unknown[] | undefined) ?? [];
    const contentRole = contentRoleRowOf(role?.__level as string | null, role?.__grant as string | null);
    if (row)
      spaceAccess =
        space && organization
          ? { space: space as never, organization: organization as never, member: (member ?? null) as never, contentRole }
          : null;
  } else if (organizationId) {
    const [groups] = await selectRowGroups(db.pool, AUTHENTICATE_WITH_ORGANIZATION, [...values, organizationId]);
    row = groups?.[0] as Row | undefined;
    const [, organization, member] = groups ?? [];
    if (row) organizationAccess = { id: organizationId, organization: (organization ?? null) as never, member: (member ?? null) as never };
  } else {
    row = (await selectRowGroups(db.pool, AUTHENTICATE, values))[0]?.[0] as Row | undefined;
  }
  if (!row) return null;
  const {
    __ssoOrganizationId: ssoOrganizationId,
    __tokenId: tokenId,
    __count: count,
    __previous: previous,
    __tenant: firstOrganization,
    ...caller
  } = row;
  if (site) {
    return {
      caller: caller as User,
      session: { ssoOrganizationId: null, tokenId: null, siteScope: { siteId: site.siteId, organizationId: site.organizationId } },
      tenant: `org:${site.organizationId}`,
      rate: limited ? slidingWindow(rate, windowStart, previous ?? 0, count ?? 0, now) : null,
    };
  }
  return {
    caller: caller as User,
    session: { ssoOrganizationId, tokenId },
    tenant: ssoOrganizationId ? `org:${ssoOrganizationId}` : firstOrganization ? `org:${firstOrganization}` : `user:${caller.id}`,
    rate: limited ? slidingWindow(rate, windowStart, previous ?? 0, count ?? 0, now) : null,
    ...(spaceAccess !== undefined ? { spaceAccess } : {}),
    ...(organizationAccess !== undefined ? { organizationAccess } : {}),
    ...(riderRows ? { riderRows } : {}),
  };
}

/** How long a browser session lives: idle (since it was last seen) and absolute (since sign-in). */
export interface SessionLimits {
  idleSeconds: number;
}

/**
 * A browser session's statement (the `lectern_session` cookie, src/auth/session-cookie.ts): the
 * session by the hash of its secret — not revoked, before its absolute end, seen within the idle
 * limit — its user, `lastSeenAt` moved forward (written at most once a minute: a busy app does
 * not write on every request) and the same per-user rate counter as a token's.
 */
const AUTHENTICATE_SESSION = prepared(`WITH found AS (
       SELECT s.id AS sid, s."userId", s."ssoOrganizationId" FROM "Session" s
       WHERE s.hash = $1 AND s."revokedAt" IS NULL AND s."expiresAt" > now() AT TIME ZONE 'UTC'
         AND s."lastSeenAt" > now() AT TIME ZONE 'UTC' - $5::int * interval '1 second'
     ), seen AS (
       UPDATE "Session" s SET "lastSeenAt" = now() AT TIME ZONE 'UTC' FROM found
       WHERE s.id = found.sid AND s."lastSeenAt" < now() AT TIME ZONE 'UTC' - interval '1 minute'
     ), caller AS (
       SELECT ${columnsOf('User', 'u')}, found."ssoOrganizationId" AS "__ssoOrganizationId", found.sid AS "__sessionId"
       FROM found JOIN "User" u ON u.id = found."userId"
     ), counted AS (
       INSERT INTO "RateLimitWindow" (key, "windowStart", count)
       SELECT 'user:' || caller.id, $2, 1 FROM caller WHERE $3
       ON CONFLICT (key, "windowStart") DO UPDATE SET count = "RateLimitWindow".count + 1
       RETURNING count
     )
     SELECT caller.*, (SELECT count FROM counted) AS "__count",
       (SELECT w.count FROM "RateLimitWindow" w WHERE $3 AND w.key = 'user:' || caller.id AND w."windowStart" = $2::int - $4::int) AS "__previous",
       (SELECT m."organizationId" FROM "Member" m WHERE m."userId" = caller.id ORDER BY m."joinedAt", m."organizationId" LIMIT 1) AS "__tenant"
     FROM caller`);

type SessionRow = User & {
  __ssoOrganizationId: string | null;
  __sessionId: string;
  __count: number | null;
  __previous: number | null;
  __tenant: string | null;
};

/**
 * Authenticates a browser session by its cookie's secret: the caller, the session (its id, for
 * "this session" in the app and for signing out; its SAML organization, which scopes it like an SSO
 * token), the per-user budget. Null when the session is unknown, revoked or expired.
 */
export async function authenticateSession(
  db: Database,
  secret: string,
  rate: RateLimit,
  limits: SessionLimits,
  now = Date.now(),
): Promise<Authenticated | null> {
  const windowStart = Math.floor(now / 1000 / rate.windowSeconds) * rate.windowSeconds;
  const limited = rate.limit > 0;
  const values = [hashToken(secret), windowStart, limited, rate.windowSeconds, limits.idleSeconds];
  const row = (await selectRows<SessionRow>(db.pool, AUTHENTICATE_SESSION, values))[0];
  if (!row) return null;
  const {
    __ssoOrganizationId: ssoOrganizationId,
    __sessionId: browserSessionId,
    __count: count,
    __previous: previous,
    __tenant: firstOrganization,
    ...caller
  } = row;
  return {
    caller: caller as User,
    session: { ssoOrganizationId, tokenId: null, browserSessionId },
    tenant: ssoOrganizationId ? `org:${ssoOrganizationId}` : firstOrganization ? `org:${firstOrganization}` : `user:${caller.id}`,
    rate: limited ? slidingWindow(rate, windowStart, previous ?? 0, count ?? 0, now) : null,
  };
}

/** The headers GitBook's clients read. */
export function rateHeaders(rate: RateState | null): Record<string, string> {
  if (!rate) return {};
  return {
    'x-ratelimit-limit': String(rate.limit),
    'x-ratelimit-remaining': String(rate.remaining),
    'x-ratelimit-reset': String(rate.reset),
    ...(rate.exceeded ? { 'retry-after': String(rate.retryAfter) } : {}),
  };
}

/**
 * The sign-in attempt counters share RateLimitWindow (keys `signin:…`, src/modules/sessions) with
 * longer windows than the request budget's: they are kept this long.
 */
export const SIGN_IN_WINDOW_SECONDS = 15 * 60;

/** Removes finished windows (periodic maintenance). */
export async function purgeRateLimitWindows(db: Database, windowSeconds: number, now = Date.now()): Promise<void> {
  const seconds = Math.floor(now / 1000);
  await db.pool.query(`DELETE FROM "RateLimitWindow" WHERE "windowStart" < $1 AND (key NOT LIKE 'signin:%' OR "windowStart" < $2)`, [
    seconds - 2 * windowSeconds,
    seconds - 2 * SIGN_IN_WINDOW_SECONDS,
  ]);
}
