import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainJobs } from '../../src/jobs/queue.js';
import { OPENAPI_JOB } from '../../src/modules/openapi/jobs.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createUrls } from '../../src/urls.js';
import { IMMUTABLE_MAX_AGE } from '../../src/http/conditional.js';
import { BASE, setupHarness, type Harness, type World } from '../support/harness.js';
import { assertMatchesSpec } from '../support/openapi.js';
import { insertPage, writeLive, type Change } from '../support/content-writes.js';

/**
 * Conditional GET of REST reads of a revision by id (src/http/conditional.ts, src/rest/adapter.ts):
 * the ETag is known before the work, a matching If-None-Match answers 304 after authentication and
 * the permission check, without the body; answers with live inputs (computed pages, signed file
 * URLs) do not claim immutability and their tag follows those inputs.
 */
let h: Harness;
let server: RunningServer;
let w: World;
let spaceId: string;
let revision: string;
let previous: string;
let pageId: string;
let computedSpace: string;
let computedRevision: string;

const SPEC = (version: string) => ({
  openapi: '3.1.0',
  info: { title: 'Pets', version },
  tags: [{ name: 'pets', description: `Pets, ${version}` }],
  paths: { '/pets': { get: { tags: ['pets'], summary: `List pets ${version}`, responses: { '200': { description: 'The pets' } } } } },
});
const computedPage: Change = {
  operation: 'insert_page',
  type: 'computed',
  title: 'API',
  computed: { type: 'builtin:openapi', props: { models: false }, dependencies: { spec: { ref: { kind: 'openapi', spec: 'pets' } } } },
};
const services = () => ({ db: h.db, config: h.config, urls: createUrls(BASE) });

beforeAll(async () => {
  h = await setupHarness();
  server = await startServer({ ...h.config, host: '127.0.0.1', port: 0 }, { db: h.db, worker: false });
  w = await h.world('Conditional');
  spaceId = (await h.call('POST', `/v1/orgs/${w.orgId}/spaces`, { token: w.owner.token, body: { title: 'Immutable' } })).body.id;
  const body = Array.from(
    { length: 80 },
    (_, i) =>
      `## Section ${i}\n\nText with *emphasis*, a [link](https://example.com/${i}) and \`code\`.\n\n| a | b |\n|---|---|\n| ${i} | x |\n`,
  ).join('\n');
  const first = await writeLive(h, w.owner.token, spaceId, [
    insertPage('Big', body),
    ...Array.from({ length: 30 }, (_, i) => insertPage(`Page ${i}`, body.slice(0, 2_000))),
    { operation: 'insert_files', files: [{ name: 'a.txt', contentType: 'text/plain', base64: Buffer.from('a').toString('base64') }] },
  ]);
  pageId = first.pages[0]!;
  previous = first.revision;
  revision = (await writeLive(h, w.owner.token, spaceId, [insertPage('Later', 'later')])).revision;

  expect(
    (
      await h.call('POST', `/v1/orgs/${w.orgId}/openapi`, {
        token: w.owner.token,
        body: { slug: 'pets', source: { text: JSON.stringify(SPEC('1')) } },
      })
    ).status,
  ).toBe(201);
  await drainJobs(services(), [OPENAPI_JOB]);
  computedSpace = (await h.call('POST', `/v1/orgs/${w.orgId}/spaces`, { token: w.owner.token, body: { title: 'Computed' } })).body.id;
  computedRevision = (await writeLive(h, w.owner.token, computedSpace, [insertPage('Intro', 'hello'), computedPage])).revision;
});
afterAll(() => server?.close());

const get = (path: string, token: string | null, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/v1${path}`, { headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } });
const pagePath = () => `/spaces/${spaceId}/revisions/${revision}/page/${pageId}?format=document`;

describe('conditional GET of revision reads', () => {
  it('answers an immutable revision read with a strong ETag, private immutable caching, and 304 on a match', async () => {
    const first = await get(pagePath(), w.reader.token);
    expect(first.status).toBe(200);
    const body = await first.json();
    assertMatchesSpec('getPageInRevisionById', 200, body);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"r1\.[\w-]{43}"$/);
    expect(first.headers.get('cache-control')).toBe(`private, max-age=${IMMUTABLE_MAX_AGE}, immutable`);
    expect(first.headers.get('vary')).toMatch(/authorization/i);

    const again = await get(pagePath(), w.reader.token, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('cache-control')).toBe(`private, max-age=${IMMUTABLE_MAX_AGE}, immutable`);
    // Weak comparison, lists and `*` (RFC 9110).
    expect((await get(pagePath(), w.reader.token, { 'if-none-match': `"other", W/${etag}` })).status).toBe(304);
    expect((await get(pagePath(), w.reader.token, { 'if-none-match': '*' })).status).toBe(304);
    // The same answer for every reader: the tag is the same for the owner, and so is the body.
    const owner = await get(pagePath(), w.owner.token);
    expect(owner.headers.get('etag')).toBe(etag);
    expect(await owner.json()).toEqual(body);
  });

  it('gives another tag to another revision, page, or query, and a full answer to a stale tag', async () => {
    const etag = (await get(pagePath(), w.reader.token)).headers.get('etag')!;
    const tags = await Promise.all(
      [
        `/spaces/${spaceId}/revisions/${previous}/page/${pageId}?format=document`,
        `/spaces/${spaceId}/revisions/${revision}/page/${pageId}?format=markdown`,
        `/spaces/${spaceId}/revisions/${revision}/page/${pageId}`,
        `/spaces/${spaceId}/revisions/${revision}/page/${pageId}?format=document&evaluated=true`,
        `/spaces/${spaceId}/revisions/${revision}/pages`,
      ].map(async (path) => (await get(path, w.reader.token)).headers.get('etag')),
    );
    expect(new Set([etag, ...tags]).size).toBe(6);
    const stale = await get(`/spaces/${spaceId}/revisions/${previous}/page/${pageId}?format=document`, w.reader.token, {
      'if-none-match': etag,
    });
    expect(stale.status).toBe(200);
    expect((await stale.json()).id).toBe(pageId);
  });

  it('checks the token, the caller’s rights and the input before any 304', async () => {
    const etag = (await get(pagePath(), w.reader.token)).headers.get('etag')!;
    const match = { 'if-none-match': etag };
    expect((await get(pagePath(), null, match)).status).toBe(401);
    expect((await get(pagePath(), 'lct_not_a_token', match)).status).toBe(401);
    const outsider = await get(pagePath(), w.outsider.token, match);
    expect([403, 404]).toContain(outsider.status);
    expect((await outsider.json()).error.code).toBe(outsider.status);
    // A revision of another space is not this space's: 404, whatever the tag.
    const other = await get(`/spaces/${computedSpace}/revisions/${revision}/page/${pageId}?format=document`, w.owner.token, match);
    expect(other.status).toBe(404);
    const bad = await get(`${pagePath()}&computed=perhaps`, w.reader.token, match);
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toMatch(/^computed/);
  });

  it('skips the work on a match: fewer statements, and the time saved logged', async () => {
    // What proves the work is skipped is what the database is asked, not a clock (a timed assertion
    // fails on a busy machine): a 304 reads no revision content. The times are logged for the note.
    const measured = async (path: string, headers: Record<string, string>, status: number) => {
      const times: number[] = [];
      const statements: number[] = [];
      for (let i = 0; i < 5; i++) {
        const before = h.db.statements.count;
        const t0 = performance.now();
        const response = await get(path, w.reader.token, headers);
        await response.arrayBuffer();
        times.push(performance.now() - t0);
        statements.push(h.db.statements.count - before);
        expect(response.status).toBe(status);
      }
      return { median: times.sort((a, b) => a - b)[2]!, statements: Math.min(...statements) };
    };
    for (const [name, path] of [
      ['listPagesInRevisionById (32 pages)', `/spaces/${spaceId}/revisions/${revision}/pages`],
      ['getPageInRevisionById ?format=document', pagePath()],
    ] as const) {
      const etag = (await get(path, w.reader.token)).headers.get('etag')!;
      const full = await measured(path, {}, 200);
      const revalidated = await measured(path, { 'if-none-match': etag }, 304);
      console.log(
        `conditional GET ${name}: 200 median ${full.median.toFixed(1)} ms (${full.statements} statements), 304 median ${revalidated.median.toFixed(1)} ms (${revalidated.statements} statements)`,
      );
      expect(revalidated.statements).toBeLessThan(full.statements);
    }
  });

  it('does not call answers with signed file URLs immutable', async () => {
    const path = `/spaces/${spaceId}/revisions/${revision}/files`;
    const first = await get(path, w.reader.token);
    expect(first.status).toBe(200);
    assertMatchesSpec('listFilesInRevisionById', 200, await first.json());
    const cache = first.headers.get('cache-control')!;
    const maxAge = Number(/^private, max-age=(\d+)$/.exec(cache)?.[1]);
    // Until the hour its URLs were minted in ends (they live at least one more hour).
    expect(maxAge).toBeGreaterThan(0);
    expect(maxAge).toBeLessThanOrEqual(3600);
    expect((await get(path, w.reader.token, { 'if-none-match': first.headers.get('etag')! })).status).toBe(304);
  });

  it('follows the spec computed pages come from: revalidated on each use, a new tag when the spec changes', async () => {
    const path = `/spaces/${computedSpace}/revisions/${computedRevision}/pages`;
    const first = await get(path, w.reader.token);
    const body = await first.json();
    expect(body.pages.map((p: any) => p.title)).toContain('pets');
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    const etag = first.headers.get('etag')!;
    expect((await get(path, w.reader.token, { 'if-none-match': etag })).status).toBe(304);
    // computed=false answers the computed page itself: that never changes.
    const raw = await get(`${path}?computed=false`, w.reader.token);
    expect(raw.headers.get('cache-control')).toBe(`private, max-age=${IMMUTABLE_MAX_AGE}, immutable`);

    // A new version of the spec: the same revision's computed pages change, so does the tag.
    const update = await h.call('PUT', `/v1/orgs/${w.orgId}/openapi/pets`, {
      token: w.owner.token,
      body: { source: { text: JSON.stringify(SPEC('2')) } },
    });
    expect(update.status, JSON.stringify(update.body)).toBeLessThan(300);
    await drainJobs(services(), [OPENAPI_JOB]);
    const after = await get(path, w.reader.token, { 'if-none-match': etag });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(etag);
    expect(JSON.stringify(await after.json())).toContain('Pets, 2');
  });

  it('revalidates the published site read by its bytes: private, no-cache, and a new tag when the site changes', async () => {
    const site = (
      await h.call('POST', `/v1/orgs/${w.orgId}/sites`, {
        token: w.owner.token,
        body: { title: 'Docs', visibility: 'public', spaces: [spaceId] },
      })
    ).body;
    expect((await h.call('POST', `/v1/orgs/${w.orgId}/sites/${site.id}/publish`, { token: w.owner.token })).status).toBe(200);
    const path = `/orgs/${w.orgId}/sites/${site.id}/published`;
    const first = await get(path, w.reader.token);
    expect(first.status).toBe(200);
    assertMatchesSpec('getPublishedContentSite', 200, await first.json());
    // The official operation needs a token (bearer or OAuth site:read): never kept by a shared cache.
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    expect(first.headers.get('vary')).toMatch(/authorization/i);
    const etag = first.headers.get('etag')!;
    expect((await get(path, w.reader.token, { 'if-none-match': etag })).status).toBe(304);
    expect((await get(path, null, { 'if-none-match': etag })).status).toBe(401);
    // A public site shows itself to any token holder; a share-link site only with its key, whatever the tag.
    expect([200, 304]).toContain((await get(path, w.outsider.token, { 'if-none-match': etag })).status);
    const hidden = (
      await h.call('POST', `/v1/orgs/${w.orgId}/sites`, {
        token: w.owner.token,
        body: { title: 'Hidden', visibility: 'share-link', spaces: [spaceId] },
      })
    ).body;
    await h.call('POST', `/v1/orgs/${w.orgId}/sites/${hidden.id}/publish`, { token: w.owner.token });
    const hiddenPath = `/orgs/${w.orgId}/sites/${hidden.id}/published`;
    const hiddenTag = (await get(hiddenPath, w.owner.token)).headers.get('etag')!;
    expect((await get(hiddenPath, w.outsider.token, { 'if-none-match': hiddenTag })).status).toBe(404);
    expect(
      (await h.call('PATCH', `/v1/orgs/${w.orgId}/sites/${site.id}`, { token: w.owner.token, body: { title: 'Docs, renamed' } })).status,
    ).toBe(200);
    const renamed = await get(path, w.reader.token, { 'if-none-match': etag });
    expect(renamed.status).toBe(200);
    expect((await renamed.json()).site.title).toBe('Docs, renamed');
  });

  it('leaves reads of live content without validators', async () => {
    for (const path of [
      `/spaces/${spaceId}/content/pages`,
      `/spaces/${spaceId}/revisions/${revision}`,
      `/spaces/${spaceId}/revisions/${revision}/changes`,
    ]) {
      const response = await get(path, w.reader.token);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('etag'), path).toBeNull();
    }
  });
});
