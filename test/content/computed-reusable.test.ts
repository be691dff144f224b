/**
 * Computed pages (`type: computed`, `computed.type: builtin:openapi`): written with Lectern's
 * insert_page addition, read with `computed=true` (the default) as the pages computed from the
 * organization's OpenAPI spec, with `computed=false` as the computed page itself.
 * Reusable contents: written with Lectern's *_reusable_content operations, read by id (main, change
 * request, revision), as a document, in the revision, and from pages that include them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { drainJobs } from '../../src/jobs/queue.js';
import { OPENAPI_JOB } from '../../src/modules/openapi/jobs.js';
import { createUrls } from '../../src/urls.js';
import { BASE, setupHarness, type Harness, type World } from '../support/harness.js';
import { requestRefusalChecker } from '../support/refused.js';
import { insertPage, writeLive, type Change } from '../support/content-writes.js';

let h: Harness;
let w: World;
let refused: ReturnType<typeof requestRefusalChecker>;

const SPEC = {
  openapi: '3.1.0',
  info: { title: 'Pets', version: '1.0.0' },
  tags: [
    { name: 'pets', description: 'Everything about pets' },
    { name: 'store', description: 'Orders' },
  ],
  paths: {
    '/pets': { get: { tags: ['pets'], summary: 'List pets', responses: { '200': { description: 'The pets' } } } },
    '/orders': { post: { tags: ['store'], summary: 'Place an order', responses: { '201': { description: 'Placed' } } } },
  },
  components: { schemas: { Pet: { type: 'object', properties: { id: { type: 'integer' } } } } },
};

const source = (spec = 'pets', models = true) => ({
  type: 'builtin:openapi',
  props: { models },
  dependencies: { spec: { ref: { kind: 'openapi', spec } } },
});
const computedPage = (title: string, computed: unknown = source()): Change => ({
  operation: 'insert_page',
  type: 'computed',
  title,
  computed,
});

beforeAll(async () => {
  h = await setupHarness();
  w = await h.world();
  refused = requestRefusalChecker(h, () => h.snapshot());
  const res = await h.call('POST', `/v1/orgs/${w.orgId}/openapi`, {
    token: w.owner.token,
    body: { slug: 'pets', source: { text: JSON.stringify(SPEC) } },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await drainJobs({ db: h.db, config: h.config, urls: createUrls(BASE) }, [OPENAPI_JOB]);
});

async function newSpace() {
  const res = await h.call('POST', `/v1/orgs/${w.orgId}/spaces`, { token: w.owner.token, body: { title: 'API docs' } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}
const titles = (pages: any[]): string[] => pages.flatMap((p) => [p.title, ...titles(p.pages ?? [])]);

describe('computed pages (builtin:openapi)', () => {
  it("are read as the pages computed from the organization's spec, at the computed page's place", async () => {
    const spaceId = await newSpace();
    const [, api] = (
      await writeLive(h, w.owner.token, spaceId, [insertPage('Intro', 'Hello'), computedPage('API reference'), insertPage('After')])
    ).pages as [string, string];
    const res = await h.rest('listPages', 'GET', `/v1/spaces/${spaceId}/content/pages`, { token: w.reader.token });
    expect(titles(res.body.pages)).toEqual(['Intro', 'pets', 'store', 'Models', 'After']);
    const pets = res.body.pages[1];
    expect(pets).toMatchObject({ id: `${api}-pets`, type: 'document', path: 'pets', description: 'Everything about pets' });
    expect(pets.markdown).toContain('## List pets');

    const page = await h.rest('getPageById', 'GET', `/v1/spaces/${spaceId}/content/page/${api}-store?format=markdown`, {
      token: w.reader.token,
    });
    expect(page.body.markdown).toContain('`POST /orders`');
    const models = await h.rest('getPageById', 'GET', `/v1/spaces/${spaceId}/content/page/${api}-models`, { token: w.reader.token });
    expect(models.body.document.nodes.length).toBeGreaterThan(0);
    const revision = await h.rest('getCurrentRevision', 'GET', `/v1/spaces/${spaceId}/content`, { token: w.reader.token });
    expect(titles(revision.body.pages)).toEqual(['Intro', 'pets', 'store', 'Models', 'After']);
  });

  it('are the computed page itself with computed=false, or while their spec has no processed version', async () => {
    const spaceId = await newSpace();
    const [api, missing] = (
      await writeLive(h, w.owner.token, spaceId, [
        computedPage('API reference', source('pets', false)),
        computedPage('Later', source('not-yet')),
      ])
    ).pages as [string, string];
    const raw = await h.rest('listPages', 'GET', `/v1/spaces/${spaceId}/content/pages?computed=false`, { token: w.reader.token });
    expect(raw.body.pages).toEqual([
      expect.objectContaining({ id: api, title: 'API reference', type: 'computed', computed: source('pets', false) }),
      expect.objectContaining({ id: missing, type: 'computed', computed: source('not-yet') }),
    ]);
    const one = await h.rest('getPageById', 'GET', `/v1/spaces/${spaceId}/content/page/${api}?computed=false`, { token: w.reader.token });
    expect(one.body).toMatchObject({ id: api, type: 'computed' });
    // Computed: no Models page without props.models; the spec that does not exist stays uncomputed.
    const computed = await h.rest('listPages', 'GET', `/v1/spaces/${spaceId}/content/pages`, { token: w.reader.token });
    expect(computed.body.pages.map((p: any) => [p.title, p.type])).toEqual([
      ['pets', 'document'],
      ['store', 'document'],
      ['Later', 'computed'],
    ]);
  });

  it('refuses a bad source, a source on another type and child pages (400 naming the field), and a bad computed flag', async () => {
    const spaceId = await newSpace();
    const [api] = (await writeLive(h, w.owner.token, spaceId, [computedPage('API')])).pages as [string];
    const write = (change: Change) => ({ token: w.owner.token, body: { changes: [change] } });
    const path = `/v1/spaces/${spaceId}/content`;
    await refused(400, 'POST', path, {
      ...write({ operation: 'insert_page', type: 'computed', title: 'X' }),
      field: 'changes[0].computed',
    });
    await refused(400, 'POST', path, { ...write({ ...insertPage('Doc'), computed: source() }), field: 'changes[0].computed' });
    await refused(400, 'POST', path, {
      ...write(computedPage('X', { ...source(), type: 'builtin:translation' })),
      field: 'changes[0].computed.type',
    });
    await refused(400, 'POST', path, {
      ...write(computedPage('X', { ...source(), props: {} })),
      field: 'changes[0].computed.props.models',
    });
    await refused(400, 'POST', path, {
      ...write(computedPage('X', { ...source(), dependencies: { spec: { ref: { kind: 'space', spec: 'pets' } } } })),
      field: 'changes[0].computed.dependencies.spec.ref.kind',
    });
    await refused(400, 'POST', path, { ...write(computedPage('X', { ...source(), extra: 1 })), field: 'changes[0].computed.extra' });
    await refused(400, 'POST', path, { ...write(insertPage('Child', '', { into: api })), field: 'changes[0].into' });
    await refused(400, 'GET', `/v1/spaces/${spaceId}/content/pages?computed=perhaps`, { token: w.reader.token, field: 'computed' });
    await refused(404, 'GET', `/v1/spaces/${spaceId}/content/pages`, { token: w.outsider.token });
  });
});

describe('getComputedRevision and getComputedDocument', () => {
  it('compute the pages and documents of a source without writing anything', async () => {
    const spaceId = await newSpace();
    const before = await h.snapshot();
    const revision = await h.rest('getComputedRevision', 'POST', `/v1/spaces/${spaceId}/content/computed/revision`, {
      token: w.reader.token,
      body: { source: source(), seed: 'api' },
    });
    expect(revision.status, JSON.stringify(revision.body)).toBe(200);
    expect(revision.body.pages.map((p: any) => [p.id, p.title])).toEqual([
      ['api-pets', 'pets'],
      ['api-store', 'store'],
      ['api-models', 'Models'],
    ]);
    expect(revision.body).toMatchObject({ files: [], reusableContents: [] });
    const document = await h.rest('getComputedDocument', 'POST', `/v1/spaces/${spaceId}/content/computed/document`, {
      token: w.reader.token,
      body: { source: { ...source(), props: { doc: 'operations', page: 'store' } }, seed: 'doc' },
    });
    expect(document.body).toMatchObject({ object: 'document' });
    expect(JSON.stringify(document.body)).toContain('Place an order');
    expect(await h.snapshot()).toBe(before);
  });

  it('refuse a bad source or seed (400 naming the field) and callers without rights', async () => {
    const spaceId = await newSpace();
    const path = `/v1/spaces/${spaceId}/content/computed`;
    await refused(400, 'POST', `${path}/revision`, { token: w.reader.token, body: { source: source() }, field: 'seed' });
    await refused(400, 'POST', `${path}/revision`, { token: w.reader.token, body: { seed: 's' }, field: 'source' });
    await refused(400, 'POST', `${path}/revision`, {
      token: w.reader.token,
      body: { source: source('nope'), seed: 's' },
      field: 'source.dependencies.spec.ref.spec',
    });
    await refused(400, 'POST', `${path}/revision`, {
      token: w.reader.token,
      body: { source: { ...source(), type: 'integration:x:y' }, seed: 's' },
      field: 'source.type',
    });
    await refused(400, 'POST', `${path}/document`, {
      token: w.reader.token,
      body: { source: { ...source(), props: { doc: 'operations' } }, seed: 's' },
      field: 'source.props.page',
    });
    await refused(400, 'POST', `${path}/document`, {
      token: w.reader.token,
      body: { source: { ...source(), props: { doc: 'operations', page: 'nope' } }, seed: 's' },
      field: 'source.props.page',
    });
    await refused(400, 'POST', `${path}/document?schema=old`, {
      token: w.reader.token,
      body: { source: { ...source(), props: { doc: 'models' } }, seed: 's' },
      field: 'schema',
    });
    await refused(404, 'POST', `${path}/revision`, { token: w.outsider.token, body: { source: source(), seed: 's' } });
  });
});

describe('reusable contents', () => {
  const include = (slug: string) => `{% include "../.gitbook/includes/${slug}.md" %}`;
  const revision = async (spaceId: string) =>
    (await h.rest('getCurrentRevision', 'GET', `/v1/spaces/${spaceId}/content`, { token: w.reader.token })).body;
  const blocks = (document: any): any[] => document.nodes.flatMap((n: any) => [n, ...blocks({ nodes: n.nodes ?? [] })]);

  async function spaceWithReusable() {
    const spaceId = await newSpace();
    await writeLive(h, w.owner.token, spaceId, [
      { operation: 'insert_reusable_content', title: 'Warning', document: { markdown: '> Careful with **this**.' } },
    ]);
    const [warning] = (await revision(spaceId)).reusableContents;
    const [guide] = (await writeLive(h, w.owner.token, spaceId, [insertPage('Guide', `Intro\n\n${include('warning')}\n\nEnd`)])).pages as [
      string,
    ];
    return { spaceId, warning, guide };
  }

  it('are listed in the revision and read by id on main, in a change request and in a revision, with their document', async () => {
    const { spaceId, warning } = await spaceWithReusable();
    expect(warning).toEqual({ id: expect.any(String), title: 'Warning', document: expect.any(String) });
    const byId = await h.rest('getReusableContentById', 'GET', `/v1/spaces/${spaceId}/content/reusable-contents/${warning.id}`, {
      token: w.reader.token,
    });
    expect(byId.body).toEqual(warning);
    const cr = await h.call('POST', `/v1/spaces/${spaceId}/change-requests`, { token: w.owner.token, body: { subject: 'Edit' } });
    const inCr = await h.rest(
      'getReusableContentInChangeRequestById',
      'GET',
      `/v1/spaces/${spaceId}/change-requests/${cr.body.id}/content/reusable-contents/${warning.id}`,
      { token: w.reader.token },
    );
    expect(inCr.body).toEqual(warning);
    const rev = (await revision(spaceId)).id;
    const inRevision = await h.rest(
      'getReusableContentInRevisionById',
      'GET',
      `/v1/spaces/${spaceId}/revisions/${rev}/reusable-contents/${warning.id}`,
      { token: w.reader.token },
    );
    expect(inRevision.body).toEqual(warning);
    const document = await h.rest(
      'getReusableContentDocumentInRevisionById',
      'GET',
      `/v1/spaces/${spaceId}/revisions/${rev}/reusable-contents/${warning.id}/document`,
      { token: w.reader.token },
    );
    expect(document.body).toMatchObject({ object: 'document', nodes: [expect.objectContaining({ type: 'blockquote' })] });
    // Its document id reads back the same document.
    const doc = await h.rest('getDocumentById', 'GET', `/v1/spaces/${spaceId}/documents/${warning.document}`, { token: w.reader.token });
    expect(doc.status, JSON.stringify(doc.body)).toBe(200);
    expect(doc.body.nodes).toEqual(document.body.nodes);
    // A document id is signed for its space: another space the caller reads does not answer it.
    await refused(404, 'GET', `/v1/spaces/${await newSpace()}/documents/${warning.document}`, { token: w.reader.token });
  });

  it('are a reusable-content block in the pages that include them, or their own blocks when dereferenced', async () => {
    const { spaceId, warning, guide } = await spaceWithReusable();
    const page = await h.rest('getPageById', 'GET', `/v1/spaces/${spaceId}/content/page/${guide}`, { token: w.reader.token });
    expect(page.body.document.nodes.map((n: any) => n.type)).toEqual(['paragraph', 'reusable-content', 'paragraph']);
    expect(page.body.document.nodes[1]).toMatchObject({
      object: 'block',
      isVoid: true,
      data: { ref: { kind: 'reusable-content', reusableContent: warning.id } },
    });
    for (const dereferenced of ['reusable-contents', 'true']) {
      const expanded = await h.rest('getPageById', 'GET', `/v1/spaces/${spaceId}/content/page/${guide}?dereferenced=${dereferenced}`, {
        token: w.reader.token,
      });
      expect(expanded.body.document.nodes.map((n: any) => n.type)).toEqual(['paragraph', 'blockquote', 'paragraph']);
      const keys = blocks(expanded.body.document)
        .map((n) => n.key)
        .filter(Boolean);
      expect(new Set(keys).size).toBe(keys.length);
    }
    // Markdown keeps the include as written.
    const markdown = await h.rest('getPageById', 'GET', `/v1/spaces/${spaceId}/content/page/${guide}?format=markdown`, {
      token: w.reader.token,
    });
    expect(markdown.body.markdown).toContain(include('warning'));
  });

  it('are created, edited and deleted through the batch, with their semantic changes, and merged', async () => {
    const { spaceId, warning, guide } = await spaceWithReusable();
    const edit = await writeLive(h, w.owner.token, spaceId, [
      { operation: 'update_reusable_content', reusableContent: warning.id, title: 'Caution', document: { markdown: 'Now plain.' } },
    ]);
    const changes = await h.rest('getRevisionSemanticChanges', 'GET', `/v1/spaces/${spaceId}/revisions/${edit.revision}/changes`, {
      token: w.reader.token,
    });
    expect(changes.body.changes).toEqual([
      {
        type: 'reusable_content_edited',
        reusableContent: { id: warning.id, title: 'Caution', document: expect.any(String) },
        attributes: { title: { before: 'Warning', after: 'Caution' }, document: { before: warning.document, after: expect.any(String) } },
      },
    ]);

    // A change request adds one while main adds another: the merge keeps both.
    const cr = (await h.call('POST', `/v1/spaces/${spaceId}/change-requests`, { token: w.owner.token, body: { subject: 'More' } })).body;
    // Lectern's own operation: outside the official request body, so not through writeCr (which checks it).
    const tip = await h.call('POST', `/v1/spaces/${spaceId}/change-requests/${cr.id}/content`, {
      token: w.owner.token,
      body: { changes: [{ operation: 'insert_reusable_content', title: 'Tip', document: { markdown: 'A tip.' } }] },
    });
    expect(tip.status, JSON.stringify(tip.body)).toBe(200);
    await writeLive(h, w.owner.token, spaceId, [
      { operation: 'insert_reusable_content', title: 'Note', document: { markdown: 'A note.' } },
    ]);
    const crChanges = await h.rest('getChangeRequestChanges', 'GET', `/v1/spaces/${spaceId}/change-requests/${cr.id}/changes`, {
      token: w.reader.token,
    });
    expect(crChanges.body.changes).toEqual([
      { type: 'reusable_content_created', reusableContent: expect.objectContaining({ title: 'Tip' }) },
    ]);
    expect((await h.call('POST', `/v1/spaces/${spaceId}/change-requests/${cr.id}/merge`, { token: w.owner.token })).status).toBe(200);
    // (Through GraphQL: the REST revision of a three-way merge lacks the official `mergedFrom`, outside this file's routes.)
    const listed = await h.graphql(w.reader.token, 'query ($id: ID!) { space(id: $id) { content { reusableContents { title } } } }', {
      id: spaceId,
    });
    expect(listed.body.data.space.content.reusableContents.map((r: any) => r.title).sort()).toEqual(['Caution', 'Note', 'Tip']);

    await writeLive(h, w.owner.token, spaceId, [{ operation: 'delete_reusable_content', reusableContent: warning.id }]);
    await refused(404, 'GET', `/v1/spaces/${spaceId}/content/reusable-contents/${warning.id}`, { token: w.reader.token });
    // The include of a deleted reusable content is read as written.
    const page = await h.rest('getPageById', 'GET', `/v1/spaces/${spaceId}/content/page/${guide}`, { token: w.reader.token });
    expect(page.body.document.nodes.map((n: any) => n.type)).toEqual(['paragraph', 'paragraph', 'paragraph']);
  });

  it('refuses bad operations (400 naming the field), unknown ids (404), bad parameters and callers without rights', async () => {
    const { spaceId, warning } = await spaceWithReusable();
    const write = (change: Change) => ({ token: w.owner.token, body: { changes: [change] } });
    const path = `/v1/spaces/${spaceId}/content`;
    await refused(400, 'POST', path, {
      ...write({ operation: 'insert_reusable_content', document: { markdown: 'x' } }),
      field: 'changes[0].title',
    });
    await refused(400, 'POST', path, { ...write({ operation: 'insert_reusable_content', title: 'X' }), field: 'changes[0].document' });
    await refused(400, 'POST', path, {
      ...write({ operation: 'insert_reusable_content', title: 'X', document: { markdown: 'x' }, slug: 'warning' }),
      field: 'changes[0].slug',
    });
    await refused(400, 'POST', path, {
      ...write({ operation: 'update_reusable_content', reusableContent: 'nope', title: 'X' }),
      field: 'changes[0].reusableContent',
    });
    await refused(400, 'POST', path, {
      ...write({ operation: 'delete_reusable_content', reusableContent: warning.id, title: 'X' }),
      field: 'changes[0].title',
    });
    const rev = (await revision(spaceId)).id;
    await refused(404, 'GET', `/v1/spaces/${spaceId}/content/reusable-contents/nope`, { token: w.reader.token });
    await refused(404, 'GET', `/v1/spaces/${spaceId}/revisions/${rev}/reusable-contents/nope/document`, { token: w.reader.token });
    await refused(400, 'GET', `/v1/spaces/${spaceId}/revisions/${rev}/reusable-contents/${warning.id}/document?dereferenced=maybe`, {
      token: w.reader.token,
      field: 'dereferenced',
    });
    await refused(400, 'GET', `/v1/spaces/${spaceId}/content/reusable-contents/${warning.id}?computed=2`, {
      token: w.reader.token,
      field: 'computed',
    });
    await refused(404, 'GET', `/v1/spaces/${spaceId}/content/reusable-contents/${warning.id}`, { token: w.outsider.token });
    await refused(404, 'GET', `/v1/spaces/${spaceId}/revisions/${rev}/reusable-contents/${warning.id}/document`, {
      token: w.outsider.token,
    });
  });
});
