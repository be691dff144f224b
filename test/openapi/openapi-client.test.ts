import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GitBookAPI, OpenAPISpecVisibility } from '@gitbook/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server.js';
import { assertMatchesSpec } from '../support/openapi.js';
import { setupHarness, type Harness } from '../support/harness.js';

/**
 * OpenAPI specs through the official @gitbook/api client against the running HTTP server, whose
 * in-process worker processes versions in the background (no test-driven draining here), and a
 * version queued while no server ran, processed once one starts.
 */
let h: Harness;
let specServer: http.Server;
let origin: string;
let server: RunningServer | undefined;
const SPEC = {
  openapi: '3.1.0',
  info: { title: 'Client API', version: '1' },
  paths: { '/ping': { get: { operationId: 'ping', responses: { '204': { description: 'pong' } } } } },
};

beforeAll(async () => {
  process.env.LECTERN_OPENAPI_ALLOW_PRIVATE = '1';
  h = await setupHarness();
  specServer = http.createServer((req, res) => {
    if (req.url === '/spec.json') return res.end(JSON.stringify(SPEC));
    if (req.url === '/v2.json') return res.end(JSON.stringify({ ...SPEC, info: { title: 'Client API v2', version: '2' } }));
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => specServer.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(specServer.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await server?.close();
  await new Promise<void>((resolve) => specServer.close(() => resolve()));
  delete process.env.LECTERN_OPENAPI_ALLOW_PRIVATE;
});

/** Polls until the spec's processing is complete (the server's worker runs it). */
async function settled(api: GitBookAPI, orgId: string, slug: string) {
  for (let i = 0; i < 200; i++) {
    const spec = await api.orgs.getOpenApiSpecBySlug(orgId, slug);
    if (spec.data.processingState === 'complete') return spec.data;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`${slug} was not processed in time`);
}

describe('OpenAPI specs with the official client over HTTP', () => {
  it('a version queued while no server runs is processed once one starts; the server worker processes new ones', async () => {
    const owner = await h.owner('Client Co');
    // Queued through the in-process app (no worker): the job waits in the database.
    const queued = await h.rest('createOpenAPISpec', 'POST', `/v1/orgs/${owner.orgId}/openapi`, {
      token: owner.token,
      body: { slug: 'early', source: { url: `${origin}/spec.json` } },
    });
    expect(queued.body.processingState).toBe('pending');

    server = await startServer({ ...h.config, host: '127.0.0.1', port: 0 }, { db: h.db });
    const api = new GitBookAPI({ endpoint: server.url, authToken: owner.token });
    expect((await settled(api, owner.orgId, 'early')).lastProcessErrorCode).toBeUndefined();

    const created = await api.orgs.createOpenApiSpec(owner.orgId, { slug: 'client', source: { url: `${origin}/spec.json` } });
    expect(created.status).toBe(201);
    assertMatchesSpec('createOpenAPISpec', 201, created.data);
    const done = await settled(api, owner.orgId, 'client');
    assertMatchesSpec('getOpenAPISpecBySlug', 200, done);
    expect(done.lastVersion).toBe(created.data.lastVersion);

    const content = await api.orgs.getLatestOpenApiSpecVersionContent(owner.orgId, 'client');
    assertMatchesSpec('getLatestOpenAPISpecVersionContent', 200, content.data);
    expect(content.data).toMatchObject({ url: `${origin}/spec.json`, filesystem: { title: 'Client API', specification: 'openapi' } });

    const updated = await api.orgs.createOrUpdateOpenApiSpecBySlug(owner.orgId, 'client', { source: { url: `${origin}/v2.json` } });
    expect(updated.status).toBe(200);
    assertMatchesSpec('createOrUpdateOpenAPISpecBySlug', 200, updated.data);
    await settled(api, owner.orgId, 'client');
    const versions = await api.orgs.listOpenApiSpecVersions(owner.orgId, 'client');
    assertMatchesSpec('listOpenAPISpecVersions', 200, versions.data);
    expect(versions.data.items.map((v) => v.id)).toEqual([updated.data.lastVersion, created.data.lastVersion]);
    const latest = await api.orgs.getLatestOpenApiSpecVersion(owner.orgId, 'client');
    assertMatchesSpec('getLatestOpenAPISpecVersion', 200, latest.data);
    expect(latest.data.id).toBe(updated.data.lastVersion);
    const first = await api.orgs.getOpenApiSpecVersionContentById(owner.orgId, 'client', created.data.lastVersion!);
    expect((first.data.filesystem as { title: string }).title).toBe('Client API');
    const second = await api.orgs.getOpenApiSpecVersionById(owner.orgId, 'client', updated.data.lastVersion!);
    assertMatchesSpec('getOpenAPISpecVersionById', 200, second.data);

    const published = await api.orgs.updateOpenApiSpecBySlug(owner.orgId, 'client', { visibility: OpenAPISpecVisibility.Public });
    assertMatchesSpec('updateOpenAPISpecBySlug', 200, published.data);
    // The published URL answers anyone over HTTP, without a token.
    const text = await fetch(published.data.urls.published!.replace(h.config.publicUrl, server.url));
    expect(text.status).toBe(200);
    expect(((await text.json()) as { info: { title: string } }).info.title).toBe('Client API v2');

    const list = await api.orgs.listOpenApiSpecs(owner.orgId);
    assertMatchesSpec('listOpenAPISpecs', 200, list.data);
    expect(list.data.items.map((s) => s.slug)).toEqual(['early', 'client']);

    const deleted = await api.orgs.deleteOpenApiSpecBySlug(owner.orgId, 'client');
    expect(deleted.status).toBe(205);
  });
});
