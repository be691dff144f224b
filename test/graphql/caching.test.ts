import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server.js';
import { createPersistedQueryStore } from '../../src/graphql/caching.js';
import { setupHarness, type Harness } from '../support/harness.js';

/** src/graphql/caching.ts over real HTTP: persisted queries, GET, ETag/304, per-caller answers. */
let h: Harness;
let server: RunningServer;
let a: Awaited<ReturnType<Harness['owner']>>;
let b: Awaited<ReturnType<Harness['owner']>>;

beforeAll(async () => {
  h = await setupHarness();
  server = await startServer({ ...h.config, host: '127.0.0.1', port: 0 }, { db: h.db });
  a = await h.owner('Cache A');
  b = await h.owner('Cache B');
});
afterAll(() => server?.close());

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const post = (token: string, body: unknown) =>
  fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth(token) },
    body: JSON.stringify(body),
  });
/** A GET to /graphql with the GraphQL-over-HTTP parameters (objects as JSON). */
const get = (token: string | null, params: Record<string, unknown>, headers: Record<string, string> = {}) => {
  const url = new URL(`${server.url}/graphql`);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  return fetch(url, { headers: { accept: 'application/json', ...(token ? auth(token) : {}), ...headers } });
};
const orgTitle = 'query($id: ID!) { organization(id: $id) { id title } }';

describe('automatic persisted queries', () => {
  const query = `query Persisted($id: ID!) { organization(id: $id) { title } } # ${Date.now()}`;
  const persistedQuery = { version: 1, sha256Hash: sha256(query) };

  it('a hash alone misses until the document is registered, then runs (POST and GET)', async () => {
    const miss = await post(a.token, { variables: { id: a.orgId }, extensions: { persistedQuery } });
    expect(miss.status).toBe(404);
    const missed = (await miss.json()) as any;
    expect(missed.errors[0].message).toBe('PersistedQueryNotFound');
    expect(missed.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');

    const register = await post(a.token, { query, variables: { id: a.orgId }, extensions: { persistedQuery } });
    expect(register.status).toBe(200);
    expect(((await register.json()) as any).data.organization.title).toBe('Cache A');

    const hit = await post(a.token, { variables: { id: a.orgId }, extensions: { persistedQuery } });
    expect(hit.status).toBe(200);
    expect(((await hit.json()) as any).data.organization.title).toBe('Cache A');

    // The short form a CDN-friendly client sends: no query text in the URL.
    const overGet = await get(a.token, { variables: { id: a.orgId }, extensions: { persistedQuery } });
    expect(overGet.status).toBe(200);
    expect(((await overGet.json()) as any).data.organization.title).toBe('Cache A');
  });

  it('a hash that is not the document’s is refused and registers nothing', async () => {
    const text = `{ viewer { id } } # ${Date.now()}`;
    const wrong = { version: 1, sha256Hash: sha256(`${text} `) };
    const mismatch = await post(a.token, { query: text, extensions: { persistedQuery: wrong } });
    expect(mismatch.status).toBe(400);
    expect(((await mismatch.json()) as any).errors[0].extensions.code).toBe('PERSISTED_QUERY_MISMATCH');
    const after = await post(a.token, { extensions: { persistedQuery: wrong } });
    expect(after.status).toBe(404);
  });

  it('a persisted document runs with each caller’s rights, and another organization cannot probe it', async () => {
    // Another tenant's hash lookup misses: a hit would tell them what this organization asks.
    const probe = await post(b.token, { variables: { id: a.orgId }, extensions: { persistedQuery } });
    expect(probe.status).toBe(404);
    // Registered by B too, it is still B's permissions that answer: A's organization is not B's to read.
    const asB = await post(b.token, { query, variables: { id: a.orgId }, extensions: { persistedQuery } });
    const body = (await asB.json()) as any;
    expect(body.data?.organization ?? null).toBeNull();
    expect(body.errors?.length).toBeGreaterThan(0);
    expect(JSON.stringify(body)).not.toContain('Cache A');
    const own = await post(b.token, { variables: { id: b.orgId }, extensions: { persistedQuery } });
    expect(((await own.json()) as any).data.organization.title).toBe('Cache B');
  });

  it('a hash without a token is refused before any lookup', async () => {
    const anonymous = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ extensions: { persistedQuery } }),
    });
    expect(anonymous.status).toBe(401);
  });

  it('the store is bounded in entries and in characters, least recently used first', () => {
    const store = createPersistedQueryStore({ entries: 3, characters: 1_000, ttlMs: 60_000 });
    for (const n of [1, 2, 3]) store.set('t', `h${n}`, `{ a${n} }`);
    store.get('t', 'h1'); // h1 used: h2 is now the least recently used
    store.set('t', 'h4', '{ a4 }');
    expect([store.get('t', 'h1'), store.get('t', 'h2'), store.get('t', 'h4')]).toEqual(['{ a1 }', undefined, '{ a4 }']);
    expect(store.get('u', 'h1')).toBeUndefined();
    // A document over the character budget is not kept; one filling most of it evicts the others.
    store.set('t', 'big', 'x'.repeat(2_000));
    expect(store.get('t', 'big')).toBeUndefined();
    store.set('t', 'large', 'x'.repeat(985)); // 992 characters with its key: no 10-character entry fits beside it
    expect(store.get('t', 'large')).toHaveLength(985);
    expect(store.size).toBe(1);
  });
});

describe('GraphQL over GET', () => {
  it('runs a query, and only for a caller with a token', async () => {
    const ok = await get(a.token, { query: orgTitle, variables: { id: a.orgId } });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as any).data.organization).toEqual({ id: a.orgId, title: 'Cache A' });
    const anonymous = await get(null, { query: orgTitle, variables: { id: a.orgId } });
    expect(anonymous.status).toBe(401);
    const badToken = await get('lct_not_a_token', { query: orgTitle, variables: { id: a.orgId } });
    expect(badToken.status).toBe(401);
  });

  it('refuses a mutation with 405 and changes nothing', async () => {
    const mutation = 'mutation($id: ID!) { updateOrganization(id: $id, input: { title: "Renamed over GET" }) { title } }';
    const refused = await get(a.token, { query: mutation, variables: { id: a.orgId } });
    expect(refused.status).toBe(405);
    expect(refused.headers.get('allow')).toContain('POST');
    expect(refused.headers.get('cache-control')).toBe('no-store');
    // Sent with its hash over GET (which registers the document), then by hash alone: still a mutation, still refused.
    const persistedQuery = { version: 1, sha256Hash: sha256(mutation) };
    const registering = await get(a.token, { query: mutation, variables: { id: a.orgId }, extensions: { persistedQuery } });
    expect(registering.status).toBe(405);
    const byHash = await get(a.token, { variables: { id: a.orgId }, extensions: { persistedQuery } });
    expect(byHash.status).toBe(405);
    const now = await post(a.token, { query: orgTitle, variables: { id: a.orgId } });
    expect(((await now.json()) as any).data.organization.title).toBe('Cache A');
  });
});

describe('ETag and 304', () => {
  it('a GET answer carries a strong ETag of its bytes; If-None-Match answers 304 without a body until the data changes', async () => {
    const org = await h.owner('Etag Co');
    const first = await get(org.token, { query: orgTitle, variables: { id: org.orgId } });
    expect(first.status).toBe(200);
    const text = await first.text();
    const etag = first.headers.get('etag')!;
    expect(etag).toBe(`"${createHash('sha256').update(text).digest('base64url')}"`);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    expect(first.headers.get('vary')?.toLowerCase()).toContain('authorization');

    const again = await get(org.token, { query: orgTitle, variables: { id: org.orgId } }, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('cache-control')).toBe('private, no-cache');
    // The weak form and a list match too (RFC 9110's weak comparison for If-None-Match).
    const listed = await get(org.token, { query: orgTitle, variables: { id: org.orgId } }, { 'if-none-match': `"other", W/${etag}` });
    expect(listed.status).toBe(304);

    const renamed = await post(org.token, {
      query: 'mutation($id: ID!) { updateOrganization(id: $id, input: { title: "Etag Co 2" }) { title } }',
      variables: { id: org.orgId },
    });
    expect(renamed.status).toBe(200);
    const changed = await get(org.token, { query: orgTitle, variables: { id: org.orgId } }, { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(((await changed.json()) as any).data.organization.title).toBe('Etag Co 2');
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  it('different callers never share an answer: the ETag is per body, the answer private and varied by Authorization', async () => {
    const viewer = '{ viewer { id displayName } }';
    const asA = await get(a.token, { query: viewer });
    const etagA = asA.headers.get('etag')!;
    expect(((await asA.json()) as any).data.viewer.id).toBe(a.id);
    // B presenting A's validator gets B's own answer, never a 304 that would let a cache hand out A's.
    const asB = await get(b.token, { query: viewer }, { 'if-none-match': etagA });
    expect(asB.status).toBe(200);
    expect(asB.headers.get('etag')).not.toBe(etagA);
    expect(asB.headers.get('cache-control')).toMatch(/^private\b/);
    expect(asB.headers.get('vary')?.toLowerCase()).toContain('authorization');
    expect(((await asB.json()) as any).data.viewer.id).toBe(b.id);
  });

  it('POST answers and GET errors carry no ETag', async () => {
    const viaPost = await post(a.token, { query: '{ viewer { id } }' });
    expect(viaPost.status).toBe(200);
    expect(viaPost.headers.get('etag')).toBeNull();
    // GraphQL over HTTP's own media type answers an invalid document with 400 (application/json: 200 with errors, which is ETagged like any 200).
    const invalid = await get(a.token, { query: '{ viewer { nope } }' }, { accept: 'application/graphql-response+json' });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('etag')).toBeNull();
    expect(invalid.headers.get('cache-control')).toBe('no-store');
  });
});
