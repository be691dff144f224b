import { beforeAll, describe, expect, it } from 'vitest';
import { setupHarness, type Harness } from '../support/harness.js';
import { refusalChecker } from '../support/refused.js';

/**
 * Every limit in the seed's "Limits" table, one row each: just over (or under) it the request is
 * refused with 400 naming the field and nothing changes; at the limit it is accepted.
 */
let h: Harness;
let owner: Awaited<ReturnType<Harness['owner']>>;
let spaceId: string;
let sitePath: string;
const refused = refusalChecker(() => h.snapshot());
const x = (n: number) => 'x'.repeat(n);
const uri = (n: number) => `https://example.com/${'a'.repeat(n - 'https://example.com/'.length)}`;

beforeAll(async () => {
  h = await setupHarness();
  owner = await h.owner();
  spaceId = (await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { title: 'Docs' } })).body.id;
  const site = (await h.call('POST', `/v1/orgs/${owner.orgId}/sites`, { token: owner.token, body: { title: 'Site' } })).body;
  sitePath = `/v1/orgs/${owner.orgId}/sites/${site.id}`;
});

type Case = {
  limit: string;
  field: string;
  method: string;
  path: () => string;
  over: unknown;
  at?: unknown;
  body?: (value: unknown) => unknown;
  query?: boolean;
};
const cases: Case[] = [
  { limit: 'limit ≤ 1000', field: 'limit', method: 'GET', path: () => `/v1/orgs/${owner.orgId}/spaces`, query: true, over: 1001, at: 1000 },
  { limit: 'space title ≤ 50', field: 'title', method: 'POST', path: () => `/v1/orgs/${owner.orgId}/spaces`, over: x(51), at: x(50) },
  { limit: 'space emoji ≤ 50', field: 'emoji', method: 'PATCH', path: () => `/v1/spaces/${spaceId}`, over: x(51) },
  { limit: 'organization title ≥ 2', field: 'title', method: 'PATCH', path: () => `/v1/orgs/${owner.orgId}`, over: 'x', at: 'xy' },
  { limit: 'organization title ≤ 255', field: 'title', method: 'PATCH', path: () => `/v1/orgs/${owner.orgId}`, over: x(256), at: x(255) },
  { limit: 'organization hostname ≥ 3', field: 'hostname', method: 'PATCH', path: () => `/v1/orgs/${owner.orgId}`, over: 'ab', at: 'abc' },
  {
    limit: 'organization hostname ≤ 32',
    field: 'hostname',
    method: 'PATCH',
    path: () => `/v1/orgs/${owner.orgId}`,
    over: x(33),
    at: x(32),
  },
  { limit: 'organization logo is a uri', field: 'logo', method: 'PATCH', path: () => `/v1/orgs/${owner.orgId}`, over: 'not a uri' },
  {
    limit: 'organization logo ≤ 2048',
    field: 'logo',
    method: 'PATCH',
    path: () => `/v1/orgs/${owner.orgId}`,
    over: uri(2049),
    at: uri(2048),
  },
  { limit: 'team title ≥ 1', field: 'title', method: 'PUT', path: () => `/v1/orgs/${owner.orgId}/teams`, over: '' },
  { limit: 'team title ≤ 64', field: 'title', method: 'PUT', path: () => `/v1/orgs/${owner.orgId}/teams`, over: x(65), at: x(64) },
  { limit: 'section group title ≥ 1', field: 'title', method: 'POST', path: () => `${sitePath}/section-groups`, over: '' },
  {
    limit: 'section group title ≤ 100',
    field: 'title',
    method: 'POST',
    path: () => `${sitePath}/section-groups`,
    over: x(101),
    at: x(100),
  },
  {
    limit: 'section group icon ≤ 50',
    field: 'icon',
    method: 'POST',
    path: () => `${sitePath}/section-groups`,
    over: x(51),
    body: (icon) => ({ title: 'Group', icon }),
  },
  { limit: 'share link name ≤ 50', field: 'name', method: 'POST', path: () => `${sitePath}/share-links`, over: x(51), at: x(50) },
  {
    limit: 'space search query required',
    field: 'query',
    method: 'GET',
    path: () => `/v1/spaces/${spaceId}/search`,
    query: true,
    over: '',
  },
  {
    limit: 'space search query ≤ 512',
    field: 'query',
    method: 'GET',
    path: () => `/v1/spaces/${spaceId}/search`,
    query: true,
    over: x(513),
    at: x(512),
  },
  {
    limit: 'organization search query ≤ 512',
    field: 'query',
    method: 'GET',
    path: () => `/v1/orgs/${owner.orgId}/search`,
    query: true,
    over: x(513),
    at: x(512),
  },
  {
    limit: 'OpenAPI source url is a uri',
    field: 'url',
    method: 'PUT',
    path: () => `/v1/orgs/${owner.orgId}/openapi/limits`,
    over: 'nope',
    body: (url) => ({ source: { url } }),
  },
  {
    limit: 'OpenAPI source url ≤ 2048',
    field: 'url',
    method: 'PUT',
    path: () => `/v1/orgs/${owner.orgId}/openapi/limits`,
    over: uri(2049),
    body: (url) => ({ source: { url } }),
  },
];

describe('string and size limits of the seed', () => {
  it.each(cases)('$limit: 400 naming `$field` just past it, changing nothing; accepted at it', async (c) => {
    const send = (value: unknown) =>
      c.query
        ? h.call(c.method, `${c.path()}?${new URLSearchParams({ [c.field]: String(value) })}`, { token: owner.token })
        : h.call(c.method, c.path(), { token: owner.token, body: c.body ? c.body(value) : { [c.field]: value } });
    await refused(400, () => send(c.over), new RegExp(`\\b${c.field}\\b`));
    if (c.at !== undefined) {
      const res = await send(c.at);
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    }
  });
});
