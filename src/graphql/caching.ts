import { createHash } from 'node:crypto';
import { processLog } from '../ops/log.js';
import fs from 'node:fs';
import path from 'node:path';
import { useAPQ, type APQStore } from '@graphql-yoga/plugin-apq';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
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
 * 2. Persisted documents of first-party clients (the app): a manifest built at build time by
 *    GraphQL Code Generator's client preset (`web/src/gql/persisted-documents.json`, keys
 *    `sha256:<hex>`), loaded at start. A request names a document by `documentId` (the client
 *    preset's form, with or without `sha256:`) or by `extensions.persistedQuery.sha256Hash` (the
 *    APQ form, which urql's persisted exchange sends). Arbitrary documents stay allowed (API tokens,
 *    and for now cookie sessions too): a manifest only saves the app the text's bytes and this
 *    server the parse.
 *
 *    How the two coexist: one `onParams` decides per request. A manifest hash (either form,
 *    without a text) is served from the manifest: for every caller alike, since the manifest is
 *    public build output, and without touching the tenant's APQ store. A `documentId` the
 *    manifest lacks is the standard PersistedQueryNotFound (404): a first-party client never
 *    registers documents. Any other APQ request (an unknown hash, or a hash with its text) goes to
 *    APQ, which answers its own PersistedQueryNotFound and registers on the retry with the text.
 *
 * 3. Conditional GET: an answer to a GET query carries a strong ETag (the SHA-256 of its exact
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
export function createPersistedQueryStore(
  limits: { entries: number; characters: number; ttlMs: number } = PERSISTED_QUERY_LIMITS,
): PersistedQueryStore {
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

/** First-party documents by the hex SHA-256 of their text. */
export type PersistedDocuments = ReadonlyMap<string, string>;

/** Where the app's build leaves its manifest (the codegen output, and a copy beside the built app). */
export const FIRST_PARTY_MANIFESTS = ['web/src/gql/persisted-documents.json', 'web/dist/persisted-documents.json'].map((file) =>
  path.join(import.meta.dirname, '../..', file),
);

/**
 * Every manifest of `files` that exists, merged. An entry whose key is not the SHA-256 of its text
 * is left out (and said once on stderr): a hash names exactly one text, whoever built the manifest.
 */
export function loadPersistedDocuments(files: readonly string[] = FIRST_PARTY_MANIFESTS): Map<string, string> {
  const documents = new Map<string, string>();
  for (const file of files) {
    if (!fs.existsSync(file)) continue;
    const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    let wrong = 0;
    for (const [key, text] of Object.entries(manifest)) {
      const hash = key.replace(/^sha256:/, '');
      if (typeof text === 'string' && createHash('sha256').update(text).digest('hex') === hash) documents.set(hash, text);
      else wrong++;
    }
    if (wrong) processLog().warn(`${file}: ${wrong} entries left out (a key is not the SHA-256 of its document)`);
  }
  return documents;
}

/** The hash a request names a document by, and whether it used the client preset's `documentId`. */
function namedDocument(params: { extensions?: Record<string, any>; documentId?: unknown }): { hash: string; byId: boolean } | null {
  if (typeof params.documentId === 'string') return { hash: params.documentId.replace(/^sha256:/, ''), byId: true };
  const hash = params.extensions?.persistedQuery?.sha256Hash;
  return typeof hash === 'string' ? { hash, byId: false } : null;
}

/** First-party persisted documents and APQ (tenant-scoped), side by side: see 2. above. */
export function usePersistedQueries(
  store: PersistedQueryStore = createPersistedQueryStore(),
  documents: PersistedDocuments = new Map(),
): Plugin<Record<string, unknown>, TenantContext> {
  const apqFor = (scope: string) => {
    const scoped: APQStore = { get: (hash) => store.get(scope, hash), set: (hash, document) => store.set(scope, hash, document) };
    return useAPQ({ store: scoped });
  };
  const firstParty = usePersistedOperations({
    allowArbitraryOperations: true,
    extractPersistedOperationId: (params) => namedDocument(params as never)?.hash ?? null,
    getPersistedOperation: (hash) => documents.get(hash) ?? null,
    customErrors: {
      notFound: { message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND', http: { status: 404 } } },
    },
  });
  return {
    onParams(payload) {
      const { params } = payload as unknown as { params: { query?: string; extensions?: Record<string, any>; documentId?: unknown } };
      const named = params.query ? null : namedDocument(params);
      if (named && (named.byId || documents.has(named.hash))) {
        // Served from the manifest; APQ never sees it (nothing is registered in a tenant's store).
        return firstParty.onParams!(payload as never);
      }
      // Without an APQ extension the plugin does nothing: skip building its scoped view.
      if (!params.extensions?.persistedQuery) return;
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
