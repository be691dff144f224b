import { beforeAll, describe, expect, it } from 'vitest';
import { setupHarness, type Harness } from './support/harness.js';

let h: Harness;
let owner: Awaited<ReturnType<Harness['owner']>>;

beforeAll(async () => {
  h = await setupHarness();
  owner = await h.owner();
});

const createSpace = async (body: Record<string, unknown> = { title: 'Docs' }) =>
  (await h.rest('createSpace', 'POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body })).body;

describe('POST /orgs/:organizationId/spaces', () => {
  it('creates a space (201) matching the official schema', async () => {
    const res = await h.rest('createSpace', 'POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { title: 'Guide', emoji: '📘' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ object: 'space', title: 'Guide', emoji: '📘', organization: owner.orgId, visibility: 'private', comments: 0, changeRequests: 0 });
    expect(res.body.permissions.admin).toBe(true);
  });

  it('rejects a title over 50 characters with 400 naming the field, changing nothing', async () => {
    const before = await h.snapshot();
    const res = await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { title: 'x'.repeat(51) } });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ code: 400, message: expect.stringContaining('title') });
    expect(await h.snapshot()).toBe(before);
  });

  it('refuses an outsider (404) and a reader (403)', async () => {
    const outsider = await h.user();
    expect((await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: outsider.token, body: {} })).status).toBe(404);
    const reader = await h.user();
    await h.addMember(owner.orgId, reader.id, 'read');
    expect((await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: reader.token, body: {} })).status).toBe(403);
    expect((await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { body: {} })).status).toBe(401);
  });
});

describe('space lifecycle', () => {
  it('gets, patches, deletes, restores', async () => {
    const space = await createSpace();
    const got = await h.rest('getSpaceById', 'GET', `/v1/spaces/${space.id}`, { token: owner.token });
    expect(got.body.id).toBe(space.id);
    const patched = await h.rest('updateSpaceById', 'PATCH', `/v1/spaces/${space.id}`, {
      token: owner.token,
      body: { title: 'Renamed', editMode: 'locked', defaultLevel: 'read', mergeRules: { type: 'inherit' } },
    });
    expect(patched.body).toMatchObject({ title: 'Renamed', editMode: 'locked', defaultLevel: 'read' });
    const deleted = await h.call('DELETE', `/v1/spaces/${space.id}`, { token: owner.token });
    expect(deleted.status).toBe(205);
    expect((await h.call('DELETE', `/v1/spaces/${space.id}`, { token: owner.token })).status).toBe(204);
    const restored = await h.rest('restoreSpace', 'POST', `/v1/spaces/${space.id}/restore`, { token: owner.token });
    expect(restored.body.deletedAt).toBeUndefined();
  });

  it('lists the organization spaces in the list envelope', async () => {
    const res = await h.rest('listSpacesInOrganizationById', 'GET', `/v1/orgs/${owner.orgId}/spaces?limit=1`, { token: owner.token });
    expect(res.body.items).toHaveLength(1);
    expect(res.body.next.page).toEqual(expect.any(String));
    const next = await h.rest('listSpacesInOrganizationById', 'GET', `/v1/orgs/${owner.orgId}/spaces?limit=1&page=${res.body.next.page}`, { token: owner.token });
    expect(next.body.items[0].id).not.toBe(res.body.items[0].id);
  });
});
