/** Change requests: merge, update from main, reviews and merge rules, the space's counts (setup in ./fixtures.ts). */
import { beforeAll, describe, expect, it } from 'vitest';
import { BASE } from '../support/harness.js';
import { documentFromMarkdown } from '../../src/document/index.js';
import { newId } from '../../src/ids.js';
import {
  h,
  owner,
  reader,
  commenter,
  editor,
  reviewer,
  reviewer2,
  outsider,
  CHANGE_REQUEST_OPERATIONS,
  setupChangeRequests,
  newSpace,
  crPath,
  spaceRevision,
  crRow,
  createCr,
  getCr,
  patchCr,
  write,
  merge,
  update,
  review,
  titles,
  mainTitles,
  patchSpace,
  freshOrg,
  refused,
} from './fixtures.js';

beforeAll(setupChangeRequests);

describe('POST .../merge and .../update', () => {
  it('merges by fast-forward when main has not moved: main becomes the head of the change request', async () => {
    const space = await newSpace();
    const cr = await createCr(space.id);
    const { revision } = await write(space.id, cr.id, [{ operation: 'insert_page', title: 'New page', document: { markdown: '' } }]);
    const res = await h.rest('mergeChangeRequest', 'POST', crPath(space.id, cr.number, '/merge'), { token: reviewer.token });
    expect(res.body).toEqual({ revision, result: 'merge' });
    expect(await spaceRevision(space.id)).toBe(revision);
    expect(await mainTitles(space.id)).toEqual(['New page']);
    expect(await getCr(space.id, cr.id)).toMatchObject({ status: 'merged', revisionMerged: revision, outdated: false });
    expect((await crRow(cr.id)).mergedAt).toBeInstanceOf(Date);
  });

  it('marks open change requests outdated when main moves; update brings main in; merge then merges three ways', async () => {
    const space = await newSpace();
    const [base] = (await write(space.id, null, [{ operation: 'insert_page', title: 'Base', document: { markdown: 'base\n' } }])).pages as [
      string,
    ];
    const cr = await createCr(space.id);
    const idle = await createCr(space.id, { subject: 'No edits' });
    const own = await write(space.id, cr.id, [{ operation: 'insert_page', title: 'From the change request', document: { markdown: '' } }]);
    expect((await getCr(space.id, cr.id)).outdated).toBe(false);
    const other = await createCr(space.id, { subject: 'Other' });
    await write(space.id, other.id, [{ operation: 'update_page', page: base, document: { markdown: 'base, edited\n' } }]);
    expect((await merge(space.id, other.id)).status).toBe(200);
    const mainAfter = await spaceRevision(space.id);
    expect((await getCr(space.id, cr.id)).outdated).toBe(true);
    expect((await getCr(space.id, idle.id)).outdated).toBe(true);
    // A live edit to main also makes them outdated.
    // (Placed first: pages added at the end on both sides would tie on position.)
    const [_live] = (await write(space.id, null, [{ operation: 'insert_page', title: 'Live', at: 0, document: { markdown: '' } }]))
      .pages as [string];
    const main = await spaceRevision(space.id);
    expect(main).not.toBe(mainAfter);

    const updated = await h.rest('updateChangeRequest', 'POST', crPath(space.id, cr.id, '/update'), { token: editor.token });
    expect(updated.body).toEqual({ revision: expect.any(String), result: 'update' });
    expect(updated.body.revision).not.toBe(own.revision);
    expect(await h.db.prisma.revision.findUnique({ where: { id: updated.body.revision } })).toMatchObject({
      type: 'update',
      parents: [own.revision, main],
      changeRequestId: cr.id,
    });
    expect(await getCr(space.id, cr.id)).toMatchObject({
      outdated: false,
      revision: updated.body.revision,
      revisionMergedAncestor: main,
      revisionInitial: cr.revisionInitial,
    });
    const crTitles = titles((await h.call('GET', crPath(space.id, cr.id, '/content/pages'), { token: owner.token })).body.pages);
    expect(crTitles).toEqual(['Live', 'Base', 'From the change request']);
    // Updating again changes nothing.
    expect((await update(space.id, cr.id)).body).toEqual({ revision: updated.body.revision, result: 'update' });

    // A change request without edits just follows main.
    expect((await h.rest('updateChangeRequest', 'POST', crPath(space.id, idle.number, '/update'), { token: owner.token })).body).toEqual({
      revision: main,
      result: 'update',
    });
    expect(await getCr(space.id, idle.id)).toMatchObject({ outdated: false, revision: main });

    // Main moves once more: the merge is three-way, with both parents.
    await write(space.id, null, [{ operation: 'insert_page', title: 'Later', at: 0, document: { markdown: '' } }]);
    const mainBefore = await spaceRevision(space.id);
    const merged = await h.rest('mergeChangeRequest', 'POST', crPath(space.id, cr.id, '/merge'), { token: owner.token });
    expect(await h.db.prisma.revision.findUnique({ where: { id: merged.body.revision } })).toMatchObject({
      type: 'merge',
      parents: [mainBefore, updated.body.revision],
    });
    expect(await mainTitles(space.id)).toEqual(['Later', 'Live', 'Base', 'From the change request']);
    expect(await getCr(space.id, cr.id)).toMatchObject({ status: 'merged', outdated: false, revisionMerged: merged.body.revision });
    // The official merge Revision names the change request it merged (h.rest checks both schemas).
    const current = await h.rest('getCurrentRevision', 'GET', `/v1/spaces/${space.id}/content`, { token: owner.token });
    expect(current.body).toMatchObject({
      id: merged.body.revision,
      type: 'merge',
      mergedFrom: { object: 'change-request', id: cr.id, status: 'merged' },
    });
    const byId = await h.rest('getRevisionById', 'GET', `/v1/spaces/${space.id}/revisions/${mainBefore}`, { token: owner.token });
    expect(byId.body.type).not.toBe('merge');
    expect(byId.body.mergedFrom).toBeUndefined();
  });

  it('keeps slugs unique among siblings when both sides added a page of the same title', async () => {
    const space = await newSpace();
    const [folder] = (await write(space.id, null, [{ operation: 'insert_page', title: 'Folder', document: { markdown: '' } }])).pages as [
      string,
    ];
    const a = await createCr(space.id, { subject: 'A' });
    const b = await createCr(space.id, { subject: 'B' });
    const c = await createCr(space.id, { subject: 'C' });
    const [introA] = (
      await write(space.id, a.id, [
        { operation: 'insert_page', title: 'Intro', document: { markdown: '' } },
        { operation: 'insert_page', title: 'Setup', into: folder, document: { markdown: '' } },
      ])
    ).pages as [string];
    const [introB] = (
      await write(space.id, b.id, [
        { operation: 'insert_page', title: 'Intro', at: 0, document: { markdown: '' } },
        { operation: 'insert_page', title: 'Setup', into: folder, document: { markdown: '' } },
      ])
    ).pages as [string];
    const [introC] = (await write(space.id, c.id, [{ operation: 'insert_page', title: 'Intro', at: 0, document: { markdown: '' } }]))
      .pages as [string];
    expect((await merge(space.id, a.id)).status).toBe(200);
    // Merge: the page main already has keeps its slug.
    expect((await merge(space.id, b.id)).status).toBe(200);
    const pathOf = async (pageId: string, cr?: string) =>
      (
        await h.call('GET', cr ? crPath(space.id, cr, `/content/page/${pageId}`) : `/v1/spaces/${space.id}/content/page/${pageId}`, {
          token: owner.token,
        })
      ).body.path;
    expect(await pathOf(introA)).toBe('intro');
    expect(await pathOf(introB)).toBe('intro-1');
    const pages = (await h.call('GET', `/v1/spaces/${space.id}/content/pages`, { token: owner.token })).body.pages;
    const folderPage = pages.find((p: { id: string }) => p.id === folder);
    expect(folderPage.pages.map((p: { path: string }) => p.path).sort()).toEqual(['folder/setup', 'folder/setup-1']);
    // Update from main: main's pages keep their slugs, the change request's own page gives way.
    expect((await update(space.id, c.id)).status).toBe(200);
    expect(await pathOf(introA, c.id)).toBe('intro');
    expect(await pathOf(introB, c.id)).toBe('intro-1');
    expect(await pathOf(introC, c.id)).toBe('intro-2');
  });

  it('refuses to merge or update a merged or archived change request (409), an unknown one (404), in a locked space (403)', async () => {
    const space = await newSpace();
    const cr = await createCr(space.id);
    expect((await merge(space.id, cr.id)).status).toBe(200);
    await refused(409, () => merge(space.id, cr.id), /merged/);
    await refused(409, () => update(space.id, cr.id), /merged/);
    const archived = await createCr(space.id);
    await patchCr(space.id, archived.id, { status: 'archived' });
    await refused(409, () => merge(space.id, archived.id), /archived/);
    await refused(409, () => update(space.id, archived.id), /archived/);
    await refused(404, () => merge(space.id, newId()), /Change request/);
    await refused(404, () => update(space.id, 99), /Change request/);
    const open = await createCr(space.id);
    await patchSpace(space.id, { editMode: 'locked' });
    await refused(403, () => merge(space.id, open.id), /locked/);
  });

  it('merging needs the review role, updating the edit role', async () => {
    const space = await newSpace();
    const cr = await createCr(space.id);
    await write(space.id, null, [{ operation: 'insert_page', title: 'Main moved', document: { markdown: '' } }]);
    await refused(401, () => merge(space.id, cr.id, null));
    await refused(401, () => update(space.id, cr.id, null));
    for (const stranger of [outsider]) {
      await refused(404, () => merge(space.id, cr.id, stranger), /Space/);
      await refused(404, () => update(space.id, cr.id, stranger), /Space/);
    }
    for (const user of [reader, commenter, editor]) await refused(403, () => merge(space.id, cr.id, user), /review/);
    for (const user of [reader, commenter]) await refused(403, () => update(space.id, cr.id, user), /edit/);
    expect((await update(space.id, cr.id, editor)).status).toBe(200);
    expect((await merge(space.id, cr.id, reviewer)).status).toBe(200);
  });
});

describe('reviews and merge rules', () => {
  const rules = (users: string[], rule = 'require_specific_reviewers') => ({ type: 'rules', rules: [{ rule, users }] });

  it('records a review in the official shape', async () => {
    const space = await newSpace();
    const cr = await createCr(space.id);
    const res = await h.rest('submitChangeRequestReview', 'POST', crPath(space.id, cr.id, '/reviews'), {
      token: reviewer.token,
      body: { status: 'approved' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      object: 'change-request-review',
      id: expect.any(String),
      revision: cr.revision,
      reviewer: expect.objectContaining({ object: 'user', id: reviewer.id }),
      status: 'approved',
      outdated: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      urls: { location: `${BASE}${crPath(space.id, cr.id)}/reviews/${res.body.id}` },
    });
    // A new review by the same reviewer replaces theirs.
    const again = await h.rest('submitChangeRequestReview', 'POST', crPath(space.id, cr.number, '/reviews'), {
      token: reviewer.token,
      body: { status: 'changes-requested' },
    });
    expect(again.body).toMatchObject({ id: res.body.id, status: 'changes-requested' });
    expect(await h.db.prisma.changeRequestReview.findMany({ where: { changeRequestId: cr.id } })).toEqual([
      expect.objectContaining({ userId: reviewer.id, status: 'changes-requested' }),
    ]);
  });

  it('refuses a bad review status (400), reviews of merged change requests (409), and reviewers without the review role', async () => {
    const space = await newSpace();
    const cr = await createCr(space.id);
    await refused(400, () => review(space.id, cr.id, { status: 'lgtm' }, reviewer), /^status\b/);
    await refused(400, () => review(space.id, cr.id, {}, reviewer), /status/);
    await refused(401, () => review(space.id, cr.id, { status: 'approved' }, null));
    await refused(404, () => review(space.id, cr.id, { status: 'approved' }, outsider), /Space/);
    for (const user of [reader, commenter, editor])
      await refused(403, () => review(space.id, cr.id, { status: 'approved' }, user), /review/);
    await refused(404, () => review(space.id, newId(), { status: 'approved' }, reviewer), /Change request/);
    expect((await merge(space.id, cr.id)).status).toBe(200);
    await refused(409, () => review(space.id, cr.id, { status: 'approved' }, reviewer), /merged/);
  });

  it("refuses to merge (412) until the required reviewer approved the change request's current head", async () => {
    const space = await newSpace();
    await patchSpace(space.id, { mergeRules: rules([reviewer.id]) });
    const cr = await createCr(space.id);
    await write(space.id, cr.id, [{ operation: 'insert_page', title: 'Reviewed', document: { markdown: '' } }]);
    await refused(412, () => merge(space.id, cr.id), new RegExp(`approval still needed from ${reviewer.id}`));
    // Someone else's approval, or the required reviewer asking for changes, is not enough.
    expect((await review(space.id, cr.id, { status: 'approved' }, reviewer2)).status).toBe(201);
    await refused(412, () => merge(space.id, cr.id), /approval still needed/);
    expect((await review(space.id, cr.id, { status: 'changes-requested' }, reviewer)).status).toBe(201);
    await refused(412, () => merge(space.id, cr.id), /approval still needed/);
    expect((await review(space.id, cr.id, { status: 'approved' }, reviewer)).status).toBe(201);
    // An approval covers the head it was given on: a later edit needs a new one.
    await write(space.id, cr.id, [{ operation: 'insert_page', title: 'After approval', document: { markdown: '' } }]);
    await refused(412, () => merge(space.id, cr.id), /approval still needed/);
    expect((await review(space.id, cr.id, { status: 'approved' }, reviewer)).status).toBe(201);
    const merged = await h.rest('mergeChangeRequest', 'POST', crPath(space.id, cr.id, '/merge'), { token: owner.token });
    expect(merged.body.result).toBe('merge');
    expect(await mainTitles(space.id)).toEqual(['Reviewed', 'After approval']);
  });

  it("applies the organization's merge rules to spaces that inherit them, and other rules", async () => {
    const { admin } = await freshOrg('Rules org');
    const required = await h.user();
    await h.addMember(admin.orgId, required.id, 'review');
    expect(
      (await h.call('PATCH', `/v1/orgs/${admin.orgId}`, { token: admin.token, body: { mergeRules: rules([required.id]) } })).status,
    ).toBe(200);
    const space = await newSpace({ title: 'Inherits' }, admin);
    const cr = await createCr(space.id, {}, admin);
    await refused(412, () => merge(space.id, cr.id, admin), /approval still needed/);
    expect((await review(space.id, cr.id, { status: 'approved' }, required)).status).toBe(201);
    expect((await merge(space.id, cr.id, admin)).status).toBe(200);

    // The space's own rules win over the organization's.
    const own = await newSpace({ title: 'Own rules' }, admin);
    await h.call('PATCH', `/v1/spaces/${own.id}`, {
      token: admin.token,
      body: { mergeRules: { type: 'rules', rules: [{ rule: 'require_change_request_subject' }] } },
    });
    const untitled = await createCr(own.id, {}, admin);
    await refused(412, () => merge(own.id, untitled.id, admin), /subject/);
    await patchCr(own.id, untitled.id, { subject: 'Now titled' }, admin);
    expect((await merge(own.id, untitled.id, admin)).status).toBe(200);
  });
  it('enforces every other rule of the official list: all reviews approved, up to date, description; agent and custom rules fail closed; allow_bypass lets listed users through', async () => {
    const space = await newSpace();
    const set = (...list: unknown[]) => patchSpace(space.id, { mergeRules: { type: 'rules', rules: list } });

    await set({ rule: 'require_all_reviews_approved' });
    const a = await createCr(space.id);
    await write(space.id, a.id, [{ operation: 'insert_page', title: 'A', document: { markdown: '' } }]);
    expect((await review(space.id, a.id, { status: 'approved' }, reviewer)).status).toBe(201);
    expect((await review(space.id, a.id, { status: 'changes-requested' }, reviewer2)).status).toBe(201);
    await refused(412, () => merge(space.id, a.id), new RegExp(`every review must approve.*${reviewer2.id}`));
    expect((await review(space.id, a.id, { status: 'approved' }, reviewer2)).status).toBe(201);
    expect((await merge(space.id, a.id)).status).toBe(200);

    await set({ rule: 'require_up_to_date_change_request' });
    const [b, c] = [await createCr(space.id), await createCr(space.id)];
    await write(space.id, b.id, [{ operation: 'insert_page', title: 'B', document: { markdown: '' } }]);
    await write(space.id, c.id, [{ operation: 'insert_page', title: 'C', document: { markdown: '' } }]);
    expect((await merge(space.id, b.id)).status).toBe(200);
    await refused(412, () => merge(space.id, c.id), /up to date/);
    expect((await update(space.id, c.id)).status).toBe(200);
    expect((await merge(space.id, c.id)).status).toBe(200);

    await set({ rule: 'require_change_request_description' });
    const d = await createCr(space.id);
    await refused(412, () => merge(space.id, d.id), /description/);
    await patchCr(space.id, d.id, { description: documentFromMarkdown('') });
    await refused(412, () => merge(space.id, d.id), /description/);
    await patchCr(space.id, d.id, { description: documentFromMarkdown('Why this change') });
    expect((await merge(space.id, d.id)).status).toBe(200);

    for (const rule of [{ rule: 'require_agent_review' }, { rule: 'custom', expression: 'true' }]) {
      await set(rule, { rule: 'allow_bypass', users: [owner.id] });
      const e = await createCr(space.id, { subject: 'E' }, editor);
      await refused(412, () => merge(space.id, e.id, reviewer), rule.rule === 'custom' ? /custom expressions/ : /agent review/);
      // The owner is listed in allow_bypass: every rule is waived for them.
      expect((await merge(space.id, e.id)).status).toBe(200);
    }
  });
});

describe("the space's change request counts", () => {
  it('counts all, open and draft change requests', async () => {
    const space = await newSpace();
    const counts = async () => {
      const res = await h.rest('getSpaceById', 'GET', `/v1/spaces/${space.id}`, { token: owner.token });
      return [res.body.changeRequests, res.body.changeRequestsOpen, res.body.changeRequestsDraft];
    };
    expect(await counts()).toEqual([0, 0, 0]);
    const [a, b, c] = [await createCr(space.id), await createCr(space.id), await createCr(space.id)];
    expect(await counts()).toEqual([3, 3, 0]);
    await patchCr(space.id, a.id, { status: 'draft' });
    expect(await counts()).toEqual([3, 2, 1]);
    await patchCr(space.id, b.id, { status: 'archived' });
    expect((await merge(space.id, c.id)).status).toBe(200);
    expect(await counts()).toEqual([3, 0, 1]);
  });
});

// ---------------------------------------------------------------------------------------------

describe('coverage of the official operations', () => {
  // Runs last (tests run in file order): each change request route of this file answered a success
  // through h.rest, so it was validated against the official schema of its operation.
  it('exercised every merge, update and content write route successfully', () => {
    expect(CHANGE_REQUEST_OPERATIONS.merge.filter((id) => !h.coveredOperations.has(id))).toEqual([]);
  });
});
