/** Comments in both places (space, change request): post, list, read, update, delete (setup in ./fixtures.ts). */
import { beforeAll, describe, expect, it } from 'vitest';
import { BASE } from '../support/harness.js';
import { componentValidator } from '../support/openapi.js';
import { commentRoutes } from '../../src/modules/comments/routes.js';
import { documentFromMarkdown } from '../../src/document/index.js';
import {
  h,
  owner,
  commenter,
  commenter2,
  reader,
  outsider,
  setupComments,
  COMMENT_OPERATIONS,
  inBothPlaces,
  PLACES,
  currentRevision,
  writeContent,
  op,
  post,
  get,
  put,
  postReply,
  putReply,
  md,
  collect,
  state,
  refused,
  refusedToStrangers,
  call,
  userJson,
  openCount,
} from './fixtures.js';

beforeAll(setupComments);

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
      expect(row).toMatchObject({
        spaceId: spot.spaceId,
        changeRequestId: spot.crId,
        postedById: commenter.id,
        markdown: 'Is this **right**?',
        revisionId: revision,
      });
      // The location answers the same comment.
      expect(await get(place, spot, comment.id, '', commenter)).toEqual(comment);
    });

    it('targets a page, a node of it and a table cell', async () => {
      const spot = await place.make();
      const [page] = await writeContent(spot, [{ operation: 'insert_page', title: 'Guide', document: { markdown: 'Hello' } }]);
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
      expect(pageOnly.target).toEqual({
        space: spot.spaceId,
        revision,
        page: { id: page },
        ...(spot.crId ? { changeRequest: spot.crId } : {}),
      });
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
      const [page] = await writeContent(spot, [{ operation: 'insert_page', title: 'Guide', document: { markdown: '' } }]);
      const send = (body: unknown) => () => call('POST', spot.base, commenter, body);
      await refused(400, send({}), /body/);
      await refused(400, send({ body: {} }), /^body\.markdown: is required/);
      await refused(400, send({ body: { markdown: '   \n' } }), /body\.markdown/);
      await refused(400, send({ body: { markdown: 42 } }), /body|markdown/);
      await refused(400, send({ body: 'text' }), /body/);
      // A document body is accepted (comments-api.test.ts); one Markdown cannot hold, or both forms, are not.
      await refused(
        400,
        send({
          body: {
            document: { object: 'document', data: {}, nodes: [{ object: 'block', type: 'hint', data: { style: 'info' }, nodes: [] }] },
          },
        }),
        /^body\.document\.nodes\[0\]\.type: /,
      );
      await refused(400, send({ body: { markdown: 'Hi', document: documentFromMarkdown('Hi') } }), /^body: /);
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
        { operation: 'insert_page', title: 'A', document: { markdown: '' } },
        { operation: 'insert_page', title: 'B', document: { markdown: '' } },
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
      expect((await get(place, spot, comment.id, '', reader)).permissions).toEqual({
        view: true,
        edit: false,
        reply: false,
        delete: false,
      });
      expect((await get(place, spot, comment.id, '', commenter2)).permissions).toEqual({
        view: true,
        edit: false,
        reply: true,
        delete: false,
      });
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
      expect(resolved).toEqual({
        ...comment,
        permissions: expect.any(Object),
        status: 'resolved',
        resolvedAt: expect.any(String),
        resolvedBy: userJson(commenter2),
      });
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
      const rows = () =>
        h.db.prisma.commentReaction.findMany({ where: { commentId: comment.id }, orderBy: [{ emoji: 'asc' }, { userId: 'asc' }] });
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
      const send =
        (body: unknown, id = comment.id) =>
        () =>
          call('PUT', `${spot.base}/${id}`, commenter, body);
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
});

describe('route table', () => {
  it('has every official comment operation of both places', () => {
    expect(commentRoutes.map((r) => r.operationId).sort()).toEqual(
      inBothPlaces([...COMMENT_OPERATIONS.comments, ...COMMENT_OPERATIONS.replies]).sort(),
    );
  });

  // Runs last (tests run in file order); the reply operations are checked in comments-replies.test.ts.
  it('the tests used each comment operation of both places successfully', () => {
    const ids = inBothPlaces(COMMENT_OPERATIONS.comments).sort();
    expect([...h.coveredOperations].filter((id) => ids.includes(id)).sort()).toEqual(ids);
  });
});
