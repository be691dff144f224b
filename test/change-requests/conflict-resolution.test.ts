/**
 * Conflicts with main, resolved by a person (a Lectern addition in GraphQL): ChangeRequest.conflicts
 * lists each conflicting page with its base, main and change-request Markdown; updateChangeRequestFromMain
 * with resolutions gives those pages the chosen Markdown and merges the rest as always. Bad input is
 * refused naming the field, callers without rights are refused, and a refusal changes nothing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createCr, editor, h, merge, newSpace, outsider, owner, reader, setupChangeRequests, state, update, write } from './fixtures.js';

beforeAll(setupChangeRequests);

const CONFLICTS = `query ($s: ID!, $c: String!) {
  space(id: $s) { changeRequest(id: $c) { outdated conflicts { page title reasons resolvable base main change } } }
}`;
const UPDATE = `mutation ($s: ID!, $c: String!, $r: [ConflictResolutionInput!]) {
  updateChangeRequestFromMain(spaceId: $s, changeRequestId: $c, resolutions: $r) { revision result }
}`;
const PAGES = `query ($s: ID!, $c: String!) {
  space(id: $s) {
    content { pageList { id title } }
    changeRequest(id: $c) { content { pageList { id title } } }
  }
}`;

const BASE = 'Intro line.\n\nThe shared paragraph says one thing.\n\nClosing line.\n';
const MAIN = 'Intro line.\n\nThe shared paragraph says what main wants.\n\nClosing line.\n';
const CHANGE = 'Intro line.\n\nThe shared paragraph says what the change wants.\n\nClosing line.\n';
const CHOSEN = 'Intro line.\n\nThe shared paragraph says what the person chose.\n\nClosing line.\n';

const gql = (token: string, query: string, variables: Record<string, unknown>) => h.graphql(token, query, variables);

async function markdownOf(spaceId: string, page: string, cr?: string) {
  const q = cr
    ? 'query ($s: ID!, $c: String!, $p: ID!) { space(id: $s) { changeRequest(id: $c) { content { typedPage(id: $p) { markdown } } } } }'
    : 'query ($s: ID!, $p: ID!) { space(id: $s) { content { typedPage(id: $p) { markdown } } } }';
  const res = await gql(owner.token, q, { s: spaceId, c: cr, p: page });
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return (cr ? res.body.data.space.changeRequest.content : res.body.data.space.content).typedPage?.markdown as string | undefined;
}

/**
 * A space with two pages; change request `ours` edits the shared paragraph of "Guide" and adds a
 * page, another change request edits the same paragraph differently (and "Other") and is merged.
 */
async function conflicted() {
  const space = await newSpace();
  const [guide, other] = (await write(space.id, null, [insertDoc('Guide', BASE), insertDoc('Other', 'Other page.\n')])).pages as [
    string,
    string,
  ];
  const ours = await createCr(space.id);
  const theirs = await createCr(space.id, { subject: 'Merged first' });
  await write(space.id, ours.id, [
    { operation: 'update_page', page: guide, document: { markdown: CHANGE } },
    insertDoc('Added in the change request', 'New.\n'),
  ]);
  await write(space.id, theirs.id, [
    { operation: 'update_page', page: guide, document: { markdown: MAIN } },
    { operation: 'update_page', page: other, document: { markdown: 'Other page, edited on main.\n' } },
  ]);
  expect((await merge(space.id, theirs.id)).status).toBe(200);
  return { space, guide, other, cr: ours };
}
const insertDoc = (title: string, markdown: string) => ({ operation: 'insert_page', title, document: { markdown } });

describe('ChangeRequest.conflicts', () => {
  it('lists the conflicting page with its base, main and change-request Markdown, and nothing once it is resolved', async () => {
    const { space, guide, cr } = await conflicted();
    const res = await gql(owner.token, CONFLICTS, { s: space.id, c: cr.id });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.space.changeRequest).toEqual({
      outdated: true,
      conflicts: [
        {
          page: guide,
          title: 'Guide',
          reasons: ['its body was edited on both sides in the same place'],
          resolvable: true,
          base: BASE,
          main: MAIN,
          change: CHANGE,
        },
      ],
    });
    // Reading the conflicts wrote nothing.
    const before = await state();
    await gql(owner.token, CONFLICTS, { s: space.id, c: cr.id });
    expect(await state()).toBe(before);
    // A reader of the space sees them too (they only show what the reader may read anyway).
    expect((await gql(reader.token, CONFLICTS, { s: space.id, c: cr.id })).body.data.space.changeRequest.conflicts).toHaveLength(1);
  });

  it('is empty for a change request that merges cleanly', async () => {
    const space = await newSpace();
    const [page] = (await write(space.id, null, [insertDoc('Page', 'a\n\nb\n\nc\n')])).pages as [string];
    const cr = await createCr(space.id);
    await write(space.id, cr.id, [{ operation: 'update_page', page, document: { markdown: 'a, edited\n\nb\n\nc\n' } }]);
    await write(space.id, null, [{ operation: 'update_page', page, document: { markdown: 'a\n\nb\n\nc, edited\n' } }]);
    const res = await gql(owner.token, CONFLICTS, { s: space.id, c: cr.id });
    expect(res.body.data.space.changeRequest).toEqual({ outdated: true, conflicts: [] });
  });
});

describe('updateChangeRequestFromMain with resolutions', () => {
  it('gives the conflicting page the chosen Markdown, merges the rest, and the merge then puts it on main', async () => {
    const { space, guide, other, cr } = await conflicted();
    const res = await gql(editor.token, UPDATE, { s: space.id, c: cr.id, r: [{ pageId: guide, markdown: CHOSEN }] });
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    expect(res.body.data.updateChangeRequestFromMain).toEqual({ revision: expect.any(String), result: 'update' });
    expect(await markdownOf(space.id, guide, cr.id)).toBe(CHOSEN);
    expect(await markdownOf(space.id, other, cr.id)).toBe('Other page, edited on main.\n');
    expect((await gql(owner.token, CONFLICTS, { s: space.id, c: cr.id })).body.data.space.changeRequest).toEqual({
      outdated: false,
      conflicts: [],
    });

    expect((await merge(space.id, cr.id)).status).toBe(200);
    expect(await markdownOf(space.id, guide)).toBe(CHOSEN);
    expect(await markdownOf(space.id, other)).toBe('Other page, edited on main.\n');
    // No page lost: main has its two pages and the one the change request added.
    const pages = (await gql(owner.token, PAGES, { s: space.id, c: cr.id })).body.data.space.content.pageList;
    expect(pages.map((p: { title: string }) => p.title).sort()).toEqual(['Added in the change request', 'Guide', 'Other']);
  });

  it('without resolutions still answers 409 naming the page, and changes nothing', async () => {
    const { space, cr } = await conflicted();
    const before = await state();
    const res = await update(space.id, cr.id, editor);
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/"Guide"/);
    expect(await state()).toBe(before);
  });

  it('refuses bad resolutions with 400 naming the field, and changes nothing', async () => {
    const { space, guide, other, cr } = await conflicted();
    const cases: [unknown, RegExp][] = [
      [
        [
          { pageId: guide, markdown: CHOSEN },
          { pageId: guide, markdown: CHOSEN },
        ],
        /^resolutions\[1\]\.pageId: is given twice/,
      ],
      [[{ pageId: other, markdown: 'x\n' }], /^resolutions\[0\]\.pageId: is not a page whose body conflicts/],
      [[{ pageId: ' ', markdown: 'x\n' }], /^resolutions\[0\]\.pageId: cannot be empty/],
      [[{ pageId: guide, markdown: '[click](javascript:alert(1))\n' }], /^resolutions\[0\]\.markdown: link/],
      [
        [
          { pageId: guide, markdown: CHOSEN },
          { pageId: 'no-such-page', markdown: 'x\n' },
        ],
        /^resolutions\[1\]\.pageId: is not a page/,
      ],
    ];
    for (const [resolutions, message] of cases) {
      const before = await state();
      const res = await gql(editor.token, UPDATE, { s: space.id, c: cr.id, r: resolutions });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.errors[0]).toMatchObject({ message: expect.stringMatching(message), extensions: { code: 'BAD_REQUEST' } });
      expect(await state()).toBe(before);
    }
    // A resolution missing its Markdown is refused by the schema itself.
    const res = await gql(editor.token, UPDATE, { s: space.id, c: cr.id, r: [{ pageId: guide }] });
    expect(res.body.errors[0].message).toMatch(/markdown/);
  });

  it('refuses callers without the edit role (403) or without access (404), and changes nothing', async () => {
    const { space, guide, cr } = await conflicted();
    for (const [user, code] of [
      [reader, 'FORBIDDEN'],
      [outsider, 'NOT_FOUND'],
    ] as const) {
      const before = await state();
      const res = await gql(user.token, UPDATE, { s: space.id, c: cr.id, r: [{ pageId: guide, markdown: CHOSEN }] });
      expect(res.body.errors[0].extensions.code).toBe(code);
      expect(await state()).toBe(before);
    }
    expect(await markdownOf(space.id, guide, cr.id)).toBe(CHANGE);
  });

  it('still refuses (409) when the page also conflicts outside its body, and changes nothing', async () => {
    const { space, guide, cr } = await conflicted();
    const retitle = await createCr(space.id, { subject: 'Retitle' });
    await write(space.id, cr.id, [{ operation: 'update_page', page: guide, title: 'Guide (change)' }]);
    await write(space.id, retitle.id, [{ operation: 'update_page', page: guide, title: 'Guide (main)' }]);
    expect((await merge(space.id, retitle.id)).status).toBe(200);
    const conflicts = (await gql(owner.token, CONFLICTS, { s: space.id, c: cr.id })).body.data.space.changeRequest.conflicts;
    expect(conflicts).toMatchObject([
      { page: guide, resolvable: false, reasons: expect.arrayContaining(['title changed differently on both sides']) },
    ]);
    const before = await state();
    const res = await gql(editor.token, UPDATE, { s: space.id, c: cr.id, r: [{ pageId: guide, markdown: CHOSEN }] });
    expect(res.body.errors[0].extensions.code).toBe('CONFLICT');
    expect(await state()).toBe(before);
  });
});
