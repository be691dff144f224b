import { beforeAll, describe, expect, it } from 'vitest';
import { setupHarness, type Harness, type TestUser, type World } from '../support/harness.js';
import { insertPage, writeCr, writeLive } from '../support/content-writes.js';
import { encodeGlobalId } from '../../src/graphql/node.js';

/**
 * Global ids of the objects a front-end holds beyond the top-level ones (test/graphql/node.test.ts):
 * site sections, section groups, site spaces, share links, comments and replies, revisions, pages
 * (of main and of a change request), organization members, reviews and requested reviewers.
 * `node(id:)` answers exactly what the direct field answers, for every caller; `nodes(ids:)` costs
 * the same number of statements for 2 and for 20 objects of each type.
 */
let h: Harness;
let w: World;
let otherAdmin: TestUser & { orgId: string };
interface Obj {
  name: string;
  type: string;
  query: string;
  variables: Record<string, string>;
  pick: (data: any) => any;
}
let objects: Obj[];
/** 2 and 20 global ids of each type, for the statement counts. */
const batches: Record<string, { small: string[]; large: string[] }> = {};
let ctx: { spaceId: string; crId: string; siteId: string; sectionId: string; commentId: string; revisionId: string; pageId: string };

const FIELDS = /* GraphQL */ `__typename globalId
  ... on SiteSection { id title } ... on SiteSectionGroup { id title } ... on SiteSpace { id path } ... on SiteShareLink { id name }
  ... on Comment { id body { markdown } } ... on CommentReply { id body { markdown } } ... on Revision { id } ... on Page { id title }
  ... on Member { id role } ... on ChangeRequestReview { id status } ... on ChangeRequestRequestedReviewer { user { id } } ... on ChangeRequest { id number }`;
const NODE = `query Node($id: ID!) { node(id: $id) { ${FIELDS} } }`;
const NODES = `query Nodes($ids: [ID!]!) { nodes(ids: $ids) { ${FIELDS} } }`;

async function gql(token: string, query: string, variables: Record<string, unknown> = {}) {
  const res = await h.graphql(token, query, variables);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data;
}

async function post(token: string, path: string, body: unknown) {
  const res = await h.call('POST', `/v1${path}`, { token, body });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body;
}

const M = {
  section: `mutation($o: ID!, $s: ID!, $space: ID!, $t: String) { addSiteSection(organizationId: $o, siteId: $s, input: { spaceId: $space, title: $t }) { id siteSpaces { id } } }`,
  group: `mutation($o: ID!, $s: ID!, $t: String!) { createSiteSectionGroup(organizationId: $o, siteId: $s, input: { title: $t }) { id } }`,
  shareLink: `mutation($o: ID!, $s: ID!, $n: String!) { createSiteShareLink(organizationId: $o, siteId: $s, input: { name: $n }) { id } }`,
  comment: `mutation($s: ID!, $cr: String, $m: String!) { postComment(spaceId: $s, changeRequestId: $cr, input: { body: { markdown: $m } }) { id } }`,
  reply: `mutation($s: ID!, $cr: String, $c: ID!, $m: String!) { postCommentReply(spaceId: $s, changeRequestId: $cr, commentId: $c, input: { body: { markdown: $m } }) { id } }`,
  review: `mutation($s: ID!, $cr: String!) { submitChangeRequestReview(spaceId: $s, changeRequestId: $cr, input: { status: "approved" }) { id } }`,
  request: `mutation($s: ID!, $cr: String!, $u: String!) { requestChangeRequestReviewers(spaceId: $s, changeRequestId: $cr, input: { users: [$u] }) { users { userId: user { id } } } }`,
};

/** In sequence (site writes lock the site; content writes the space): n results of make(i). */
async function times<T>(n: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(await make(i));
  return out;
}

beforeAll(async () => {
  h = await setupHarness();
  w = await h.world('Node Ids Org');
  otherAdmin = await h.owner('Other Org');
  const { owner, orgId, creator } = w;
  const t = owner.token;

  // A space with 20 revisions of main, each adding one page (the page of revision i is new in it).
  const space = await post(t, `/orgs/${orgId}/spaces`, { title: 'Handbook' });
  const writes = await times(20, (i) => writeLive(h, t, space.id, [insertPage(`Page ${i}`, `body ${i}`)]));
  const revisions = writes.map((x) => x.revision);
  const pages = writes.map((x) => x.pages[0]!);
  // 20 change requests; the first gets a page of its own, a review and a requested reviewer like every other.
  const crs = await times(20, () => post(t, `/spaces/${space.id}/change-requests`, { subject: 'Edits' }));
  const crWrite = await writeCr(h, t, space.id, crs[0].id, [insertPage('Draft page', 'draft')]);
  await times(20, (i) => gql(t, M.review, { s: space.id, cr: crs[i].id }));
  await times(20, (i) => gql(t, M.request, { s: space.id, cr: crs[i].id, u: creator.id }));
  // 20 comments, every other one on a change request; a reply on each.
  const comments = await times(20, async (i) => {
    const cr = i % 2 ? crs[i].id : null;
    const c = (await gql(t, M.comment, { s: space.id, cr, m: `comment ${i}` })).postComment;
    const r = (await gql(t, M.reply, { s: space.id, cr, c: c.id, m: `reply ${i}` })).postCommentReply;
    return { id: c.id as string, cr, reply: r.id as string };
  });
  // A site with 20 sections (each with its site space), 20 groups, 20 share links.
  const site = await post(t, `/orgs/${orgId}/sites`, { title: 'Docs' });
  const sections = await times(
    20,
    async (i) => (await gql(t, M.section, { o: orgId, s: site.id, space: space.id, t: `Section ${i}` })).addSiteSection,
  );
  const groups = await times(20, async (i) => (await gql(t, M.group, { o: orgId, s: site.id, t: `Group ${i}` })).createSiteSectionGroup);
  const links = await times(20, async (i) => (await gql(t, M.shareLink, { o: orgId, s: site.id, n: `Link ${i}` })).createSiteShareLink);
  // 20 more members.
  const members = await times(20, async () => {
    const u = await h.user();
    await h.addMember(orgId, u.id, 'read');
    return u.id;
  });

  ctx = {
    spaceId: space.id,
    crId: crs[0].id,
    siteId: site.id,
    sectionId: sections[0].id,
    commentId: comments[0]!.id,
    revisionId: revisions[19]!,
    pageId: pages[0]!,
  };
  const reviewOf = (crId: string) => `${crId}-${owner.id}`;
  const ids: Record<string, string[]> = {
    SiteSection: sections.map((s) => encodeGlobalId('SiteSection', [site.id, s.id])),
    SiteSpace: sections.map((s) => encodeGlobalId('SiteSpace', [site.id, s.siteSpaces[0].id])),
    SiteSectionGroup: groups.map((g) => encodeGlobalId('SiteSectionGroup', [site.id, g.id])),
    SiteShareLink: links.map((l) => encodeGlobalId('SiteShareLink', [site.id, l.id])),
    Comment: comments.map((c) => encodeGlobalId('Comment', [space.id, c.id])),
    CommentReply: comments.map((c) => encodeGlobalId('CommentReply', [c.id, c.reply])),
    Revision: revisions.map((r) => encodeGlobalId('Revision', [space.id, r])),
    Page: pages.map((p, i) => encodeGlobalId('Page', [space.id, revisions[i]!, p])),
    Member: members.map((u) => encodeGlobalId('Member', [orgId, u])),
    ChangeRequest: crs.map((cr) => encodeGlobalId('ChangeRequest', [space.id, cr.id])),
    ChangeRequestReview: crs.map((cr) => encodeGlobalId('ChangeRequestReview', [space.id, cr.id, reviewOf(cr.id)])),
    ChangeRequestRequestedReviewer: crs.map((cr) => encodeGlobalId('ChangeRequestRequestedReviewer', [cr.id, creator.id])),
  };
  for (const [type, list] of Object.entries(ids)) batches[type] = { small: list.slice(0, 2), large: list };

  const siteQ = (field: string, sel: string) =>
    `query($o: ID!, $s: ID!) { site(organizationId: $o, id: $s) { ${field} { items { globalId ${sel} } } } }`;
  const inSite = (field: string, id: string) => (d: any) => d.site?.[field].items.find((x: any) => x.id === id) ?? null;
  const crComment = comments[1]!;
  objects = [
    {
      name: 'section',
      type: 'SiteSection',
      query: siteQ('sections', 'id title'),
      variables: { o: orgId, s: site.id },
      pick: inSite('sections', sections[0].id),
    },
    {
      name: 'site space',
      type: 'SiteSpace',
      query: siteQ('siteSpaces', 'id path'),
      variables: { o: orgId, s: site.id },
      pick: inSite('siteSpaces', sections[0].siteSpaces[0].id),
    },
    {
      name: 'section group',
      type: 'SiteSectionGroup',
      query: siteQ('sectionGroups', 'id title'),
      variables: { o: orgId, s: site.id },
      pick: inSite('sectionGroups', groups[0].id),
    },
    {
      name: 'share link',
      type: 'SiteShareLink',
      query: siteQ('shareLinks', 'id name'),
      variables: { o: orgId, s: site.id },
      pick: inSite('shareLinks', links[0].id),
    },
    {
      name: 'comment',
      type: 'Comment',
      query: `query($s: ID!, $c: ID!) { space(id: $s) { comment(id: $c) { globalId id body { markdown } } } }`,
      variables: { s: space.id, c: comments[0]!.id },
      pick: (d) => d.space?.comment,
    },
    {
      name: 'change request comment',
      type: 'Comment',
      query: `query($s: ID!, $cr: String!, $c: ID!) { space(id: $s) { changeRequest(id: $cr) { comment(id: $c) { globalId id body { markdown } } } } }`,
      variables: { s: space.id, cr: crComment.cr!, c: crComment.id },
      pick: (d) => d.space?.changeRequest?.comment,
    },
    {
      name: 'reply',
      type: 'CommentReply',
      query: `query($s: ID!, $c: ID!, $r: ID!) { space(id: $s) { comment(id: $c) { reply(id: $r) { globalId id body { markdown } } } } }`,
      variables: { s: space.id, c: comments[0]!.id, r: comments[0]!.reply },
      pick: (d) => d.space?.comment?.reply,
    },
    {
      name: 'revision',
      type: 'Revision',
      query: `query($s: ID!, $r: ID!) { space(id: $s) { revisionById(id: $r) { globalId id } } }`,
      variables: { s: space.id, r: revisions[3]! },
      pick: (d) => d.space?.revisionById,
    },
    {
      name: 'page',
      type: 'Page',
      query: `query($s: ID!, $r: ID!, $p: ID!) { space(id: $s) { revisionById(id: $r) { typedPage(id: $p) { globalId id title } } } }`,
      variables: { s: space.id, r: revisions[19]!, p: pages[0]! },
      pick: (d) => d.space?.revisionById?.typedPage,
    },
    {
      name: 'change request page',
      type: 'Page',
      query: `query($s: ID!, $cr: String!, $p: ID!) { space(id: $s) { changeRequest(id: $cr) { content { typedPage(id: $p) { globalId id title } } } } }`,
      variables: { s: space.id, cr: crs[0].id, p: crWrite.pages[0]! },
      pick: (d) => d.space?.changeRequest?.content?.typedPage,
    },
    {
      name: 'member',
      type: 'Member',
      query: `query($o: ID!, $u: ID!) { organization(id: $o) { member(userId: $u) { globalId id role } } }`,
      variables: { o: orgId, u: w.reader.id },
      pick: (d) => d.organization?.member,
    },
    {
      name: 'review',
      type: 'ChangeRequestReview',
      query: `query($s: ID!, $cr: String!, $r: ID!) { space(id: $s) { changeRequest(id: $cr) { review(id: $r) { globalId id status } } } }`,
      variables: { s: space.id, cr: crs[0].id, r: reviewOf(crs[0].id) },
      pick: (d) => d.space?.changeRequest?.review,
    },
    {
      name: 'requested reviewer',
      type: 'ChangeRequestRequestedReviewer',
      query: `query($s: ID!, $cr: String!) { space(id: $s) { changeRequest(id: $cr) { requestedReviewerList { items { globalId user { id } } } } } }`,
      variables: { s: space.id, cr: crs[0].id },
      pick: (d) => d.space?.changeRequest?.requestedReviewerList.items.find((r: any) => r.user.id === creator.id) ?? null,
    },
  ];
});

/** The object as its direct field answers the caller, or null when that field refuses it. */
async function direct(token: string, o: Obj) {
  const res = await h.graphql(token, o.query, o.variables);
  if (res.body.errors) {
    expect(
      res.body.errors.map((e: any) => e.extensions.code),
      o.name,
    ).toEqual([expect.stringMatching(/^(NOT_FOUND|FORBIDDEN)$/)]);
    return null;
  }
  return o.pick(res.body.data) ?? null;
}

async function node(token: string, id: string) {
  const res = await h.graphql(token, NODE, { id });
  expect(res.body.errors, id).toBeUndefined();
  return res.body.data.node;
}

describe('global ids of the objects below the top-level ones', () => {
  it('round-trip: node(id: x.globalId) is x, for every type (the owner sees them all); the global ids are distinct', async () => {
    const seen = new Map<string, string>();
    for (const o of objects) {
      const x = await direct(w.owner.token, o);
      expect(x, o.name).not.toBeNull();
      expect(await node(w.owner.token, x.globalId), o.name).toEqual({ __typename: o.type, ...x });
      seen.set(x.globalId, o.name);
    }
    expect(seen.size).toBe(objects.length);
    expect(new Set(objects.map((o) => o.type)).size).toBe(11);
  });

  it('a page is named by its revision: the same page in two revisions has two ids, and Space.page(path:) names the current one', async () => {
    const { spaceId, revisionId, pageId } = ctx;
    const data = await gql(w.owner.token, `query($s: ID!) { space(id: $s) { page(path: "page-0") { globalId id } } }`, { s: spaceId });
    expect(data.space.page.id).toBe(pageId);
    expect(data.space.page.globalId).toBe(encodeGlobalId('Page', [spaceId, revisionId, pageId]));
    const older = objects.find((o) => o.name === 'revision')!.variables.r!;
    const inOlder = await node(w.owner.token, encodeGlobalId('Page', [spaceId, older, pageId]));
    expect(inOlder).toMatchObject({ __typename: 'Page', id: pageId, title: 'Page 0' });
    expect(inOlder.globalId).not.toBe(data.space.page.globalId);
  });

  it('answers exactly what the direct field answers: reader, guest (a member without rights to the space), outsider, another organization’s admin', async () => {
    const callers = { reader: w.reader, guest: w.guest, outsider: w.outsider, otherAdmin };
    const answered: Record<string, string[]> = {};
    for (const [who, caller] of Object.entries(callers)) {
      for (const o of objects) {
        const expected = await direct(caller.token, o);
        const x = await direct(w.owner.token, o);
        const found = await node(caller.token, x.globalId);
        if (expected === null) expect(found, `${who}: ${o.name}`).toBeNull();
        else {
          expect(found, `${who}: ${o.name}`).toEqual({ __typename: o.type, ...expected });
          (answered[who] ??= []).push(o.name);
        }
      }
    }
    // Real cases both ways: a reader sees all of it; a guest sees the site's parts but nothing of the space, nor the members.
    expect(answered.reader).toHaveLength(objects.length);
    expect(answered.guest?.sort()).toEqual(['section', 'section group', 'share link', 'site space']);
    expect(answered.outsider).toBeUndefined();
    expect(answered.otherAdmin).toBeUndefined();
  });

  it('forged ids (an object named under another parent, unknown objects) answer null, for the owner too', async () => {
    const { spaceId, crId, siteId, sectionId, commentId, revisionId, pageId } = ctx;
    const otherSpace = await post(otherAdmin.token, `/orgs/${otherAdmin.orgId}/spaces`, { title: 'Theirs' });
    const otherSite = await post(otherAdmin.token, `/orgs/${otherAdmin.orgId}/sites`, { title: 'Theirs' });
    const forged = [
      encodeGlobalId('SiteSection', [otherSite.id, sectionId]), // a real section under a site that does not hold it
      encodeGlobalId('SiteSection', [siteId, 'nope']),
      encodeGlobalId('Comment', [otherSpace.id, commentId]),
      encodeGlobalId('CommentReply', [commentId, 'nope']),
      encodeGlobalId('Page', [spaceId, revisionId, 'nope']),
      encodeGlobalId('Page', [otherSpace.id, revisionId, pageId]),
      encodeGlobalId('Revision', [otherSpace.id, revisionId]),
      encodeGlobalId('Member', [w.orgId, w.outsider.id]),
      encodeGlobalId('ChangeRequestReview', [spaceId, crId, `${crId}-${w.reader.id}`]),
      encodeGlobalId('ChangeRequestReview', [otherSpace.id, crId, `${crId}-${w.owner.id}`]),
      encodeGlobalId('ChangeRequestRequestedReviewer', [crId, w.reader.id]),
      encodeGlobalId('ChangeRequest', [otherSpace.id, crId]),
    ];
    for (const id of forged) {
      expect(await node(w.owner.token, id), Buffer.from(id, 'base64url').toString()).toBeNull();
      expect(await node(otherAdmin.token, id), Buffer.from(id, 'base64url').toString()).toBeNull();
    }
  });
});

describe('nodes(ids:) batching', () => {
  it('issues the same number of SQL statements for 2 and for 20 objects of each type', async () => {
    const counts: Record<string, [number, number]> = {};
    for (const [type, { small, large }] of Object.entries(batches)) {
      const count = async (ids: string[]) => {
        const before = h.db.statements.count;
        const data = await gql(w.owner.token, NODES, { ids });
        const statements = h.db.statements.count - before;
        expect(
          data.nodes.filter(Boolean).map((n: any) => n.__typename),
          type,
        ).toEqual(ids.map(() => type));
        return statements;
      };
      counts[type] = [await count(small), await count(large)];
    }
    for (const [type, [a, b]] of Object.entries(counts)) expect(b, `${type}: ${a} statements for 2, ${b} for 20`).toBe(a);
    // What one request of 20 costs, per type (kept small: a handful of batched reads).
    for (const [type, [, b]] of Object.entries(counts)) expect(b, type).toBeLessThanOrEqual(12);
  });
});
