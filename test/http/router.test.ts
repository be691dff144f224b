import { beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { createUrls } from '../../src/urls.js';
import { BASE, setupHarness, type Harness } from '../support/harness.js';

/**
 * One router serves every path. What it decides alone: 405 with the Allow header of
 * the path's routes, HEAD from GET, 404 in the error shape; and the one authentication step of the
 * optional-token routes (/openapi) with the same throttles as /v1.
 */
let h: Harness;
let owner: Awaited<ReturnType<Harness['owner']>>;

beforeAll(async () => {
  h = await setupHarness();
  owner = await h.owner();
});

/** An app with the production throttles on; `authFailures` invalid tokens per address before 429s. */
const appWith = (authFailures: number): App =>
  createApp({
    db: h.db,
    config: { ...h.config, rateLimit: { limit: 1200, windowSeconds: 60 }, addressLimits: { anonymous: 300, authFailures } },
    urls: createUrls(BASE),
  });

const send = (app: App, method: string, path: string, headers: Record<string, string> = {}) =>
  app.fetch(new Request(`${BASE}${path}`, { method, headers }), { address: '192.0.2.44' });

describe('one router', () => {
  it('answers a method a path does not take with 405, the Allow header of its routes, in the error shape', async () => {
    const cases: Array<[method: string, path: string, allow: string]> = [
      ['GET', '/sso/saml/any/acs', 'POST'],
      ['POST', '/sso/saml/any/metadata', 'GET, HEAD'],
      ['DELETE', `/files/${'0'.repeat(64)}/f/a.txt`, 'GET, HEAD'],
      ['PUT', '/exports/x.pdf', 'GET, HEAD'],
      ['POST', `/openapi/${owner.orgId}/pets`, 'GET, HEAD'],
      ['POST', '/healthz', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      const res = await send(h.app, method, path);
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get('allow'), `${method} ${path}`).toBe(allow);
      expect(await res.json()).toEqual({ error: { code: 405, message: `${method} is not allowed here; allowed: ${allow}` } });
      expect(h.app.allowFor(path)).toBe(allow);
    }
    expect(h.app.allowFor('/v1/user')).toBe('GET, OPTIONS');
    expect(h.app.allowFor('/graphql')).toBe('GET, POST, OPTIONS');
  });

  it('answers HEAD from the GET route without a body, and an unknown path with 404', async () => {
    const get = await send(h.app, 'GET', '/healthz');
    const head = await send(h.app, 'HEAD', '/healthz');
    expect([get.status, head.status]).toEqual([200, 200]);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(await head.text()).toBe('');
    const missing = await send(h.app, 'GET', '/nowhere');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: 404, message: 'No such endpoint' } });
  });

  it('/openapi: a valid token is authenticated as on /v1 (rate headers); invalid tokens count against the address as failed authentications', async () => {
    const text = JSON.stringify({ openapi: '3.1.0', info: { title: 'Router', version: '1' }, paths: {} });
    const created = await h.call('POST', `/v1/orgs/${owner.orgId}/openapi`, {
      token: owner.token,
      body: { slug: 'router', source: { text } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const path = `/openapi/${owner.orgId}/router/versions/${created.body.lastVersion}`;
    const app = appWith(2);

    const member = await send(app, 'GET', path, { authorization: `Bearer ${owner.token}` });
    expect(member.status).toBe(200);
    expect(await member.text()).toBe(text);
    expect(member.headers.get('x-ratelimit-limit')).toBe('1200');
    // The spec is private: without a token, or with an invalid one, it does not exist.
    expect((await send(app, 'GET', path)).status).toBe(404);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await send(app, 'GET', path, { authorization: `Bearer lct_invalid${i}` })).status);
    expect(statuses).toEqual([404, 404, 429]);
    const refused = await send(app, 'GET', path, { authorization: `Bearer ${owner.token}` });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      error: { code: 429, message: expect.stringMatching(/^Too many failed authentications from this address; retry after \d+ s$/) },
    });
  });
});
