/**
 * Comments on spaces and on change requests: list, post, read, update (body, resolution,
 * reactions), delete, and the same for replies. The two places share their routes' shapes, so most
 * tests run once per place. Each route three ways: it works (official schema), bad input is refused
 * with the right status and changes nothing, callers without rights are refused.
 * This file holds the organization, the places and the helpers the test/comments/comments-*.test.ts files share.
 */
import { expect } from 'vitest';
import { BASE, setupHarness, type Harness, type TestUser } from '../support/harness.js';
import { refusalChecker, type Res } from '../support/refused.js';
import { writeCr, writeLive, type Change } from '../support/content-writes.js';

export type Owner = TestUser & { orgId: string };
export type Who = { token: string } | null;

export let h: Harness;
export let owner: Owner;
export let commenter: TestUser;
export let commenter2: TestUser;
export let reader: TestUser;
export let outsider: TestUser;

export async function setupComments() {
  h = await setupHarness();
  ({ owner, reader, outsider } = await h.world());
  [commenter, commenter2] = [await h.user('Cora Commenter'), await h.user('Colin Commenter')];
  await h.addMember(owner.orgId, commenter.id, 'comment');
  await h.addMember(owner.orgId, commenter2.id, 'comment');
}

// ---------------------------------------------------------------------------------------------
// Places and helpers

export interface Spot {
  spaceId: string;
  /** The change request's id (null for the space's main content). */
  crId: string | null;
  crNumber: number | null;
  /** `/v1/spaces/:id/comments` or `/v1/spaces/:id/change-requests/:cr/comments`. */
  base: string;
}

export interface Place {
  label: string;
  suffix: 'InSpace' | 'InChangeRequest';
  make(): Promise<Spot>;
}

export async function newSpace(title = 'Docs') {
  const res = await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { title } });
  expect(res.status).toBe(201);
  return res.body as { id: string; revision: string };
}

export async function newChangeRequest(spaceId: string) {
  const res = await h.call('POST', `/v1/spaces/${spaceId}/change-requests`, { token: owner.token, body: { subject: 'Edits' } });
  expect(res.status).toBe(201);
  return res.body as { id: string; number: number; revision: string };
}

export const PLACES: Place[] = [
  {
    label: 'space',
    suffix: 'InSpace',
    async make() {
      const space = await newSpace();
      return { spaceId: space.id, crId: null, crNumber: null, base: `/v1/spaces/${space.id}/comments` };
    },
  },
  {
    label: 'change request',
    suffix: 'InChangeRequest',
    async make() {
      const space = await newSpace();
      const cr = await newChangeRequest(space.id);
      return { spaceId: space.id, crId: cr.id, crNumber: cr.number, base: `/v1/spaces/${space.id}/change-requests/${cr.id}/comments` };
    },
  },
];

/** The revision comments of this spot are posted on: main's, or the change request's head. */
export async function currentRevision(spot: Spot) {
  if (spot.crId) return (await h.db.prisma.changeRequest.findUniqueOrThrow({ where: { id: spot.crId } })).revisionId;
  return (await h.db.prisma.space.findUniqueOrThrow({ where: { id: spot.spaceId } })).revisionId;
}

/** Writes content where the spot's comments live; answers the ids of inserted pages. */
export async function writeContent(spot: Spot, changes: Change[]) {
  const written = spot.crId
    ? await writeCr(h, owner.token, spot.spaceId, spot.crId, changes)
    : await writeLive(h, owner.token, spot.spaceId, changes);
  return written.pages;
}

export const op = (place: Place, name: string) => `${name}${place.suffix}`;

export async function post(place: Place, spot: Spot, body: unknown, user: { token: string } = commenter) {
  const res = await h.rest(op(place, 'postComment'), 'POST', spot.base, { token: user.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}
export async function get(place: Place, spot: Spot, id: string, query = '', user: { token: string } = owner) {
  const res = await h.rest(op(place, 'getComment'), 'GET', `${spot.base}/${id}${query}`, { token: user.token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}
export async function put(place: Place, spot: Spot, id: string, body: unknown, user: { token: string } = commenter) {
  const res = await h.rest(op(place, 'updateComment'), 'PUT', `${spot.base}/${id}`, { token: user.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}
export async function postReply(place: Place, spot: Spot, commentId: string, body: unknown, user: { token: string } = commenter) {
  const res = await h.rest(op(place, 'postCommentReply'), 'POST', `${spot.base}/${commentId}/replies`, { token: user.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}
export async function putReply(
  place: Place,
  spot: Spot,
  commentId: string,
  replyId: string,
  body: unknown,
  user: { token: string } = commenter,
) {
  const res = await h.rest(op(place, 'updateCommentReply'), 'PUT', `${spot.base}/${commentId}/replies/${replyId}`, {
    token: user.token,
    body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}
export const md = (markdown: string) => ({ body: { markdown } });

/** Every page of a list, following `next`: the ids in order; `count` must be the same on each page. */
export async function collect(place: Place, spot: Spot, query: string, limit: number, user: { token: string } = owner) {
  const ids: string[] = [];
  let page: string | undefined;
  let count: number | undefined;
  let pages = 0;
  do {
    const sep = query ? '&' : '';
    const res = await h.rest(
      op(place, 'listComments'),
      'GET',
      `${spot.base}?${query}${sep}limit=${limit}${page ? `&page=${encodeURIComponent(page)}` : ''}`,
      { token: user.token },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    count ??= res.body.count;
    expect(res.body.count).toBe(count);
    expect(res.body.items.length).toBeLessThanOrEqual(limit);
    ids.push(...res.body.items.map((c: { id: string }) => c.id));
    page = res.body.next?.page;
    pages++;
    expect(pages).toBeLessThan(50);
  } while (page);
  expect(ids.length).toBe(count);
  return { ids, pages };
}

export async function state() {
  const prisma = h.db.prisma;
  const [snapshot, comments, replies, reactions, replyReactions] = await Promise.all([
    h.snapshot(),
    prisma.comment.findMany({ orderBy: { id: 'asc' } }),
    prisma.commentReply.findMany({ orderBy: { id: 'asc' } }),
    prisma.commentReaction.findMany({ orderBy: [{ commentId: 'asc' }, { userId: 'asc' }, { emoji: 'asc' }] }),
    prisma.commentReplyReaction.findMany({ orderBy: [{ replyId: 'asc' }, { userId: 'asc' }, { emoji: 'asc' }] }),
  ]);
  return `${snapshot}${JSON.stringify({ comments, replies, reactions, replyReactions })}`;
}

/** The official comment operations, by the file that exercises them, without their place suffix. */
export const COMMENT_OPERATIONS = {
  comments: ['listComments', 'postComment', 'getComment', 'updateComment', 'deleteComment'],
  replies: ['listCommentReplies', 'postCommentReply', 'getCommentReply', 'updateCommentReply', 'deleteCommentReply'],
};
export const inBothPlaces = (names: string[]) => names.flatMap((n) => [`${n}InSpace`, `${n}InChangeRequest`]);

export const refused = refusalChecker(() => state());

/** No token 401, outsider 404, and (when given) a member without the role 403 — each changing nothing. */
export async function refusedToStrangers(request: (user: Who) => Promise<Res>, memberWithoutRole?: TestUser) {
  await refused(401, () => request(null));
  await refused(404, () => request(outsider));
  if (memberWithoutRole) await refused(403, () => request(memberWithoutRole));
}

export const call = (method: string, path: string, user: Who, body?: unknown) => h.call(method, path, { token: user?.token ?? null, body });
export const userJson = (u: TestUser) => ({
  object: 'user',
  id: u.id,
  displayName: expect.any(String),
  email: u.email,
  urls: { location: `${BASE}/v1/users/${u.id}` },
});
export const openCount = async (spot: Spot) => {
  const space = (await h.call('GET', `/v1/spaces/${spot.spaceId}`, { token: owner.token })).body.comments as number;
  const cr = spot.crId
    ? ((await h.call('GET', `/v1/spaces/${spot.spaceId}/change-requests/${spot.crId}`, { token: owner.token })).body.comments as number)
    : null;
  return { space, cr };
};

// ---------------------------------------------------------------------------------------------
