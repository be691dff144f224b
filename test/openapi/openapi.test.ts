import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import { drainJobs } from '../../src/jobs/queue.js';
import { OPENAPI_JOB } from '../../src/modules/openapi/jobs.js';
import { createUrls } from '../../src/urls.js';
import { requestRefusalChecker } from '../support/refused.js';
import { BASE, setupHarness, type Harness, type TestUser } from '../support/harness.js';
import { componentValidator } from '../support/openapi.js';

/**
 * OpenAPI specs and versions (src/modules/openapi), served by a real HTTP server started here:
 * valid 3.1, Swagger 2.0 and YAML (with external $refs) specs, an invalid one, one that never
 * answers, one that answers when the test says so (to observe `progress`), and more.
 */
let h: Harness;
let server: http.Server;
let origin: string;
const hits = new Map<string, number>();
let releaseSlow: (() => void) | null = null;
let slowStarted: (() => void) | null = null;
const hanging = new Set<http.ServerResponse>();
/** What /mutable.json answers (the test changes it between versions). */
let mutable = '';

const v31 = (title = 'Pets', extra: Record<string, unknown> = {}) => ({
  openapi: '3.1.0',
  info: { title, version: '1.0.0' },
  tags: [{ name: 'pets', description: 'Everything about pets' }],
  paths: {
    '/pets': {
      get: {
        tags: ['pets'],
        summary: 'List pets',
        operationId: 'listPets',
        parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer' } }],
        responses: { '200': { description: 'The pets', content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Pet' } } } } } },
      },
    },
  },
  components: { schemas: { Pet: { type: 'object', required: ['id'], properties: { id: { type: 'integer' }, name: { type: 'string' } } } } },
  ...extra,
});

const swagger2 = {
  swagger: '2.0',
  info: { title: 'Legacy', version: '2.1' },
  host: 'api.example.com',
  basePath: '/v2',
  paths: {
    '/users/{id}': {
      get: {
        operationId: 'getUser',
        parameters: [{ name: 'id', in: 'path', required: true, type: 'string' }],
        responses: { '200': { description: 'A user', schema: { $ref: '#/definitions/User' } } },
      },
    },
  },
  definitions: { User: { type: 'object', properties: { id: { type: 'string' } } } },
};

const YAML_ENTRY = `openapi: 3.0.3
info:
  title: Store
  version: "3"
paths:
  /orders:
    get:
      summary: List orders
      operationId: listOrders
      responses:
        "200":
          description: Orders
          content:
            application/json:
              schema:
                $ref: "./schemas/order.yaml#/Orders"
  /orders/{id}:
    $ref: "paths/order.yaml"
`;
const YAML_SCHEMAS = `Order:
  type: object
  properties:
    id: { type: string }
Orders:
  type: array
  items:
    $ref: "#/Order"
`;
const YAML_PATH = `get:
  summary: Get an order
  operationId: getOrder
  parameters:
    - { name: id, in: path, required: true, schema: { type: string } }
  responses:
    "200":
      description: One order
      content:
        application/json:
          schema: { $ref: "../schemas/order.yaml#/Order" }
`;

// Invalid: info.version is missing and a response object has no description.
const invalid = { openapi: '3.0.3', info: { title: 'Broken' }, paths: { '/x': { get: { responses: { '200': {} } } } } };

const FILES: Record<string, { body: string; type: string }> = {
  '/v31.json': { body: JSON.stringify(v31()), type: 'application/json' },
  '/v31-b.json': { body: JSON.stringify(v31('Pets, second edition')), type: 'application/json' },
  '/swagger.json': { body: JSON.stringify(swagger2), type: 'application/json' },
  '/store/api.yaml': { body: YAML_ENTRY, type: 'application/yaml' },
  '/store/schemas/order.yaml': { body: YAML_SCHEMAS, type: 'application/yaml' },
  '/store/paths/order.yaml': { body: YAML_PATH, type: 'application/yaml' },
  '/invalid.json': { body: JSON.stringify(invalid), type: 'application/json' },
  '/broken.yaml': { body: 'openapi: 3.1.0\ninfo:\n  title: [unclosed\n', type: 'application/yaml' },
  '/not-openapi.json': { body: JSON.stringify({ hello: 'world' }), type: 'application/json' },
  '/openapi-2.json': { body: JSON.stringify({ openapi: '2.5', info: { title: 'x', version: '1' }, paths: {} }), type: 'application/json' },
  '/dangling-ref.yaml': { body: 'openapi: 3.1.0\ninfo: { title: D, version: "1" }\npaths:\n  /a:\n    $ref: "./nowhere.yaml"\n', type: 'application/yaml' },
  '/big.json': { body: JSON.stringify(v31('Big', { 'x-padding': 'x'.repeat(5000) })), type: 'application/json' },
};

beforeAll(async () => {
  // Tests fetch from their own 127.0.0.1 server (a private address) with a short timeout.
  process.env.LECTERN_OPENAPI_ALLOW_PRIVATE = '1';
  process.env.LECTERN_OPENAPI_FETCH_TIMEOUT_MS = '400';
  h = await setupHarness();
  server = http.createServer((req, res) => {
    const path = new URL(req.url!, 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path === '/hang') {
      hanging.add(res);
      return;
    }
    if (path === '/slow.json') {
      slowStarted?.();
      releaseSlow = () => res.end(JSON.stringify(v31('Slow')));
      return;
    }
    if (path === '/mutable.json') return res.end(mutable);
    if (path === '/redirect') {
      res.writeHead(302, { location: '/v31.json' });
      return res.end();
    }
    if (path === '/redirect-loop') {
      res.writeHead(302, { location: '/redirect-loop' });
      return res.end();
    }
    const file = FILES[path];
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return res.end('not found');
    }
    res.writeHead(200, { 'content-type': file.type });
    res.end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of hanging) res.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  delete process.env.LECTERN_OPENAPI_ALLOW_PRIVATE;
  delete process.env.LECTERN_OPENAPI_FETCH_TIMEOUT_MS;
  delete process.env.LECTERN_OPENAPI_MAX_BYTES;
});

beforeEach(async () => {
  process.env.LECTERN_OPENAPI_ALLOW_PRIVATE = '1';
  process.env.LECTERN_OPENAPI_FETCH_TIMEOUT_MS = '400';
  delete process.env.LECTERN_OPENAPI_MAX_BYTES;
  // Each test starts with an empty queue (earlier tests may leave versions unprocessed).
  await drainJobs({ db: h.db, config: h.config, urls: createUrls(BASE) }, [OPENAPI_JOB]);
});

const services = () => ({ db: h.db, config: h.config, urls: createUrls(BASE) });
const drain = () => drainJobs(services(), [OPENAPI_JOB]);

type Owner = TestUser & { orgId: string };

/** An organization: its admin, a creator (may write specs), an editor, a reader, a guest, an outsider. */
async function world(title = 'API Org') {
  const owner: Owner = await h.owner(title);
  const creator = await h.user('Creator');
  const editor = await h.user('Editor');
  const reader = await h.user('Reader');
  const guest = await h.user('Guest');
  const outsider = await h.user('Outsider');
  await h.addMember(owner.orgId, creator.id, 'create');
  await h.addMember(owner.orgId, editor.id, 'edit');
  await h.addMember(owner.orgId, reader.id, 'read');
  await h.addMember(owner.orgId, guest.id, null);
  return { owner, orgId: owner.orgId, creator, editor, reader, guest, outsider };
}

/** Everything, specs, versions and jobs included, to prove a refused request changed nothing. */
async function state() {
  const [base, specs, versions, jobs] = await Promise.all([
    h.snapshot(),
    h.db.prisma.openAPISpec.findMany({ orderBy: { id: 'asc' } }),
    h.db.prisma.openAPISpecVersion.findMany({ orderBy: { id: 'asc' } }),
    h.db.prisma.job.findMany({ where: { kind: OPENAPI_JOB }, orderBy: { id: 'asc' } }),
  ]);
  return JSON.stringify({ base, specs, versions, jobs });
}

const refused = requestRefusalChecker({ call: (...a) => h.call(...a), rest: (...a) => h.rest(...a) }, state);

const specsPath = (orgId: string) => `/v1/orgs/${orgId}/openapi`;
const specPath = (orgId: string, slug: string) => `/v1/orgs/${orgId}/openapi/${slug}`;

async function create(orgId: string, token: string, body: unknown) {
  const res = await h.rest('createOpenAPISpec', 'POST', specsPath(orgId), { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const get = (orgId: string, slug: string, token: string) => h.rest('getOpenAPISpecBySlug', 'GET', specPath(orgId, slug), { token });

async function getSpec(orgId: string, slug: string, token: string) {
  const res = await get(orgId, slug, token);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function put(orgId: string, slug: string, token: string, body: unknown, status: number) {
  const res = await h.rest('createOrUpdateOpenAPISpecBySlug', 'PUT', specPath(orgId, slug), { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body;
}

const versions = async (orgId: string, slug: string, token: string, query = '') => {
  const res = await h.rest('listOpenAPISpecVersions', 'GET', `${specPath(orgId, slug)}/versions${query}`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

const latestContent = (orgId: string, slug: string, token: string) =>
  h.rest('getLatestOpenAPISpecVersionContent', 'GET', `${specPath(orgId, slug)}/versions/latest/content`, { token });

/** A spec created from `url` and processed. */
async function processed(orgId: string, token: string, slug: string, url: string) {
  await create(orgId, token, { slug, source: { url } });
  await drain();
  return getSpec(orgId, slug, token);
}

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
      permissions: { view: true, edit: true },
      urls: { location: `${BASE}/v1/orgs/${orgId}/openapi/pets`, app: `${BASE}/app/o/${orgId}/openapi/pets` },
    });
    const rows = await h.db.prisma.openAPISpecVersion.findMany({ where: { specId: spec.id } });
    expect(rows).toEqual([expect.objectContaining({ id: spec.lastVersion, number: 1, state: 'pending', sourceURL: `${origin}/v31.json`, filesystem: null })]);
    const jobs = await h.db.prisma.job.findMany({ where: { kind: OPENAPI_JOB, payload: { path: ['versionId'], equals: spec.lastVersion } } });
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
    expect((await create(orgId, creator.token, { slug: 'x'.repeat(100), source: { url: `${origin}/v31.json` } })).slug).toBe('x'.repeat(100));
  });

  it('creates a spec from its text (source.text): served at its version URL, processed like a fetched one', async () => {
    const { owner, orgId, reader, outsider } = await world();
    const text = YAML_ENTRY.replace(/\$ref: "\.\/schemas\/order\.yaml#\/Orders"/, 'type: string').replace(/  \/orders\/\{id\}:\n    \$ref: "paths\/order.yaml"\n/, '');
    const spec = await create(orgId, owner.token, { slug: 'store-text', source: { text } });
    expect(spec.sourceURL).toBeUndefined();
    const version = (await versions(orgId, 'store-text', owner.token)).items[0];
    const textUrl = `${BASE}/openapi/${orgId}/store-text/versions/${spec.lastVersion}`;
    expect(version).toEqual({ object: 'openapi-spec-version', id: spec.lastVersion, createdAt: expect.any(String), url: textUrl, urls: { location: `${BASE}/v1/orgs/${orgId}/openapi/store-text/versions/${spec.lastVersion}` } });
    await drain();
    expect(await getSpec(orgId, 'store-text', owner.token)).toMatchObject({ processingState: 'complete', lastProcessedErrors: [] });
    const content = await latestContent(orgId, 'store-text', reader.token);
    expect(content.status).toBe(200);
    expect(content.body.url).toBe(textUrl);
    expect(content.body.filesystem).toMatchObject({ entrypoint: textUrl, specification: 'openapi', version: '3.0.3', title: 'Store', apiVersion: '3' });
    expect(Object.keys(content.body.filesystem.files)).toEqual([textUrl]);
    expect(content.body.filesystem.files[textUrl]).toMatchObject({ format: 'yaml', references: [], specification: { info: { title: 'Store' } } });

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
    const bad = (body: unknown, field?: string) => refused(400, 'POST', path, { token: owner.token, body, field, operationId: 'createOpenAPISpec' });
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
    for (const url of [`${origin}/v31.json`, 'http://localhost:8080/spec.json', 'http://10.1.2.3/spec.json', 'http://169.254.169.254/latest', 'http://[::1]/spec.json', 'http://[fd00::1]/x', 'http://[::ffff:127.0.0.1]/x']) {
      const res = await refused(400, 'POST', path, { token: owner.token, body: { slug: 'private', source: { url } }, field: 'source.url', operationId: 'createOpenAPISpec' });
      expect(res.body.error.message).toMatch(/private network/);
    }
    process.env.LECTERN_OPENAPI_ALLOW_PRIVATE = '1';
    expect((await create(orgId, owner.token, { slug: 'private', source: { url: `${origin}/v31.json` } })).slug).toBe('private');
  });

  it('refuses a slug already taken in the organization (409); another organization may use it', async () => {
    const { owner, orgId } = await world();
    await create(orgId, owner.token, { slug: 'taken', source: { url: `${origin}/v31.json` } });
    const res = await refused(409, 'POST', specsPath(orgId), { token: owner.token, body: { slug: 'TAKEN', source: { url: `${origin}/v31.json` } } });
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
    for (const slug of ['one', 'two', 'three']) ids.push((await create(orgId, owner.token, { slug, source: { url: `${origin}/v31.json` } })).id);
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
    for (const [who, edit] of [[reader, false], [guest, false], [creator, true], [owner, true]] as const) {
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
    expect(created).toMatchObject({ slug: 'billing', processingState: 'pending', sourceURL: `${origin}/v31.json`, permissions: { view: true, edit: true } });
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
      const bad = (body: unknown, field?: string) => refused(400, 'PUT', path, { token: owner.token, body, field, operationId: 'createOrUpdateOpenAPISpecBySlug' });
      await bad({}, 'source');
      await bad({ source: {} }, 'source');
      await bad({ source: { url: 'mailto:me@example.com' } }, 'source.url');
      await bad({ source: { text: '' } }, 'source.text');
      await bad({ source: { url: `${origin}/v31.json`, text: '{}' } }, 'source');
    }
    await refused(400, 'PUT', specPath(orgId, 'bad_slug'), { token: owner.token, body: { source: { url: `${origin}/v31.json` } }, field: 'specSlug', operationId: 'createOrUpdateOpenAPISpecBySlug' });
    await refused(400, 'PUT', specPath(orgId, 'x'.repeat(101)), { token: owner.token, body: { source: { url: `${origin}/v31.json` } }, field: 'specSlug', operationId: 'createOrUpdateOpenAPISpecBySlug' });
  });

  it('limits the size of a spec given as text', async () => {
    const { owner, orgId } = await world();
    process.env.LECTERN_OPENAPI_MAX_BYTES = '1000';
    await refused(400, 'PUT', specPath(orgId, 'big'), { token: owner.token, body: { source: { text: `openapi: 3.1.0\n# ${'x'.repeat(1000)}` } }, field: 'source.text', operationId: 'createOrUpdateOpenAPISpecBySlug' });
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
  it('deletes the spec and its versions (205); nothing to delete is a 204', async () => {
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

    const again = await h.rest('deleteOpenAPISpecBySlug', 'DELETE', specPath(orgId, 'doomed'), { token: owner.token });
    expect(again.status).toBe(204);
    expect(again.body).toBeUndefined();
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
    const before = await state();
    expect((await h.rest('deleteOpenAPISpecBySlug', 'DELETE', specPath(other.orgId, 'safe'), { token: other.token })).status).toBe(204);
    expect(await state()).toBe(before);
  });
});

// ---------------------------------------------------------------------------------------------
describe('PATCH /orgs/:organizationId/openapi/:specSlug (visibility)', () => {
  const patch = (orgId: string, slug: string, token: string, body: unknown) => h.rest('updateOpenAPISpecBySlug', 'PATCH', specPath(orgId, slug), { token, body });

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

    const back = await patch(orgId, 'pets', owner.token, { visibility: 'private' });
    expect(back.body.visibility).toBe('private');
    expect(back.body.urls.published).toBeUndefined();
    expect((await h.call('GET', `/openapi/${orgId}/pets`)).status).toBe(404);
    expect((await h.call('GET', `/openapi/${orgId}/pets`, { token: owner.token })).status).toBe(200);
  });

  it('refuses bad input (400), a missing spec (404), callers without rights', async () => {
    const { owner, orgId, editor, reader, guest, outsider } = await world();
    await create(orgId, owner.token, { slug: 'pets', source: { url: `${origin}/v31.json` } });
    const path = specPath(orgId, 'pets');
    await refused(400, 'PATCH', path, { token: owner.token, body: {}, field: 'visibility', operationId: 'updateOpenAPISpecBySlug' });
    await refused(400, 'PATCH', path, { token: owner.token, body: { visibility: 'secret' }, field: 'visibility', operationId: 'updateOpenAPISpecBySlug' });
    await refused(400, 'PATCH', path, { token: owner.token, body: { visibility: null }, field: 'visibility', operationId: 'updateOpenAPISpecBySlug' });
    await refused(400, 'PATCH', path, { token: owner.token, body: { visibility: 'PUBLIC' }, field: 'visibility', operationId: 'updateOpenAPISpecBySlug' });
    await refused(404, 'PATCH', specPath(orgId, 'missing'), { token: owner.token, body: { visibility: 'public' }, operationId: 'updateOpenAPISpecBySlug' });
    await refused(401, 'PATCH', path, { body: { visibility: 'public' } });
    await refused(404, 'PATCH', path, { token: outsider.token, body: { visibility: 'public' } });
    for (const who of [editor, reader, guest]) await refused(403, 'PATCH', path, { token: who.token, body: { visibility: 'public' } });
  });
});

// ---------------------------------------------------------------------------------------------
describe('versions', () => {
  it('lists every version newest first, pages, and answers each one, the latest and their content', async () => {
    const { owner, orgId, reader } = await world();
    mutable = JSON.stringify(v31('Version 1'));
    const spec = await create(orgId, owner.token, { slug: 'history', source: { url: `${origin}/mutable.json` } });
    await drain();
    const ids = [spec.lastVersion];
    for (const n of [2, 3]) {
      mutable = JSON.stringify(v31(`Version ${n}`));
      ids.unshift((await put(orgId, 'history', owner.token, { source: { url: `${origin}/mutable.json` } }, 200)).lastVersion);
      await drain();
    }
    const all = await versions(orgId, 'history', reader.token);
    expect(all.count).toBe(3);
    expect(all.items.map((v: any) => v.id)).toEqual(ids);
    for (const v of all.items) expect(v).toEqual({ object: 'openapi-spec-version', id: expect.any(String), createdAt: expect.any(String), url: `${origin}/mutable.json`, urls: { location: `${BASE}/v1/orgs/${orgId}/openapi/history/versions/${v.id}` } });
    const first = await versions(orgId, 'history', reader.token, '?limit=2');
    expect(first.next).toEqual({ page: expect.any(String) });
    const rest = await versions(orgId, 'history', reader.token, `?limit=2&page=${encodeURIComponent(first.next.page)}`);
    expect([...first.items, ...rest.items].map((v: any) => v.id)).toEqual(ids);
    expect(rest.next).toBeUndefined();

    const latest = await h.rest('getLatestOpenAPISpecVersion', 'GET', `${specPath(orgId, 'history')}/versions/latest`, { token: reader.token });
    expect(latest.status).toBe(200);
    expect(latest.body).toEqual(all.items[0]);
    expect(latest.body.id).toBe((await getSpec(orgId, 'history', reader.token)).lastVersion);

    // Every version keeps its own content.
    for (const [i, id] of ids.entries()) {
      const one = await h.rest('getOpenAPISpecVersionById', 'GET', `${specPath(orgId, 'history')}/versions/${id}`, { token: reader.token });
      expect(one.status).toBe(200);
      expect(one.body).toEqual(all.items[i]);
      const content = await h.rest('getOpenAPISpecVersionContentById', 'GET', `${specPath(orgId, 'history')}/versions/${id}/content`, { token: reader.token });
      expect(content.status).toBe(200);
      expect(content.body.url).toBe(`${origin}/mutable.json`);
      expect(content.body.filesystem.title).toBe(`Version ${3 - i}`);
      expect(componentValidator('OpenAPISpecContent')(content.body)).toBe(true);
    }
    const newest = await latestContent(orgId, 'history', reader.token);
    expect(newest.status).toBe(200);
    expect(newest.body.filesystem.title).toBe('Version 3');
  });

  it('answers 404 for versions that do not exist, content not processed yet, and specs not found', async () => {
    const { owner, orgId } = await world();
    const spec = await create(orgId, owner.token, { slug: 'pending', source: { url: `${origin}/v31.json` } });
    const base = specPath(orgId, 'pending');
    const res = await refused(404, 'GET', `${base}/versions/latest/content`, { token: owner.token, operationId: 'getLatestOpenAPISpecVersionContent' });
    expect(res.body.error.message).toMatch(/pending/);
    expect((await refused(404, 'GET', `${base}/versions/${spec.lastVersion}/content`, { token: owner.token, operationId: 'getOpenAPISpecVersionContentById' })).body.error.message).toMatch(/pending/);
    await refused(404, 'GET', `${base}/versions/${newId()}`, { token: owner.token, operationId: 'getOpenAPISpecVersionById' });
    await refused(404, 'GET', `${base}/versions/${newId()}/content`, { token: owner.token, operationId: 'getOpenAPISpecVersionContentById' });
    // A version of another spec is not found under this one.
    const other = await create(orgId, owner.token, { slug: 'other', source: { url: `${origin}/v31.json` } });
    await refused(404, 'GET', `${base}/versions/${other.lastVersion}`, { token: owner.token, operationId: 'getOpenAPISpecVersionById' });
    await refused(404, 'GET', `${base}/versions/${other.lastVersion}/content`, { token: owner.token, operationId: 'getOpenAPISpecVersionContentById' });
    for (const [operationId, suffix] of [
      ['listOpenAPISpecVersions', '/versions'],
      ['getLatestOpenAPISpecVersion', '/versions/latest'],
      ['getLatestOpenAPISpecVersionContent', '/versions/latest/content'],
      ['getOpenAPISpecVersionById', `/versions/${spec.lastVersion}`],
      ['getOpenAPISpecVersionContentById', `/versions/${spec.lastVersion}/content`],
    ] as const) {
      await refused(404, 'GET', `${specPath(orgId, 'missing')}${suffix}`, { token: owner.token, operationId });
    }
    await refused(400, 'GET', `${base}/versions?limit=0`, { token: owner.token, field: 'limit' });
  });

  it('refuses callers without rights on every version route: 401, 404 for outsiders; any member reads', async () => {
    const { owner, orgId, guest, outsider } = await world();
    const spec = await processed(orgId, owner.token, 'pets', `${origin}/v31.json`);
    const routes = [
      ['listOpenAPISpecVersions', '/versions'],
      ['getLatestOpenAPISpecVersion', '/versions/latest'],
      ['getLatestOpenAPISpecVersionContent', '/versions/latest/content'],
      ['getOpenAPISpecVersionById', `/versions/${spec.lastVersion}`],
      ['getOpenAPISpecVersionContentById', `/versions/${spec.lastVersion}/content`],
    ] as const;
    for (const [operationId, suffix] of routes) {
      const path = `${specPath(orgId, 'pets')}${suffix}`;
      expect((await h.rest(operationId, 'GET', path, { token: guest.token })).status).toBe(200);
      await refused(401, 'GET', path);
      await refused(404, 'GET', path, { token: outsider.token, operationId });
    }
  });
});

// ---------------------------------------------------------------------------------------------
describe('processing', () => {
  const fs = async (orgId: string, slug: string, token: string) => {
    const res = await latestContent(orgId, slug, token);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.filesystem;
  };

  it('goes pending → progress → complete, observed while the fetch is under way', async () => {
    const { owner, orgId } = await world();
    const spec = await create(orgId, owner.token, { slug: 'slow', source: { url: `${origin}/slow.json` } });
    expect(spec.processingState).toBe('pending');
    const started = new Promise<void>((resolve) => (slowStarted = resolve));
    process.env.LECTERN_OPENAPI_FETCH_TIMEOUT_MS = '10000';
    const running = drain();
    await started;
    const during = await getSpec(orgId, 'slow', owner.token);
    expect(during.processingState).toBe('progress');
    expect((await h.db.prisma.openAPISpecVersion.findUniqueOrThrow({ where: { id: spec.lastVersion } })).state).toBe('progress');
    expect((await latestContent(orgId, 'slow', owner.token)).body.error.message).toMatch(/in progress/);
    releaseSlow!();
    expect(await running).toBe(1);
    process.env.LECTERN_OPENAPI_FETCH_TIMEOUT_MS = '400';
    const after = await getSpec(orgId, 'slow', owner.token);
    expect(after).toMatchObject({ processingState: 'complete', lastProcessedErrors: [] });
    expect((await fs(orgId, 'slow', owner.token)).title).toBe('Slow');
  });

  it('stores an OpenAPI 3.1 JSON spec as its filesystem', async () => {
    const { owner, orgId } = await world();
    const spec = await processed(orgId, owner.token, 'v31', `${origin}/v31.json`);
    expect(spec.lastProcessErrorCode).toBeUndefined();
    const filesystem = await fs(orgId, 'v31', owner.token);
    expect(filesystem).toEqual({
      entrypoint: `${origin}/v31.json`,
      specification: 'openapi',
      version: '3.1.0',
      title: 'Pets',
      apiVersion: '1.0.0',
      files: { [`${origin}/v31.json`]: { format: 'json', references: [], specification: v31() } },
    });
    const version = await h.db.prisma.openAPISpecVersion.findUniqueOrThrow({ where: { id: spec.lastVersion } });
    expect(version).toMatchObject({ state: 'complete', errorCode: null, errors: [], text: FILES['/v31.json']!.body });
  });

  it('stores a Swagger 2.0 spec', async () => {
    const { owner, orgId } = await world();
    await processed(orgId, owner.token, 'legacy', `${origin}/swagger.json`);
    expect(await fs(orgId, 'legacy', owner.token)).toMatchObject({ specification: 'swagger', version: '2.0', title: 'Legacy', apiVersion: '2.1' });
  });

  it('parses YAML and resolves its external $refs (relative to each file) into the filesystem', async () => {
    const { owner, orgId } = await world();
    await processed(orgId, owner.token, 'store', `${origin}/store/api.yaml`);
    const filesystem = await fs(orgId, 'store', owner.token);
    const [entry, schemas, path] = [`${origin}/store/api.yaml`, `${origin}/store/schemas/order.yaml`, `${origin}/store/paths/order.yaml`];
    expect(filesystem.entrypoint).toBe(entry);
    expect(filesystem).toMatchObject({ specification: 'openapi', version: '3.0.3', title: 'Store' });
    expect(Object.keys(filesystem.files).sort()).toEqual([entry, path, schemas].sort());
    expect(filesystem.files[entry].references).toEqual([schemas, path]);
    expect(filesystem.files[path].references).toEqual([schemas]);
    expect(filesystem.files[schemas]).toEqual({
      format: 'yaml',
      references: [],
      specification: { Order: { type: 'object', properties: { id: { type: 'string' } } }, Orders: { type: 'array', items: { $ref: '#/Order' } } },
    });
    // Documents are kept as written.
    expect(filesystem.files[entry].specification.paths['/orders/{id}']).toEqual({ $ref: 'paths/order.yaml' });
  });

  it('follows redirects', async () => {
    const { owner, orgId } = await world();
    await processed(orgId, owner.token, 'moved', `${origin}/redirect`);
    expect((await fs(orgId, 'moved', owner.token)).entrypoint).toBe(`${origin}/v31.json`);
    const loop = await processed(orgId, owner.token, 'loop', `${origin}/redirect-loop`);
    expect(loop.lastProcessErrorCode).toBe('FETCH_ERROR');
    expect(loop.lastProcessedErrors[0].message).toMatch(/redirects more than 5 times/);
  });

  it('an invalid spec fails with PARSE_ERROR and messages naming the problems; the previous good version stays served', async () => {
    const { owner, orgId } = await world();
    const good = await processed(orgId, owner.token, 'pets', `${origin}/v31.json`);
    const update = await put(orgId, 'pets', owner.token, { source: { url: `${origin}/invalid.json` } }, 200);
    await drain();
    const spec = await getSpec(orgId, 'pets', owner.token);
    expect(spec).toMatchObject({ processingState: 'complete', lastProcessErrorCode: 'PARSE_ERROR', lastVersion: update.lastVersion, sourceURL: `${origin}/invalid.json` });
    const messages = spec.lastProcessedErrors.map((e: any) => e.message).join('\n');
    expect(messages).toMatch(/version/);
    expect(messages).toMatch(/description/);
    expect(Date.parse(spec.lastProcessedAt)).toBeGreaterThanOrEqual(Date.parse(good.lastProcessedAt));
    // The latest content is still the good version's; the failed version has none.
    const content = await latestContent(orgId, 'pets', owner.token);
    expect(content.body.url).toBe(`${origin}/v31.json`);
    expect(content.body.filesystem.title).toBe('Pets');
    const failed = await h.call('GET', `${specPath(orgId, 'pets')}/versions/${update.lastVersion}/content`, { token: owner.token });
    expect(failed.status).toBe(404);
    expect(failed.body.error.message).toMatch(/failed \(PARSE_ERROR/);
    // versions/latest names the newest version, failed or not.
    expect((await h.rest('getLatestOpenAPISpecVersion', 'GET', `${specPath(orgId, 'pets')}/versions/latest`, { token: owner.token })).body.id).toBe(update.lastVersion);
    // A good update clears the error.
    await put(orgId, 'pets', owner.token, { source: { url: `${origin}/v31-b.json` } }, 200);
    await drain();
    const fixed = await getSpec(orgId, 'pets', owner.token);
    expect(fixed).toMatchObject({ processingState: 'complete', lastProcessedErrors: [] });
    expect(fixed.lastProcessErrorCode).toBeUndefined();
  });

  it('reports what is wrong with text that is not an OpenAPI description', async () => {
    const { owner, orgId } = await world();
    const cases: [string, RegExp][] = [
      [`${origin}/broken.yaml`, /is not valid YAML \(line \d+, column \d+\)/],
      [`${origin}/not-openapi.json`, /neither an "openapi" \(3\.0, 3\.1\) nor a "swagger"/],
      [`${origin}/openapi-2.json`, /declares openapi: "2\.5"/],
    ];
    for (const [i, [url, message]] of cases.entries()) {
      const spec = await processed(orgId, owner.token, `bad-${i}`, url);
      expect(spec.lastProcessErrorCode, url).toBe('PARSE_ERROR');
      expect(spec.lastProcessedErrors[0].message).toMatch(message);
    }
    const text = await create(orgId, owner.token, { slug: 'bad-text', source: { text: '{"openapi": "3.1.0", ' } });
    await drain();
    const spec = await getSpec(orgId, 'bad-text', owner.token);
    expect(spec).toMatchObject({ lastVersion: text.lastVersion, lastProcessErrorCode: 'PARSE_ERROR' });
    expect(spec.lastProcessedErrors[0].message).toMatch(/^The spec text is not valid JSON/);
    const latest = await latestContent(orgId, 'bad-text', owner.token);
    expect(latest.status).toBe(404);
    expect(latest.body.error.message).toMatch(/failed/);
  });

  it('a server that never answers fails with FETCH_TIMEOUT within the time limit', async () => {
    const { owner, orgId } = await world();
    await create(orgId, owner.token, { slug: 'hang', source: { url: `${origin}/hang` } });
    const t0 = Date.now();
    await drain();
    expect(Date.now() - t0).toBeLessThan(5000);
    const spec = await getSpec(orgId, 'hang', owner.token);
    expect(spec).toMatchObject({ processingState: 'complete', lastProcessErrorCode: 'FETCH_TIMEOUT' });
    expect(spec.lastProcessedErrors).toEqual([{ message: expect.stringMatching(/\/hang did not answer in time \(Lectern waits 0\.4 s per file/) }]);
  });

  it('unreachable URLs fail with FETCH_ERROR saying why', async () => {
    const { owner, orgId } = await world();
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const cases: [string, RegExp][] = [
      [`${origin}/missing.json`, /answered HTTP 404 Not Found/],
      [`http://127.0.0.1:${closedPort}/spec.json`, /refused the connection/],
      [`${origin}/dangling-ref.yaml`, /nowhere\.yaml answered HTTP 404/],
    ];
    for (const [i, [url, message]] of cases.entries()) {
      const spec = await processed(orgId, owner.token, `unreachable-${i}`, url);
      expect(spec.lastProcessErrorCode, url).toBe('FETCH_ERROR');
      expect(spec.lastProcessedErrors[0].message).toMatch(message);
    }
  });

  it('refuses private-network addresses at fetch time too (host names resolved and checked)', async () => {
    const { owner, orgId } = await world();
    const port = new URL(origin).port;
    // Accepted while private addresses are allowed, then fetched once they no longer are: the name
    // is resolved and its addresses checked before connecting.
    await create(orgId, owner.token, { slug: 'sneaky', source: { url: `http://localhost:${port}/v31.json` } });
    await create(orgId, owner.token, { slug: 'literal', source: { url: `${origin}/v31.json` } });
    process.env.LECTERN_OPENAPI_ALLOW_PRIVATE = '0';
    const hitsBefore = hits.get('/v31.json') ?? 0;
    await drain();
    // Refused before connecting: the server never saw the request.
    expect(hits.get('/v31.json') ?? 0).toBe(hitsBefore);
    const spec = await getSpec(orgId, 'sneaky', owner.token);
    expect(spec.lastProcessErrorCode).toBe('FETCH_ERROR');
    expect(spec.lastProcessedErrors[0].message).toMatch(/localhost resolves to a private network address \((127\.0\.0\.1|::1)\)/);
    const literal = await getSpec(orgId, 'literal', owner.token);
    expect(literal.lastProcessErrorCode).toBe('FETCH_ERROR');
    expect(literal.lastProcessedErrors[0].message).toMatch(/points to a private network address \(127\.0\.0\.1\)/);

    // A $ref to a private address in a spec given as text is refused the same way.
    await create(orgId, owner.token, { slug: 'text-ref', source: { text: JSON.stringify(v31('T', { paths: { '/a': { $ref: `${origin}/store/paths/order.yaml` } } })) } });
    await drain();
    const ref = await getSpec(orgId, 'text-ref', owner.token);
    expect(ref.lastProcessErrorCode).toBe('FETCH_ERROR');
    expect(ref.lastProcessedErrors[0].message).toMatch(/private network address/);
  });

  it('refuses files over the size limit', async () => {
    const { owner, orgId } = await world();
    await create(orgId, owner.token, { slug: 'big', source: { url: `${origin}/big.json` } });
    process.env.LECTERN_OPENAPI_MAX_BYTES = '2000';
    await drain();
    const spec = await getSpec(orgId, 'big', owner.token);
    expect(spec.lastProcessErrorCode).toBe('FETCH_ERROR');
    expect(spec.lastProcessedErrors[0].message).toMatch(/larger than 2000 bytes/);
  });

  it('a spec given as text resolves absolute $refs, and explains that relative ones cannot be', async () => {
    const { owner, orgId } = await world();
    const withAbsolute = v31('Absolute', { paths: { '/orders/{id}': { $ref: `${origin}/store/paths/order.yaml` } } });
    await create(orgId, owner.token, { slug: 'absolute', source: { text: JSON.stringify(withAbsolute) } });
    await create(orgId, owner.token, { slug: 'relative', source: { text: JSON.stringify(v31('Relative', { paths: { '/a': { $ref: './paths/a.yaml' } } })) } });
    await drain();
    const filesystem = await fs(orgId, 'absolute', owner.token);
    expect(Object.keys(filesystem.files)).toHaveLength(3);
    expect(filesystem.files[`${origin}/store/schemas/order.yaml`]).toBeDefined();
    const relative = await getSpec(orgId, 'relative', owner.token);
    expect(relative.lastProcessErrorCode).toBe('FETCH_ERROR');
    expect(relative.lastProcessedErrors[0].message).toMatch(/\$ref "\.\/paths\/a\.yaml" at the spec text \/paths\/~1a is relative/);
  });

  it('each job runs once, even with two workers, and is taken up by any process (it lives in the database)', async () => {
    const { owner, orgId } = await world();
    mutable = JSON.stringify(v31('Once'));
    hits.set('/mutable.json', 0);
    await create(orgId, owner.token, { slug: 'once', source: { url: `${origin}/mutable.json` } });
    // A second "process": its own services object on the same database.
    const other = { db: h.db, config: h.config, urls: createUrls(BASE) };
    const ran = await Promise.all([drainJobs(services(), [OPENAPI_JOB]), drainJobs(other, [OPENAPI_JOB])]);
    expect(ran[0]! + ran[1]!).toBe(1);
    expect(hits.get('/mutable.json')).toBe(1);
    expect((await getSpec(orgId, 'once', owner.token)).processingState).toBe('complete');
  });

  it('an older version finishing after a newer one is recorded without touching the spec', async () => {
    const { owner, orgId } = await world();
    const first = await create(orgId, owner.token, { slug: 'race', source: { url: `${origin}/v31.json` } });
    const second = await put(orgId, 'race', owner.token, { source: { url: `${origin}/invalid.json` } }, 200);
    // Process the newer version first, then the older one.
    const jobs = await h.db.prisma.job.findMany({ where: { kind: OPENAPI_JOB, status: 'pending' } });
    const olderJob = jobs.find((j) => (j.payload as any).versionId === first.lastVersion)!;
    await h.db.prisma.job.update({ where: { id: olderJob.id }, data: { runAfter: new Date(Date.now() + 60_000) } });
    expect(await drain()).toBe(1);
    await h.db.prisma.job.update({ where: { id: olderJob.id }, data: { runAfter: new Date(0) } });
    expect(await drain()).toBe(1);
    const spec = await getSpec(orgId, 'race', owner.token);
    expect(spec).toMatchObject({ lastVersion: second.lastVersion, lastProcessErrorCode: 'PARSE_ERROR', processingState: 'complete' });
    // The older version processed fine and is what the latest content serves.
    expect((await latestContent(orgId, 'race', owner.token)).body.url).toBe(`${origin}/v31.json`);
    expect((await h.db.prisma.openAPISpecVersion.findUniqueOrThrow({ where: { id: first.lastVersion } })).state).toBe('complete');
  });
});

// ---------------------------------------------------------------------------------------------
describe('GraphQL', () => {
  it('reads specs, versions with their processing state and errors, and pages computed from the spec', async () => {
    const { owner, orgId, reader } = await world();
    await processed(orgId, owner.token, 'store', `${origin}/store/api.yaml`);
    await put(orgId, 'store', owner.token, { source: { url: `${origin}/missing.json` } }, 200);
    await drain();
    const res = await h.graphql(
      reader.token,
      `query($org: ID!) { organization(id: $org) { openAPISpecs { count items { slug processingState lastProcessErrorCode
        versions { items { number state errorCode errors { message } } }
        pages { title slug props operations markdown } } } } }`,
      { org: orgId },
    );
    expect(res.body.errors).toBeUndefined();
    const [spec] = res.body.data.organization.openAPISpecs.items;
    expect(spec).toMatchObject({ slug: 'store', processingState: 'complete', lastProcessErrorCode: 'FETCH_ERROR' });
    expect(spec.versions.items).toEqual([
      { number: 2, state: 'failed', errorCode: 'FETCH_ERROR', errors: [{ message: expect.stringMatching(/missing\.json answered HTTP 404/) }] },
      { number: 1, state: 'complete', errorCode: null, errors: [] },
    ]);
    expect(spec.pages.map((p: any) => [p.title, p.slug, p.props, p.operations])).toEqual([
      ['Other operations', 'other-operations', { doc: 'operations', page: 'Other operations' }, [{ method: 'get', path: '/orders' }, { method: 'get', path: '/orders/{id}' }]],
    ]);
    // Operations behind external $refs are rendered, with their parameters.
    expect(spec.pages[0].markdown).toContain('## Get an order');
    expect(spec.pages[0].markdown).toContain('| `id` | path | string | yes |');

    const pets = await processed(orgId, owner.token, 'pets', `${origin}/v31.json`);
    const pages = await h.graphql(reader.token, `query($org: ID!) { organization(id: $org) { openAPISpec(slug: "pets") { id pages { title props markdown } } } }`, { org: orgId });
    expect(pages.body.data.organization.openAPISpec.id).toBe(pets.id);
    expect(pages.body.data.organization.openAPISpec.pages.map((p: any) => [p.title, p.props])).toEqual([
      ['pets', { doc: 'operations', page: 'pets' }],
      ['Models', { doc: 'models' }],
    ]);
    expect(pages.body.data.organization.openAPISpec.pages[0].markdown).toMatch(/^Everything about pets\n\n## List pets\n\n`GET \/pets`/);
    expect(pages.body.data.organization.openAPISpec.pages[1].markdown).toContain('| `id` | integer | yes |');
  });
});
