import { beforeAll, describe, expect, it } from 'vitest';
import { BASE, setupHarness, type Harness } from '../support/harness.js';

/**
 * A 201 says where the new resource lives (Location, as the official spec documents). For resources
 * without `urls.location` (site items) it is their own API path, where PATCH and DELETE act.
 */
let h: Harness;
let owner: Awaited<ReturnType<Harness['owner']>>;
beforeAll(async () => {
  h = await setupHarness();
  owner = await h.owner();
});

describe('Location on 201', () => {
  it('points at the created resource, which answers there', async () => {
    const post = (path: string, body: unknown) => h.call('POST', path, { token: owner.token, body });
    const space = await post(`/v1/orgs/${owner.orgId}/spaces`, { title: 'Docs' });
    expect(space.status).toBe(201);
    expect(space.headers.get('location')).toBe(`${BASE}/v1/spaces/${space.body.id}`);
    const site = await post(`/v1/orgs/${owner.orgId}/sites`, { title: 'Site' });
    const sitePath = `/v1/orgs/${owner.orgId}/sites/${site.body.id}`;
    const section = await post(`${sitePath}/sections`, { spaceId: space.body.id, title: 'Guides' });
    expect(section.headers.get('location')).toBe(`${BASE}${sitePath}/sections/${section.body.id}`);
    const group = await post(`${sitePath}/section-groups`, { title: 'Group' });
    expect(group.headers.get('location')).toBe(`${BASE}${sitePath}/section-groups/${group.body.id}`);
    const joined = await post(`${sitePath}/section-groups/${group.body.id}/sections`, { sectionId: section.body.id });
    expect(joined.status, JSON.stringify(joined.body)).toBe(201);
    expect(joined.headers.get('location')).toBe(`${BASE}${sitePath}/section-groups/${group.body.id}`);
    const link = await post(`${sitePath}/share-links`, { name: 'Partners' });
    const location = link.headers.get('location')!;
    expect(location).toBe(`${BASE}${sitePath}/share-links/${link.body.id}`);
    const patched = await h.call('PATCH', location.slice(BASE.length), { token: owner.token, body: { name: 'Partners 2' } });
    expect(patched.status).toBe(200);
    expect(patched.body.name).toBe('Partners 2');
    // Not on other statuses.
    expect((await h.call('GET', `/v1/spaces/${space.body.id}`, { token: owner.token })).headers.get('location')).toBeNull();
  });
});
