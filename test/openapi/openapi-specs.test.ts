/** OpenAPI specs: create, list, read, create-or-update, delete, visibility (setup in ./fixtures.ts). */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import { OPENAPI_JOB } from '../../src/modules/openapi/jobs.js';
import { BASE } from '../support/harness.js';
import {
  h,
  origin,
  v31,
  swagger2,
  YAML_ENTRY,
  setupOpenAPI,
  stopSpecServer,
  resetOpenAPI,
  drain,
  world,
  refused,
  specsPath,
  specPath,
  create,
  get,
  getSpec,
  put,
  versions,
  latestContent,
  processed,
} from './fixtures.js';

beforeAll(setupOpenAPI);
afterAll(stopSpecServer);
beforeEach(resetOpenAPI);

// ---------------------------------------------------------------------------------------------
describe('POST /orgs/:organizationId/openapi (create)', () => {
  it('creates a spec from a URL (201, official schema): pending, one version, one queued job', async () => {
    const { owner, orgId } = await world();
    const spec = await create(orgId, owner.token, { slug: 'pets', source: { url: `${origin}/v31.json` } });
    expect(spec).toEqual({
      object: 'openapi-spec',
      id: expect.any(String),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      slug: 'pets',
      sourceURL: `${origin}/v31.json`,
      processingState: 'pending',
      visibility: 'private',
      lastVersion: expect.any(String),
      lastProcessedErrors: [],
      lastProcessedErrorCount: 0,
      permissions: { view: true, edit: true },
      urls: { location: `${BASE}/v1/orgs/${orgId}/openapi/pets`, app: `${BASE}/app/o/${orgId}/openapi/pets` },
    });
    const rows = await h.db.prisma.openAPISpecVersion.findMany({ where: { specId: spec.id } });
    expect(rows).toEqual([
      expect.objectContaining({ id: spec.lastVersion, number: 1, state: 'pending', sourceURL: `${origin}/v31.json`, filesystem: null }),
    ]);
    const jobs = await h.db.prisma.job.findMany({
      where: { kind: OPENAPI_JOB, payload: { path: ['versionId'], equals: spec.lastVersion } },
    });
    expect(jobs).toEqual([expect.objectContaining({ status: 'pending', payload: { specId: spec.id, versionId: spec.lastVersion } })]);

    expect(await drain()).toBe(1);
    const done = await getSpec(orgId, 'pets', owner.token);
    expect(done).toMatchObject({ processingState: 'complete', lastVersion: spec.lastVersion, lastProcessedErrors: [] });
    expect(done.lastProcessErrorCode).toBeUndefined();
    expect(Date.parse(done.lastProcessedAt)).toBeGreaterThanOrEqual(Date.parse(spec.createdAt));
    expect(await h.db.prisma.job.findMany({ where: { kind: OPENAPI_JOB, status: { not: 'done' } } })).toEqual([]);
  });

  it('a member with the create role creates; slugs are kept in lower case', async () => {
    const { creator, orgId } = await world();
    const spec = await create(orgId, creator.token, { slug: 'Payments-API-v2', source: { url: `${origin}/v31.json` } });
    expect(spec.slug).toBe('payments-api-v2');
    expect(spec.permissions).toEqual({ view: true, edit: true });
    // The slug is found in any case.
    expect((await getSpec(orgId, 'PAYMENTS-api-V2', creator.token)).id).toBe(spec.id);
    expect((await create(orgId, creator.token, { slug: 'a', source: { url: `${origin}/v31.json` } })).slug).toBe('a');
    expect((await create(orgId, creator.token, { slug: 'x'.repeat(100), source: { url: `${origin}/v31.json` } })).slug).toBe(
      'x'.repeat(100),
    );
  });

  it('creates a spec from its text (source.text): served at its version URL, processed like a fetched one', async () => {
    const { owner, orgId, reader, outsider } = await world();
    const text = YAML_ENTRY.replace(/\$ref: "\.\/schemas\/order\.yaml#\/Orders"/, 'type: string').replace(
      / {2}\/orders\/\{id\}:\n {4}\$ref: "paths\/order.yaml"\n/,
      '',
    );
    const spec = await create(orgId, owner.token, { slug: 'store-text', source: { text } });
    expect(spec.sourceURL).toBeUndefined();
    const version = (await versions(orgId, 'store-text', owner.token)).items[0];
    const textUrl = `${BASE}/openapi/${orgId}/store-text/versions/${spec.lastVersion}`;
    expect(version).toEqual({
      object: 'openapi-spec-version',
      id: spec.lastVersion,
      createdAt: expect.any(String),
      url: textUrl,
      urls: { location: `${BASE}/v1/orgs/${orgId}/openapi/store-text/versions/${spec.lastVersion}` },
    });
    await drain();
    expect(await getSpec(orgId, 'store-text', owner.token)).toMatchObject({ processingState: 'complete', lastProcessedErrors: [] });
    const content = await latestContent(orgId, 'store-text', reader.token);
    expect(content.status).toBe(200);
    expect(content.body.url).toBe(textUrl);
    // A private spec's text has no public URL.
    expect(content.body.urls).toEqual({ source: textUrl, public: null });
    expect(content.body.filesystem).toMatchObject({
      entrypoint: textUrl,
      specification: 'openapi',
      version: '3.0.3',
      title: 'Store',
      apiVersion: '3',
    });
    expect(Object.keys(content.body.filesystem.files)).toEqual([textUrl]);
    expect(content.body.filesystem.files[textUrl]).toMatchObject({
      format: 'yaml',
      references: [],
      specification: { info: { title: 'Store' } },
    });

    // The text itself, as given, at the version's url: for members only while the spec is private.
    const path = textUrl.slice(BASE.length);
    const raw = await h.app.fetch(new Request(textUrl, { headers: { authorization: `Bearer ${reader.token}` } }));
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-type')).toMatch(/^application\/yaml/);
    expect(await raw.text()).toBe(text);
    expect((await h.call('GET', path)).status).toBe(404);
    expect((await h.call('GET', path, { token: outsider.token })).status).toBe(404);
  });

  it('refuses bad input with 400 naming the field, creating nothing', async () => {
    const { owner, orgId } = await world();
    const path = specsPath(orgId);
    const source = { url: `${origin}/v31.json` };
    const bad = (body: unknown, field?: string) =>
      refused(400, 'POST', path, { token: owner.token, body, field, operationId: 'createOpenAPISpec' });
    await bad({ source }, 'slug');
    await bad({ slug: '', source }, 'slug');
    await bad({ slug: 'my_spec', source }, 'slug');
    await bad({ slug: 'my--spec', source }, 'slug');
    await bad({ slug: '-spec', source }, 'slug');
    await bad({ slug: 'spec-', source }, 'slug');
    await bad({ slug: 'x'.repeat(101), source }, 'slug');
    await bad({ slug: 42, source }, 'slug');
    await bad({ slug: 'ok' }, 'source');
    await bad({ slug: 'ok', source: {} }, 'source');
    await bad({ slug: 'ok', source: { url: `${origin}/v31.json`, text: 'openapi: 3.1.0' } }, 'source');
    await bad({ slug: 'ok', source: { url: 'not a url' } }, 'source.url');
    await bad({ slug: 'ok', source: { url: 'ftp://example.com/spec.json' } }, 'source.url');
    await bad({ slug: 'ok', source: { url: `https://example.com/${'a'.repeat(2048)}` } }, 'source.url');
    await bad({ slug: 'ok', source: { text: '' } }, 'source.text');
    await bad({ slug: 'ok', source: { text: '   \n' } }, 'source.text');
    await bad({ slug: 'ok', source: { url: 42 } }, 'source.url');
    await bad({ slug: 'ok', source: 'https://example.com/spec.json' }, 'source');
    await bad({ slug: 'ok', source, colour: 'red' });
    const raw = await h.call('POST', path, { token: owner.token, rawBody: '{"slug":' });
    expect(raw.status).toBe(400);
  });

  it('refuses a private-network URL up front unless the operator allows it', async () => {
    const { owner, orgId } = await world();
    process.env.LECTERN_OPENAPI_ALLOW_PRIVATE = '0';
    const path = specsPath(orgId);
    for (const url of [
      `${origin}/v31.json`,
      'http://localhost:8080/spec.json',
      'http://10.1.2.3/spec.json',
      'http://169.254.169.254/latest',
      'http://[::1]/spec.json',
      'http://[fd00::1]/x',
      'http://[::ffff:127.0.0.1]/x',
    ]) {
      const res = await refused(400, 'POST', path, {
        token: owner.token,
        body: { slug: 'private', source: { url } },
        field: 'source.url',
        operationId: 'createOpenAPISpec',
      });
      expect(res.body.error.message).toMatch(/private network/);
    }
    process.env.LECTERN_OPENAPI_ALLOW_PRIVATE = '1';
    expect((await create(orgId, owner.token, { slug: 'private', source: { url: `${origin}/v31.json` } })).slug).toBe('private');
  });

  it('refuses a slug already taken in the organization (409); another organization may use it', async () => {
    const { owner, orgId } = await world();
    await create(orgId, owner.token, { slug: 'taken', source: { url: `${origin}/v31.json` } });
    const res = await refused(409, 'POST', specsPath(orgId), {
      token: owner.token,
      body: { slug: 'TAKEN', source: { url: `${origin}/v31.json` } },
    });
    expect(res.body.error.message).toMatch(/already exists/);
    const other = await h.owner('Other');
    expect((await create(other.orgId, other.token, { slug: 'taken', source: { url: `${origin}/v31.json` } })).slug).toBe('taken');
  });

  it('refuses callers without rights: 401 without a token, 404 for outsiders, 403 below the create role', async () => {
    const { orgId, editor, reader, guest, outsider } = await world();
    const body = { slug: 'nope', source: { url: `${origin}/v31.json` } };
    await refused(401, 'POST', specsPath(orgId), { body });
    await refused(404, 'POST', specsPath(orgId), { token: outsider.token, body });
    await refused(404, 'POST', specsPath(newId()), { token: outsider.token, body });
    for (const who of [editor, reader, guest]) await refused(403, 'POST', specsPath(orgId), { token: who.token, body });
  });
});

// ---------------------------------------------------------------------------------------------
describe('GET /orgs/:organizationId/openapi (list)', () => {
  const list = (orgId: string, token: string, query = '') => h.rest('listOpenAPISpecs', 'GET', `${specsPath(orgId)}${query}`, { token });

  it('lists the specs oldest first, to every member (guests too), with their permissions', async () => {
    const { owner, orgId, reader, guest } = await world();
    const a = await create(orgId, owner.token, { slug: 'alpha', source: { url: `${origin}/v31.json` } });
    const b = await create(orgId, owner.token, { slug: 'beta', source: { text: JSON.stringify(swagger2) } });
    const other = await h.owner('Elsewhere');
    await create(other.orgId, other.token, { slug: 'alpha', source: { url: `${origin}/v31.json` } });
    for (const who of [owner, reader, guest]) {
      const res = await list(orgId, who.token);
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(2);
      expect(res.body.next).toBeUndefined();
      expect(res.body.items.map((s: any) => [s.id, s.slug])).toEqual([
        [a.id, 'alpha'],
        [b.id, 'beta'],
      ]);
      expect(res.body.items[0].permissions).toEqual({ view: true, edit: who === owner });
    }
  });

  it('pages with limit and next.page; an empty organization lists nothing', async () => {
    const { owner, orgId } = await world();
    expect((await list(orgId, owner.token)).body).toEqual({ items: [], count: 0 });
    const ids: string[] = [];
    for (const slug of ['one', 'two', 'three'])
      ids.push((await create(orgId, owner.token, { slug, source: { url: `${origin}/v31.json` } })).id);
    const first = await list(orgId, owner.token, '?limit=2');
    expect(first.body).toMatchObject({ count: 3, next: { page: expect.any(String) } });
    const second = await list(orgId, owner.token, `?limit=2&page=${encodeURIComponent(first.body.next.page)}`);
    expect(second.body.next).toBeUndefined();
    expect([...first.body.items, ...second.body.items].map((s: any) => s.id)).toEqual(ids);
  });

  it('refuses a bad limit or page (400), no token (401) and outsiders (404)', async () => {
    const { owner, orgId, outsider } = await world();
    await refused(400, 'GET', `${specsPath(orgId)}?limit=0`, { token: owner.token, field: 'limit' });
    await refused(400, 'GET', `${specsPath(orgId)}?limit=1001`, { token: owner.token, field: 'limit' });
    await refused(400, 'GET', `${specsPath(orgId)}?page=bogus`, { token: owner.token, field: 'page' });
    await refused(401, 'GET', specsPath(orgId));
    await refused(404, 'GET', specsPath(orgId), { token: outsider.token });
  });
});

// ---------------------------------------------------------------------------------------------
describe('GET /orgs/:organizationId/openapi/:specSlug', () => {
  it('answers the spec to any member, with what they may do', async () => {
    const { owner, orgId, reader, guest, creator } = await world();
    const spec = await create(orgId, owner.token, { slug: 'pets', source: { url: `${origin}/v31.json` } });
    for (const [who, edit] of [
      [reader, false],
      [guest, false],
      [creator, true],
      [owner, true],
    ] as const) {
      const body = await getSpec(orgId, 'pets', who.token);
      expect(body.id).toBe(spec.id);
      expect(body.permissions).toEqual({ view: true, edit });
    }
  });

  it('answers 404 for a missing spec, a spec of another organization, outsiders; 401 without a token', async () => {
    const { owner, orgId, outsider } = await world();
    await create(orgId, owner.token, { slug: 'pets', source: { url: `${origin}/v31.json` } });
    const other = await h.owner('Other');
    await create(other.orgId, other.token, { slug: 'theirs', source: { url: `${origin}/v31.json` } });
    await refused(404, 'GET', specPath(orgId, 'missing'), { token: owner.token, operationId: 'getOpenAPISpecBySlug' });
    await refused(404, 'GET', specPath(orgId, 'theirs'), { token: owner.token, operationId: 'getOpenAPISpecBySlug' });
    await refused(404, 'GET', specPath(orgId, 'pets'), { token: outsider.token, operationId: 'getOpenAPISpecBySlug' });
    await refused(401, 'GET', specPath(orgId, 'pets'));
  });
});

// ---------------------------------------------------------------------------------------------
describe('PUT /orgs/:organizationId/openapi/:specSlug (create or update)', () => {
  it('creates the spec when there is none (201), records a new version when there is one (200)', async () => {
    const { owner, orgId, creator } = await world();
    const created = await put(orgId, 'Billing', creator.token, { source: { url: `${origin}/v31.json` } }, 201);
    expect(created).toMatchObject({
      slug: 'billing',
      processingState: 'pending',
      sourceURL: `${origin}/v31.json`,
      permissions: { view: true, edit: true },
    });
    await drain();
    const before = await getSpec(orgId, 'billing', owner.token);

    const updated = await put(orgId, 'billing', owner.token, { source: { url: `${origin}/v31-b.json` } }, 200);
    expect(updated.id).toBe(created.id);
    expect(updated.lastVersion).not.toBe(created.lastVersion);
    expect(updated).toMatchObject({ processingState: 'pending', sourceURL: `${origin}/v31-b.json`, createdAt: created.createdAt });
    // The previous processing's outcome stays reported until the new one ends.
    expect(updated.lastProcessedAt).toBe(before.lastProcessedAt);
    expect(Date.parse(updated.updatedAt)).toBeGreaterThanOrEqual(Date.parse(before.updatedAt));
    const list = await versions(orgId, 'billing', owner.token);
    expect(list.items.map((v: any) => [v.id, v.url])).toEqual([
      [updated.lastVersion, `${origin}/v31-b.json`],
      [created.lastVersion, `${origin}/v31.json`],
    ]);
    await drain();
    const content = await latestContent(orgId, 'billing', owner.token);
    expect(content.body.url).toBe(`${origin}/v31-b.json`);
    expect(content.body.filesystem.title).toBe('Pets, second edition');
  });

  it('switches between a URL and text sources', async () => {
    const { owner, orgId } = await world();
    await put(orgId, 'switch', owner.token, { source: { url: `${origin}/v31.json` } }, 201);
    const asText = await put(orgId, 'switch', owner.token, { source: { text: JSON.stringify(swagger2) } }, 200);
    expect(asText.sourceURL).toBeUndefined();
    await drain();
    const content = await latestContent(orgId, 'switch', owner.token);
    expect(content.body.filesystem).toMatchObject({ specification: 'swagger', version: '2.0', title: 'Legacy' });
    expect(content.body.url).toBe(`${BASE}/openapi/${orgId}/switch/versions/${asText.lastVersion}`);
    const back = await put(orgId, 'switch', owner.token, { source: { url: `${origin}/v31.json` } }, 200);
    expect(back.sourceURL).toBe(`${origin}/v31.json`);
  });

  it('refuses bad input with 400 naming the field, changing nothing', async () => {
    const { owner, orgId } = await world();
    await put(orgId, 'kept', owner.token, { source: { url: `${origin}/v31.json` } }, 201);
    for (const slug of ['kept', 'new-one']) {
      const path = specPath(orgId, slug);
      const bad = (body: unknown, field?: string) =>
        refused(400, 'PUT', path, { token: owner.token, body, field, operationId: 'createOrUpdateOpenAPISpecBySlug' });
      await bad({}, 'source');
      await bad({ source: {} }, 'source');
      await bad({ source: { url: 'mailto:me@example.com' } }, 'source.url');
      await bad({ source: { text: '' } }, 'source.text');
      await bad({ source: { url: `${origin}/v31.json`, text: '{}' } }, 'source');
    }
    await refused(400, 'PUT', specPath(orgId, 'bad_slug'), {
      token: owner.token,
      body: { source: { url: `${origin}/v31.json` } },
      field: 'specSlug',
      operationId: 'createOrUpdateOpenAPISpecBySlug',
    });
    await refused(400, 'PUT', specPath(orgId, 'x'.repeat(101)), {
      token: owner.token,
      body: { source: { url: `${origin}/v31.json` } },
      field: 'specSlug',
      operationId: 'createOrUpdateOpenAPISpecBySlug',
    });
  });

  it('limits the size of a spec given as text', async () => {
    const { owner, orgId } = await world();
    process.env.LECTERN_OPENAPI_MAX_BYTES = '1000';
    await refused(400, 'PUT', specPath(orgId, 'big'), {
      token: owner.token,
      body: { source: { text: `openapi: 3.1.0\n# ${'x'.repeat(1000)}` } },
      field: 'source.text',
      operationId: 'createOrUpdateOpenAPISpecBySlug',
    });
  });

  it('refuses callers without rights: 401, 404 for outsiders, 403 below the create role (existing or not)', async () => {
    const { owner, orgId, editor, reader, guest, outsider } = await world();
    await put(orgId, 'exists', owner.token, { source: { url: `${origin}/v31.json` } }, 201);
    const body = { source: { url: `${origin}/v31-b.json` } };
    for (const slug of ['exists', 'fresh']) {
      await refused(401, 'PUT', specPath(orgId, slug), { body });
      await refused(404, 'PUT', specPath(orgId, slug), { token: outsider.token, body });
      for (const who of [editor, reader, guest]) await refused(403, 'PUT', specPath(orgId, slug), { token: who.token, body });
    }
  });
});

// ---------------------------------------------------------------------------------------------
describe('DELETE /orgs/:organizationId/openapi/:specSlug', () => {
  it('deletes the spec and its versions (205); nothing to delete is a 404', async () => {
    const { owner, orgId, creator } = await world();
    const spec = await create(orgId, owner.token, { slug: 'doomed', source: { url: `${origin}/v31.json` } });
    await put(orgId, 'doomed', owner.token, { source: { url: `${origin}/v31-b.json` } }, 200);
    const kept = await create(orgId, owner.token, { slug: 'kept', source: { url: `${origin}/v31.json` } });
    const res = await h.rest('deleteOpenAPISpecBySlug', 'DELETE', specPath(orgId, 'DOOMED'), { token: creator.token });
    expect(res.status).toBe(205);
    expect(res.body).toBeUndefined();
    expect(await h.db.prisma.openAPISpec.findUnique({ where: { id: spec.id } })).toBeNull();
    expect(await h.db.prisma.openAPISpecVersion.count({ where: { specId: spec.id } })).toBe(0);
    expect(await h.db.prisma.openAPISpecVersion.count({ where: { specId: kept.id } })).toBe(1);
    expect((await get(orgId, 'doomed', owner.token)).status).toBe(404);
    // The queued processing of the deleted versions finds nothing to do.
    await drain();
    expect(await h.db.prisma.job.count({ where: { kind: OPENAPI_JOB, status: { not: 'done' } } })).toBe(0);
    expect((await getSpec(orgId, 'kept', owner.token)).processingState).toBe('complete');

    const again = await refused(404, 'DELETE', specPath(orgId, 'doomed'), { token: owner.token });
    expect(again.body.error.message).toBe('OpenAPI specification not found');
    // The slug can be used again.
    expect((await create(orgId, owner.token, { slug: 'doomed', source: { url: `${origin}/v31.json` } })).id).not.toBe(spec.id);
  });

  it('refuses callers without rights, deleting nothing', async () => {
    const { owner, orgId, editor, reader, guest, outsider } = await world();
    await create(orgId, owner.token, { slug: 'safe', source: { url: `${origin}/v31.json` } });
    await refused(401, 'DELETE', specPath(orgId, 'safe'));
    await refused(404, 'DELETE', specPath(orgId, 'safe'), { token: outsider.token });
    for (const who of [editor, reader, guest]) await refused(403, 'DELETE', specPath(orgId, 'safe'), { token: who.token });
    // Another organization's admin cannot delete it through their own organization either.
    const other = await h.owner('Other');
    await refused(404, 'DELETE', specPath(other.orgId, 'safe'), { token: other.token });
  });
});

// ---------------------------------------------------------------------------------------------
describe('PATCH /orgs/:organizationId/openapi/:specSlug (visibility)', () => {
  const patch = (orgId: string, slug: string, token: string, body: unknown) =>
    h.rest('updateOpenAPISpecBySlug', 'PATCH', specPath(orgId, slug), { token, body });

  it('makes a spec public (published URL, served without a token) and private again', async () => {
    const { owner, orgId, creator } = await world();
    const spec = await processed(orgId, owner.token, 'pets', `${origin}/v31.json`);
    const published = `${BASE}/openapi/${orgId}/pets`;
    expect((await h.call('GET', `/openapi/${orgId}/pets`)).status).toBe(404);

    const res = await patch(orgId, 'pets', creator.token, { visibility: 'public' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: spec.id, visibility: 'public', lastVersion: spec.lastVersion, processingState: 'complete' });
    expect(res.body.urls).toEqual({ location: spec.urls.location, app: spec.urls.app, published });
    const served = await h.call('GET', `/openapi/${orgId}/pets`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toMatch(/^application\/json/);
    expect(served.body).toEqual(v31());
    // No new version for a visibility change.
    expect((await versions(orgId, 'pets', owner.token)).count).toBe(1);
    // A public spec read from a URL offers that URL as its public one.
    expect((await latestContent(orgId, 'pets', owner.token)).body.urls).toEqual({
      source: `${origin}/v31.json`,
      public: `${origin}/v31.json`,
    });

    const back = await patch(orgId, 'pets', owner.token, { visibility: 'private' });
    expect(back.body.visibility).toBe('private');
    expect(back.body.urls.published).toBeUndefined();
    expect((await latestContent(orgId, 'pets', owner.token)).body.urls).toEqual({ source: `${origin}/v31.json`, public: null });
    expect((await h.call('GET', `/openapi/${orgId}/pets`)).status).toBe(404);
    expect((await h.call('GET', `/openapi/${orgId}/pets`, { token: owner.token })).status).toBe(200);
  });

  it('refuses bad input (400), a missing spec (404), callers without rights', async () => {
    const { owner, orgId, editor, reader, guest, outsider } = await world();
    await create(orgId, owner.token, { slug: 'pets', source: { url: `${origin}/v31.json` } });
    const path = specPath(orgId, 'pets');
    await refused(400, 'PATCH', path, { token: owner.token, body: {}, field: 'visibility', operationId: 'updateOpenAPISpecBySlug' });
    await refused(400, 'PATCH', path, {
      token: owner.token,
      body: { visibility: 'secret' },
      field: 'visibility',
      operationId: 'updateOpenAPISpecBySlug',
    });
    await refused(400, 'PATCH', path, {
      token: owner.token,
      body: { visibility: null },
      field: 'visibility',
      operationId: 'updateOpenAPISpecBySlug',
    });
    await refused(400, 'PATCH', path, {
      token: owner.token,
      body: { visibility: 'PUBLIC' },
      field: 'visibility',
      operationId: 'updateOpenAPISpecBySlug',
    });
    await refused(404, 'PATCH', specPath(orgId, 'missing'), {
      token: owner.token,
      body: { visibility: 'public' },
      operationId: 'updateOpenAPISpecBySlug',
    });
    await refused(401, 'PATCH', path, { body: { visibility: 'public' } });
    await refused(404, 'PATCH', path, { token: outsider.token, body: { visibility: 'public' } });
    for (const who of [editor, reader, guest]) await refused(403, 'PATCH', path, { token: who.token, body: { visibility: 'public' } });
  });
});
