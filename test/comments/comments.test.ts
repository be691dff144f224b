import { GitBookAPI } from '@gitbook/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, setupHarness, type Harness, type TestUser } from '../support/harness.js';
import { refusalChecker, type Res } from '../support/refused.js';
import { assertMatchesSpec, componentValidator } from '../support/openapi.js';
import { startServer } from '../../src/server.js';
import { commentRoutes } from '../../src/modules/comments/routes.js';
import { documentFromMarkdown } from '../../src/document/index.js';

/**
 * Comments on spaces and on change requests: list, post, read, update (body, resolution,
 * reactions), delete, and the same for replies. The two places share their routes' shapes, so most
 * tests run once per place. Each route three ways: it works (official schema), bad input is refused
 * with the right status and changes nothing, callers without rights are refused.
 */
type Owner = TestUser & { orgId: string };
type Who = { token: string } | null;

let h: Harness;
let owner: Owner;
let commenter: TestUser;
let commenter2: TestUser;
let reader: TestUser;
let outsider: TestUser;

beforeAll(async () => {
  h = await setupHarness();
  owner = await h.owner();
  [commenter, commenter2, reader, outsider] = await Promise.all([h.user('Cora Commenter'), h.user('Colin Commenter'), h.user('Rita Reader'), h.user('Otto Outsider')]);
  await h.addMember(owner.orgId, commenter.id, 'comment');
  await h.addMember(owner.orgId, commenter2.id, 'comment');
  await h.addMember(owner.orgId, reader.id, 'read');
});

// ---------------------------------------------------------------------------------------------
// Places and helpers

interface Spot {
  spaceId: string;
  /** The change request's id (null for the space's main content). */
  crId: string | null;
  crNumber: number | null;
  /** `/v1/spaces/:id/comments` or `/v1/spaces/:id/change-requests/:cr/comments`. */
  base: string;
}

interface Place {
  label: string;
  suffix: 'InSpace' | 'InChangeRequest';
  make(): Promise<Spot>;
}

async function newSpace(title = 'Docs') {
  const res = await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { title } });
  expect(res.status).toBe(201);
  return res.body as { id: string; revision: string };
}

async function newChangeRequest(spaceId: string) {
  const res = await h.call('POST', `/v1/spaces/${spaceId}/change-requests`, { token: owner.token, body: { subject: 'Edits' } });
  expect(res.status).toBe(201);
  return res.body as { id: string; number: number; revision: string };
}

const PLACES: Place[] = [
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
async function currentRevision(spot: Spot) {
  if (spot.crId) return (await h.db.prisma.changeRequest.findUniqueOrThrow({ where: { id: spot.crId } })).revisionId;
  return (await h.db.prisma.space.findUniqueOrThrow({ where: { id: spot.spaceId } })).revisionId;
}

/** Writes content where the spot's comments live; answers the ids of inserted pages. */
async function writeContent(spot: Spot, changes: unknown[]) {
  const path = spot.crId ? `/v1/spaces/${spot.spaceId}/change-requests/${spot.crId}/content` : `/v1/spaces/${spot.spaceId}/content`;
  const res = await h.call('POST', path, { token: owner.token, body: { changes } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.pages as string[];
}

const op = (place: Place, name: string) => `${name}${place.suffix}`;

async function post(place: Place, spot: Spot, body: unknown, user: { token: string } = commenter) {
  const res = await h.rest(op(place, 'postComment'), 'POST', spot.base, { token: user.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}
async function get(place: Place, spot: Spot, id: string, query = '', user: { token: string } = owner) {
  const res = await h.rest(op(place, 'getComment'), 'GET', `${spot.base}/${id}${query}`, { token: user.token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}
async function put(place: Place, spot: Spot, id: string, body: unknown, user: { token: string } = commenter) {
  const res = await h.rest(op(place, 'updateComment'), 'PUT', `${spot.base}/${id}`, { token: user.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}
async function postReply(place: Place, spot: Spot, commentId: string, body: unknown, user: { token: string } = commenter) {
  const res = await h.rest(op(place, 'postCommentReply'), 'POST', `${spot.base}/${commentId}/replies`, { token: user.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}
async function putReply(place: Place, spot: Spot, commentId: string, replyId: string, body: unknown, user: { token: string } = commenter) {
  const res = await h.rest(op(place, 'updateCommentReply'), 'PUT', `${spot.base}/${commentId}/replies/${replyId}`, { token: user.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}
const md = (markdown: string) => ({ body: { markdown } });

/** Every page of a list, following `next`: the ids in order; `count` must be the same on each page. */
async function collect(place: Place, spot: Spot, query: string, limit: number, user: { token: string } = owner) {
  const ids: string[] = [];
  let page: string | undefined;
  let count: number | undefined;
  let pages = 0;
  do {
    const sep = query ? '&' : '';
    const res = await h.rest(op(place, 'listComments'), 'GET', `${spot.base}?${query}${sep}limit=${limit}${page ? `&page=${encodeURIComponent(page)}` : ''}`, { token: user.token });
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

async function state() {
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

const refused = refusalChecker(() => state());

/** No token 401, outsider 404, and (when given) a member without the role 403 — each changing nothing. */
async function refusedToStrangers(request: (user: Who) => Promise<Res>, memberWithoutRole?: TestUser) {
  await refused(401, () => request(null));
  await refused(404, () => request(outsider));
  if (memberWithoutRole) await refused(403, () => request(memberWithoutRole));
}

const call = (method: string, path: string, user: Who, body?: unknown) => h.call(method, path, { token: user?.token ?? null, body });
const userJson = (u: TestUser) => ({ object: 'user', id: u.id, displayName: expect.any(String), email: u.email, urls: { location: `${BASE}/v1/users/${u.id}` } });
const openCount = async (spot: Spot) => {
  const space = (await h.call('GET', `/v1/spaces/${spot.spaceId}`, { token: owner.token })).body.comments as number;
  const cr = spot.crId ? ((await h.call('GET', `/v1/spaces/${spot.spaceId}/change-requests/${spot.crId}`, { token: owner.token })).body.comments as number) : null;
  return { space, cr };
};

// ---------------------------------------------------------------------------------------------

describe.each(PLACES)('comments on a $label', (place) => {
  describe('POST .../comments', () => {
    it('posts an open comment by the caller, on the current revision, with every field', async () => {
      const spot = await place.make();
      const revision = await currentRevision(spot);
      const comment = await post(place, spot, md('Is this **right**?'));
      expect(comment).toEqual({
        object: 'comment',
        id: expect.any(String),
        postedBy: userJson(commenter),
        postedAt: expect.any(String),
        reactions: [],
        replies: 0,
        repliers: [],
        body: { markdown: 'Is this **right**?' },
        target: { space: spot.spaceId, revision, ...(spot.crId ? { changeRequest: spot.crId } : {}) },
        urls: { location: `${BASE}${spot.base}/${comment.id}` },
        permissions: { view: true, edit: true, reply: true, delete: true },
        status: 'open',
      });
      expect(Date.now() - Date.parse(comment.postedAt)).toBeLessThan(60_000);
      const row = await h.db.prisma.comment.findUniqueOrThrow({ where: { id: comment.id } });
      expect(row).toMatchObject({ spaceId: spot.spaceId, changeRequestId: spot.crId, postedById: commenter.id, markdown: 'Is this **right**?', revisionId: revision });
      // The location answers the same comment.
      expect(await get(place, spot, comment.id, '', commenter)).toEqual(comment);
    });

    it('targets a page, a node of it and a table cell', async () => {
      const spot = await place.make();
      const [page] = await writeContent(spot, [{ type: 'insert_page', title: 'Guide', markdown: 'Hello' }]);
      const revision = await currentRevision(spot);
      const comment = await post(place, spot, { ...md('Typo here'), page, node: 'block-1', tableCell: { record: 'r1', definition: 'd1' } });
      expect(comment.target).toEqual({
        space: spot.spaceId,
        revision,
        page: { id: page },
        node: { id: 'block-1' },
        tableCell: { record: 'r1', definition: 'd1' },
        ...(spot.crId ? { changeRequest: spot.crId } : {}),
      });
      const pageOnly = await post(place, spot, { ...md('On the page'), page });
      expect(pageOnly.target).toEqual({ space: spot.spaceId, revision, page: { id: page }, ...(spot.crId ? { changeRequest: spot.crId } : {}) });
    });

    it('counts open comments on the space (and on the change request)', async () => {
      const spot = await place.make();
      expect(await openCount(spot)).toEqual({ space: 0, cr: spot.crId ? 0 : null });
      await post(place, spot, md('One'));
      await post(place, spot, md('Two'), owner);
      expect(await openCount(spot)).toEqual({ space: 2, cr: spot.crId ? 2 : null });
    });

    it('refuses bad input (400 naming the field) and changes nothing', async () => {
      const spot = await place.make();
      const [page] = await writeContent(spot, [{ type: 'insert_page', title: 'Guide' }]);
      const send = (body: unknown) => () => call('POST', spot.base, commenter, body);
      await refused(400, send({}), /body/);
      await refused(400, send({ body: {} }), /^body\.markdown: is required/);
      await refused(400, send({ body: { markdown: '   \n' } }), /body\.markdown/);
      await refused(400, send({ body: { markdown: 42 } }), /body|markdown/);
      await refused(400, send({ body: 'text' }), /body/);
      await refused(400, send({ body: { document: documentFromMarkdown('Hi') } }), /^body\.document: /);
      await refused(400, send({ body: { markdown: 'x'.repeat(100_001) } }), /body\.markdown/);
      await refused(400, send({ ...md('Hi'), page: 'no-such-page' }), /^page: /);
      await refused(400, send({ ...md('Hi'), node: 'n1' }), /^page: /);
      await refused(400, send({ ...md('Hi'), page, tableCell: { record: 'r', definition: 'd' } }), /^node: /);
      await refused(400, send({ ...md('Hi'), page, node: 'n', tableCell: { record: 'r' } }), /tableCell/);
      await refused(400, send({ ...md('Hi'), page: '' }), /^page: /);
      await refused(400, send({ ...md('Hi'), colour: 'red' }), /colour/);
      await refused(400, () => h.call('POST', spot.base, { token: commenter.token, rawBody: '{"body": ' }), /JSON/);
    });

    it('refuses callers without rights: no token 401, outsider 404, reader 403', async () => {
      const spot = await place.make();
      await refusedToStrangers((user) => call('POST', spot.base, user, md('Hi')), reader);
    });
  });

  describe('GET .../comments', () => {
    it('lists newest first by default, oldest first with order=asc, across pages', async () => {
      const spot = await place.make();
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) ids.push((await post(place, spot, md(`Comment ${i}`), i % 2 ? commenter2 : commenter)).id);
      const rows = await h.db.prisma.comment.findMany({ where: { id: { in: ids } } });
      // The order is postedAt then id (ties are possible within a millisecond).
      const asc = rows.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1)).map((r) => r.id);
      const desc = [...asc].reverse();
      expect((await collect(place, spot, '', 1000)).ids).toEqual(desc);
      const paged = await collect(place, spot, '', 3);
      expect(paged).toEqual({ ids: desc, pages: 3 });
      expect((await collect(place, spot, 'order=desc', 2)).ids).toEqual(desc);
      expect((await collect(place, spot, 'order=asc', 2)).ids).toEqual(asc);
      // The list envelope and items match the official schema (checked by h.rest) and the reader sees them.
      const list = await h.rest(op(place, 'listComments'), 'GET', `${spot.base}?limit=2`, { token: reader.token });
      expect(list.body).toMatchObject({ count: 7, next: { page: expect.any(String) } });
      expect(list.body.items.map((c: any) => c.permissions)).toEqual([
        { view: true, edit: false, reply: false, delete: false },
        { view: true, edit: false, reply: false, delete: false },
      ]);
      const last = await h.rest(op(place, 'listComments'), 'GET', `${spot.base}?limit=7`, { token: owner.token });
      expect(last.body.next).toBeUndefined();
    });

    it('filters by status, authors and target page, with pagination', async () => {
      const spot = await place.make();
      const [pageA, pageB] = await writeContent(spot, [
        { type: 'insert_page', title: 'A' },
        { type: 'insert_page', title: 'B' },
      ]);
      const made: { id: string; author: string; page?: string; resolved: boolean }[] = [];
      const plan = [
        { user: commenter, page: pageA, resolved: false },
        { user: commenter2, page: pageA, resolved: true },
        { user: owner, page: undefined, resolved: false },
        { user: commenter, page: pageB, resolved: true },
        { user: commenter2, page: pageA, resolved: false },
        { user: commenter, page: undefined, resolved: false },
        { user: owner, page: pageA, resolved: true },
        { user: commenter, page: pageA, resolved: false },
      ];
      for (const p of plan) {
        const c = await post(place, spot, { ...md('x'), ...(p.page ? { page: p.page } : {}) }, p.user);
        if (p.resolved) await put(place, spot, c.id, { resolved: true }, owner);
        made.push({ id: c.id, author: p.user.id, page: p.page, resolved: p.resolved });
      }
      const all = (await collect(place, spot, '', 1000)).ids;
      expect(all).toHaveLength(8);
      const expected = (keep: (c: (typeof made)[number]) => boolean) => all.filter((id) => keep(made.find((m) => m.id === id)!));

      expect((await collect(place, spot, 'status=all', 3)).ids).toEqual(all);
      expect((await collect(place, spot, 'status=open', 2)).ids).toEqual(expected((c) => !c.resolved));
      expect((await collect(place, spot, 'status=resolved', 2)).ids).toEqual(expected((c) => c.resolved));
      expect((await collect(place, spot, `authors=${commenter.id}`, 2)).ids).toEqual(expected((c) => c.author === commenter.id));
      // Several authors: repeated parameter (as the official client sends it) or with brackets.
      const two = expected((c) => c.author === commenter.id || c.author === owner.id);
      expect((await collect(place, spot, `authors=${commenter.id}&authors=${owner.id}`, 2)).ids).toEqual(two);
      expect((await collect(place, spot, `authors[]=${commenter.id}&authors[]=${owner.id}`, 4)).ids).toEqual(two);
      expect((await collect(place, spot, `targetPage=${pageA}`, 2)).ids).toEqual(expected((c) => c.page === pageA));
      const combined = await collect(place, spot, `targetPage=${pageA}&status=open&authors=${commenter.id}&order=asc`, 1);
      expect(combined.ids).toEqual(expected((c) => c.page === pageA && !c.resolved && c.author === commenter.id).reverse());
      expect(combined.ids).toHaveLength(2);
      expect((await collect(place, spot, `authors=${outsider.id}`, 5)).ids).toEqual([]);
      expect((await collect(place, spot, 'targetPage=nowhere', 5)).ids).toEqual([]);
    });

    it('answers bodies as rich-text documents with format=document', async () => {
      const spot = await place.make();
      await post(place, spot, md('Hello *world*'));
      const res = await h.rest(op(place, 'listComments'), 'GET', `${spot.base}?format=document`, { token: owner.token });
      expect(res.body.items[0].body).toEqual({ document: documentFromMarkdown('Hello *world*') });
      expect(componentValidator('JSONDocument')(res.body.items[0].body.document)).toBe(true);
      const markdown = await h.rest(op(place, 'listComments'), 'GET', `${spot.base}?format=markdown`, { token: owner.token });
      expect(markdown.body.items[0].body).toEqual({ markdown: 'Hello *world*' });
    });

    it('refuses bad query parameters (400 naming them)', async () => {
      const spot = await place.make();
      await post(place, spot, md('x'));
      for (const [query, field] of [
        ['order=sideways', 'order'],
        ['status=closed', 'status'],
        ['format=html', 'format'],
        ['limit=0', 'limit'],
        ['limit=1001', 'limit'],
        ['limit=ten', 'limit'],
        ['page=not-a-cursor', 'page'],
        [Array.from({ length: 101 }, (_, i) => `authors=u${i}`).join('&'), 'authors'],
      ]) {
        await refused(400, () => call('GET', `${spot.base}?${query}`, owner), new RegExp(`^${field}`));
      }
    });

    it('refuses callers without rights: no token 401, outsider 404', async () => {
      const spot = await place.make();
      await refusedToStrangers((user) => call('GET', spot.base, user));
    });
  });

  describe('GET .../comments/:commentId', () => {
    it('answers one comment, with the permissions of the caller and the format asked for', async () => {
      const spot = await place.make();
      const comment = await post(place, spot, md('# Title\n\nText'));
      expect((await get(place, spot, comment.id, '', reader)).permissions).toEqual({ view: true, edit: false, reply: false, delete: false });
      expect((await get(place, spot, comment.id, '', commenter2)).permissions).toEqual({ view: true, edit: false, reply: true, delete: false });
      expect((await get(place, spot, comment.id, '', owner)).permissions).toEqual({ view: true, edit: false, reply: true, delete: true });
      const doc = await get(place, spot, comment.id, '?format=document');
      expect(doc).toEqual({ ...comment, permissions: expect.any(Object), body: { document: documentFromMarkdown('# Title\n\nText') } });
    });

    it('refuses a bad format (400) and a comment that is not here (404)', async () => {
      const spot = await place.make();
      const other = await place.make();
      const comment = await post(place, spot, md('x'));
      const elsewhere = await post(place, other, md('y'));
      await refused(400, () => call('GET', `${spot.base}/${comment.id}?format=pdf`, owner), /^format/);
      await refused(404, () => call('GET', `${spot.base}/no-such-comment`, owner), /Comment/);
      await refused(404, () => call('GET', `${spot.base}/${elsewhere.id}`, owner), /Comment/);
    });

    it('refuses callers without rights: no token 401, outsider 404', async () => {
      const spot = await place.make();
      const comment = await post(place, spot, md('x'));
      await refusedToStrangers((user) => call('GET', `${spot.base}/${comment.id}`, user));
    });
  });

  describe('PUT .../comments/:commentId', () => {
    it('edits the body (author), setting editedAt only when the text changes', async () => {
      const spot = await place.make();
      const comment = await post(place, spot, md('Frist'));
      const same = await put(place, spot, comment.id, md('Frist'));
      expect(same.editedAt).toBeUndefined();
      const edited = await put(place, spot, comment.id, md('First'));
      expect(edited).toEqual({ ...comment, body: { markdown: 'First' }, editedAt: expect.any(String) });
      expect(Date.parse(edited.editedAt)).toBeGreaterThanOrEqual(Date.parse(comment.postedAt));
      // Resolution and reactions are not edits.
      const resolved = await put(place, spot, comment.id, { resolved: true, addedReactions: ['👍'] }, commenter2);
      expect(resolved.editedAt).toBe(edited.editedAt);
      expect(await put(place, spot, comment.id, {})).toEqual({ ...resolved, permissions: comment.permissions });
    });

    it('resolves and reopens (anyone with the comment role), keeping the counts of open comments', async () => {
      const spot = await place.make();
      const comment = await post(place, spot, md('Please fix'));
      await post(place, spot, md('Another'));
      expect(await openCount(spot)).toEqual({ space: 2, cr: spot.crId ? 2 : null });
      const resolved = await put(place, spot, comment.id, { resolved: true }, commenter2);
      expect(resolved).toEqual({ ...comment, permissions: expect.any(Object), status: 'resolved', resolvedAt: expect.any(String), resolvedBy: userJson(commenter2) });
      expect(await openCount(spot)).toEqual({ space: 1, cr: spot.crId ? 1 : null });
      // Resolving again keeps who resolved it and when.
      const again = await put(place, spot, comment.id, { resolved: true }, owner);
      expect(again).toMatchObject({ resolvedAt: resolved.resolvedAt, resolvedBy: { id: commenter2.id } });
      const reopened = await put(place, spot, comment.id, { resolved: false });
      expect(reopened).toEqual(comment);
      expect(await openCount(spot)).toEqual({ space: 2, cr: spot.crId ? 2 : null });
    });

    it('adds and removes reactions: one per user per emoji, idempotent', async () => {
      const spot = await place.make();
      const comment = await post(place, spot, md('Ship it?'));
      const first = await put(place, spot, comment.id, { addedReactions: ['👍', '🎉'] }, commenter);
      expect(first.reactions).toEqual([
        { emoji: '👍', count: 1, users: [{ user: userJson(commenter), reactedAt: expect.any(String) }] },
        { emoji: '🎉', count: 1, users: [{ user: userJson(commenter), reactedAt: expect.any(String) }] },
      ]);
      const rows = () => h.db.prisma.commentReaction.findMany({ where: { commentId: comment.id }, orderBy: [{ emoji: 'asc' }, { userId: 'asc' }] });
      const before = await rows();
      // Adding the same again (even twice in one request) changes nothing.
      const twice = await put(place, spot, comment.id, { addedReactions: ['👍', '👍'] }, commenter);
      expect(twice.reactions).toEqual(first.reactions);
      expect(await rows()).toEqual(before);
      // Another user's reaction joins the group.
      const second = await put(place, spot, comment.id, { addedReactions: ['👍'] }, owner);
      expect(second.reactions).toEqual([
        { emoji: '👍', count: 2, users: [first.reactions[0].users[0], { user: userJson(owner), reactedAt: expect.any(String) }] },
        first.reactions[1],
      ]);
      // Removing a reaction one did not add changes nothing.
      const before2 = await rows();
      const notMine = await put(place, spot, comment.id, { removedReactions: ['🎉', '🚀'] }, commenter2);
      expect(notMine.reactions).toEqual(second.reactions);
      expect(await rows()).toEqual(before2);
      // Removing one's own.
      const removed = await put(place, spot, comment.id, { removedReactions: ['👍'] }, commenter);
      // Groups follow their first remaining reaction: 🎉 (kept) is now older than the remaining 👍.
      expect(removed.reactions).toEqual([first.reactions[1], { emoji: '👍', count: 1, users: [second.reactions[0].users[1]] }]);
      expect((await get(place, spot, comment.id)).reactions).toEqual(removed.reactions);
      // Skin tones, flags and keycaps are single emoji.
      const varied = await put(place, spot, comment.id, { addedReactions: ['👍🏽', '🇫🇷', '1️⃣', '👨‍👩‍👧'] }, commenter2);
      expect(varied.reactions.map((r: any) => r.emoji)).toEqual(['🎉', '👍', '👍🏽', '🇫🇷', '1️⃣', '👨‍👩‍👧']);
    });

    it('refuses bad input (400 naming the field) and a missing comment (404), changing nothing', async () => {
      const spot = await place.make();
      const comment = await post(place, spot, md('x'));
      const send = (body: unknown, id = comment.id) => () => call('PUT', `${spot.base}/${id}`, commenter, body);
      await refused(400, send({ body: { markdown: '' } }), /body\.markdown/);
      await refused(400, send({ body: {} }), /markdown/);
      await refused(400, send({ resolved: 'yes' }), /resolved/);
      await refused(400, send({ addedReactions: ['thumbsup'] }), /^addedReactions\[0\]/);
      await refused(400, send({ addedReactions: ['👍', '👍👍'] }), /^addedReactions\[1\]/);
      await refused(400, send({ addedReactions: [''] }), /addedReactions/);
      await refused(400, send({ addedReactions: '👍' }), /addedReactions/);
      await refused(400, send({ removedReactions: [':+1:'] }), /^removedReactions\[0\]/);
      await refused(400, send({ addedReactions: ['👍'], removedReactions: ['👍'] }), /removedReactions/);
      await refused(400, send({ addedReactions: Array.from({ length: 51 }, () => '👍') }), /addedReactions/);
      // A valid part does not slip through with an invalid one.
      await refused(400, send({ resolved: true, addedReactions: ['nope'] }), /addedReactions/);
      await refused(400, send({ mood: 'happy' }), /mood/);
      await refused(404, send({ resolved: true }, 'no-such-comment'), /Comment/);
    });

    it('refuses callers without rights: 401, outsider 404, reader 403; only the author edits the body', async () => {
      const spot = await place.make();
      const comment = await post(place, spot, md('Mine'));
      await refusedToStrangers((user) => call('PUT', `${spot.base}/${comment.id}`, user, { resolved: true }), reader);
      await refused(403, () => call('PUT', `${spot.base}/${comment.id}`, reader, { addedReactions: ['👍'] }));
      await refused(403, () => call('PUT', `${spot.base}/${comment.id}`, reader, {}));
      await refused(403, () => call('PUT', `${spot.base}/${comment.id}`, commenter2, md('Not yours')), /author/);
      // Space admins may delete others' comments, not rewrite them.
      await refused(403, () => call('PUT', `${spot.base}/${comment.id}`, owner, md('Not yours either')), /author/);
    });
  });

  describe('DELETE .../comments/:commentId', () => {
    it('deletes (204) with its replies and reactions; the author or a space admin may', async () => {
      const spot = await place.make();
      const mine = await post(place, spot, md('Mine'));
      const theirs = await post(place, spot, md('Theirs'), commenter2);
      await put(place, spot, mine.id, { addedReactions: ['👍'] }, owner);
      const reply = await postReply(place, spot, mine.id, md('Reply'), commenter2);
      await putReply(place, spot, mine.id, reply.id, { addedReactions: ['🎉'] }, owner);
      expect(await openCount(spot)).toEqual({ space: 2, cr: spot.crId ? 2 : null });

      const res = await h.rest(op(place, 'deleteComment'), 'DELETE', `${spot.base}/${mine.id}`, { token: commenter.token });
      expect(res).toMatchObject({ status: 204 });
      expect(res.body).toBeUndefined();
      await refused(404, () => call('GET', `${spot.base}/${mine.id}`, owner));
      expect(await h.db.prisma.commentReply.count({ where: { commentId: mine.id } })).toBe(0);
      expect(await h.db.prisma.commentReaction.count({ where: { commentId: mine.id } })).toBe(0);
      expect(await h.db.prisma.commentReplyReaction.count({ where: { replyId: reply.id } })).toBe(0);
      expect(await openCount(spot)).toEqual({ space: 1, cr: spot.crId ? 1 : null });

      const byAdmin = await h.rest(op(place, 'deleteComment'), 'DELETE', `${spot.base}/${theirs.id}`, { token: owner.token });
      expect(byAdmin.status).toBe(204);
      expect(await h.db.prisma.comment.count({ where: { spaceId: spot.spaceId } })).toBe(0);
    });

    it('answers 204 when there is nothing to delete, also for a comment that lives elsewhere (left untouched)', async () => {
      const spot = await place.make();
      const other = await place.make();
      const elsewhere = await post(place, other, md('Elsewhere'), owner);
      for (const id of ['no-such-comment', elsewhere.id]) {
        const before = await state();
        const res = await h.rest(op(place, 'deleteComment'), 'DELETE', `${spot.base}/${id}`, { token: owner.token });
        expect(res.status).toBe(204);
        expect(await state()).toBe(before);
      }
    });

    it('refuses callers without rights: 401, outsider 404, reader 403, another commenter 403', async () => {
      const spot = await place.make();
      const comment = await post(place, spot, md('Keep me'));
      await refusedToStrangers((user) => call('DELETE', `${spot.base}/${comment.id}`, user), reader);
      await refused(403, () => call('DELETE', `${spot.base}/${comment.id}`, commenter2), /author or a space admin/);
      await refused(403, () => call('DELETE', `${spot.base}/no-such-comment`, reader));
    });
  });

  describe('replies', () => {
    it('POST .../replies posts a reply; the comment counts replies and repliers', async () => {
      const spot = await place.make();
      const comment = await post(place, spot, md('Question'));
      const reply = await postReply(place, spot, comment.id, md('Answer'), commenter2);
      expect(reply).toEqual({
        object: 'comment-reply',
        id: expect.any(String),
        postedBy: userJson(commenter2),
        postedAt: expect.any(String),
        reactions: [],
        body: { markdown: 'Answer' },
        urls: { location: `${BASE}${spot.base}/${comment.id}/replies/${reply.id}` },
        permissions: { view: true, edit: true, reply: true, delete: true },
      });
      const r2 = await postReply(place, spot, comment.id, md('More'), commenter2);
      const r3 = await postReply(place, spot, comment.id, md('Thanks'), commenter);
      const after = await get(place, spot, comment.id);
      expect(after.replies).toBe(3);
      expect(after.repliers).toEqual([
        { user: userJson(commenter), count: 1, updatedAt: r3.postedAt },
        { user: userJson(commenter2), count: 2, updatedAt: r2.postedAt },
      ]);
      // Replying to a resolved comment is allowed and does not reopen it.
      await put(place, spot, comment.id, { resolved: true }, owner);
      await postReply(place, spot, comment.id, md('Late'), owner);
      expect((await get(place, spot, comment.id)).status).toBe('resolved');
      // A reply's format follows the query (the change request operation documents it).
      if (place.suffix === 'InChangeRequest') {
        const res = await h.rest(op(place, 'postCommentReply'), 'POST', `${spot.base}/${comment.id}/replies?format=document`, { token: commenter.token, body: md('Doc') });
        expect(res.body.body).toEqual({ document: documentFromMarkdown('Doc') });
      }
    });

    it('POST .../replies refuses bad input, a missing comment, and callers without rights', async () => {
      const spot = await place.make();
      const comment = await post(place, spot, md('Question'));
      const path = `${spot.base}/${comment.id}/replies`;
      await refused(400, () => call('POST', path, commenter, {}), /body/);
      await refused(400, () => call('POST', path, commenter, { body: { markdown: ' ' } }), /body\.markdown/);
      await refused(400, () => call('POST', path, commenter, { ...md('x'), resolved: true }), /resolved/);
      await refused(404, () => call('POST', `${spot.base}/no-such-comment/replies`, commenter, md('x')), /Comment/);
      await refusedToStrangers((user) => call('POST', path, user, md('x')), reader);
    });

    it('GET .../replies lists replies oldest first, across pages', async () => {
      const spot = await place.make();
      const comment = await post(place, spot, md('Thread'));
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await postReply(place, spot, comment.id, md(`Reply ${i}`), i % 2 ? commenter : commenter2)).id);
      const rows = await h.db.prisma.commentReply.findMany({ where: { commentId: comment.id } });
      const expected = rows.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1)).map((r) => r.id);
      expect(new Set(expected)).toEqual(new Set(ids));
      const seen: string[] = [];
      let page: string | undefined;
      let pages = 0;
      do {
        const res = await h.rest(op(place, 'listCommentReplies'), 'GET', `${spot.base}/${comment.id}/replies?limit=2${page ? `&page=${page}` : ''}`, { token: reader.token });
        expect(res.status).toBe(200);
        expect(res.body.count).toBe(5);
        seen.push(...res.body.items.map((r: { id: string }) => r.id));
        expect(res.body.items.every((r: any) => r.permissions.reply === false && r.permissions.view === true)).toBe(true);
        page = res.body.next?.page;
        pages++;
      } while (page);
      expect(seen).toEqual(expected);
      expect(pages).toBe(3);
      const max = await h.rest(op(place, 'listCommentReplies'), 'GET', `${spot.base}/${comment.id}/replies?limit=1000`, { token: owner.token });
      expect(max.body.items.map((r: { id: string }) => r.id)).toEqual(expected);
      const doc = await h.rest(op(place, 'listCommentReplies'), 'GET', `${spot.base}/${comment.id}/replies?format=document&limit=1`, { token: owner.token });
      expect(doc.body.items[0].body).toEqual({ document: documentFromMarkdown('Reply 0') });
    });

    it('GET .../replies refuses bad input, a missing comment, and callers without rights', async () => {
      const spot = await place.make();
      const comment = await post(place, spot, md('Thread'));
      const path = `${spot.base}/${comment.id}/replies`;
      await refused(400, () => call('GET', `${path}?limit=0`, owner), /^limit/);
      await refused(400, () => call('GET', `${path}?format=xml`, owner), /^format/);
      await refused(404, () => call('GET', `${spot.base}/no-such-comment/replies`, owner), /Comment/);
      await refusedToStrangers((user) => call('GET', path, user));
    });

    it('GET .../replies/:id answers one reply; refuses missing ones and callers without rights', async () => {
      const spot = await place.make();
      const comment = await post(place, spot, md('Thread'));
      const other = await post(place, spot, md('Other thread'));
      const reply = await postReply(place, spot, comment.id, md('**Yes**'), commenter2);
      const path = `${spot.base}/${comment.id}/replies/${reply.id}`;
      const res = await h.rest(op(place, 'getCommentReply'), 'GET', path, { token: commenter2.token });
      expect(res.body).toEqual(reply);
      const asReader = await h.rest(op(place, 'getCommentReply'), 'GET', `${path}?format=document`, { token: reader.token });
      expect(asReader.body).toEqual({ ...reply, body: { document: documentFromMarkdown('**Yes**') }, permissions: { view: true, edit: false, reply: false, delete: false } });
      await refused(400, () => call('GET', `${path}?format=rtf`, owner), /^format/);
      await refused(404, () => call('GET', `${spot.base}/${comment.id}/replies/no-such-reply`, owner), /reply/);
      await refused(404, () => call('GET', `${spot.base}/${other.id}/replies/${reply.id}`, owner), /reply/);
      await refused(404, () => call('GET', `${spot.base}/no-such-comment/replies/${reply.id}`, owner), /Comment/);
      await refusedToStrangers((user) => call('GET', path, user));
    });

    it('PUT .../replies/:id edits the body (author) and reactions (idempotent)', async () => {
      const spot = await place.make();
      const comment = await post(place, spot, md('Thread'));
      const reply = await postReply(place, spot, comment.id, md('Teh answer'));
      const same = await putReply(place, spot, comment.id, reply.id, md('Teh answer'));
      expect(same.editedAt).toBeUndefined();
      const edited = await putReply(place, spot, comment.id, reply.id, md('The answer'));
      expect(edited).toEqual({ ...reply, body: { markdown: 'The answer' }, editedAt: expect.any(String) });
      const reacted = await putReply(place, spot, comment.id, reply.id, { addedReactions: ['❤️'] }, commenter2);
      expect(reacted.reactions).toEqual([{ emoji: '❤️', count: 1, users: [{ user: userJson(commenter2), reactedAt: expect.any(String) }] }]);
      expect(reacted.editedAt).toBe(edited.editedAt);
      const before = await state();
      expect((await putReply(place, spot, comment.id, reply.id, { addedReactions: ['❤️'] }, commenter2)).reactions).toEqual(reacted.reactions);
      expect((await putReply(place, spot, comment.id, reply.id, { removedReactions: ['❤️'] }, owner)).reactions).toEqual(reacted.reactions);
      expect(await state()).toBe(before);
      expect((await putReply(place, spot, comment.id, reply.id, { removedReactions: ['❤️'] }, commenter2)).reactions).toEqual([]);
      // The thread's repliers follow the edit time.
      const thread = await get(place, spot, comment.id);
      expect(thread.repliers).toEqual([{ user: userJson(commenter), count: 1, updatedAt: edited.editedAt }]);
    });

    it('PUT .../replies/:id refuses bad input, missing replies and callers without rights', async () => {
      const spot = await place.make();
      const comment = await post(place, spot, md('Thread'));
      const reply = await postReply(place, spot, comment.id, md('Answer'));
      const path = `${spot.base}/${comment.id}/replies/${reply.id}`;
      await refused(400, () => call('PUT', path, commenter, { body: { markdown: '' } }), /body\.markdown/);
      await refused(400, () => call('PUT', path, commenter, { addedReactions: ['ok'] }), /^addedReactions\[0\]/);
      await refused(400, () => call('PUT', path, commenter, { resolved: true }), /resolved/);
      await refused(404, () => call('PUT', `${spot.base}/${comment.id}/replies/no-such-reply`, commenter, md('x')), /reply/);
      await refusedToStrangers((user) => call('PUT', path, user, { addedReactions: ['👍'] }), reader);
      await refused(403, () => call('PUT', path, commenter2, md('Not yours')), /author/);
      await refused(403, () => call('PUT', path, owner, md('Not yours')), /author/);
    });

    it('DELETE .../replies/:id deletes (205, author or space admin) or answers 204 when there is none', async () => {
      const spot = await place.make();
      const comment = await post(place, spot, md('Thread'));
      const mine = await postReply(place, spot, comment.id, md('Mine'));
      const theirs = await postReply(place, spot, comment.id, md('Theirs'), commenter2);
      const path = (id: string, c = comment.id) => `${spot.base}/${c}/replies/${id}`;
      const res = await h.rest(op(place, 'deleteCommentReply'), 'DELETE', path(mine.id), { token: commenter.token });
      expect(res.status).toBe(205);
      expect(res.body).toBeUndefined();
      expect((await get(place, spot, comment.id)).replies).toBe(1);
      expect((await h.rest(op(place, 'deleteCommentReply'), 'DELETE', path(theirs.id), { token: owner.token })).status).toBe(205);
      expect((await get(place, spot, comment.id)).replies).toBe(0);
      for (const p of [path(mine.id), path('no-such-reply'), path('x', 'no-such-comment')]) {
        const before = await state();
        expect((await h.rest(op(place, 'deleteCommentReply'), 'DELETE', p, { token: owner.token })).status).toBe(204);
        expect(await state()).toBe(before);
      }
    });

    it('DELETE .../replies/:id refuses callers without rights: 401, outsider 404, reader 403, another commenter 403', async () => {
      const spot = await place.make();
      const comment = await post(place, spot, md('Thread'));
      const reply = await postReply(place, spot, comment.id, md('Keep'));
      const path = `${spot.base}/${comment.id}/replies/${reply.id}`;
      await refusedToStrangers((user) => call('DELETE', path, user), reader);
      await refused(403, () => call('DELETE', path, commenter2), /author or a space admin/);
    });
  });

  it('a comment on a page that a later revision deleted stays readable', async () => {
    const spot = await place.make();
    const [page] = await writeContent(spot, [{ type: 'insert_page', title: 'Doomed', markdown: 'Soon gone' }]);
    const revision = await currentRevision(spot);
    const comment = await post(place, spot, { ...md('About this page'), page, node: 'n-1' });
    await writeContent(spot, [{ type: 'delete_page', page }]);
    expect(await currentRevision(spot)).not.toBe(revision);
    const pagePath = spot.crId ? `/v1/spaces/${spot.spaceId}/change-requests/${spot.crId}/content/page/${page}` : `/v1/spaces/${spot.spaceId}/content/page/${page}`;
    expect((await h.call('GET', pagePath, { token: owner.token })).status).toBe(404);

    const read = await get(place, spot, comment.id, '', commenter);
    expect(read).toEqual(comment);
    expect(read.target).toMatchObject({ page: { id: page }, node: { id: 'n-1' }, revision });
    expect((await collect(place, spot, `targetPage=${page}`, 10)).ids).toEqual([comment.id]);
    // It can still be replied to, resolved and deleted.
    await postReply(place, spot, comment.id, md('Page is gone'));
    expect((await put(place, spot, comment.id, { resolved: true })).status).toBe('resolved');
    expect((await h.rest(op(place, 'deleteComment'), 'DELETE', `${spot.base}/${comment.id}`, { token: commenter.token })).status).toBe(204);
  });
});

// ---------------------------------------------------------------------------------------------

describe('space and change request comments together', () => {
  it('each place lists and reaches only its own comments; the space count covers both', async () => {
    const space = await newSpace();
    const cr = await newChangeRequest(space.id);
    const cr2 = await newChangeRequest(space.id);
    const spaceSpot: Spot = { spaceId: space.id, crId: null, crNumber: null, base: `/v1/spaces/${space.id}/comments` };
    const crSpot: Spot = { spaceId: space.id, crId: cr.id, crNumber: cr.number, base: `/v1/spaces/${space.id}/change-requests/${cr.id}/comments` };
    const [spacePlace, crPlace] = PLACES as [Place, Place];
    const onSpace = await post(spacePlace, spaceSpot, md('Main'));
    const onCr = await post(crPlace, crSpot, md('In the change request'));
    expect((await collect(spacePlace, spaceSpot, '', 10)).ids).toEqual([onSpace.id]);
    expect((await collect(crPlace, crSpot, '', 10)).ids).toEqual([onCr.id]);
    await refused(404, () => call('GET', `${spaceSpot.base}/${onCr.id}`, owner));
    await refused(404, () => call('GET', `${crSpot.base}/${onSpace.id}`, owner));
    await refused(404, () => call('GET', `/v1/spaces/${space.id}/change-requests/${cr2.id}/comments/${onCr.id}`, owner));
    await refused(404, () => call('PUT', `/v1/spaces/${space.id}/change-requests/${cr2.id}/comments/${onCr.id}`, commenter, { resolved: true }));
    expect(await openCount(crSpot)).toEqual({ space: 2, cr: 1 });
    await put(crPlace, crSpot, onCr.id, { resolved: true });
    expect(await openCount(crSpot)).toEqual({ space: 1, cr: 0 });
  });

  it('reaches a change request by its number, and answers 404 for a missing change request', async () => {
    const space = await newSpace();
    const cr = await newChangeRequest(space.id);
    const byNumber = `/v1/spaces/${space.id}/change-requests/${cr.number}/comments`;
    const posted = await h.rest('postCommentInChangeRequest', 'POST', byNumber, { token: commenter.token, body: md('By number') });
    expect(posted.status).toBe(200);
    // The location names the change request by id.
    expect(posted.body.urls.location).toBe(`${BASE}/v1/spaces/${space.id}/change-requests/${cr.id}/comments/${posted.body.id}`);
    expect(posted.body.target.changeRequest).toBe(cr.id);
    expect((await h.rest('getCommentInChangeRequest', 'GET', `${byNumber}/${posted.body.id}`, { token: owner.token })).body.id).toBe(posted.body.id);
    const missing = `/v1/spaces/${space.id}/change-requests/999/comments`;
    await refused(404, () => call('GET', missing, owner), /Change request/);
    await refused(404, () => call('POST', missing, commenter, md('x')), /Change request/);
    await refused(404, () => call('DELETE', `${missing}/${posted.body.id}`, owner), /Change request/);
    await refused(404, () => call('DELETE', `${missing}/${posted.body.id}/replies/x`, owner), /Change request/);
  });

  it('hides comments of a space the member cannot see (404) and of deleted spaces', async () => {
    const space = await newSpace('Private');
    const spot: Spot = { spaceId: space.id, crId: null, crNumber: null, base: `/v1/spaces/${space.id}/comments` };
    const comment = await post(PLACES[0]!, spot, md('Secret'));
    // No default access for members: only admins see the space.
    expect((await h.call('PATCH', `/v1/spaces/${space.id}`, { token: owner.token, body: { defaultLevel: null } })).status).toBe(200);
    await refused(404, () => call('GET', spot.base, commenter), /Space/);
    await refused(404, () => call('GET', `${spot.base}/${comment.id}`, commenter), /Space/);
    await refused(404, () => call('PUT', `${spot.base}/${comment.id}`, commenter, md('x')), /Space/);
    expect((await h.call('DELETE', `/v1/spaces/${space.id}`, { token: owner.token })).status).toBe(205);
    await refused(404, () => call('GET', spot.base, owner), /Space/);
  });
});

describe('N+1 guard', () => {
  it('lists 3 or 12 comments (with reactions, replies and format=document) in the same number of SQL statements', async () => {
    const [spacePlace, crPlace] = PLACES as [Place, Place];
    const statements = async (place: Place, size: number) => {
      const spot = await place.make();
      const users = [commenter, commenter2, owner];
      for (let i = 0; i < size; i++) {
        const c = await post(place, spot, md(`Comment ${i}`), users[i % 3]!);
        await put(place, spot, c.id, { addedReactions: ['👍', '🎉'] }, users[(i + 1) % 3]!);
        await put(place, spot, c.id, { addedReactions: ['👍'], resolved: i % 2 === 0 }, users[(i + 2) % 3]!);
        const r = await postReply(place, spot, c.id, md('Reply'), users[(i + 1) % 3]!);
        await putReply(place, spot, c.id, r.id, { addedReactions: ['❤️'] }, users[i % 3]!);
      }
      const count = async (path: string) => {
        const before = h.db.statements.count;
        const res = await h.call('GET', path, { token: reader.token });
        expect(res.status).toBe(200);
        expect(res.body.count).toBe(size);
        return h.db.statements.count - before;
      };
      return count(`${spot.base}?format=document`);
    };
    for (const place of [spacePlace, crPlace]) {
      const small = await statements(place, 3);
      const large = await statements(place, 12);
      expect(large).toBe(small);
      expect(small).toBeLessThanOrEqual(12);
    }
  });

  it('lists replies of threads of 2 or 10 replies in the same number of SQL statements', async () => {
    for (const place of PLACES) {
      const spot = await place.make();
      const counts: number[] = [];
      for (const size of [2, 10]) {
        const c = await post(place, spot, md('Thread'));
        for (let i = 0; i < size; i++) {
          const r = await postReply(place, spot, c.id, md(`Reply ${i}`), i % 2 ? commenter : commenter2);
          await putReply(place, spot, c.id, r.id, { addedReactions: ['👍'] }, i % 2 ? owner : commenter);
        }
        const before = h.db.statements.count;
        const res = await h.call('GET', `${spot.base}/${c.id}/replies?format=document`, { token: reader.token });
        expect(res.body.count).toBe(size);
        counts.push(h.db.statements.count - before);
      }
      expect(counts[1]).toBe(counts[0]);
    }
  });
});

describe('GraphQL', () => {
  it('queries and mutates comments and replies on spaces and change requests', async () => {
    const space = await newSpace();
    const cr = await newChangeRequest(space.id);
    const gql = async (user: TestUser, query: string, variables: Record<string, unknown>) => {
      const res = await h.graphql(user.token, query, variables);
      expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
      return res.body.data;
    };
    const FIELDS = 'id status body { markdown } postedBy { id } replies target { space changeRequest } permissions { edit reply delete } reactions { emoji count }';
    const posted = await gql(commenter, `mutation($s: ID!, $cr: String, $input: PostCommentInput!) { postComment(spaceId: $s, changeRequestId: $cr, input: $input) { ${FIELDS} } }`, {
      s: space.id,
      cr: String(cr.number),
      input: { body: { markdown: 'Via GraphQL' } },
    });
    const id = posted.postComment.id;
    expect(posted.postComment).toEqual({
      id,
      status: 'open',
      body: { markdown: 'Via GraphQL' },
      postedBy: { id: commenter.id },
      replies: 0,
      target: { space: space.id, changeRequest: cr.id },
      permissions: { edit: true, reply: true, delete: true },
      reactions: [],
    });
    const onMain = await gql(owner, `mutation($s: ID!) { postComment(spaceId: $s, input: { body: { markdown: "Main" } }) { id target { changeRequest } } }`, { s: space.id });
    expect(onMain.postComment.target.changeRequest).toBeNull();

    const updated = await gql(commenter2, `mutation($s: ID!, $cr: String, $c: ID!) { updateComment(spaceId: $s, changeRequestId: $cr, commentId: $c, input: { resolved: true, addedReactions: ["👍"] }) { status resolvedBy { id } reactions { emoji count users { user { id } } } } }`, {
      s: space.id,
      cr: cr.id,
      c: id,
    });
    expect(updated.updateComment).toEqual({ status: 'resolved', resolvedBy: { id: commenter2.id }, reactions: [{ emoji: '👍', count: 1, users: [{ user: { id: commenter2.id } }] }] });

    const reply = await gql(owner, `mutation($s: ID!, $cr: String, $c: ID!) { postCommentReply(spaceId: $s, changeRequestId: $cr, commentId: $c, input: { body: { markdown: "Reply" } }) { id body(format: document) { document } } }`, {
      s: space.id,
      cr: cr.id,
      c: id,
    });
    expect(reply.postCommentReply.body.document).toEqual(documentFromMarkdown('Reply'));
    const replyId = reply.postCommentReply.id;
    const editedReply = await gql(owner, `mutation($s: ID!, $cr: String, $c: ID!, $r: ID!) { updateCommentReply(spaceId: $s, changeRequestId: $cr, commentId: $c, replyId: $r, input: { body: { markdown: "Edited" } }) { body { markdown } editedAt } }`, {
      s: space.id,
      cr: cr.id,
      c: id,
      r: replyId,
    });
    expect(editedReply.updateCommentReply).toEqual({ body: { markdown: 'Edited' }, editedAt: expect.any(String) });

    const read = await gql(reader, `query($s: ID!, $cr: String!, $c: ID!, $r: ID!) { space(id: $s) {
        comments
        commentList(status: all) { count items { id } }
        changeRequest(id: $cr) { comments commentList(status: resolved, order: asc, authors: ["${commenter.id}"]) { count items { id replies repliers { count user { id } } replyList(limit: 1) { count items { id } } reply(id: $r) { body { markdown } permissions { view reply } } } } comment(id: $c) { id } }
        comment(id: "${onMain.postComment.id}") { body { markdown } }
      } }`, { s: space.id, cr: cr.id, c: id, r: replyId });
    expect(read.space).toEqual({
      comments: 1,
      commentList: { count: 1, items: [{ id: onMain.postComment.id }] },
      changeRequest: {
        comments: 0,
        commentList: {
          count: 1,
          items: [{ id, replies: 1, repliers: [{ count: 1, user: { id: owner.id } }], replyList: { count: 1, items: [{ id: replyId }] }, reply: { body: { markdown: 'Edited' }, permissions: { view: true, reply: false } } }],
        },
        comment: { id },
      },
      comment: { body: { markdown: 'Main' } },
    });

    const deletedReply = await gql(owner, `mutation($s: ID!, $cr: String, $c: ID!, $r: ID!) { deleteCommentReply(spaceId: $s, changeRequestId: $cr, commentId: $c, replyId: $r) }`, { s: space.id, cr: cr.id, c: id, r: replyId });
    expect(deletedReply.deleteCommentReply).toBe(true);
    const deleted = await gql(commenter, `mutation($s: ID!, $cr: String, $c: ID!) { a: deleteComment(spaceId: $s, changeRequestId: $cr, commentId: $c) b: deleteComment(spaceId: $s, changeRequestId: $cr, commentId: $c) }`, { s: space.id, cr: cr.id, c: id });
    expect(deleted).toEqual({ a: true, b: false });

    // Errors carry their codes: a reader may not post.
    const refusedPost = await h.graphql(reader.token, `mutation($s: ID!) { postComment(spaceId: $s, input: { body: { markdown: "x" } }) { id } }`, { s: space.id });
    expect(refusedPost.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('two mutations in one operation see each other’s reactions (loaders are cleared on write)', async () => {
    const space = await newSpace();
    const c = await post(PLACES[0]!, { spaceId: space.id, crId: null, crNumber: null, base: `/v1/spaces/${space.id}/comments` }, md('x'));
    const res = await h.graphql(commenter.token, `mutation($s: ID!, $c: ID!) {
      a: updateComment(spaceId: $s, commentId: $c, input: { addedReactions: ["👍"] }) { reactions { emoji count } }
      b: updateComment(spaceId: $s, commentId: $c, input: { removedReactions: ["👍"] }) { reactions { emoji count } }
    }`, { s: space.id, c: c.id });
    expect(res.body.data).toEqual({ a: { reactions: [{ emoji: '👍', count: 1 }] }, b: { reactions: [] } });
  });
});

describe('official @gitbook/api client over HTTP', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    server = await startServer({ ...h.config, host: '127.0.0.1', port: 0 }, { db: h.db });
  });
  afterAll(() => server?.close());

  it('posts, filters by several authors, reacts, replies and deletes through the client', async () => {
    const client = (user: TestUser) => new GitBookAPI({ endpoint: server.url, authToken: user.token });
    const space = await newSpace();
    const cr = await newChangeRequest(space.id);
    const mine = await client(commenter).spaces.postCommentInSpace(space.id, { body: { markdown: 'From the client' } });
    assertMatchesSpec('postCommentInSpace', mine.status, mine.data);
    const theirs = await client(commenter2).spaces.postCommentInSpace(space.id, { body: { markdown: 'Me too' } });
    await client(owner).spaces.postCommentInSpace(space.id, { body: { markdown: 'Admin' } });
    const list = await client(reader).spaces.listCommentsInSpace(space.id, { authors: [commenter.id, commenter2.id], order: 'asc', status: 'open', limit: 1 });
    assertMatchesSpec('listCommentsInSpace', list.status, list.data);
    expect(list.data.count).toBe(2);
    expect(list.data.items.map((c) => c.id)).toEqual([mine.data.id]);
    const next = await client(reader).spaces.listCommentsInSpace(space.id, { authors: [commenter.id, commenter2.id], order: 'asc', page: list.data.next!.page, limit: 1 });
    expect(next.data.items.map((c) => c.id)).toEqual([theirs.data.id]);

    const reacted = await client(owner).spaces.updateCommentInSpace(space.id, mine.data.id, { addedReactions: ['👍'], resolved: true });
    assertMatchesSpec('updateCommentInSpace', reacted.status, reacted.data);
    expect(reacted.data).toMatchObject({ status: 'resolved', reactions: [{ emoji: '👍', count: 1 }] });
    const reply = await client(commenter2).spaces.postCommentReplyInSpace(space.id, mine.data.id, { body: { markdown: 'Reply' } });
    const replies = await client(reader).spaces.listCommentRepliesInSpace(space.id, mine.data.id, { format: 'document' });
    assertMatchesSpec('listCommentRepliesInSpace', replies.status, replies.data);
    expect(replies.data.items.map((r) => r.id)).toEqual([reply.data.id]);
    expect((await client(commenter2).spaces.deleteCommentReplyInSpace(space.id, mine.data.id, reply.data.id)).status).toBe(205);
    expect((await client(commenter).spaces.deleteCommentInSpace(space.id, mine.data.id)).status).toBe(204);

    const onCr = await client(commenter).spaces.postCommentInChangeRequest(space.id, cr.id, { body: { markdown: 'On the change request' } });
    const crList = await client(reader).spaces.listCommentsInChangeRequest(space.id, String(cr.number), { authors: [commenter.id] });
    assertMatchesSpec('listCommentsInChangeRequest', crList.status, crList.data);
    expect(crList.data.items.map((c) => c.id)).toEqual([onCr.data.id]);
    const forbidden = await client(reader).spaces.postCommentInSpace(space.id, { body: { markdown: 'No' } }).catch((e: unknown) => e);
    expect((forbidden as { code?: number }).code).toBe(403);
  });
});

describe('route table', () => {
  it('has every official comment operation of both places, and the tests used each one successfully', () => {
    const ids = commentRoutes.map((r) => r.operationId).sort();
    const names = ['listComments', 'postComment', 'getComment', 'updateComment', 'deleteComment', 'listCommentReplies', 'postCommentReply', 'getCommentReply', 'updateCommentReply', 'deleteCommentReply'];
    expect(ids).toEqual(names.flatMap((n) => [`${n}InSpace`, `${n}InChangeRequest`]).sort());
    expect([...h.coveredOperations].filter((id) => ids.includes(id)).sort()).toEqual(ids);
  });
});
