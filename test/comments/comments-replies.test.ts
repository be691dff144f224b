/** Comments in both places: replies, comments on deleted pages, the two places side by side (setup in ./fixtures.ts). */
import { beforeAll, describe, expect, it } from 'vitest';
import { BASE } from '../support/harness.js';
import { documentFromMarkdown } from '../../src/document/index.js';
import {
  h,
  owner,
  commenter,
  commenter2,
  reader,
  setupComments,
  COMMENT_OPERATIONS,
  inBothPlaces,
  type Spot,
  type Place,
  newSpace,
  newChangeRequest,
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
        const res = await h.rest(op(place, 'postCommentReply'), 'POST', `${spot.base}/${comment.id}/replies?format=document`, {
          token: commenter.token,
          body: md('Doc'),
        });
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
        const res = await h.rest(
          op(place, 'listCommentReplies'),
          'GET',
          `${spot.base}/${comment.id}/replies?limit=2${page ? `&page=${page}` : ''}`,
          { token: reader.token },
        );
        expect(res.status).toBe(200);
        expect(res.body.count).toBe(5);
        seen.push(...res.body.items.map((r: { id: string }) => r.id));
        expect(res.body.items.every((r: any) => r.permissions.reply === false && r.permissions.view === true)).toBe(true);
        page = res.body.next?.page;
        pages++;
      } while (page);
      expect(seen).toEqual(expected);
      expect(pages).toBe(3);
      const max = await h.rest(op(place, 'listCommentReplies'), 'GET', `${spot.base}/${comment.id}/replies?limit=1000`, {
        token: owner.token,
      });
      expect(max.body.items.map((r: { id: string }) => r.id)).toEqual(expected);
      const doc = await h.rest(op(place, 'listCommentReplies'), 'GET', `${spot.base}/${comment.id}/replies?format=document&limit=1`, {
        token: owner.token,
      });
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
      expect(asReader.body).toEqual({
        ...reply,
        body: { document: documentFromMarkdown('**Yes**') },
        permissions: { view: true, edit: false, reply: false, delete: false },
      });
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
      expect((await putReply(place, spot, comment.id, reply.id, { addedReactions: ['❤️'] }, commenter2)).reactions).toEqual(
        reacted.reactions,
      );
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

    it('DELETE .../replies/:id deletes (205, author or space admin) or answers 404 when there is none', async () => {
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
        const res = await h.call('DELETE', p, { token: owner.token });
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: { code: 404, message: expect.stringMatching(/^Comment (reply )?not found$/) } });
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
    const [page] = await writeContent(spot, [{ operation: 'insert_page', title: 'Doomed', document: { markdown: 'Soon gone' } }]);
    const revision = await currentRevision(spot);
    const comment = await post(place, spot, { ...md('About this page'), page, node: 'n-1' });
    await writeContent(spot, [{ operation: 'delete_page', page }]);
    expect(await currentRevision(spot)).not.toBe(revision);
    const pagePath = spot.crId
      ? `/v1/spaces/${spot.spaceId}/change-requests/${spot.crId}/content/page/${page}`
      : `/v1/spaces/${spot.spaceId}/content/page/${page}`;
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
    const crSpot: Spot = {
      spaceId: space.id,
      crId: cr.id,
      crNumber: cr.number,
      base: `/v1/spaces/${space.id}/change-requests/${cr.id}/comments`,
    };
    const [spacePlace, crPlace] = PLACES as [Place, Place];
    const onSpace = await post(spacePlace, spaceSpot, md('Main'));
    const onCr = await post(crPlace, crSpot, md('In the change request'));
    expect((await collect(spacePlace, spaceSpot, '', 10)).ids).toEqual([onSpace.id]);
    expect((await collect(crPlace, crSpot, '', 10)).ids).toEqual([onCr.id]);
    await refused(404, () => call('GET', `${spaceSpot.base}/${onCr.id}`, owner));
    await refused(404, () => call('GET', `${crSpot.base}/${onSpace.id}`, owner));
    await refused(404, () => call('GET', `/v1/spaces/${space.id}/change-requests/${cr2.id}/comments/${onCr.id}`, owner));
    await refused(404, () =>
      call('PUT', `/v1/spaces/${space.id}/change-requests/${cr2.id}/comments/${onCr.id}`, commenter, { resolved: true }),
    );
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
    expect((await h.rest('getCommentInChangeRequest', 'GET', `${byNumber}/${posted.body.id}`, { token: owner.token })).body.id).toBe(
      posted.body.id,
    );
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

describe('route table', () => {
  // Runs last (tests run in file order); the comment operations are checked in comments-threads.test.ts.
  it('the tests used each reply operation of both places successfully', () => {
    const ids = inBothPlaces(COMMENT_OPERATIONS.replies).sort();
    expect([...h.coveredOperations].filter((id) => ids.includes(id)).sort()).toEqual(ids);
  });
});
