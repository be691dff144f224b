/** OpenAPI specs: versions, their processing (fetching, parsing, limits, progress), the GraphQL face (setup in ./fixtures.ts). */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import { drainJobs } from '../../src/jobs/queue.js';
import { OPENAPI_JOB } from '../../src/modules/openapi/jobs.js';
import { createUrls } from '../../src/urls.js';
import { BASE } from '../support/harness.js';
import { componentValidator } from '../support/openapi.js';
import {
  h,
  origin,
  hits,
  remote,
  v31,
  FILES,
  setupOpenAPI,
  stopSpecServer,
  resetOpenAPI,
  services,
  drain,
  world,
  refused,
  specPath,
  create,
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
describe('versions', () => {
  it('lists every version newest first, pages, and answers each one, the latest and their content', async () => {
    const { owner, orgId, reader } = await world();
    remote.mutable = JSON.stringify(v31('Version 1'));
    const spec = await create(orgId, owner.token, { slug: 'history', source: { url: `${origin}/mutable.json` } });
    await drain();
    const ids = [spec.lastVersion];
    for (const n of [2, 3]) {
      remote.mutable = JSON.stringify(v31(`Version ${n}`));
      ids.unshift((await put(orgId, 'history', owner.token, { source: { url: `${origin}/mutable.json` } }, 200)).lastVersion);
      await drain();
    }
    const all = await versions(orgId, 'history', reader.token);
    expect(all.count).toBe(3);
    expect(all.items.map((v: any) => v.id)).toEqual(ids);
    for (const v of all.items)
      expect(v).toEqual({
        object: 'openapi-spec-version',
        id: expect.any(String),
        createdAt: expect.any(String),
        url: `${origin}/mutable.json`,
        urls: { location: `${BASE}/v1/orgs/${orgId}/openapi/history/versions/${v.id}` },
      });
    const first = await versions(orgId, 'history', reader.token, '?limit=2');
    expect(first.next).toEqual({ page: expect.any(String) });
    const rest = await versions(orgId, 'history', reader.token, `?limit=2&page=${encodeURIComponent(first.next.page)}`);
    expect([...first.items, ...rest.items].map((v: any) => v.id)).toEqual(ids);
    expect(rest.next).toBeUndefined();

    const latest = await h.rest('getLatestOpenAPISpecVersion', 'GET', `${specPath(orgId, 'history')}/versions/latest`, {
      token: reader.token,
    });
    expect(latest.status).toBe(200);
    expect(latest.body).toEqual(all.items[0]);
    expect(latest.body.id).toBe((await getSpec(orgId, 'history', reader.token)).lastVersion);

    // Every version keeps its own content.
    for (const [i, id] of ids.entries()) {
      const one = await h.rest('getOpenAPISpecVersionById', 'GET', `${specPath(orgId, 'history')}/versions/${id}`, { token: reader.token });
      expect(one.status).toBe(200);
      expect(one.body).toEqual(all.items[i]);
      const content = await h.rest('getOpenAPISpecVersionContentById', 'GET', `${specPath(orgId, 'history')}/versions/${id}/content`, {
        token: reader.token,
      });
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
    const res = await refused(404, 'GET', `${base}/versions/latest/content`, {
      token: owner.token,
      operationId: 'getLatestOpenAPISpecVersionContent',
    });
    expect(res.body.error.message).toMatch(/pending/);
    expect(
      (
        await refused(404, 'GET', `${base}/versions/${spec.lastVersion}/content`, {
          token: owner.token,
          operationId: 'getOpenAPISpecVersionContentById',
        })
      ).body.error.message,
    ).toMatch(/pending/);
    await refused(404, 'GET', `${base}/versions/${newId()}`, { token: owner.token, operationId: 'getOpenAPISpecVersionById' });
    await refused(404, 'GET', `${base}/versions/${newId()}/content`, {
      token: owner.token,
      operationId: 'getOpenAPISpecVersionContentById',
    });
    // A version of another spec is not found under this one.
    const other = await create(orgId, owner.token, { slug: 'other', source: { url: `${origin}/v31.json` } });
    await refused(404, 'GET', `${base}/versions/${other.lastVersion}`, { token: owner.token, operationId: 'getOpenAPISpecVersionById' });
    await refused(404, 'GET', `${base}/versions/${other.lastVersion}/content`, {
      token: owner.token,
      operationId: 'getOpenAPISpecVersionContentById',
    });
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
    const started = new Promise<void>((resolve) => (remote.slowStarted = resolve));
    process.env.LECTERN_OPENAPI_FETCH_TIMEOUT_MS = '10000';
    const running = drain();
    await started;
    const during = await getSpec(orgId, 'slow', owner.token);
    expect(during.processingState).toBe('progress');
    expect((await h.db.prisma.openAPISpecVersion.findUniqueOrThrow({ where: { id: spec.lastVersion } })).state).toBe('progress');
    expect((await latestContent(orgId, 'slow', owner.token)).body.error.message).toMatch(/in progress/);
    remote.releaseSlow!();
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
    expect(await fs(orgId, 'legacy', owner.token)).toMatchObject({
      specification: 'swagger',
      version: '2.0',
      title: 'Legacy',
      apiVersion: '2.1',
    });
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
      specification: {
        Order: { type: 'object', properties: { id: { type: 'string' } } },
        Orders: { type: 'array', items: { $ref: '#/Order' } },
      },
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
    expect(spec).toMatchObject({
      processingState: 'complete',
      lastProcessErrorCode: 'PARSE_ERROR',
      lastVersion: update.lastVersion,
      sourceURL: `${origin}/invalid.json`,
    });
    const messages = spec.lastProcessedErrors.map((e: any) => e.message).join('\n');
    expect(messages).toMatch(/version/);
    expect(messages).toMatch(/description/);
    expect(spec.lastProcessedErrorCount).toBe(spec.lastProcessedErrors.length);
    expect(Date.parse(spec.lastProcessedAt)).toBeGreaterThanOrEqual(Date.parse(good.lastProcessedAt));
    // The latest content is still the good version's; the failed version has none.
    const content = await latestContent(orgId, 'pets', owner.token);
    expect(content.body.url).toBe(`${origin}/v31.json`);
    expect(content.body.filesystem.title).toBe('Pets');
    const failed = await h.call('GET', `${specPath(orgId, 'pets')}/versions/${update.lastVersion}/content`, { token: owner.token });
    expect(failed.status).toBe(404);
    expect(failed.body.error.message).toMatch(/failed \(PARSE_ERROR/);
    // versions/latest names the newest version, failed or not.
    expect(
      (await h.rest('getLatestOpenAPISpecVersion', 'GET', `${specPath(orgId, 'pets')}/versions/latest`, { token: owner.token })).body.id,
    ).toBe(update.lastVersion);
    // A good update clears the error.
    await put(orgId, 'pets', owner.token, { source: { url: `${origin}/v31-b.json` } }, 200);
    await drain();
    const fixed = await getSpec(orgId, 'pets', owner.token);
    expect(fixed).toMatchObject({ processingState: 'complete', lastProcessedErrors: [], lastProcessedErrorCount: 0 });
    expect(fixed.lastProcessErrorCode).toBeUndefined();
  });

  it('lastProcessedErrorCount counts every error found, beyond the 20 lastProcessedErrors shows', async () => {
    const { owner, orgId } = await world();
    // 30 operations, each with a property the OpenAPI schema does not allow: 30 validation errors.
    const paths = Object.fromEntries(
      Array.from({ length: 30 }, (_, i) => [`/p${i}`, { get: { [`bogus${i}`]: 1, responses: { '200': { description: 'ok' } } } }]),
    );
    await create(orgId, owner.token, {
      slug: 'many-errors',
      source: { text: JSON.stringify({ openapi: '3.0.3', info: { title: 'T', version: '1' }, paths }) },
    });
    await drain();
    const spec = await getSpec(orgId, 'many-errors', owner.token);
    expect(spec.lastProcessErrorCode).toBe('PARSE_ERROR');
    expect(spec.lastProcessedErrors).toHaveLength(21);
    expect(spec.lastProcessedErrors[20].message).toBe('…and 10 more validation errors');
    expect(spec.lastProcessedErrorCount).toBe(30);
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
    await drain();
    const spec = await getSpec(orgId, 'hang', owner.token);
    expect(spec).toMatchObject({ processingState: 'complete', lastProcessErrorCode: 'FETCH_TIMEOUT' });
    expect(spec.lastProcessedErrors).toEqual([
      { message: expect.stringMatching(/\/hang did not answer in time \(Lectern waits 0\.4 s per file/) },
    ]);
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
    await create(orgId, owner.token, {
      slug: 'text-ref',
      source: { text: JSON.stringify(v31('T', { paths: { '/a': { $ref: `${origin}/store/paths/order.yaml` } } })) },
    });
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
    await create(orgId, owner.token, {
      slug: 'relative',
      source: { text: JSON.stringify(v31('Relative', { paths: { '/a': { $ref: './paths/a.yaml' } } })) },
    });
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
    remote.mutable = JSON.stringify(v31('Once'));
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
        pages { title slug props operations { method path } markdown } } } } }`,
      { org: orgId },
    );
    expect(res.body.errors).toBeUndefined();
    const [spec] = res.body.data.organization.openAPISpecs.items;
    expect(spec).toMatchObject({ slug: 'store', processingState: 'complete', lastProcessErrorCode: 'FETCH_ERROR' });
    expect(spec.versions.items).toEqual([
      {
        number: 2,
        state: 'failed',
        errorCode: 'FETCH_ERROR',
        errors: [{ message: expect.stringMatching(/missing\.json answered HTTP 404/) }],
      },
      { number: 1, state: 'complete', errorCode: null, errors: [] },
    ]);
    expect(spec.pages.map((p: any) => [p.title, p.slug, p.props, p.operations])).toEqual([
      [
        'Other operations',
        'other-operations',
        { doc: 'operations', page: 'Other operations' },
        [
          { method: 'get', path: '/orders' },
          { method: 'get', path: '/orders/{id}' },
        ],
      ],
    ]);
    // Operations behind external $refs are rendered, with their parameters.
    expect(spec.pages[0].markdown).toContain('## Get an order');
    expect(spec.pages[0].markdown).toContain('| `id` | path | string | yes |');

    const pets = await processed(orgId, owner.token, 'pets', `${origin}/v31.json`);
    const pages = await h.graphql(
      reader.token,
      `query($org: ID!) { organization(id: $org) { openAPISpec(slug: "pets") { id pages { title props markdown } } } }`,
      { org: orgId },
    );
    expect(pages.body.data.organization.openAPISpec.id).toBe(pets.id);
    expect(pages.body.data.organization.openAPISpec.pages.map((p: any) => [p.title, p.props])).toEqual([
      ['pets', { doc: 'operations', page: 'pets' }],
      ['Models', { doc: 'models' }],
    ]);
    expect(pages.body.data.organization.openAPISpec.pages[0].markdown).toMatch(/^Everything about pets\n\n## List pets\n\n`GET \/pets`/);
    expect(pages.body.data.organization.openAPISpec.pages[1].markdown).toContain('| `id` | integer | yes |');
  });
});
