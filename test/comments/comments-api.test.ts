/** Comments: the N+1 guard, the GraphQL face, the official @gitbook/api client over HTTP (setup in ./fixtures.ts). */
import { GitBookAPI } from '@gitbook/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestUser } from '../support/harness.js';
import { assertMatchesSpec } from '../support/openapi.js';
import { startServer } from '../../src/server.js';
import { documentFromMarkdown } from '../../src/document/index.js';
import {
  h,
  owner,
  commenter,
  commenter2,
  reader,
  setupComments,
  type Place,
  newSpace,
  newChangeRequest,
  PLACES,
  post,
  put,
  postReply,
  putReply,
  md,
  get,
  op,
  refused,
  call,
} from './fixtures.js';

beforeAll(setupComments);

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
    // About 130 writes of setup: on a loaded machine they outlast the default 30 s, and a timed-out
    // test keeps writing while the next one counts its statements.
  }, 120_000);

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
    const FIELDS =
      'id status body { markdown } postedBy { id } replies target { space changeRequest } permissions { edit reply delete } reactions { emoji count }';
    const posted = await gql(
      commenter,
      `mutation($s: ID!, $cr: String, $input: PostCommentInput!) { postComment(spaceId: $s, changeRequestId: $cr, input: $input) { ${FIELDS} } }`,
      {
        s: space.id,
        cr: String(cr.number),
        input: { body: { markdown: 'Via GraphQL' } },
      },
    );
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
    const onMain = await gql(
      owner,
      `mutation($s: ID!) { postComment(spaceId: $s, input: { body: { markdown: "Main" } }) { id target { changeRequest } } }`,
      { s: space.id },
    );
    expect(onMain.postComment.target.changeRequest).toBeNull();

    const updated = await gql(
      commenter2,
      `mutation($s: ID!, $cr: String, $c: ID!) { updateComment(spaceId: $s, changeRequestId: $cr, commentId: $c, input: { resolved: true, addedReactions: ["👍"] }) { status resolvedBy { id } reactions { emoji count users { user { id } } } } }`,
      {
        s: space.id,
        cr: cr.id,
        c: id,
      },
    );
    expect(updated.updateComment).toEqual({
      status: 'resolved',
      resolvedBy: { id: commenter2.id },
      reactions: [{ emoji: '👍', count: 1, users: [{ user: { id: commenter2.id } }] }],
    });

    const reply = await gql(
      owner,
      `mutation($s: ID!, $cr: String, $c: ID!) { postCommentReply(spaceId: $s, changeRequestId: $cr, commentId: $c, input: { body: { markdown: "Reply" } }) { id body(format: document) { document } } }`,
      {
        s: space.id,
        cr: cr.id,
        c: id,
      },
    );
    expect(reply.postCommentReply.body.document).toEqual(documentFromMarkdown('Reply'));
    const replyId = reply.postCommentReply.id;
    const editedReply = await gql(
      owner,
      `mutation($s: ID!, $cr: String, $c: ID!, $r: ID!) { updateCommentReply(spaceId: $s, changeRequestId: $cr, commentId: $c, replyId: $r, input: { body: { markdown: "Edited" } }) { body { markdown } editedAt } }`,
      {
        s: space.id,
        cr: cr.id,
        c: id,
        r: replyId,
      },
    );
    expect(editedReply.updateCommentReply).toEqual({ body: { markdown: 'Edited' }, editedAt: expect.any(String) });

    const read = await gql(
      reader,
      `query($s: ID!, $cr: String!, $c: ID!, $r: ID!) { space(id: $s) {
        comments
        commentList(status: all) { count items { id } }
        changeRequest(id: $cr) { comments commentList(status: resolved, order: asc, authors: ["${commenter.id}"]) { count items { id replies repliers { count user { id } } replyList(limit: 1) { count items { id } } reply(id: $r) { body { markdown } permissions { view reply } } } } comment(id: $c) { id } }
        comment(id: "${onMain.postComment.id}") { body { markdown } }
      } }`,
      { s: space.id, cr: cr.id, c: id, r: replyId },
    );
    expect(read.space).toEqual({
      comments: 1,
      commentList: { count: 1, items: [{ id: onMain.postComment.id }] },
      changeRequest: {
        comments: 0,
        commentList: {
          count: 1,
          items: [
            {
              id,
              replies: 1,
              repliers: [{ count: 1, user: { id: owner.id } }],
              replyList: { count: 1, items: [{ id: replyId }] },
              reply: { body: { markdown: 'Edited' }, permissions: { view: true, reply: false } },
            },
          ],
        },
        comment: { id },
      },
      comment: { body: { markdown: 'Main' } },
    });

    const deletedReply = await gql(
      owner,
      `mutation($s: ID!, $cr: String, $c: ID!, $r: ID!) { deleteCommentReply(spaceId: $s, changeRequestId: $cr, commentId: $c, replyId: $r) }`,
      { s: space.id, cr: cr.id, c: id, r: replyId },
    );
    expect(deletedReply.deleteCommentReply).toBe(true);
    const deleted = await gql(
      commenter,
      `mutation($s: ID!, $cr: String, $c: ID!) { a: deleteComment(spaceId: $s, changeRequestId: $cr, commentId: $c) b: deleteComment(spaceId: $s, changeRequestId: $cr, commentId: $c) }`,
      { s: space.id, cr: cr.id, c: id },
    );
    expect(deleted).toEqual({ a: true, b: false });

    // Errors carry their codes: a reader may not post.
    const refusedPost = await h.graphql(
      reader.token,
      `mutation($s: ID!) { postComment(spaceId: $s, input: { body: { markdown: "x" } }) { id } }`,
      { s: space.id },
    );
    expect(refusedPost.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('two mutations in one operation see each other’s reactions (loaders are cleared on write)', async () => {
    const space = await newSpace();
    const c = await post(PLACES[0]!, { spaceId: space.id, crId: null, crNumber: null, base: `/v1/spaces/${space.id}/comments` }, md('x'));
    const res = await h.graphql(
      commenter.token,
      `mutation($s: ID!, $c: ID!) {
      a: updateComment(spaceId: $s, commentId: $c, input: { addedReactions: ["👍"] }) { reactions { emoji count } }
      b: updateComment(spaceId: $s, commentId: $c, input: { removedReactions: ["👍"] }) { reactions { emoji count } }
    }`,
      { s: space.id, c: c.id },
    );
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
    const list = await client(reader).spaces.listCommentsInSpace(space.id, {
      authors: [commenter.id, commenter2.id],
      order: 'asc',
      status: 'open',
      limit: 1,
    });
    assertMatchesSpec('listCommentsInSpace', list.status, list.data);
    expect(list.data.count).toBe(2);
    expect(list.data.items.map((c) => c.id)).toEqual([mine.data.id]);
    const next = await client(reader).spaces.listCommentsInSpace(space.id, {
      authors: [commenter.id, commenter2.id],
      order: 'asc',
      page: list.data.next!.page,
      limit: 1,
    });
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

    const onCr = await client(commenter).spaces.postCommentInChangeRequest(space.id, cr.id, {
      body: { markdown: 'On the change request' },
    });
    const crList = await client(reader).spaces.listCommentsInChangeRequest(space.id, String(cr.number), { authors: [commenter.id] });
    assertMatchesSpec('listCommentsInChangeRequest', crList.status, crList.data);
    expect(crList.data.items.map((c) => c.id)).toEqual([onCr.data.id]);
    const forbidden = await client(reader)
      .spaces.postCommentInSpace(space.id, { body: { markdown: 'No' } })
      .catch((e: unknown) => e);
    expect((forbidden as { code?: number }).code).toBe(403);
  });
});

describe('rich-text (JSONDocument) bodies', () => {
  // A document as Lectern reads it back: sending it and reading with format=document gives it unchanged (keys too: they are derived from positions).
  const richDoc = documentFromMarkdown(
    '## Review\n\nPlease check **this** and *that* with `code`:\n\n- [x] done\n- [ ] ~~todo~~\n\n> see [the guide](https://example.com/guide)\n',
  );
  const bad = {
    object: 'document',
    data: {},
    nodes: [
      { object: 'block', type: 'paragraph', data: {}, nodes: [{ object: 'inline', type: 'emoji', data: { code: '1f600' }, isVoid: true }] },
    ],
  };

  it.each(PLACES)('comments and replies on a $label take { document }, store it as Markdown and read it back unchanged', async (place) => {
    const spot = await place.make();
    const comment = await post(place, spot, { body: { document: richDoc } });
    const stored = await h.db.prisma.comment.findUniqueOrThrow({ where: { id: comment.id } });
    expect(stored.markdown).toContain('**this**');
    expect(comment.body).toEqual({ markdown: stored.markdown });
    expect((await get(place, spot, comment.id, '?format=document')).body).toEqual({ document: richDoc });

    const edited = documentFromMarkdown('Edited *body*');
    await put(place, spot, comment.id, { body: { document: edited } });
    expect((await get(place, spot, comment.id, '?format=document')).body).toEqual({ document: edited });

    const reply = await postReply(place, spot, comment.id, { body: { document: richDoc } });
    const res = await h.rest(op(place, 'getCommentReply'), 'GET', `${spot.base}/${comment.id}/replies/${reply.id}?format=document`, {
      token: owner.token,
    });
    expect(res.body.body).toEqual({ document: richDoc });
    await putReply(place, spot, comment.id, reply.id, { body: { document: edited } });
    const again = await h.rest(op(place, 'getCommentReply'), 'GET', `${spot.base}/${comment.id}/replies/${reply.id}?format=document`, {
      token: owner.token,
    });
    expect(again.body.body).toEqual({ document: edited });
  });

  it.each(PLACES)('refuses an invalid or unconvertible document on a $label: 400 naming the path, nothing stored', async (place) => {
    const spot = await place.make();
    const comment = await post(place, spot, md('Kept'));
    const reply = await postReply(place, spot, comment.id, md('Kept too'));
    const cases: [unknown, RegExp][] = [
      [bad, /^body\.document\.nodes\[0\]\.nodes\[0\]\.type: inline type "emoji" has no Markdown form/],
      [{ object: 'document', data: {}, nodes: [{ object: 'block', nodes: [] }] }, /^body\.document\.nodes\[0\]\.type: is required/],
      [{ object: 'page', data: {}, nodes: [] }, /^body\.document\.object: /],
      [{ object: 'document', data: {}, nodes: [] }, /^body\.document: must not be empty/],
    ];
    for (const [document, message] of cases) {
      await refused(400, () => call('POST', spot.base, commenter, { body: { document } }), message);
      await refused(400, () => call('PUT', `${spot.base}/${comment.id}`, commenter, { body: { document } }), message);
      await refused(400, () => call('POST', `${spot.base}/${comment.id}/replies`, commenter, { body: { document } }), message);
      await refused(400, () => call('PUT', `${spot.base}/${comment.id}/replies/${reply.id}`, commenter, { body: { document } }), message);
    }
  });

  it('GraphQL takes a document body and the official client posts one', async () => {
    const space = await newSpace();
    const posted = await h.graphql(
      commenter.token,
      'mutation($s: ID!, $input: PostCommentInput!) { postComment(spaceId: $s, input: $input) { id body(format: document) { document } } }',
      {
        s: space.id,
        input: { body: { document: richDoc } },
      },
    );
    expect(posted.body.errors).toBeUndefined();
    expect(posted.body.data.postComment.body.document).toEqual(richDoc);
    const refusedGql = await h.graphql(
      commenter.token,
      'mutation($s: ID!, $input: PostCommentInput!) { postComment(spaceId: $s, input: $input) { id } }',
      { s: space.id, input: { body: { document: bad } } },
    );
    expect(refusedGql.body.errors[0].message).toMatch(/^body\.document\.nodes\[0\]\.nodes\[0\]\.type: /);

    const server = await startServer({ ...h.config, host: '127.0.0.1', port: 0 }, { db: h.db });
    try {
      const client = new GitBookAPI({ endpoint: server.url, authToken: commenter.token });
      const made = await client.spaces.postCommentInSpace(space.id, { body: { document: richDoc as never } });
      assertMatchesSpec('postCommentInSpace', made.status, made.data);
      const read = await client.spaces.getCommentInSpace(space.id, made.data.id, { format: 'document' });
      assertMatchesSpec('getCommentInSpace', read.status, read.data);
      expect(read.data.body).toEqual({ document: richDoc });
    } finally {
      await server.close();
    }
  });
});
