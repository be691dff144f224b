import { createHash } from 'node:crypto';
import { settings } from '../../config.js';
import { LRUCache } from 'lru-cache';
import type { Site } from '../../generated/prisma/client.js';
import { noneMatch, sharedCacheControl, type Sharing } from '../../http/conditional.js';
import type { Visitor } from './conditions.js';
import { forgetSiteStates } from './find-site.js';

/**
 * Rendered answers of published sites (pages, `.md`, llms.txt, llms-full.txt, sitemap.xml), kept in
 * this process, and their ETag/304.
 *
 * What an answer depends on, and so what its key holds:
 * - the site's published state: one statement (`siteFingerprint`) hashes, in PostgreSQL, every row
 *   the reader reads to render it — the site and its organization's hostname, its sections, section
 *   groups, external links and site spaces, the spaces behind them (title, current revision,
 *   deletion), the site's customization and every site space override, and the newest processed
 *   version of each of the organization's OpenAPI specs (computed pages change within one
 *   revision). A merge (new revision), a customization change, a renamed section… change the
 *   fingerprint, so the next request renders anew: nothing is invalidated. The statement's result
 *   is kept per site for up to a second and until the next write made through this process
 *   (find-site.ts): a write here is seen at once, a write on another server within a second;
 * - the URL it was asked at (the site's base as the request named it, the path, the kind of answer);
 * - the audience: the kind of access (anyone, visitor, member) and a hash of the visitor's claims
 *   (signed and unsigned: adaptive conditions read them), never a token;
 * - the hour (signed file URLs inside expire).
 *
 * Access is decided before the cache is looked at (http.ts): an entry is only ever served to a
 * visitor the site admits, with the claims it was rendered for. Bounded by bytes (LRU).
 */

export interface CachedAnswer {
  body: Uint8Array;
  etag: string;
  headers: Record<string, string>;
  /** What a page view counts (pages only). */
  view?: { siteId: string; siteSectionId: string | null; siteSpaceId: string; spaceId: string; pageId: string };
}

const MAX_BYTES = settings().readerCacheMb * 1024 * 1024;
const cache = new LRUCache<string, CachedAnswer>({ maxSize: Math.max(1, MAX_BYTES), sizeCalculation: (a) => a.body.byteLength + 512 });
const HOUR_MS = 3_600_000;

/** Forgets every rendered answer (bench: cold renders; tests), and the site states read (find-site.ts). */
export function clearReaderCache() {
  cache.clear();
  forgetSiteStates();
}

/**
 * The fingerprint of the site `s` (an alias in the caller's statement): an md5 over the rows the
 * reader reads to render the site (above). Computed by PostgreSQL next to the site's row, in the
 * statement that finds the site (find-site.ts `findSiteState`).
 */
export const FINGERPRINT_SQL = `md5(concat_ws(E'\\x1f',
  s::text,
  coalesce(o.hostname, ''),
  coalesce((SELECT string_agg(x::text, E'\\x1e' ORDER BY x.id) FROM "SiteSection" x WHERE x."siteId" = s.id), ''),
  coalesce((SELECT string_agg(x::text, E'\\x1e' ORDER BY x.id) FROM "SiteSectionGroup" x WHERE x."siteId" = s.id), ''),
  coalesce((SELECT string_agg(x::text, E'\\x1e' ORDER BY x.id) FROM "SiteExternalLink" x WHERE x."siteId" = s.id), ''),
  coalesce((SELECT string_agg(concat_ws(',', x::text, sp.title, sp."revisionId", sp."deletedAt"::text, sp."updatedAt"::text), E'\\x1e' ORDER BY x.id)
            FROM "SiteSpace" x JOIN "Space" sp ON sp.id = x."spaceId" WHERE x."siteId" = s.id), ''),
  coalesce((SELECT c.settings::text FROM "SiteCustomization" c WHERE c."siteId" = s.id), ''),
  coalesce((SELECT string_agg(c::text, E'\\x1e' ORDER BY c."siteSpaceId") FROM "SiteSpaceCustomization" c JOIN "SiteSpace" x ON x.id = c."siteSpaceId" WHERE x."siteId" = s.id), ''),
  coalesce((SELECT string_agg(p.slug || ':' || coalesce((SELECT v.id || '@' || coalesce(v."processedAt"::text, '') FROM "OpenAPISpecVersion" v
                                                         WHERE v."specId" = p.id AND v.state = 'complete' ORDER BY v.number DESC LIMIT 1), ''), ',' ORDER BY p.slug)
            FROM "OpenAPISpec" p WHERE p."organizationId" = s."organizationId"), '')
))`;

/** JSON with object keys sorted: equal claims, equal text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Who an answer was rendered for: the access kind and a hash of the claims (never a token). */
export function audienceKey(audience: string, visitor: Visitor): string {
  return `${audience}:${createHash('sha256').update(canonical(visitor.claims)).digest('base64url')}`;
}

export function answerKey(parts: {
  site: Site;
  fingerprint: string;
  base: string;
  kind: string;
  path: string;
  audience: string;
  now?: number;
}): string {
  const hour = Math.floor((parts.now ?? Date.now()) / HOUR_MS);
  return [parts.site.id, parts.fingerprint, parts.base, parts.kind, parts.path, parts.audience, hour].join('\n');
}

export const cachedAnswer = (key: string) => cache.get(key);

/** Keeps a rendered 200 answer (its bytes and their tag). */
export function keepAnswer(key: string | null, body: string, headers: Record<string, string>, view?: CachedAnswer['view']): CachedAnswer {
  const bytes = Buffer.from(body, 'utf8');
  const answer: CachedAnswer = {
    body: bytes,
    etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 32)}"`,
    headers,
    view,
  };
  if (key) cache.set(key, answer);
  return answer;
}

/**
 * The answer to a request: 304 when If-None-Match names its tag, else the 200 with its bytes.
 * Cache-Control by who may share it (`sharing`), Vary on what changes the audience, and the
 * request's own cookies (set by the access decision: never kept in the cache).
 */
export function serveAnswer(request: Request, answer: CachedAnswer, sharing: Sharing, cookies: string[]): Response {
  const headers = new Headers(answer.headers);
  for (const c of cookies) headers.append('set-cookie', c);
  headers.set('cache-control', sharedCacheControl(sharing));
  headers.set('vary', 'Cookie, Authorization');
  headers.set('etag', answer.etag);
  if (noneMatch(request.headers.get('if-none-match'), answer.etag)) {
    headers.delete('content-type');
    return new Response(null, { status: 304, headers });
  }
  // Its length known, the answer goes out in one piece rather than chunked.
  headers.set('content-length', String(answer.body.byteLength));
  return new Response(request.method === 'HEAD' ? null : (answer.body as Uint8Array<ArrayBuffer>), { status: 200, headers });
}
