import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import { setupHarness, type Harness, type TestUser } from '../support/harness.js';

/**
 * Requests about something the caller cannot see answer exactly as for something that does not
 * exist (status and body), and change nothing: an answer must not reveal what exists.
 */
let h: Harness;
let a: TestUser & { orgId: string };
let b: TestUser & { orgId: string };

beforeAll(async () => {
  h = await setupHarness();
  [a, b] = await Promise.all([h.owner('Org A'), h.owner('Org B')]);
});

/** Two requests answered alike, with the database unchanged by either. */
async function expectAlike(
  seen: () => Promise<{ status: number; body: unknown }>,
  missing: () => Promise<{ status: number; body: unknown }>,
) {
  const before = await h.snapshot();
  const [one, two] = [await seen(), await missing()];
  expect({ status: one.status, body: one.body }).toEqual({ status: two.status, body: two.body });
  expect(await h.snapshot()).toBe(before);
  return one;
}

describe('oracles', () => {
  it('POST /orgs/{id}/join: an organization that does not admit the caller answers as a missing one (404)', async () => {
    await h.db.prisma.organization.update({ where: { id: b.orgId }, data: { emailDomains: ['b-only.example'] } });
    const stranger = await h.user('Stranger', `s${newId(4).toLowerCase()}@elsewhere.example`);
    const res = await expectAlike(
      () => h.rest('joinOrganization', 'POST', `/v1/orgs/${b.orgId}/join`, { token: stranger.token }),
      () => h.rest('joinOrganization', 'POST', `/v1/orgs/${newId()}/join`, { token: stranger.token }),
    );
    expect(res.status).toBe(404);
    // An organization without domains too (it admits no one by domain).
    await expectAlike(
      () => h.call('POST', `/v1/orgs/${a.orgId}/join`, { token: stranger.token }),
      () => h.call('POST', `/v1/orgs/${newId()}/join`, { token: stranger.token }),
    );
  });

  it('DELETE /spaces/{id} of another organization answers as for a missing space (404) and deletes nothing', async () => {
    const space = await h.call('POST', `/v1/orgs/${b.orgId}/spaces`, { token: b.token, body: { title: 'Theirs' } });
    expect(space.status).toBe(201);
    const res = await expectAlike(
      () => h.call('DELETE', `/v1/spaces/${space.body.id}`, { token: a.token }),
      () => h.call('DELETE', `/v1/spaces/${newId()}`, { token: a.token }),
    );
    expect(res).toEqual({ status: 404, body: { error: { code: 404, message: 'Space not found' } }, headers: expect.anything() });
    expect((await h.db.prisma.space.findUniqueOrThrow({ where: { id: space.body.id } })).deletedAt).toBeNull();
    // Its owner still deletes it (205).
    expect((await h.call('DELETE', `/v1/spaces/${space.body.id}`, { token: b.token })).status).toBe(205);
  });

  it('DELETE /collections/{id} of another organization answers as for a missing collection (404) and deletes nothing', async () => {
    const collection = await h.call('POST', `/v1/orgs/${b.orgId}/collections`, { token: b.token, body: { title: 'Theirs' } });
    expect(collection.status).toBe(201);
    const res = await expectAlike(
      () => h.call('DELETE', `/v1/collections/${collection.body.id}`, { token: a.token }),
      () => h.call('DELETE', `/v1/collections/${newId()}`, { token: a.token }),
    );
    expect(res).toEqual({ status: 404, body: { error: { code: 404, message: 'Collection not found' } }, headers: expect.anything() });
    expect(await h.db.prisma.collection.findUnique({ where: { id: collection.body.id } })).not.toBeNull();
  });

  it('team member adds: a user of another organization and no user at all get the same answer', async () => {
    const team = await h.rest('createOrganizationTeam', 'PUT', `/v1/orgs/${a.orgId}/teams`, { token: a.token, body: { title: 'Core' } });
    expect(team.status).toBe(201);
    const path = `/v1/orgs/${a.orgId}/teams/${team.body.id}/members`;
    const nobody = `nobody-${newId(6).toLowerCase()}@example.com`;
    // By email (the name is echoed in the message: compare with it swapped).
    const existing = await h.call('PUT', path, { token: a.token, body: { add: [b.email] } });
    const missing = await h.call('PUT', path, { token: a.token, body: { add: [nobody] } });
    expect(existing.status).toBe(400);
    expect(JSON.stringify(existing.body).replace(b.email, 'X')).toBe(JSON.stringify(missing.body).replace(nobody, 'X'));
    // By id, and in `remove`.
    const ghost = newId();
    const byId = await h.call('PUT', path, { token: a.token, body: { remove: [b.id] } });
    const ghostId = await h.call('PUT', path, { token: a.token, body: { remove: [ghost] } });
    expect(byId.status).toBe(400);
    expect(JSON.stringify(byId.body).replace(b.id, 'X')).toBe(JSON.stringify(ghostId.body).replace(ghost, 'X'));
    // One member at a time (PUT …/members/{userId}): 404 alike.
    await expectAlike(
      () => h.call('PUT', `${path}/${b.id}`, { token: a.token, body: {} }),
      () => h.call('PUT', `${path}/${newId()}`, { token: a.token, body: {} }),
    );
  });
});
