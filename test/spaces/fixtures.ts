/** The organization, its members and the helpers shared by the test/spaces/*.test.ts files. */
import { expect } from 'vitest';
import { setupHarness, type Harness, type TestUser } from '../support/harness.js';
import { refusalChecker } from '../support/refused.js';

export type Owner = TestUser & { orgId: string };

export let h: Harness;
/** Admin of the main organization. */
export let owner: Owner;
/** Members of the main organization with the role their name says (guest: null role). */
export let reader: TestUser;
export let creator: TestUser;
export let editor: TestUser;
export let guest: TestUser;
/** Signed in, member of nothing here. */
export let outsider: TestUser;

export const DAY = 24 * 60 * 60 * 1000;

/**
 * The space routes each test file is about: its last test checks that each answered a success through
 * `h.rest` (so was validated against the official schema); spaces-crud checks every route is listed once.
 */
export const SPACE_OPERATIONS = {
  crud: ['createSpace', 'listSpacesInOrganizationById', 'listSpacesInCollectionById', 'getSpaceById', 'updateSpaceById'],
  lifecycle: ['deleteSpaceById', 'duplicateSpace', 'restoreSpace', 'moveSpace', 'transferSpace'],
};

export async function setupSpaces() {
  h = await setupHarness();
  ({ owner, reader, creator, guest, outsider } = await h.world());
  editor = await h.user('Editor');
  await h.addMember(owner.orgId, editor.id, 'edit');
}

// ---------------------------------------------------------------------------------------------
// Helpers

export async function newSpace(body: Record<string, unknown> = { title: 'Docs' }, org: Owner = owner) {
  const res = await h.rest('createSpace', 'POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.token, body });
  expect(res.status).toBe(201);
  return res.body;
}

export async function newCollection(body: Record<string, unknown> = { title: 'Guides' }, org: Owner = owner) {
  const res = await h.call('POST', `/v1/orgs/${org.orgId}/collections`, { token: org.token, body });
  expect(res.status).toBe(201);
  return res.body as { id: string };
}

/** A fresh organization with its own admin, plus a 'read' member of it. */
export async function freshOrg(title = 'Fresh Org') {
  const admin = await h.owner(title);
  const member = await h.user();
  await h.addMember(admin.orgId, member.id, 'read');
  return { admin, member };
}

export const getSpace = (id: string, user: { token: string } | null = owner) =>
  h.call('GET', `/v1/spaces/${id}`, { token: user?.token ?? null });

/** Every id of a list route, paging through it (and checking `count` against what the pages hold). */
export async function allIds(operationId: string, path: string, user: { token: string }) {
  const ids: string[] = [];
  let page: string | undefined;
  let count: number | undefined;
  do {
    const res = await h.rest(operationId, 'GET', `${path}?limit=100${page ? `&page=${page}` : ''}`, { token: user.token });
    expect(res.status).toBe(200);
    count ??= res.body.count;
    ids.push(...res.body.items.map((s: { id: string }) => s.id));
    page = res.body.next?.page;
  } while (page);
  expect(ids).toHaveLength(count!);
  return ids;
}

export const orgSpaceIds = (org: Owner, user: { token: string } = org) =>
  allIds('listSpacesInOrganizationById', `/v1/orgs/${org.orgId}/spaces`, user);
export const collectionSpaceIds = (collectionId: string, user: { token: string } = owner) =>
  allIds('listSpacesInCollectionById', `/v1/collections/${collectionId}/spaces`, user);

/**
 * Runs a request that must be refused with `status` (an error body naming `message` when given)
 * and must leave every table as it was.
 */
export const refused = refusalChecker(() => h.snapshot());

export const spaceRow = (id: string) => h.db.prisma.space.findUnique({ where: { id } });
export const deletedAgo = (id: string, ms: number) =>
  h.db.prisma.space.update({ where: { id }, data: { deletedAt: new Date(Date.now() - ms) } });
