/**
 * The review workflow of a change request: requested reviewers (list, request, remove), reviews
 * (submit with a comment, list, get), contributors, and the commenters of a space and of a change
 * request. Each route: it works (both official schemas, through h.rest), bad input is a 400 naming
 * the field and changes nothing, callers without rights are refused; lists cost the same number of
 * SQL statements whatever their length.
 */
import { ChangeRequestReviewStatus, GitBookAPI } from 'gitbook-api-0202';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, setupHarness, type Harness, type TestUser } from '../support/harness.js';
import { requestRefusalChecker } from '../support/refused.js';
import { writeCr } from '../support/content-writes.js';
import { newId } from '../../src/ids.js';
import { startServer } from '../../src/server.js';
import { assertMatchesSpec } from '../support/openapi.js';

let h: Harness;
let owner: TestUser & { orgId: string };
let reader: TestUser, guest: TestUser, outsider: TestUser, editor: TestUser, commenter: TestUser, reviewer: TestUser, reviewer2: TestUser;

beforeAll(async () => {
  h = await setupHarness();
  ({ owner, reader, guest, outsider } = await h.world('Review Org'));
  [editor, commenter, reviewer, reviewer2] = [
    await h.user('Editor'),
    await h.user('Commenter'),
    await h.user('Reviewer'),
    await h.user('Second reviewer'),
  ];
  await h.addMember(owner.orgId, editor.id, 'edit');
  await h.addMember(owner.orgId, commenter.id, 'comment');
  await h.addMember(owner.orgId, reviewer.id, 'review');
  await h.addMember(owner.orgId, reviewer2.id, 'review');
});

const OPERATIONS = [
  'getRequestedReviewersByChangeRequestId',
  'requestReviewersForChangeRequest',
  'removeRequestedReviewerFromChangeRequest',
  'getReviewsByChangeRequestId',
  'submitChangeRequestReview',
  'getChangeRequestReviewById',
  'getContributorsByChangeRequestId',
  'listCommentersInSpace',
  'listCommentersInChangeRequest',
];

async function newSpace() {
  const res = await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { title: 'Docs' } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}
async function newCr(spaceId: string, user: TestUser = owner) {
  const res = await h.call('POST', `/v1/spaces/${spaceId}/change-requests`, { token: user.token, body: { subject: 'Edits' } });
  expect(res.status).toBe(201);
  return res.body as { id: string; number: number; revision: string };
}
const crPath = (spaceId: string, crId: string | number, suffix: string) => `/v1/spaces/${spaceId}/change-requests/${crId}${suffix}`;

async function requestReviewers(spaceId: string, crId: string | number, body: Record<string, unknown>, user: TestUser = owner) {
  const res = await h.rest('requestReviewersForChangeRequest', 'POST', crPath(spaceId, crId, '/requested-reviewers'), {
    token: user.token,
    body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.users as any[];
}
async function list(operationId: string, path: string, user: TestUser = owner) {
  const res = await h.rest(operationId, 'GET', path, { token: user.token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.count).toBeGreaterThanOrEqual(res.body.items.length);
  return res.body as { items: any[]; count: number; next?: { page: string } };
}
async function submit(spaceId: string, crId: string | number, body: Record<string, unknown>, user: TestUser = reviewer, query = '') {
  const res = await h.rest('submitChangeRequestReview', 'POST', `${crPath(spaceId, crId, '/reviews')}${query}`, {
    token: user.token,
    body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}
async function postComment(spaceId: string, crId: string | null, markdown: string, user: TestUser) {
  const path = crId ? crPath(spaceId, crId, '/comments') : `/v1/spaces/${spaceId}/comments`;
  const res = await h.call('POST', path, { token: user.token, body: { body: { markdown } } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** Everything these routes write: change requests, review requests, reviews, comments. */
async function state() {
  const p = h.db.prisma;
  const [crs, requests, reviews, comments] = await Promise.all([
    p.changeRequest.findMany({ orderBy: { id: 'asc' } }),
    p.requestedReviewer.findMany({ orderBy: [{ changeRequestId: 'asc' }, { userId: 'asc' }] }),
    p.changeRequestReview.findMany({ orderBy: [{ changeRequestId: 'asc' }, { userId: 'asc' }] }),
    p.comment.findMany({ orderBy: { id: 'asc' } }),
  ]);
  return JSON.stringify({ crs, requests, reviews, comments });
}
const refused = (...args: Parameters<ReturnType<typeof requestRefusalChecker>>) => requestRefusalChecker(h, state)(...args);

describe('requested reviewers', () => {
  it('requests reviewers (with a new subject and description), lists them paged, refreshes a request, removes one (205, then 204)', async () => {
    const spaceId = await newSpace();
    const cr = await newCr(spaceId);
    const description = {
      object: 'document',
      data: {},
      nodes: [
        {
          object: 'block',
          type: 'paragraph',
          data: {},
          nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Please look', marks: [] }] }],
        },
      ],
    };
    const users = await requestReviewers(spaceId, cr.id, { users: [reviewer.id, reviewer2.id], subject: 'Ready for review', description });
    expect(users).toEqual(
      [reviewer, reviewer2].map((u) => ({
        object: 'change-request-requested-reviewer',
        kind: 'user',
        user: expect.objectContaining({ object: 'user', id: u.id }),
        revision: cr.revision,
        requestedBy: expect.objectContaining({ id: owner.id }),
        createdAt: expect.any(String),
      })),
    );
    const row = await h.db.prisma.changeRequest.findUniqueOrThrow({ where: { id: cr.id } });
    expect(row).toMatchObject({ subject: 'Ready for review', description });

    const all = await list('getRequestedReviewersByChangeRequestId', crPath(spaceId, cr.number, '/requested-reviewers'), reader);
    expect(all.count).toBe(2);
    // Requested together, in the order of their ids.
    expect(all.items.map((r) => r.user.id)).toEqual([reviewer.id, reviewer2.id].sort());
    const first = await list('getRequestedReviewersByChangeRequestId', crPath(spaceId, cr.id, '/requested-reviewers?limit=1'));
    expect(first.items).toHaveLength(1);
    const second = await list(
      'getRequestedReviewersByChangeRequestId',
      crPath(spaceId, cr.id, `/requested-reviewers?limit=1&page=${first.next!.page}`),
    );
    expect([...first.items, ...second.items].map((r) => r.user.id)).toEqual([reviewer.id, reviewer2.id].sort());
    expect(second.next).toBeUndefined();

    // The change request list's filter reads the same requests.
    const filtered = await h.rest(
      'listChangeRequestsForSpace',
      'GET',
      `/v1/spaces/${spaceId}/change-requests?requestedReviewer=${reviewer2.id}`,
      { token: owner.token },
    );
    expect(filtered.body.items.map((c: any) => c.id)).toEqual([cr.id]);

    // Asking again (an editor now, duplicates collapse) refreshes the request: its requester and time.
    const [again] = await requestReviewers(spaceId, cr.id, { users: [reviewer.id, reviewer.id] }, editor);
    expect(again).toMatchObject({ user: { id: reviewer.id }, requestedBy: { id: editor.id } });
    expect(new Date(again.createdAt).getTime()).toBeGreaterThan(new Date(users[0].createdAt).getTime());
    expect(
      (await list('getRequestedReviewersByChangeRequestId', crPath(spaceId, cr.id, '/requested-reviewers'))).items.map((r) => r.user.id),
    ).toEqual([reviewer2.id, reviewer.id]);

    const removed = await h.rest(
      'removeRequestedReviewerFromChangeRequest',
      'DELETE',
      crPath(spaceId, cr.id, `/requested-reviewers/${reviewer2.id}`),
      { token: owner.token },
    );
    expect(removed.status).toBe(205);
    const none = await h.rest(
      'removeRequestedReviewerFromChangeRequest',
      'DELETE',
      crPath(spaceId, cr.id, `/requested-reviewers/${reviewer2.id}`),
      { token: owner.token },
    );
    expect(none.status).toBe(204);
    // A requested reviewer may withdraw themself.
    expect((await h.call('DELETE', crPath(spaceId, cr.id, `/requested-reviewers/${reviewer.id}`), { token: reviewer.token })).status).toBe(
      205,
    );
    expect((await list('getRequestedReviewersByChangeRequestId', crPath(spaceId, cr.id, '/requested-reviewers'))).count).toBe(0);
  });

  it('refuses bad requests with a 400 naming the field, changing nothing: users missing, empty, not a list, not members, without the review right; a bad subject', async () => {
    const spaceId = await newSpace();
    const cr = await newCr(spaceId);
    const path = crPath(spaceId, cr.id, '/requested-reviewers');
    await refused(400, 'POST', path, { token: owner.token, body: {}, field: 'users' });
    await refused(400, 'POST', path, { token: owner.token, body: { users: [] }, field: 'users' });
    await refused(400, 'POST', path, { token: owner.token, body: { users: reviewer.id }, field: 'users' });
    await refused(400, 'POST', path, { token: owner.token, body: { users: [reviewer.id, 7] }, field: 'users[1]' });
    await refused(400, 'POST', path, { token: owner.token, body: { users: [outsider.id] }, field: 'users[0]' });
    await refused(400, 'POST', path, { token: owner.token, body: { users: [newId()] }, field: 'users[0]' });
    // Members who cannot review the space: a reader, a commenter, an editor, a guest.
    for (const user of [reader, commenter, editor, guest]) {
      const res = await refused(400, 'POST', path, { token: owner.token, body: { users: [reviewer.id, user.id] }, field: 'users[1]' });
      expect(res.body.error.message).toMatch(/review/);
    }
    await refused(400, 'POST', path, { token: owner.token, body: { users: [reviewer.id], subject: 'x'.repeat(101) }, field: 'subject' });
    await refused(400, 'POST', path, {
      token: owner.token,
      body: { users: [reviewer.id], description: { object: 'nope' } },
      field: 'description',
    });
    await refused(400, 'GET', `${path}?limit=0`, { token: owner.token, field: 'limit' });
  });

  it('refuses callers without rights: 401 without a token, 404 outside, 403 for readers and for removing someone else; 409 once merged', async () => {
    const spaceId = await newSpace();
    const cr = await newCr(spaceId);
    await requestReviewers(spaceId, cr.id, { users: [reviewer.id, reviewer2.id] });
    const path = crPath(spaceId, cr.id, '/requested-reviewers');
    await refused(401, 'POST', path, { token: null, body: { users: [reviewer.id] } });
    await refused(404, 'POST', path, { token: outsider.token, body: { users: [reviewer.id] } });
    await refused(404, 'GET', path, { token: outsider.token });
    await refused(404, 'GET', crPath(spaceId, newId(), '/requested-reviewers'), { token: owner.token });
    // Reviewers hold the edit right too (the review role is above it): readers and commenters may not.
    for (const user of [reader, commenter]) await refused(403, 'POST', path, { token: user.token, body: { users: [reviewer.id] } });
    await refused(403, 'DELETE', `${path}/${reviewer2.id}`, { token: commenter.token });
    await refused(404, 'DELETE', `${path}/${reviewer2.id}`, { token: outsider.token });
    expect((await h.call('POST', crPath(spaceId, cr.id, '/merge'), { token: owner.token })).status).toBe(200);
    await refused(409, 'POST', path, { token: owner.token, body: { users: [reviewer.id] } });
    await refused(409, 'DELETE', `${path}/${reviewer.id}`, { token: owner.token });
  });
});

describe('reviews', () => {
  it('submits a review with its comment (a comment of the change request), lists and gets it; a new request or new content outdates it', async () => {
    const spaceId = await newSpace();
    const cr = await newCr(spaceId);
    await requestReviewers(spaceId, cr.id, { users: [reviewer.id] });
    const review = await submit(spaceId, cr.number, { status: 'changes-requested', comment: { markdown: 'Please fix **this**.' } });
    expect(review).toEqual({
      object: 'change-request-review',
      id: expect.any(String),
      revision: cr.revision,
      reviewer: expect.objectContaining({ id: reviewer.id }),
      requestedBy: expect.objectContaining({ id: owner.id }),
      status: 'changes-requested',
      outdated: false,
      comment: expect.objectContaining({
        object: 'comment',
        postedBy: expect.objectContaining({ id: reviewer.id }),
        body: { markdown: 'Please fix **this**.' },
        target: expect.objectContaining({ changeRequest: cr.id, review: review.id, space: spaceId, revision: cr.revision }),
        status: 'open',
      }),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      urls: { location: `${BASE}${crPath(spaceId, cr.id, `/reviews/${review.id}`)}` },
    });
    // The comment is one of the change request's comments, and says which review it came with.
    const comments = await h.rest('listCommentsInChangeRequest', 'GET', crPath(spaceId, cr.id, '/comments'), { token: reader.token });
    expect(comments.body.items).toEqual([
      expect.objectContaining({ id: review.comment.id, target: expect.objectContaining({ review: review.id }) }),
    ]);

    const got = await h.rest('getChangeRequestReviewById', 'GET', crPath(spaceId, cr.id, `/reviews/${review.id}?format=document`), {
      token: reader.token,
    });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      id: review.id,
      status: 'changes-requested',
      comment: { body: { document: expect.objectContaining({ object: 'document' }) } },
    });

    // A second reviewer, not requested, approves with a rich-text comment; `{}` is no comment.
    const document = {
      object: 'document',
      data: {},
      nodes: [
        {
          object: 'block',
          type: 'paragraph',
          data: {},
          nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Looks good', marks: [] }] }],
        },
      ],
    };
    const approval = await submit(spaceId, cr.id, { status: 'approved', comment: { document } }, reviewer2);
    expect(approval.requestedBy).toBeUndefined();
    expect(approval.comment.body).toEqual({ markdown: 'Looks good\n' });
    const bare = await submit(spaceId, cr.id, { status: 'approved', comment: {} }, owner);
    expect(bare.comment).toBeUndefined();

    const all = await list('getReviewsByChangeRequestId', crPath(spaceId, cr.id, '/reviews'), reader);
    expect(all.items.map((r) => r.id)).toEqual([bare.id, approval.id, review.id]);

    // Asking the first reviewer again outdates their review; so does new content for every review.
    await requestReviewers(spaceId, cr.id, { users: [reviewer.id] });
    const outdated = await list('getReviewsByChangeRequestId', crPath(spaceId, cr.id, '/reviews?outdated=true'));
    expect(outdated.items.map((r) => r.id)).toEqual([review.id]);
    expect((await list('getReviewsByChangeRequestId', crPath(spaceId, cr.id, '/reviews?outdated=false'))).items.map((r) => r.id)).toEqual([
      bare.id,
      approval.id,
    ]);
    // Their new submission replaces their review (same id, first createdAt kept), current again.
    const renewed = await submit(spaceId, cr.id, { status: 'approved' });
    expect(renewed).toMatchObject({
      id: review.id,
      status: 'approved',
      outdated: false,
      createdAt: review.createdAt,
      requestedBy: { id: owner.id },
    });
    expect(renewed.comment).toBeUndefined();
    expect(renewed.updatedAt > review.updatedAt).toBe(true);
    await writeCr(h, editor.token, spaceId, cr.id, [{ operation: 'insert_page', title: 'More', document: { markdown: 'more\n' } }]);
    expect((await list('getReviewsByChangeRequestId', crPath(spaceId, cr.id, '/reviews?outdated=false'))).count).toBe(0);
  });

  it('refuses a bad review (400 naming the field, nothing changed), reviewers without the review role, unknown reviews, merged change requests', async () => {
    const spaceId = await newSpace();
    const cr = await newCr(spaceId);
    const path = crPath(spaceId, cr.id, '/reviews');
    await refused(400, 'POST', path, { token: reviewer.token, body: {}, field: 'status' });
    await refused(400, 'POST', path, { token: reviewer.token, body: { status: 'lgtm' }, field: 'status' });
    await refused(400, 'POST', path, {
      token: reviewer.token,
      body: { status: 'approved', comment: { markdown: '  ' } },
      field: 'comment.markdown',
    });
    await refused(400, 'POST', path, {
      token: reviewer.token,
      body: { status: 'approved', comment: { document: { object: 'nope' } } },
      field: 'comment.document',
    });
    await refused(400, 'POST', path, { token: reviewer.token, body: { status: 'approved', extra: true } });
    await refused(400, 'GET', `${path}?outdated=maybe`, { token: reviewer.token, field: 'outdated' });
    await refused(401, 'POST', path, { token: null, body: { status: 'approved' } });
    await refused(404, 'POST', path, { token: outsider.token, body: { status: 'approved' } });
    await refused(404, 'GET', path, { token: outsider.token });
    for (const user of [reader, commenter, editor]) await refused(403, 'POST', path, { token: user.token, body: { status: 'approved' } });
    await refused(404, 'GET', `${path}/${cr.id}-${reviewer.id}`, { token: owner.token, operationId: 'getChangeRequestReviewById' });
    await refused(404, 'GET', `${path}/nonsense`, { token: owner.token });
    const review = await submit(spaceId, cr.id, { status: 'approved' });
    await refused(404, 'GET', `${path}/${review.id}`, { token: outsider.token });
    expect((await h.call('POST', crPath(spaceId, cr.id, '/merge'), { token: owner.token })).status).toBe(200);
    await refused(409, 'POST', path, { token: reviewer.token, body: { status: 'approved', comment: { markdown: 'late' } } });
  });
});

describe('contributors', () => {
  it("lists who edited the change request's content (its author too), latest edit first, with their number of edits", async () => {
    const spaceId = await newSpace();
    const cr = await newCr(spaceId);
    const path = crPath(spaceId, cr.id, '/contributors');
    expect((await list('getContributorsByChangeRequestId', path, reader)).items).toEqual([
      { user: expect.objectContaining({ id: owner.id }), count: 0, updatedAt: expect.any(String), actionType: 'edit' },
    ]);
    await writeCr(h, editor.token, spaceId, cr.id, [{ operation: 'insert_page', title: 'One', document: { markdown: 'one\n' } }]);
    await writeCr(h, editor.token, spaceId, cr.id, [{ operation: 'insert_page', title: 'Two', document: { markdown: 'two\n' } }]);
    const res = await list('getContributorsByChangeRequestId', path);
    expect(res.items.map((c) => [c.user.id, c.count])).toEqual([
      [editor.id, 2],
      [owner.id, 0],
    ]);
    // Comments do not make contributors.
    await postComment(spaceId, cr.id, 'A remark', commenter);
    expect((await list('getContributorsByChangeRequestId', `${path}?limit=1`)).items.map((c) => c.user.id)).toEqual([editor.id]);
    await refused(404, 'GET', path, { token: outsider.token });
    await refused(401, 'GET', path, { token: null });
  });
});

describe('commenters', () => {
  it('lists the members who commented on the main content, and on a change request (review comments included), latest comment first', async () => {
    const spaceId = await newSpace();
    const cr = await newCr(spaceId);
    const leaver = await h.user('Leaver');
    await h.addMember(owner.orgId, leaver.id, 'comment');
    await postComment(spaceId, null, 'First', commenter);
    await postComment(spaceId, null, 'Second', owner);
    await postComment(spaceId, null, 'Third', commenter);
    await postComment(spaceId, null, 'Gone', leaver);
    // A member who left is not listed.
    await h.db.prisma.member.delete({ where: { organizationId_userId: { organizationId: owner.orgId, userId: leaver.id } } });
    await postComment(spaceId, cr.id, 'On the change request', editor);
    await submit(spaceId, cr.id, { status: 'approved', comment: { markdown: 'Fine' } });

    const space = await list('listCommentersInSpace', `/v1/spaces/${spaceId}/commenters`, reader);
    expect(space.items.map((m) => m.user.id)).toEqual([commenter.id, owner.id]);
    expect(space.items[0]).toMatchObject({ object: 'member', id: commenter.id, role: 'comment' });
    const paged = await list('listCommentersInSpace', `/v1/spaces/${spaceId}/commenters?limit=1`);
    expect(paged).toMatchObject({ count: 2, next: { page: expect.any(String) } });
    const inCr = await list('listCommentersInChangeRequest', crPath(spaceId, cr.number, '/commenters'), reader);
    expect(inCr.items.map((m) => m.user.id)).toEqual([reviewer.id, editor.id]);

    await refused(404, 'GET', `/v1/spaces/${spaceId}/commenters`, { token: outsider.token });
    await refused(404, 'GET', crPath(spaceId, cr.id, '/commenters'), { token: outsider.token });
    await refused(400, 'GET', `/v1/spaces/${spaceId}/commenters?page=bogus`, { token: owner.token, field: 'page' });
  });
});

describe('statements', () => {
  it('lists 2 or 6 requested reviewers, reviews (with comments), contributors and commenters in the same number of SQL statements', async () => {
    const extra: TestUser[] = [];
    for (let i = 0; i < 6; i++) {
      const user = await h.user(`Batch reviewer ${i}`);
      await h.addMember(owner.orgId, user.id, 'review');
      extra.push(user);
    }
    const measure = async (size: number) => {
      const spaceId = await newSpace();
      const cr = await newCr(spaceId);
      const users = extra.slice(0, size);
      await requestReviewers(spaceId, cr.id, { users: users.map((u) => u.id) });
      for (const user of users) {
        await submit(spaceId, cr.id, { status: 'approved', comment: { markdown: `From ${user.id}` } }, user);
        await postComment(spaceId, null, 'On main', user);
        await writeCr(h, user.token, spaceId, cr.id, [{ operation: 'insert_page', title: `By ${user.id}`, document: { markdown: 'x\n' } }]);
      }
      const counts: number[] = [];
      for (const path of [
        crPath(spaceId, cr.id, '/requested-reviewers'),
        crPath(spaceId, cr.id, '/reviews?format=document'),
        crPath(spaceId, cr.id, '/contributors'),
        `/v1/spaces/${spaceId}/commenters`,
        crPath(spaceId, cr.id, '/commenters'),
      ]) {
        const before = h.db.statements.count;
        const res = await h.call('GET', path, { token: reader.token });
        expect(res.status).toBe(200);
        expect(res.body.items.length).toBeGreaterThanOrEqual(size);
        counts.push(h.db.statements.count - before);
      }
      return counts;
    };
    expect(await measure(6)).toEqual(await measure(2));
  });
});

describe('the official @gitbook/api 0.202.0 client over HTTP', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    server = await startServer({ ...h.config, host: '127.0.0.1', port: 0 }, { db: h.db });
  });
  afterAll(() => server?.close());

  it('requests a reviewer, who reviews with a comment; lists reviews, requests, contributors and commenters; removes the request', async () => {
    const client = (user: TestUser) => new GitBookAPI({ endpoint: server.url, authToken: user.token });
    const spaceId = await newSpace();
    const cr = await newCr(spaceId);
    const requested = await client(owner).spaces.requestReviewersForChangeRequest(spaceId, cr.id, {
      users: [reviewer.id],
      subject: 'Please review',
    });
    assertMatchesSpec('requestReviewersForChangeRequest', requested.status, requested.data);
    const review = await client(reviewer).spaces.submitChangeRequestReview(spaceId, cr.id, {
      status: ChangeRequestReviewStatus.Approved,
      comment: { markdown: 'Ship it' },
    });
    assertMatchesSpec('submitChangeRequestReview', review.status, review.data);
    expect(review.data).toMatchObject({ status: 'approved', requestedBy: { id: owner.id }, comment: { body: { markdown: 'Ship it' } } });
    const got = await client(reader).spaces.getChangeRequestReviewById(spaceId, cr.id, review.data.id, { format: 'document' });
    expect(got.data.id).toBe(review.data.id);
    const reviews = await client(reader).spaces.getReviewsByChangeRequestId(spaceId, cr.id, { outdated: false });
    expect(reviews.data.items.map((r) => r.id)).toEqual([review.data.id]);
    const requests = await client(reader).spaces.getRequestedReviewersByChangeRequestId(spaceId, cr.id);
    expect(requests.data.items.map((r) => (r.kind === 'user' ? r.user.id : r.team.id))).toEqual([reviewer.id]);
    const contributors = await client(reader).spaces.getContributorsByChangeRequestId(spaceId, cr.id);
    expect(contributors.data.items.map((c) => c.user.id)).toEqual([owner.id]);
    const commenters = await client(reader).spaces.listCommentersInChangeRequest(spaceId, cr.id);
    expect(commenters.data.items.map((m) => m.user.id)).toEqual([reviewer.id]);
    expect((await client(reader).spaces.listCommentersInSpace(spaceId)).data.items).toEqual([]);
    expect((await client(owner).spaces.removeRequestedReviewerFromChangeRequest(spaceId, cr.id, reviewer.id)).status).toBe(205);
    const refusedCall = await client(reader)
      .spaces.requestReviewersForChangeRequest(spaceId, cr.id, { users: [reviewer.id] })
      .catch((e: unknown) => e);
    expect((refusedCall as { code?: number }).code).toBe(403);
  });
});

describe('coverage', () => {
  it('exercised every official operation of the review workflow', () => {
    expect(OPERATIONS.filter((op) => !h.coveredOperations.has(op))).toEqual([]);
  });
});
