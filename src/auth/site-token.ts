import type { ServerKeys } from '../secrets.js';

/**
 * Site tokens: the short-lived `apiToken` of a published-URL lookup (official
 * resolvePublishedContentByUrl / getPublishedContentByUrl), as GitBook hands its renderer a token
 * scoped to the content of the site a URL shows.
 *
 * - What it is: `lst_<payload>.<signature>`, the payload naming the site, its organization, the user
 *   who resolved the URL and the expiry; signed (HMAC-SHA256) with the server's signing key, so it is
 *   checked without a database row and a lookup writes nothing. Never logged, never stored.
 * - How long: SITE_TOKEN_TTL_MS (one hour). An expired or altered token is no token (401).
 * - What it may do (`siteTokenMayCall` at the door, then the permission module, which honours the
 *   session's `siteScope`): REST GET reads of the site's published profile
 *   (`/orgs/<org>/sites/<site>/published`) and of the spaces the site publishes (`/spaces/<id>`, its
 *   `content…` reads and `revisions/<id>…` reads of each space's current revision: not its history,
 *   permissions.ts requireRevisionReadable). No membership counts (the holder is no member of any
 *   organization for the request), no other space, site, GraphQL or write. Requests count against
 *   the issuing user's rate budget.
 * - Revocation: none needed beyond the hour; each use still requires the site to be published and
 *   the space to be in its structure (the permission module reads both), so unpublishing a site or
 *   removing a space from it ends what its tokens read at once.
 */
export const SITE_TOKEN_PREFIX = 'lst_';
export const SITE_TOKEN_TTL_MS = 60 * 60 * 1000;

export interface SiteScope {
  siteId: string;
  organizationId: string;
}

export interface SiteTokenClaims extends SiteScope {
  userId: string;
  /** Unix time in milliseconds. */
  expiresAt: number;
}

const PURPOSE = 'site-token v1';

/** A token for `claims.userId` that reads the published content of `claims.siteId` until now + `ttlMs`. */
export function issueSiteToken(
  keys: ServerKeys,
  claims: SiteScope & { userId: string },
  now = Date.now(),
  ttlMs = SITE_TOKEN_TTL_MS,
): string {
  const payload = Buffer.from(JSON.stringify([claims.siteId, claims.organizationId, claims.userId, now + ttlMs])).toString('base64url');
  return `${SITE_TOKEN_PREFIX}${payload}.${keys.sign([PURPOSE, payload])}`;
}

/** The claims of a genuine, unexpired site token; null otherwise. */
export function readSiteToken(keys: ServerKeys, token: string, now = Date.now()): SiteTokenClaims | null {
  if (!token.startsWith(SITE_TOKEN_PREFIX)) return null;
  const [payload, signature, extra] = token.slice(SITE_TOKEN_PREFIX.length).split('.');
  if (!payload || !signature || extra !== undefined || !keys.verify([PURPOSE, payload], signature)) return null;
  try {
    const [siteId, organizationId, userId, expiresAt] = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown[];
    if (typeof siteId !== 'string' || typeof organizationId !== 'string' || typeof userId !== 'string' || typeof expiresAt !== 'number')
      return null;
    return expiresAt > now ? { siteId, organizationId, userId, expiresAt } : null;
  } catch {
    return null;
  }
}

/** The REST reads a site token may make (paths below /v1); anything else is refused before any work. */
const READS = [
  /^\/spaces\/[^/]+\/?$/,
  /^\/spaces\/[^/]+\/content(\/.*)?$/,
  /^\/spaces\/[^/]+\/revisions\/[^/]+(\/.*)?$/,
  /^\/orgs\/[^/]+\/sites\/[^/]+\/published\/?$/,
];

export function siteTokenMayCall(method: string, pathname: string, isRest: boolean): boolean {
  if (!isRest || (method !== 'GET' && method !== 'HEAD')) return false;
  const below = pathname.replace(/^\/v1(?=\/)/, '');
  return READS.some((r) => r.test(below));
}
