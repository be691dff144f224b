import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { officialOperationsText } from '../../scripts/official-operations.js';
import { officialCoverage } from '../../scripts/official-coverage.js';
import { setupHarness, type Harness } from '../support/harness.js';

/**
 * Official operations Lectern does not serve: GitBook's 0.202.0 description lists 377 operations;
 * one Lectern has no route for (billing, marketplace, ads, hosted AI…) answers 501 in the error
 * shape, naming the operation; a path no official description has answers 404.
 */
let h: Harness;
let token: string;
let orgId: string;

beforeAll(async () => {
  h = await setupHarness();
  const owner = await h.owner();
  token = owner.token;
  orgId = owner.orgId;
});

/** A concrete path for an official template: each parameter a value no resource has. */
const concrete = (template: string) => `/v1${template.replace(/\{[^}]+\}/g, 'zz-none')}`;

describe('the committed list of official operations', () => {
  it('is what scripts/official-operations.ts makes from @gitbook/api@0.202.0 (377 operations)', () => {
    const committed = readFileSync(new URL('../../src/rest/official-operations.json', import.meta.url), 'utf8');
    expect(committed).toBe(officialOperationsText());
    const list = JSON.parse(committed) as { source: string; operations: unknown[] };
    expect(list.source).toBe('@gitbook/api@0.202.0');
    expect(list.operations).toHaveLength(377);
  });
});

describe('an official operation Lectern does not serve', () => {
  it('answers 501 in the error shape, naming the operation, its method and path', async () => {
    const res = await h.call('GET', '/v1/ads/sites', { token });
    expect(res.status).toBe(501);
    expect(res.body).toEqual({
      error: { code: 501, message: 'adsListSites (GET /v1/ads/sites) is a GitBook API operation this Lectern server does not serve' },
    });
    const billing = await h.call('GET', `/v1/orgs/${orgId}/billing/ai-usage`, { token });
    expect(billing.status).toBe(501);
    expect(billing.body.error.message).toMatch(/^getOrganizationAIUsage \(GET \/v1\/orgs\/\w+\/billing\/ai-usage\)/);
  });

  it('every one of them: 501 naming it (a literal segment names its own operation, not a parameter’s)', async () => {
    const { unserved } = officialCoverage();
    expect(unserved.length).toBeGreaterThan(0);
    const wrong: string[] = [];
    for (const o of unserved) {
      const res = await h.call(o.method, concrete(o.path), { token, ...(o.method === 'GET' || o.method === 'DELETE' ? {} : { body: {} }) });
      if (res.status !== 501 || !res.body?.error?.message?.startsWith(`${o.operationId} (${o.method} `))
        wrong.push(`${o.method} ${o.path}: ${res.status} ${JSON.stringify(res.body)}`);
    }
    expect(wrong).toEqual([]);
  });
  // An unserved operation on a path Lectern serves with another method is among `unserved` too:
  // the test above covers it whenever such a pair exists.
});

describe('a path in no official description', () => {
  it('answers 404 "No such endpoint", as before', async () => {
    for (const [method, path] of [
      ['GET', '/v1/no/such/thing'],
      ['GET', '/v1/ads'],
      ['POST', '/v1/ads/sites'],
      ['GET', `/v1/orgs/${orgId}/billing`],
    ] as const) {
      const res = await h.call(method, path, { token, ...(method === 'POST' ? { body: {} } : {}) });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toEqual({ error: { code: 404, message: 'No such endpoint' } });
    }
  });

  it('served operations are answered by their routes, not by the 501', async () => {
    const res = await h.call('GET', '/v1/user', { token });
    expect(res.status).toBe(200);
    expect(res.body.object).toBe('user');
  });
});
