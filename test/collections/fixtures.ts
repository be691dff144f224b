/**
 * Collections: every /v1 collection route (and GET /collections/:id/spaces), each checked three
 * ways — it works and matches the official schema; bad input is refused with the right status and
 * changes nothing; a caller without rights is refused — plus the GraphQL side of the same resolvers.
 * This file holds the harness and the helpers the test/collections/collections-*.test.ts files share.
 */
import { expect } from 'vitest';
import { setupHarness, type Harness, type TestUser } from '../support/harness.js';
import { restRefusalChecker } from '../support/refused.js';

export let h: Harness;
export type Owner = TestUser & { orgId: string };

export async function setupCollections() {
  h = await setupHarness();
}

// ---------------------------------------------------------------------------------------------
// Helpers

export type { CallOpts } from '../support/refused.js';

export async function createCollection(who: Owner | TestUser, orgId: string, body: Record<string, unknown> = {}) {
  const res = await h.rest('createCollection', 'POST', `/v1/orgs/${orgId}/collections`, { token: who.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

export async function createSpace(who: Owner | TestUser, orgId: string, body: Record<string, unknown> = {}) {
  const res = await h.rest('createSpace', 'POST', `/v1/orgs/${orgId}/spaces`, { token: who.token, body: { title: 'Space', ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

export async function getCollection(token: string, id: string) {
  return h.call('GET', `/v1/collections/${id}`, { token });
}

/** The ids of an organization's collections, in list order (all pages). */
export async function listIds(token: string, orgId: string, query = '') {
  const res = await h.rest('listCollectionsInOrganizationById', 'GET', `/v1/orgs/${orgId}/collections?limit=1000${query}`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.next).toBeUndefined();
  expect(res.body.count).toBe(res.body.items.length);
  return res.body.items.map((c: { id: string }) => c.id) as string[];
}

/** A DELETE by someone who cannot see the collection: the very 404 of a missing one (no existence oracle), nothing changed. */
export async function expectUnseenDelete(path: string, token: string) {
  const before = await h.snapshot();
  const res = await h.call('DELETE', path, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(404);
  expect(res.body).toEqual((await h.call('DELETE', '/v1/collections/never-existed', { token })).body);
  expect(res.body).toEqual({ error: { code: 404, message: 'Collection not found' } });
  expect(await h.snapshot()).toBe(before);
}

/** A refused request: the status, the error body, an optional message check, and nothing changed. */
export const expectRefused = restRefusalChecker(
  () => h,
  () => h.snapshot(),
);

export const positionOf = async (kind: 'space' | 'collection', id: string) =>
  kind === 'space'
    ? (await h.db.prisma.space.findUniqueOrThrow({ where: { id } })).position
    : (await h.db.prisma.collection.findUniqueOrThrow({ where: { id } })).position;
