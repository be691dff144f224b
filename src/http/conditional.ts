import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * Conditional GET for REST reads whose answer depends only on immutable things (a revision by id):
 * the ETag is derived BEFORE the work, from what determines the answer, so a request whose
 * If-None-Match names it is answered 304 without building the body.
 *
 * What goes into the tag (`conditionalTag`): the representation version (REPRESENTATION below and
 * Lectern's version: an upgrade that changes a shape changes every tag), the server's public URL
 * (answers hold absolute URLs), the route's path pattern, its parameters, every query parameter
 * (sorted; `format`, `evaluated`, `dereferenced`, `computed`… all change the answer), and the
 * route's live inputs when it has some (the fingerprint of the specs computed pages come from; the
 * hour a signed file URL is minted in). Not in the tag: the caller. Revision reads answer the same
 * bytes to every caller allowed to read the space, and the permission check runs on every request
 * (src/rest/adapter.ts runs the route's check operation first: a caller who may not read gets the
 * route's own 401/403/404, never a 304).
 *
 * Freshness (`cacheControl`): the answers need a token, so `private` (no shared cache) with
 * `Vary: Authorization` (a browser used by two people keeps one copy per token). Without live
 * inputs an answer never changes: a year and `immutable`. With a signed URL inside: until the
 * hour it was minted in ends (the URL then still lives at least an hour). With computed pages:
 * `no-cache` (the tag is checked on each use, cheaply).
 */

/** Bump when a REST shape changes without Lectern's version changing (development builds). */
const REPRESENTATION = 'r1';

const LECTERN_VERSION = (() => {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? '';
  } catch {
    return '';
  }
})();

export const IMMUTABLE_MAX_AGE = 365 * 24 * 60 * 60;

export interface Freshness {
  /** Seconds a client may reuse the answer without asking; 0: ask every time (`no-cache`). */
  maxAge: number;
  immutable: boolean;
}

export const IMMUTABLE: Freshness = { maxAge: IMMUTABLE_MAX_AGE, immutable: true };
export const REVALIDATE: Freshness = { maxAge: 0, immutable: false };

/** Live inputs of an answer: part of its tag, and how long it stays fresh. */
export interface LiveInputs {
  inputs: unknown;
  freshness: Freshness;
}

/** The hour (of `FILE_URL_HOUR_S`-long windows) signed URLs are minted in now, and the seconds left in it. */
export function urlWindow(hourSeconds: number, now = Date.now()): LiveInputs {
  const window = Math.floor(now / 1000 / hourSeconds);
  const left = (window + 1) * hourSeconds - Math.floor(now / 1000);
  return { inputs: { urlWindow: window }, freshness: { maxAge: Math.max(0, left), immutable: false } };
}

/** What an answer is determined by (besides the representation, added here). */
export interface TagParts {
  publicUrl: string;
  method: string;
  /** The route's path pattern (`/spaces/:spaceId/revisions/:revisionId/pages`). */
  route: string;
  params: Record<string, string>;
  /** Every query parameter with every value. */
  query: Record<string, string[]>;
  inputs?: unknown;
}

const sortedEntries = (value: Record<string, unknown>) =>
  Object.keys(value)
    .sort()
    .map((key) => [key, value[key]] as const);

/** A strong tag: equal parts, byte-identical answer. */
export function conditionalTag(parts: TagParts): string {
  const canonical = JSON.stringify([
    REPRESENTATION,
    LECTERN_VERSION,
    parts.publicUrl,
    parts.method,
    parts.route,
    sortedEntries(parts.params),
    sortedEntries(parts.query).map(([key, values]) => [key, [...(values as string[])].sort()]),
    parts.inputs ?? null,
  ]);
  return `"${REPRESENTATION}.${createHash('sha256').update(canonical).digest('base64url')}"`;
}

/** RFC 9110 §13.1.2: If-None-Match uses the weak comparison; `*` matches any current representation. */
export function noneMatch(header: string | null, etag: string): boolean {
  if (!header) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag));
}

export function cacheControl(freshness: Freshness, visibility: 'private' | 'public' = 'private'): string {
  if (freshness.maxAge <= 0) return `${visibility}, no-cache`;
  return `${visibility}, max-age=${freshness.maxAge}${freshness.immutable ? ', immutable' : ''}`;
}

/** The validator headers of an answer (200 or 304) to a token-bearing request. */
export function validatorHeaders(etag: string, freshness: Freshness): Record<string, string> {
  return { etag, 'cache-control': cacheControl(freshness), vary: 'Authorization' };
}

/** 304 Not Modified: the validators and caching headers, no body (RFC 9110 §15.4.5). */
export const notModified = (headers: Record<string, string>) => new Response(null, { status: 304, headers });

/** Adds the validator headers to a built answer (only a 200 is worth keeping). */
export function withValidators(response: Response, headers: Record<string, string>): Response {
  if (response.status !== 200) return response;
  for (const [name, value] of Object.entries(headers)) {
    if (name === 'vary') response.headers.append(name, value);
    else response.headers.set(name, value);
  }
  return response;
}

/**
 * Revalidation of an answer that depends on live data (a published site's structure changes when
 * it is published): a strong tag of its bytes, 304 on a match. This saves bytes, not work (the
 * answer is built to learn its tag), so it is `no-cache`: `private` when it needed a token or
 * depends on who asks, `public` (CDN) only for what a public site shows to anyone, with
 * `stale-while-revalidate` so a CDN answers at once while it refreshes.
 */
export const PUBLISHED_MAX_AGE = 60;
export const PUBLISHED_STALE_WHILE_REVALIDATE = 600;

export type Sharing = 'public' | 'private' | 'no-store';

export function sharedCacheControl(sharing: Sharing): string {
  if (sharing === 'public') return `public, max-age=${PUBLISHED_MAX_AGE}, stale-while-revalidate=${PUBLISHED_STALE_WHILE_REVALIDATE}`;
  return sharing === 'private' ? 'private, no-cache' : 'private, no-store';
}

/**
 * A 200 answer with its byte tag (or a 304 when If-None-Match names it). `vary`: the request
 * headers that change the answer (Authorization always; Cookie, Accept… as the route needs).
 * Anything but a 200, and `no-store` answers, pass through with only Cache-Control and Vary.
 */
export async function revalidated(
  request: Request,
  response: Response,
  sharing: Sharing,
  vary: string[] = ['Authorization'],
): Promise<Response> {
  response.headers.set('cache-control', sharedCacheControl(sharing));
  for (const name of vary) response.headers.append('vary', name);
  if (response.status !== 200 || sharing === 'no-store') return response;
  const body = new Uint8Array(await response.arrayBuffer());
  const etag = `"${createHash('sha256').update(body).digest('base64url')}"`;
  const headers = new Headers(response.headers);
  headers.set('etag', etag);
  if (noneMatch(request.headers.get('if-none-match'), etag)) {
    headers.delete('content-type');
    headers.delete('content-length');
    return new Response(null, { status: 304, headers });
  }
  return new Response(body, { status: 200, statusText: response.statusText, headers });
}
