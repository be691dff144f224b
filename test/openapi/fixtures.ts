/**
 * Shared by the test/openapi/openapi-*.test.ts files: OpenAPI specs and versions (src/modules/openapi),
 * served by a real HTTP server started here: valid 3.1, Swagger 2.0 and YAML (with external $refs)
 * specs, an invalid one, one that never answers, one that answers when the test says so (to observe
 * `progress`), and more.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { drainJobs } from '../../src/jobs/queue.js';
import { OPENAPI_JOB } from '../../src/modules/openapi/jobs.js';
import { createUrls } from '../../src/urls.js';
import { requestRefusalChecker } from '../support/refused.js';
import { BASE, setupHarness, type Harness, type TestUser } from '../support/harness.js';

export let h: Harness;
let server: http.Server;
export let origin: string;
export const hits = new Map<string, number>();
const hanging = new Set<http.ServerResponse>();
/** What the test server answers that tests change: /mutable.json's body (between versions), /slow.json's hooks. */
export const remote = {
  mutable: '',
  releaseSlow: null as (() => void) | null,
  slowStarted: null as (() => void) | null,
};

export const v31 = (title = 'Pets', extra: Record<string, unknown> = {}) => ({
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
        responses: {
          '200': {
            description: 'The pets',
            content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Pet' } } } },
          },
        },
      },
    },
  },
  components: { schemas: { Pet: { type: 'object', required: ['id'], properties: { id: { type: 'integer' }, name: { type: 'string' } } } } },
  ...extra,
});

export const swagger2 = {
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

export const YAML_ENTRY = `openapi: 3.0.3
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
export const YAML_SCHEMAS = `Order:
  type: object
  properties:
    id: { type: string }
Orders:
  type: array
  items:
    $ref: "#/Order"
`;
export const YAML_PATH = `get:
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
export const invalid = { openapi: '3.0.3', info: { title: 'Broken' }, paths: { '/x': { get: { responses: { '200': {} } } } } };

export const FILES: Record<string, { body: string; type: string }> = {
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
  '/dangling-ref.yaml': {
    body: 'openapi: 3.1.0\ninfo: { title: D, version: "1" }\npaths:\n  /a:\n    $ref: "./nowhere.yaml"\n',
    type: 'application/yaml',
  },
  '/big.json': { body: JSON.stringify(v31('Big', { 'x-padding': 'x'.repeat(5000) })), type: 'application/json' },
};

export async function setupOpenAPI() {
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
      remote.slowStarted?.();
      remote.releaseSlow = () => res.end(JSON.stringify(v31('Slow')));
      return;
    }
    if (path === '/mutable.json') return res.end(remote.mutable);
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
}

export async function stopSpecServer() {
  for (const res of hanging) res.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  delete process.env.LECTERN_OPENAPI_ALLOW_PRIVATE;
  delete process.env.LECTERN_OPENAPI_FETCH_TIMEOUT_MS;
  delete process.env.LECTERN_OPENAPI_MAX_BYTES;
}

export async function resetOpenAPI() {
  process.env.LECTERN_OPENAPI_ALLOW_PRIVATE = '1';
  process.env.LECTERN_OPENAPI_FETCH_TIMEOUT_MS = '400';
  delete process.env.LECTERN_OPENAPI_MAX_BYTES;
  // Each test starts with an empty queue (earlier tests may leave versions unprocessed).
  await drainJobs({ db: h.db, config: h.config, urls: createUrls(BASE) }, [OPENAPI_JOB]);
}

export const services = () => ({ db: h.db, config: h.config, urls: createUrls(BASE) });
export const drain = () => drainJobs(services(), [OPENAPI_JOB]);

export type Owner = TestUser & { orgId: string };

/** An organization: its admin, a creator (may write specs), an editor, a reader, a guest, an outsider. */
export async function world(title = 'API Org') {
  const cast = await h.world(title);
  const editor = await h.user('Editor');
  await h.addMember(cast.orgId, editor.id, 'edit');
  return { ...cast, editor };
}

/** Everything, specs, versions and jobs included, to prove a refused request changed nothing. */
export async function state() {
  const [base, specs, versions, jobs] = await Promise.all([
    h.snapshot(),
    h.db.prisma.openAPISpec.findMany({ orderBy: { id: 'asc' } }),
    h.db.prisma.openAPISpecVersion.findMany({ orderBy: { id: 'asc' } }),
    h.db.prisma.job.findMany({ where: { kind: OPENAPI_JOB }, orderBy: { id: 'asc' } }),
  ]);
  return JSON.stringify({ base, specs, versions, jobs });
}

export const refused = requestRefusalChecker({ call: (...a) => h.call(...a), rest: (...a) => h.rest(...a) }, state);

export const specsPath = (orgId: string) => `/v1/orgs/${orgId}/openapi`;
export const specPath = (orgId: string, slug: string) => `/v1/orgs/${orgId}/openapi/${slug}`;

export async function create(orgId: string, token: string, body: unknown) {
  const res = await h.rest('createOpenAPISpec', 'POST', specsPath(orgId), { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

export const get = (orgId: string, slug: string, token: string) => h.rest('getOpenAPISpecBySlug', 'GET', specPath(orgId, slug), { token });

export async function getSpec(orgId: string, slug: string, token: string) {
  const res = await get(orgId, slug, token);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

export async function put(orgId: string, slug: string, token: string, body: unknown, status: number) {
  const res = await h.rest('createOrUpdateOpenAPISpecBySlug', 'PUT', specPath(orgId, slug), { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body;
}

export const versions = async (orgId: string, slug: string, token: string, query = '') => {
  const res = await h.rest('listOpenAPISpecVersions', 'GET', `${specPath(orgId, slug)}/versions${query}`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

export const latestContent = (orgId: string, slug: string, token: string) =>
  h.rest('getLatestOpenAPISpecVersionContent', 'GET', `${specPath(orgId, slug)}/versions/latest/content`, { token });

/** A spec created from `url` and processed. */
export async function processed(orgId: string, token: string, slug: string, url: string) {
  await create(orgId, token, { slug, source: { url } });
  await drain();
  return getSpec(orgId, slug, token);
}
