import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { hashToken, issueToken } from '../../src/auth/tokens.js';
import type { readConfig } from '../../src/config.js';
import { connect, embeddedTarget } from '../../src/db/database.js';
import { startEmbedded } from '../../src/db/embedded.js';
import { migrate } from '../../src/db/migrate.js';
import { createUser } from '../../src/modules/users/service.js';
import { createUrls } from '../../src/urls.js';
import { BASE, setupHarness, type Harness } from '../support/harness.js';

let h: Harness;
let owner: Awaited<ReturnType<Harness['owner']>>;
beforeAll(async () => {
  h = await setupHarness();
  owner = await h.owner();
});

/** Another app (as another Lectern process would be) on the same database, with its own settings. */
const appWith = (overrides: Partial<ReturnType<typeof readConfig>>) =>
  createApp({ db: h.db, config: { ...h.config, ...overrides }, urls: createUrls(BASE) });
const get = (app: ReturnType<typeof createApp>, p: string, token: string) =>
  app.fetch(new Request(`${BASE}${p}`, { headers: { authorization: `Bearer ${token}` } }));

describe('rate limiting per token, shared through PostgreSQL', () => {
  it('answers 429 with Retry-After and X-RateLimit-* once the window is used up, in every process', async () => {
    const rateLimit = { limit: 5, windowSeconds: 3600 };
    const [a, b] = [appWith({ rateLimit }), appWith({ rateLimit })];
    const token = await issueToken(h.db.prisma, owner.id);
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await get(i % 2 ? b : a, '/v1/user', token);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('5');
      remaining.push(res.headers.get('x-ratelimit-remaining')!);
      expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    for (const app of [a, b]) {
      const refused = await get(app, '/v1/user', token);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await refused.json()).toEqual({ error: { code: 429, message: expect.stringContaining('Rate limit') } });
    }
    // GraphQL counts against the same budget, and so does the user's other token (the budget is
    // per user, not per token); another user has their own.
    const gql = await a.fetch(
      new Request(`${BASE}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{"query":"{ viewer { id } }"}',
      }),
    );
    expect(gql.status).toBe(429);
    expect((await get(a, '/v1/user', owner.token)).status).toBe(429);
    expect((await get(a, '/v1/user', (await h.user()).token)).status).toBe(200);
  });

  it('does not count requests without a valid token', async () => {
    const app = appWith({ rateLimit: { limit: 1, windowSeconds: 3600 } });
    for (let i = 0; i < 3; i++) expect((await get(app, '/v1/user', 'lct_wrong')).status).toBe(401);
    expect(await h.db.prisma.rateLimitWindow.count({ where: { key: hashToken('lct_wrong') } })).toBe(0);
  });
});

describe('request body size', () => {
  it('answers 413 above the limit, with or without a Content-Length, and changes nothing', async () => {
    const app = appWith({ maxBodyBytes: 1000 });
    const before = await h.snapshot();
    const big = JSON.stringify({ title: 'x'.repeat(2000) });
    const declared = await app.fetch(
      new Request(`${BASE}/v1/orgs/${owner.orgId}/spaces`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json', 'content-length': String(big.length) },
        body: big,
      }),
    );
    expect(declared.status).toBe(413);
    expect(await declared.json()).toEqual({ error: { code: 413, message: expect.stringContaining('body') } });
    const stream = new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode(big)), c.close()) });
    const chunked = await app.fetch(
      new Request(`${BASE}/v1/orgs/${owner.orgId}/spaces`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
        body: stream,
        duplex: 'half',
      } as RequestInit),
    );
    expect(chunked.status).toBe(413);
    expect(await h.snapshot()).toBe(before);
    const small = await app.fetch(
      new Request(`${BASE}/v1/orgs/${owner.orgId}/spaces`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
        body: '{"title":"ok"}',
      }),
    );
    expect(small.status).toBe(201);
  });
});

describe('the database going away', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  it('fails fast with 503 in the error shape, /readyz turns red, and recovers without a restart', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lf-'));
    fs.chmodSync(dataDir, 0o755);
    dirs.push(dataDir);
    let server = await startEmbedded(dataDir, 'test');
    const db = connect(embeddedTarget(server));
    try {
      await migrate(db.pool);
      const user = await createUser(db.prisma, { email: 'fault@example.com', name: 'Fault' });
      const token = await issueToken(db.prisma, user.id);
      const app = createApp({ db, config: { ...h.config }, urls: createUrls(BASE) });
      expect((await get(app, '/v1/user', token)).status).toBe(200);

      await server.stop();
      const down = await get(app, '/v1/user', token);
      expect(down.status).toBe(503);
      expect(await down.json()).toEqual({ error: { code: 503, message: expect.stringContaining('unavailable') } });
      const ready = await app.fetch(new Request(`${BASE}/readyz`));
      expect(ready.status).toBe(503);
      expect((await app.fetch(new Request(`${BASE}/healthz`))).status).toBe(200);

      server = await startEmbedded(dataDir, 'test');
      let back = 0;
      for (let i = 0; i < 50 && back !== 200; i++) {
        back = (await get(app, '/v1/user', token)).status;
        if (back !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect(back).toBe(200);
      expect((await app.fetch(new Request(`${BASE}/readyz`))).status).toBe(200);
    } finally {
      await db.close();
      await server.stop();
    }
  });
});

describe('production switches', () => {
  it('turns GraphiQL and introspection off when configured', async () => {
    const app = appWith({ graphiql: false, introspection: false });
    const page = await app.fetch(new Request(`${BASE}/graphql`, { headers: { accept: 'text/html' } }));
    expect(page.status).toBe(404);
    const gql = (query: string) =>
      app.fetch(
        new Request(`${BASE}/graphql`, {
          method: 'POST',
          headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query }),
        }),
      );
    const introspection = (await (await gql('{ __schema { types { name } } }')).json()) as {
      errors?: { message: string }[];
      data?: unknown;
    };
    expect(introspection.errors?.[0]?.message).toMatch(/introspection/i);
    const ordinary = (await (await gql('{ viewer { id } }')).json()) as { data: { viewer: { id: string } } };
    expect(ordinary.data.viewer.id).toBe(owner.id);
    // On by default.
    const open = await appWith({}).fetch(
      new Request(`${BASE}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ __schema { queryType { name } } }' }),
      }),
    );
    expect(((await open.json()) as { data: unknown }).data).toEqual({ __schema: { queryType: { name: 'Query' } } });
  });
});

describe('a client that leaves mid-request', () => {
  it('is not logged as an unexpected error, and the server goes on answering', async () => {
    const { startServer } = await import('../../src/server.js');
    const http = await import('node:http');
    const { vi } = await import('vitest');
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const server = await startServer({ ...h.config, rateLimit: { limit: 1000, windowSeconds: 60 }, port: 0 }, { db: h.db, worker: false });
    // Holding the rate-limit table keeps the request waiting in its first statement while the client leaves.
    const locker = await h.db.pool.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE "RateLimitWindow" IN EXCLUSIVE MODE');
      // Through the REST adapter and through /graphql.
      const leave = (path: string, body?: string) =>
        new Promise<void>((resolve) => {
          const req = http.request(`${server.url}${path}`, {
            method: body ? 'POST' : 'GET',
            headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
          });
          req.on('error', () => resolve());
          req.end(body);
          setTimeout(() => req.destroy(), 150);
        });
      await Promise.all([leave(`/v1/orgs/${owner.orgId}/spaces`), leave('/graphql', JSON.stringify({ query: '{ viewer { id } }' }))]);
      await locker.query('COMMIT');
      await new Promise((r) => setTimeout(r, 300));
      expect(errors.mock.calls.filter((c) => String(c[0]).includes('unhandled')).map(String)).toEqual([]);
      const next = await fetch(`${server.url}/v1/orgs/${owner.orgId}/spaces`, { headers: { authorization: `Bearer ${owner.token}` } });
      expect(next.status).toBe(200);
    } finally {
      locker.release();
      errors.mockRestore();
      await server.close();
    }
  });
});
