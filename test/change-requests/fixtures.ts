/**
 * Change requests: list (space and organization), create, read, update, merge, update from main,
 * reviews and merge rules, and PDF exports. Each route three ways: it works (official schema),
 * bad input is refused with the right status and changes nothing, callers without rights are refused.
 * This file holds the organization and the helpers the test/change-requests/change-requests-*.test.ts files share.
 */
import { expect } from 'vitest';
import { setupHarness, type Harness, type TestUser } from '../support/harness.js';
import { refusalChecker } from '../support/refused.js';
import { writeCr, writeLive, type Change } from '../support/content-writes.js';

export type Owner = TestUser & { orgId: string };
export type Cr = { id: string; number: number; [key: string]: any };

export let h: Harness;
export let owner: Owner;
export let reader: TestUser;
export let commenter: TestUser;
export let editor: TestUser;
export let reviewer: TestUser;
export let reviewer2: TestUser;
export let outsider: TestUser;

/** The official change request operations, by the test file that exercises them (each file's last test checks them). */
export const CHANGE_REQUEST_OPERATIONS = {
  crud: [
    'createChangeRequest',
    'getChangeRequestById',
    'listChangeRequestsForSpace',
    'listChangeRequestsForOrganization',
    'updateChangeRequestById',
  ],
  // submitChangeRequestReview is the reviews module's (test/change-requests/reviews.test.ts).
  // updateChangeRequestContent: the merge tests write through it (write() → writeCr); test/content covers it in depth.
  merge: ['mergeChangeRequest', 'updateChangeRequest', 'updateChangeRequestContent'],
  export: ['getChangeRequestPDF'],
};

export async function setupChangeRequests() {
  h = await setupHarness();
  ({ owner, reader, outsider } = await h.world());
  [commenter, editor, reviewer, reviewer2] = [
    await h.user('Commenter'),
    await h.user('Editor'),
    await h.user('Reviewer'),
    await h.user('Second reviewer'),
  ];
  await h.addMember(owner.orgId, commenter.id, 'comment');
  await h.addMember(owner.orgId, editor.id, 'edit');
  await h.addMember(owner.orgId, reviewer.id, 'review');
  await h.addMember(owner.orgId, reviewer2.id, 'review');
}

// ---------------------------------------------------------------------------------------------
// Helpers

export async function newSpace(body: Record<string, unknown> = { title: 'Docs' }, org: Owner = owner) {
  const res = await h.call('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.token, body });
  expect(res.status).toBe(201);
  return res.body as { id: string; revision: string };
}

export const crPath = (spaceId: string, cr?: string | number, suffix = '') =>
  `/v1/spaces/${spaceId}/change-requests${cr === undefined ? '' : `/${cr}`}${suffix}`;
export const spaceRevision = async (spaceId: string) => (await h.db.prisma.space.findUniqueOrThrow({ where: { id: spaceId } })).revisionId;
export const crRow = (id: string) => h.db.prisma.changeRequest.findUniqueOrThrow({ where: { id } });

export async function createCr(
  spaceId: string,
  body: Record<string, unknown> = { subject: 'Edits' },
  user: { token: string } = owner,
): Promise<Cr> {
  const res = await h.rest('createChangeRequest', 'POST', crPath(spaceId), { token: user.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}
export async function getCr(spaceId: string, cr: string | number, user: { token: string } = owner): Promise<Cr> {
  const res = await h.rest('getChangeRequestById', 'GET', crPath(spaceId, cr), { token: user.token });
  expect(res.status).toBe(200);
  return res.body;
}
export async function patchCr(
  spaceId: string,
  cr: string | number,
  body: Record<string, unknown>,
  user: { token: string } = owner,
): Promise<Cr> {
  const res = await h.rest('updateChangeRequestById', 'PATCH', crPath(spaceId, cr), { token: user.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}
/** Writes content in the official format: to the change request `cr`, or live to main when `cr` is null. */
export async function write(spaceId: string, cr: string | number | null, changes: Change[], user: { token: string } = owner) {
  return cr === null ? writeLive(h, user.token, spaceId, changes) : writeCr(h, user.token, spaceId, cr, changes);
}
export const merge = (spaceId: string, cr: string | number, user: { token: string } | null = owner) =>
  h.call('POST', crPath(spaceId, cr, '/merge'), { token: user?.token ?? null });
export const update = (spaceId: string, cr: string | number, user: { token: string } | null = owner) =>
  h.call('POST', crPath(spaceId, cr, '/update'), { token: user?.token ?? null });
export const review = (spaceId: string, cr: string | number, body: unknown, user: { token: string } | null) =>
  h.call('POST', crPath(spaceId, cr, '/reviews'), { token: user?.token ?? null, body });
export const pdf = (spaceId: string, cr: string | number, query = '', user: { token: string } | null = owner) =>
  h.call('GET', `${crPath(spaceId, cr, '/pdf')}${query}`, { token: user?.token ?? null });
export const titles = (pages: any[]): string[] => pages.flatMap((p) => [p.title, ...titles(p.pages ?? [])]);
export const mainTitles = async (spaceId: string) =>
  titles((await h.call('GET', `/v1/spaces/${spaceId}/content/pages`, { token: owner.token })).body.pages);

export async function patchSpace(spaceId: string, body: Record<string, unknown>) {
  const res = await h.call('PATCH', `/v1/spaces/${spaceId}`, { token: owner.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** A fresh organization with its own admin and a 'read' member. */
export async function freshOrg(title = 'Fresh Org') {
  const admin = await h.owner(title);
  const member = await h.user();
  await h.addMember(admin.orgId, member.id, 'read');
  return { admin, member };
}

export async function state() {
  const prisma = h.db.prisma;
  const [snapshot, crs, reviews, exports] = await Promise.all([
    h.snapshot(),
    prisma.changeRequest.findMany({ orderBy: { id: 'asc' } }),
    prisma.changeRequestReview.findMany({ orderBy: [{ changeRequestId: 'asc' }, { userId: 'asc' }] }),
    prisma.pdfExport.findMany({ orderBy: { id: 'asc' } }),
  ]);
  return `${snapshot}${JSON.stringify({ crs, reviews, exports })}`;
}

export const refused = refusalChecker(() => state());

export async function listIds(path: string, operationId: string, user: { token: string } = owner) {
  const res = await h.rest(operationId, 'GET', path, { token: user.token });
  expect(res.status).toBe(200);
  expect(res.body.count).toBe(res.body.items.length);
  return res.body.items.map((c: { id: string }) => c.id) as string[];
}
export const spaceList = (spaceId: string, query = '', user: { token: string } = owner) =>
  listIds(`${crPath(spaceId)}${query}`, 'listChangeRequestsForSpace', user);
export const orgList = (orgId: string, query = '', user: { token: string } = owner) =>
  listIds(`/v1/orgs/${orgId}/change-requests${query}`, 'listChangeRequestsForOrganization', user);
