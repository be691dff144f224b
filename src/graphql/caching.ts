import { createHash } from 'node:crypto';
import { useAPQ, type APQStore } from '@graphql-yoga/plugin-apq';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { noneMatch } from '../http/conditional.js';

/**
 * Caching a front-end can use, for /graphql:
 *
 * 1. Automatic persisted queries (Apollo's APQ protocol, via @graphql-yoga/plugin-apq): a client
 *    sends `extensions.persistedQuery.sha256Hash` alone; on `PersistedQueryNotFound` (404) it sends
 *    the text with the hash once, which registers it. A persisted query is only a document: it runs
 *    with the caller's token and permissions like any other. The store is an LRU bounded in entries
 *    AND in characters (a document may be 100,000 characters: see armor.ts), and scoped per tenant
 *    (the caller's organization) so that a hit or miss tells nobody what another organization asked.
 *
 * 2. Conditional GET: an answer to a GET query carries a strong ETag (the SHA-256 of its exact
 *    bytes) and `Cache-Control: private, no-cache` with `Vary: Authorization`; a request whose
 *    If-None-Match names the current ETag gets 304 and no body. The operation still runs on every
 *    request (the answer depends on the caller and on current data: the ETag saves bytes, not work),
 *    so the rule is always correct: a 304 means exactly "the bytes you hold are the bytes you would
 *    get now". Every /graphql answer needs a token, so none is stored by a shared cache (CDN):
 *    `private` says so; a browser or a front-end server may keep one and must revalidate (`no-cache`).
 *    Other GraphQL answers over GET (errors, streams) get `no-store`. Incremental answers (`@defer`,
 *    `@stream`: multipart/mixed or text/event-stream, see defer-stream.ts) are passed through as
 *    they stream, never buffered to compute a tag. (REST reads of immutable revisions do better:
 *    their tag is known before the work, src/http/conditional.ts.)
 *
 * GraphQL over GET itself is yoga's: queries run, mutations are refused with 405 (GraphQL over HTTP).
 */

export const PERSISTED_QUERY_LIMITS = {
  /** Documents kept at most (least recently used go first). */
  entries: 5_000,
  /** Characters of keys and documents kept at most (about 8 MB of strings). */
  characters: 4_000_000,
  /** A document unused this long is forgotten (the client registers it again on the next miss). */
  ttlMs: 24 * 60 * 60 * 1000,
} as const;

export interface PersistedQueryStore {
  get(scope: string, hash: string): string | undefined;
  set(scope: string, hash: string, document: string): void;
  readonly size: number;
}

/** The in-process store of persisted documents, keyed by tenant and hash. */
export function createPersistedQueryStore(limits: { entries: number; characters: number; ttlMs: number } = PERSISTED_QUERY_LIMITS): PersistedQueryStore {
  const cache = new LRUCache<string, string>({
    max: limits.entries,
    maxSize: limits.characters,
    sizeCalculation: (document, key) => document.length + key.length,
    ttl: limits.ttlMs,
    // A hit keeps the document alive: the TTL counts from the last use, not the registration.
    updateAgeOnGet: true,
  });
  const key = (scope: string, hash: string) => `${scope}\n${hash}`;
  return {
    get: (scope, hash) => cache.get(key(scope, hash)),
    // A document larger than the whole budget is not kept (lru-cache skips it): it still runs.
    set: (scope, hash, document) => void cache.set(key(scope, hash), document),
    get size() {
      return cache.size;
    },
  };
}

/** The server context fields the plugins read: the tenant that scopes persisted documents. */
interface TenantContext {
  tenant?: string;
}

/** APQ through the yoga plugin, its store seen through the caller's tenant. */
export function usePersistedQueries(store: PersistedQueryStore = createPersistedQueryStore()): Plugin<{}, TenantContext> {
  const apqFor = (scope: string) => {
    const scoped: APQStore = { get: (hash) => store.get(scope, hash), set: (hash, document) => store.set(scope, hash, document) };
    return useAPQ({ store: scoped });
  };
  return {
    onParams(payload) {
      // Without an APQ extension the plugin does nothing: skip building its scoped view.
      if (!payload.params.extensions?.persistedQuery) return;
      return apqFor(payload.context.tenant ?? '').onParams!(payload as never);
    },
  };
}

/** A strong entity tag of a body's exact bytes. */
export const bodyEtag = (body: string | Uint8Array) => `"${createHash('sha256').update(body).digest('base64url')}"`;

// RFC 9110 §13.1.2 matching, shared with the REST reads' conditional GET.
export { noneMatch } from '../http/conditional.js';

const JSON_ANSWER = /^application\/(graphql-response\+)?json\b/;

/** ETag/304 and Cache-Control on /graphql answers to GET (see above). */
export const useConditionalGet = (): Plugin => ({
  async onResponse({ request, response, setResponse }) {
    if (request.method !== 'GET') return;
    const headers = new Headers(response.headers);
    headers.append('vary', 'Authorization');
    if (response.status !== 200 || !JSON_ANSWER.test(response.headers.get('content-type') ?? '')) {
      // An error, a 405 or an event stream: nothing to revalidate, nothing to keep.
      headers.set('cache-control', 'no-store');
      setResponse(new Response(response.body, { status: response.status, statusText: response.statusText, headers }));
      return;
    }
    const body = new Uint8Array(await response.arrayBuffer());
    const etag = bodyEtag(body);
    headers.set('etag', etag);
    headers.set('cache-control', 'private, no-cache');
    if (noneMatch(request.headers.get('if-none-match'), etag)) {
      // RFC 9110 §15.4.5: a 304 carries the validators and caching headers, not the body's.
      headers.delete('content-type');
      headers.delete('content-length');
      setResponse(new Response(null, { status: 304, headers }));
      return;
    }
    headers.set('content-length', String(body.byteLength));
    setResponse(new Response(body, { status: 200, statusText: response.statusText, headers }));
  },
});
