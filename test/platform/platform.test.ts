import fs from 'node:fs';
import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.js';
import { printedSchema, SCHEMA_FILE } from '../../src/graphql/print-schema.js';
import { prepareRoutes } from '../../src/rest/adapter.js';
import { routes } from '../../src/rest/routes.js';
import { setupHarness, type Harness } from '../support/harness.js';

const spec = createRequire(import.meta.url)('@gitbook/api/spec/openapi.json') as any;
const latestSpec = createRequire(import.meta.url)('gitbook-api-0202/spec/openapi.json') as any;

let h: Harness;
let owner: Awaited<ReturnType<Harness['owner']>>;
beforeAll(async () => {
  h = await setupHarness();
  owner = await h.owner();
});

describe('schema and route table', () => {
  it('schema.graphql is up to date (run `npm run generate` after changing the schema)', () => {
    expect(fs.readFileSync(SCHEMA_FILE, 'utf8')).toBe(printedSchema());
  });

  it('every REST route document validates against the schema', () => {
    expect(() => prepareRoutes(schema, routes)).not.toThrow();
    expect(routes.length).toBeGreaterThanOrEqual(25);
  });

  it('every REST route is the official operation of the same method and path', () => {
    // Lectern's own extensions are named `lectern:…`. A `:param+` route
    // (a page path with slashes) is the official `{param}`.
    for (const route of routes.filter((r) => !r.operationId.startsWith('lectern:'))) {
      const officialPath = route.path.replace(/:(\w+)\+?/g, '{$1}');
      const method = route.method.toLowerCase();
      const [latest, older] = [latestSpec.paths[officialPath]?.[method], spec.paths[officialPath]?.[method]];
      // In at least one description (transferSpace is only in 0.146.0), the same id in each it is in.
      expect(latest ?? older, `${route.method} ${route.path}`).toBeDefined();
      for (const op of [latest, older].filter(Boolean)) expect(op.operationId, `${route.method} ${route.path}`).toBe(route.operationId);
    }
  });

  it('no two routes share a method and path', () => {
    const keys = routes.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('HTTP contract', () => {
  it('answers 401 in the error shape without a valid token, on REST and GraphQL', async () => {
    for (const token of [null, 'lct_not-a-token']) {
      const rest = await h.call('GET', '/v1/orgs', { token });
      expect(rest.status).toBe(401);
      expect(rest.body).toEqual({ error: { code: 401, message: expect.any(String) } });
      const gql = await h.call('POST', '/graphql', { token, body: { query: '{ viewer { id } }' } });
      expect(gql.status).toBe(401);
    }
  });

  it('answers an unknown path with 404 in the error shape', async () => {
    const res = await h.call('GET', '/v1/no/such/thing', { token: owner.token });
    expect(res).toMatchObject({ status: 404, body: { error: { code: 404, message: expect.any(String) } } });
    expect((await h.call('GET', '/nowhere', { token: owner.token })).status).toBe(404);
  });

  it('answers a malformed JSON body with 400 and changes nothing', async () => {
    const before = await h.snapshot();
    const res = await h.call('PATCH', `/v1/orgs/${owner.orgId}`, { token: owner.token, rawBody: '{"title": ' });
    expect(res).toMatchObject({ status: 400, body: { error: { code: 400, message: expect.stringContaining('JSON') } } });
    const arrayBody = await h.call('PATCH', `/v1/orgs/${owner.orgId}`, { token: owner.token, rawBody: '[1]' });
    expect(arrayBody.status).toBe(400);
    expect(await h.snapshot()).toBe(before);
  });

  it('names the field when a query parameter or body field has the wrong type', async () => {
    const limit = await h.call('GET', '/v1/orgs?limit=ten', { token: owner.token });
    expect(limit).toMatchObject({ status: 400, body: { error: { message: expect.stringContaining('limit') } } });
    const unknownField = await h.call('PATCH', `/v1/orgs/${owner.orgId}`, { token: owner.token, body: { colour: 'red' } });
    expect(unknownField).toMatchObject({ status: 400, body: { error: { message: expect.stringContaining('colour') } } });
    const wrongType = await h.call('PATCH', `/v1/orgs/${owner.orgId}`, { token: owner.token, body: { sso: 'yes' } });
    expect(wrongType).toMatchObject({ status: 400, body: { error: { message: expect.stringContaining('sso') } } });
  });

  it('serves /healthz and /readyz', async () => {
    expect((await h.call('GET', '/healthz')).status).toBe(200);
    expect((await h.call('GET', '/readyz')).status).toBe(200);
  });

  it('serves GraphiQL to a browser without a token, with no asset from a CDN', async () => {
    const response = await h.app.fetch(new Request('http://lectern.test/graphql', { headers: { accept: 'text/html' } }));
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('GraphiQL');
    expect(html).not.toMatch(/<script[^>]+src="https?:|<link[^>]+href="https?:/);
  });
});

describe('GraphQL limits', () => {
  it('refuses a query deeper than the depth limit before resolving anything', async () => {
    const tree = (levels: number) => `${'collections(limit: 5) { items { id '.repeat(levels)}${'} } '.repeat(levels)}`;
    const query = (levels: number) => `query($id: ID!) { organization(id: $id) { ${tree(levels)} } }`;
    let before = h.db.statements.count;
    await h.graphql(owner.token, '{ __typename }');
    const authOnly = h.db.statements.count - before;
    before = h.db.statements.count;
    const res = await h.graphql(owner.token, query(6), { id: owner.orgId });
    expect(res.body.data ?? null).toBeNull();
    expect(res.body.errors?.[0]?.message).toMatch(/depth \d+ exceeds the limit of 12/);
    expect(h.db.statements.count - before).toBe(authOnly); // nothing past authentication ran
    const ok = await h.graphql(owner.token, query(4), { id: owner.orgId });
    expect(ok.body.errors, JSON.stringify(ok.body.errors)).toBeUndefined();
  });

  it('refuses a query over the complexity limit', async () => {
    const fields = Array.from(
      { length: 40 },
      (_, i) => `s${i}: spaces(limit: 1000) { items { id title permissions { view admin } } }`,
    ).join(' ');
    const res = await h.graphql(owner.token, `query($id: ID!) { organization(id: $id) { ${fields} } }`, { id: owner.orgId });
    expect(res.body.errors?.[0]?.message).toMatch(/complexity|breadth/);
  });
});

describe('shared input mechanisms', () => {
  it('serves a full page of 1000 within the complexity limit, and names `limit` past 1000', async () => {
    expect(
      (await h.rest('listSpacesInOrganizationById', 'GET', `/v1/orgs/${owner.orgId}/spaces?limit=1000`, { token: owner.token })).status,
    ).toBe(200);
    expect((await h.rest('listOrganizationsForAuthenticatedUser', 'GET', '/v1/orgs?limit=1000', { token: owner.token })).status).toBe(200);
    const over = await h.call('GET', `/v1/orgs/${owner.orgId}/spaces?limit=1001`, { token: owner.token });
    expect(over).toMatchObject({ status: 400, body: { error: { message: expect.stringMatching(/^limit: /) } } });
  });

  it('accepts REST enum strings only (pt-br, not the GraphQL name pt_br)', async () => {
    const space = (await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { language: 'pt-br' } })).body;
    expect(space.language).toBe('pt-br');
    const before = await h.snapshot();
    const res = await h.call('PATCH', `/v1/spaces/${space.id}`, { token: owner.token, body: { language: 'pt_br' } });
    expect(res).toMatchObject({ status: 400, body: { error: { message: expect.stringMatching(/^language: /) } } });
    expect(await h.snapshot()).toBe(before);
  });

  it('checks merge rule names for spaces as for organizations', async () => {
    const space = (await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: {} })).body;
    const bogus = await h.call('PATCH', `/v1/spaces/${space.id}`, {
      token: owner.token,
      body: { mergeRules: { type: 'rules', rules: [{ rule: 'bogus' }] } },
    });
    expect(bogus).toMatchObject({ status: 400, body: { error: { message: expect.stringMatching(/^mergeRules\.rules\[0\]\.rule: /) } } });
    const ok = await h.rest('updateSpaceById', 'PATCH', `/v1/spaces/${space.id}`, {
      token: owner.token,
      body: { mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [owner.id], extra: 1 }] } },
    });
    expect(ok.body.mergeRules).toEqual({ type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [owner.id] }] });
  });
});
