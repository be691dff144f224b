import { beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../src/rest/routes.js';
import { setupHarness, type Harness } from '../support/harness.js';
import { writeLive } from '../support/content-writes.js';

/**
 * Fuzz-style: every REST route gets malformed JSON, wrong types, huge strings, unknown fields and
 * odd unicode, with real and made-up ids. Never a 500; and a refused request changes no row.
 */
let h: Harness;
let ids: Record<string, string>;
beforeAll(async () => {
  h = await setupHarness();
  const owner = await h.owner();
  const space = (await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { title: 'Fuzz' } })).body;
  const collection = (await h.call('POST', `/v1/orgs/${owner.orgId}/collections`, { token: owner.token, body: { title: 'Fuzz' } })).body;
  const cr = (await h.call('POST', `/v1/spaces/${space.id}/change-requests`, { token: owner.token, body: { subject: 'Fuzz' } })).body;
  const [pageId] = (
    await writeLive(h, owner.token, space.id, [{ operation: 'insert_page', title: 'Page', document: { markdown: '# Hi' } }])
  ).pages as [string];
  ids = {
    token: owner.token,
    organizationId: owner.orgId,
    spaceId: space.id,
    collectionId: collection.id,
    changeRequestId: cr.id,
    pageId,
    userId: owner.id,
  };
});

const ODD = [
  '\u0000',
  '\ud800',
  '\u202e\u0041',
  '🧨'.repeat(100),
  'x'.repeat(100_000),
  '../../etc/passwd',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
];
const BODIES: { name: string; raw?: string; body?: unknown }[] = [
  { name: 'malformed JSON', raw: '{"title": ' },
  { name: 'array', raw: '[1,2,3]' },
  { name: 'string', raw: '"just a string"' },
  {
    name: 'wrong types',
    body: { title: 123, name: [], emoji: {}, subject: false, changes: 'all', parent: 7, position: 'first', visibility: 42, status: null },
  },
  { name: 'unknown fields', body: { nonsense: true, __proto__: { polluted: 1 }, constructor: 'x' } },
  ...ODD.map((value, i) => ({
    name: `odd unicode ${i}`,
    body: { title: value, name: value, subject: value, label: value, query: value, markdown: value },
  })),
];

function fill(path: string, real: boolean) {
  return path.replace(/:(\w+)/g, (_, name: string) =>
    real && ids[name] ? ids[name]! : name === 'changeRequestId' ? '999999999' : `x${name}`,
  );
}

describe('fuzz every REST route', () => {
  it('never answers 500, and a refused request changes nothing', async () => {
    const failures: string[] = [];
    for (const route of routes) {
      for (const real of [true, false]) {
        const path = `/v1${fill(route.path, real)}?limit=-3&page=%00%ff&format=weird&status=%F0%9F%A7%A8&query=${encodeURIComponent(ODD[4]!.slice(0, 600))}`;
        const payloads = route.method === 'GET' || route.method === 'DELETE' ? [{ name: 'none' }] : BODIES;
        for (const payload of payloads) {
          const before = await h.snapshot();
          const res = await h.call(route.method, path, { token: ids.token, body: payload.body, rawBody: payload.raw });
          if (res.status >= 500)
            failures.push(
              `${route.method} ${route.path} [${payload.name}, ${real ? 'real ids' : 'made-up ids'}] → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`,
            );
          else if (res.status >= 400) {
            expect(res.body?.error?.code, `${route.method} ${route.path} ${payload.name}`).toBe(res.status);
            if ((await h.snapshot()) !== before)
              failures.push(`${route.method} ${route.path} [${payload.name}] refused with ${res.status} but changed data`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
  }, 300_000);
});
