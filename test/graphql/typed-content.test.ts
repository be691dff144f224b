import { beforeAll, describe, expect, it } from 'vitest';
import { setupHarness, type Harness } from '../support/harness.js';
import { writeLive } from '../support/content-writes.js';
import { assertMatchesSpec } from '../support/openapi.js';
import { statementsOnBothLanes } from '../support/graphql-lanes.js';

/**
 * Typed content: `Page` with every official RevisionPage field, `children` to any depth,
 * `markdown`/`document`, `Space.page(path:)`, `Revision.pageTree`/`typedPage(id:|path:)`, typed
 * variables and parent revisions. The typed fields resolve from the JSON the REST reads answer, and
 * are checked against those answers here.
 */
let h: Harness;
beforeAll(async () => {
  h = await setupHarness();
});

const PAGE_FIELDS = `id title linkTitle kind type emoji icon createdAt updatedAt condition slug path description
  urls { app } hidden noIndex noRobotsIndex
  layout { width cover coverSize coverMask title description tableOfContents outline pagination metadata tags actions anchors }
  cover { yPos } git { oid path } tags { primary } variables { name value } documentId href target { ... on ContentRefURL { kind url } } computed { type props { models } } depth markdown`;

const TREE = `pageTree { ${PAGE_FIELDS} children { ${PAGE_FIELDS} children { ${PAGE_FIELDS} children { id } } } }`;

async function world() {
  const owner = await h.owner();
  const space = (await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { title: 'Typed' } })).body;
  const first = await writeLive(h, owner.token, space.id, [
    { operation: 'insert_page', title: 'Guides', type: 'group' },
    {
      operation: 'insert_page',
      title: 'Intro',
      emoji: '1f600',
      description: 'Start here',
      document: { markdown: '# Hello\n\nSee [setup](guides/setup.md) for {{ variables.product }}.' },
    },
    { operation: 'insert_page', title: 'Secret', hidden: true, noIndex: true, document: { markdown: 'hidden body' } },
    { operation: 'insert_page', title: 'Elsewhere', type: 'link', href: 'https://example.com/docs' },
    { operation: 'update_variables', variables: { product: 'Lectern' } },
    { operation: 'insert_reusable_content', title: 'Warning', document: { markdown: '> Careful with **this**.' } },
  ]);
  const [guides, intro] = first.pages as [string, string];
  const second = await writeLive(h, owner.token, space.id, [
    { operation: 'insert_page', title: 'Setup', into: guides, document: { markdown: 'Install it. Back to [intro](../intro.md).' } },
    { operation: 'insert_page', title: 'Usage', into: guides, icon: 'book', document: { markdown: 'Use it.' } },
  ]);
  const [setup] = second.pages as [string];
  const deep = await writeLive(h, owner.token, space.id, [
    { operation: 'insert_page', title: 'Linux', into: setup, document: { markdown: 'apt install' } },
  ]);
  return { owner, space, guides, intro, setup, linux: deep.pages[0]!, revision: deep.revision, previous: second.revision };
}

/** Every REST key is the typed field's value; a typed field the REST JSON leaves out is empty. */
function expectSame(typed: Record<string, any>, rest: Record<string, any>) {
  for (const [key, value] of Object.entries(rest)) {
    if (key === 'pages') continue;
    if (key === 'markdown') expect(typed.markdown, `${rest.id}.markdown`).toBe(value);
    else expect(typed[key], `${rest.id}.${key}`).toEqual(value);
  }
  for (const [key, value] of Object.entries(typed)) {
    if (key in rest || key === 'children' || key === 'depth') continue;
    // Absent in REST: null, false, an empty list, or (for a page without a body) no markdown.
    expect(
      [null, false].includes(value as never) || (Array.isArray(value) && value.length === 0),
      `${rest.id}.${key} = ${JSON.stringify(value)}`,
    ).toBe(true);
  }
  expect(typed.children.map((c: any) => c.id)).toEqual((rest.pages ?? []).map((p: any) => p.id));
  (rest.pages ?? []).forEach((p: any, i: number) => typed.children[i].children && expectSame(typed.children[i], p));
}

describe('typed pages', () => {
  it('answer every field as the REST reads do, at every depth', async () => {
    const w = await world();
    const res = await h.graphql(w.owner.token, `query($id: ID!) { space(id: $id) { content { ${TREE} } } }`, { id: w.space.id });
    expect(res.body.errors).toBeUndefined();
    const typed = res.body.data.space.content.pageTree;
    const rest = (await h.rest('listPages', 'GET', `/v1/spaces/${w.space.id}/content/pages`, { token: w.owner.token })).body.pages;
    expect(typed.map((p: any) => p.title)).toEqual(['Guides', 'Intro', 'Secret', 'Elsewhere']);
    typed.forEach((p: any, i: number) => expectSame(p, rest[i]));
    // The kinds are all there, and depth is the tree's.
    expect(typed.map((p: any) => p.type)).toEqual(['group', 'document', 'document', 'link']);
    expect(typed[0].children[0].children[0]).toMatchObject({ title: 'Linux', depth: 2 });
    expect(typed[3]).toMatchObject({
      href: 'https://example.com/docs',
      target: { kind: 'url', url: 'https://example.com/docs' },
      path: null,
      layout: null,
    });
    expect(typed[2]).toMatchObject({ hidden: true, noIndex: true });
  });

  it('answer the document and markdown a page read answers (the document valid by the official schema)', async () => {
    const w = await world();
    const q = `query($id: ID!, $page: ID!) { space(id: $id) { content { typedPage(id: $page) {
      id markdown evaluated: markdown(evaluated: "true") document evaluatedDocument: document(evaluated: "true") } } } }`;
    const res = await h.graphql(w.owner.token, q, { id: w.space.id, page: w.intro });
    expect(res.body.errors).toBeUndefined();
    const page = res.body.data.space.content.typedPage;
    const asDocument = (await h.rest('getPageById', 'GET', `/v1/spaces/${w.space.id}/content/page/${w.intro}`, { token: w.owner.token }))
      .body;
    const asMarkdown = (
      await h.rest('getPageById', 'GET', `/v1/spaces/${w.space.id}/content/page/${w.intro}?format=markdown`, { token: w.owner.token })
    ).body;
    const evaluated = (
      await h.rest('getPageById', 'GET', `/v1/spaces/${w.space.id}/content/page/${w.intro}?evaluated=true`, { token: w.owner.token })
    ).body;
    expect(page.markdown).toBe(asMarkdown.markdown);
    expect(page.evaluated).toContain('for Lectern.');
    expect(page.document).toEqual(asDocument.document);
    expect(page.evaluatedDocument).toEqual(evaluated.document);
    // The link to guides/setup.md is a page reference, as in the page read.
    expect(JSON.stringify(page.document)).toContain(w.setup);
    assertMatchesSpec('getDocumentById', 200, page.document);
    // A group has neither.
    const group = await h.graphql(
      w.owner.token,
      `query($id: ID!, $page: ID!) { space(id: $id) { content { typedPage(id: $page) { markdown document } } } }`,
      { id: w.space.id, page: w.guides },
    );
    expect(group.body.data.space.content.typedPage).toEqual({ markdown: null, document: null });
  });

  it('find a page by path (Space.page, Revision.typedPage) as getPageByPath does, null when there is none', async () => {
    const w = await world();
    const q = `query($id: ID!, $rev: ID!) { space(id: $id) {
      page(path: "/Guides/Setup/") { id path parent { id } ancestors { title } children { title } }
      missing: page(path: "guides/nope") { id }
      link: page(path: "elsewhere") { id }
      revisionById(id: $rev) { typedPage(path: "guides/setup/linux") { id title } byId: typedPage(id: "nope") { id } }
    } }`;
    const res = await h.graphql(w.owner.token, q, { id: w.space.id, rev: w.revision });
    expect(res.body.errors).toBeUndefined();
    const space = res.body.data.space;
    const rest = (await h.rest('getPageByPath', 'GET', `/v1/spaces/${w.space.id}/content/path/guides/setup`, { token: w.owner.token }))
      .body;
    expect(space.page).toEqual({
      id: rest.id,
      path: rest.path,
      parent: { id: w.guides },
      ancestors: [{ title: 'Guides' }],
      children: [{ title: 'Linux' }],
    });
    expect(space.missing).toBeNull();
    // Link pages have no path (getPageByPath answers 404 for them too).
    expect(space.link).toBeNull();
    expect(space.revisionById.typedPage).toEqual({ id: w.linux, title: 'Linux' });
    expect(space.revisionById.byId).toBeNull();
    const neither = await h.graphql(w.owner.token, `query($id: ID!) { space(id: $id) { content { typedPage { id } } } }`, {
      id: w.space.id,
    });
    expect(neither.body.errors[0].message).toMatch(/^id/);
  });

  it('type variables, reusable contents and parent revisions', async () => {
    const w = await world();
    const q = `query($id: ID!) { space(id: $id) { content { id parents variableList { name value } reusableContentList { id title documentId document } parentRevisions { id parents typedPage(path: "guides/setup") { children { id } } } } } }`;
    const res = await h.graphql(w.owner.token, q, { id: w.space.id });
    expect(res.body.errors).toBeUndefined();
    const content = res.body.data.space.content;
    const rest = (await h.rest('getCurrentRevision', 'GET', `/v1/spaces/${w.space.id}/content`, { token: w.owner.token })).body;
    expect(content.variableList).toEqual(Object.entries(rest.variables).map(([name, value]) => ({ name, value })));
    expect(content.variableList).toEqual([{ name: 'product', value: 'Lectern' }]);
    expect(content.parents).toEqual(rest.parents);
    expect(content.reusableContentList.map(({ id, title, documentId }: any) => ({ id, title, document: documentId }))).toEqual(
      rest.reusableContents,
    );
    const [reusable] = content.reusableContentList;
    const doc = (
      await h.rest(
        'getReusableContentDocumentInRevisionById',
        'GET',
        `/v1/spaces/${w.space.id}/revisions/${w.revision}/reusable-contents/${reusable.id}/document`,
        { token: w.owner.token },
      )
    ).body;
    expect(reusable).toMatchObject({ title: 'Warning', document: doc });
    expect(content.parentRevisions.map((r: any) => r.id)).toEqual([w.previous]);
    // The parent revision is read as it was: Setup had no child yet.
    expect(content.parentRevisions[0].typedPage.children).toEqual([]);
  });

  it('are refused to a caller without rights exactly as the JSON fields are', async () => {
    const w = await world();
    const outsider = await h.user();
    const guest = await h.user();
    await h.addMember(w.owner.orgId, guest.id, null);
    const reader = await h.user();
    await h.addMember(w.owner.orgId, reader.id, 'read');
    const direct = `query($id: ID!) { space(id: $id) { content { pages { id } } } }`;
    const typed = [
      `query($id: ID!) { space(id: $id) { content { pageTree { id } } } }`,
      `query($id: ID!) { space(id: $id) { page(path: "intro") { id } } }`,
      `query($id: ID!) { space(id: $id) { content { typedPage(path: "intro") { id } } } }`,
    ];
    for (const user of [outsider, guest]) {
      const refused = (await h.graphql(user.token, direct, { id: w.space.id })).body;
      expect(refused.errors.map((e: any) => [e.message, e.extensions?.code])).toEqual([['Space not found', 'NOT_FOUND']]);
      for (const q of typed) {
        const answer = (await h.graphql(user.token, q, { id: w.space.id })).body;
        expect(answer.data).toEqual(refused.data);
        expect(answer.errors.map((e: any) => [e.message, e.extensions?.code])).toEqual(
          refused.errors.map((e: any) => [e.message, e.extensions?.code]),
        );
      }
    }
    for (const q of typed) expect((await h.graphql(reader.token, q, { id: w.space.id })).body.errors).toBeUndefined();
  });
});

describe('whole trees and page reads in one selection', () => {
  it('list every page flat in reading order (pageEntries, descendants) with parentId and position', async () => {
    const w = await world();
    const ENTRY = 'id parentId position depth';
    const q = `query($id: ID!, $setup: ID!) { space(id: $id) { content {
      pages { id } pageEntries { ${ENTRY} } page(id: $setup) { descendants { ${ENTRY} } }
    } } }`;
    const res = await h.graphql(w.owner.token, q, { id: w.space.id, setup: w.guides });
    expect(res.body.errors).toBeUndefined();
    const { pages, pageEntries, page } = res.body.data.space.content;
    const rest = (await h.rest('listPages', 'GET', `/v1/spaces/${w.space.id}/content/pages`, { token: w.owner.token })).body.pages;
    const walk = (list: any[], parentId: string | null, depth: number): any[] =>
      list.flatMap((p, position) => [{ id: p.id, parentId, position, depth }, ...walk(p.pages ?? [], p.id, depth + 1)]);
    expect(pageEntries).toEqual(walk(rest, null, 0));
    expect(pages.map((p: any) => p.id)).toEqual(rest.map((p: any) => p.id));
    // Guides > Setup > Linux, and Usage: the subtree below Guides, depth first.
    expect(page.descendants.map((p: any) => p.id)).toEqual(walk(rest[0].pages, w.guides, 1).map((p) => p.id));
    expect(page.descendants[1]).toMatchObject({ id: w.linux, parentId: w.setup, position: 0, depth: 2 });
  });

  it("give a read page's body in the read's format and options, and its subpages' bodies as written", async () => {
    const w = await world();
    const BODY = 'body { __typename ... on PageMarkdownBody { markdown } ... on PageDocumentBody { document } }';
    const q = `query($id: ID!) { space(id: $id) { content {
      asMarkdown: pageByPath(path: "intro", format: markdown, evaluated: "true") { ${BODY} }
      asDocument: pageByPath(path: "guides/setup") { ${BODY} descendants { ${BODY} } }
      group: pageByPath(path: "guides", format: markdown, evaluated: "true") { ${BODY} descendants { ${BODY} } }
      listed: pages { id ${BODY} }
    } } }`;
    const res = await h.graphql(w.owner.token, q, { id: w.space.id });
    expect(res.body.errors).toBeUndefined();
    const { asMarkdown, asDocument, group, listed } = res.body.data.space.content;
    expect(asMarkdown.body).toEqual({ __typename: 'PageMarkdownBody', markdown: expect.stringContaining('for Lectern.') });
    const setup = (await h.rest('getPageByPath', 'GET', `/v1/spaces/${w.space.id}/content/path/guides/setup`, { token: w.owner.token }))
      .body;
    expect(asDocument.body).toEqual({ __typename: 'PageDocumentBody', document: setup.document });
    expect(asDocument.descendants[0].body).toEqual({ __typename: 'PageDocumentBody', document: setup.pages[0].document });
    // A group has no body; the pages below it read theirs as written, in the read's format.
    expect(group.body).toBeNull();
    expect(group.descendants.map((p: any) => p.body)).toEqual([
      { __typename: 'PageMarkdownBody', markdown: 'Install it. Back to [intro](../intro.md).' },
      { __typename: 'PageMarkdownBody', markdown: 'apt install' },
      { __typename: 'PageMarkdownBody', markdown: 'Use it.' },
    ]);
    // Elsewhere, the Markdown as stored; the link page has none.
    expect(listed.map((p: any) => p.body?.markdown ?? null)).toEqual([
      null,
      '# Hello\n\nSee [setup](guides/setup.md) for {{ variables.product }}.',
      'hidden body',
      null,
    ]);
    const bad = await h.graphql(
      w.owner.token,
      `query($id: ID!) { space(id: $id) { content { page(id: "x", evaluated: "maybe") { id } } } }`,
      {
        id: w.space.id,
      },
    );
    expect(bad.body.errors[0].message).toMatch(/^evaluated/);
  });
});

describe('N+1 guard', () => {
  it('reads a typed tree with bodies in the same number of statements for 3 and for 30 pages', async () => {
    const build = async (tops: number) => {
      const owner = await h.owner();
      const space = (await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { title: 'N' } })).body;
      const top = await writeLive(
        h,
        owner.token,
        space.id,
        Array.from({ length: tops }, (_, i) => ({
          operation: 'insert_page',
          title: `T${i}`,
          document: { markdown: `top ${i} [next](t${(i + 1) % tops}.md)` },
        })),
      );
      for (let i = 0; i < tops; i += 25) {
        await writeLive(
          h,
          owner.token,
          space.id,
          top.pages.slice(i, i + 25).flatMap((into, j) =>
            [1, 2].map((k) => ({
              operation: 'insert_page',
              title: `C${i + j}.${k}`,
              into,
              document: { markdown: `child ${k} of ${i + j}` },
            })),
          ),
        );
      }
      return { owner, space };
    };
    const q = `query($id: ID!) { space(id: $id) {
      page(path: "t0") { id }
      content { variableList { name } parentRevisions { id }
        pageTree { ${PAGE_FIELDS} document parent { id } ancestors { id } children { ${PAGE_FIELDS} document parent { id } ancestors { id } children { id } } } } } }`;
    const measure = async ({ owner, space }: Awaited<ReturnType<typeof build>>, pages: number) => {
      const { statements, body } = await statementsOnBothLanes(h, owner.token, q, { id: space.id });
      const tree = body.data.space.content.pageTree;
      expect(tree.length + tree.reduce((n: number, p: any) => n + p.children.length, 0)).toBe(pages);
      expect(tree[0].children[0].document.nodes.length).toBeGreaterThan(0);
      return statements;
    };
    const small = await measure(await build(1), 3);
    const large = await measure(await build(10), 30);
    expect(large).toEqual(small);
    // Yoga's lane reads the space with the caller's membership in one statement (src/auth/access-rows.ts); the direct
    // lane reads it with the authentication, and the first statements of its content while the token is checked.
    expect(large).toMatchInlineSnapshot(`
      {
        "direct": 6,
        "yoga": 8,
      }
    `);
  });

  it("reads every space's typed tree in a constant number of statements", async () => {
    const build = async (spaces: number) => {
      const owner = await h.owner();
      for (let i = 0; i < spaces; i++) {
        const space = (await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { title: `S${i}` } })).body;
        await writeLive(h, owner.token, space.id, [{ operation: 'insert_page', title: 'A', document: { markdown: 'a' } }]);
      }
      return owner;
    };
    const q = `query($id: ID!) { organization(id: $id) { spaces(limit: 100) { items { page(path: "a") { id markdown } content { pageTree { id title markdown children { id } } } } } } }`;
    const measure = async (owner: Awaited<ReturnType<typeof build>>) => {
      const before = h.db.statements.count;
      const res = await h.graphql(owner.token, q, { id: owner.orgId });
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.organization.spaces.items.every((s: any) => s.page.markdown === 'a')).toBe(true);
      return h.db.statements.count - before;
    };
    expect(await measure(await build(6))).toBe(await measure(await build(2)));
  });
});

describe('page trees kept per manifest', () => {
  it('are read once per process, follow every change at once, and carry each space its own URLs', async () => {
    const owner = await h.owner();
    const space = (await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { title: 'Kept' } })).body;
    const written = await writeLive(h, owner.token, space.id, [
      { operation: 'insert_page', title: 'One', document: { markdown: 'one' } },
      { operation: 'insert_page', title: 'Two', document: { markdown: 'two' } },
    ]);
    const q = `query($id: ID!) { space(id: $id) { content { pageTree { id title path urls { app } children { id } } } } }`;
    const read = async (id: string) => {
      const before = h.db.statements.count;
      const res = await h.graphql(owner.token, q, { id });
      expect(res.body.errors).toBeUndefined();
      return { tree: res.body.data.space.content.pageTree as any[], statements: h.db.statements.count - before };
    };
    const first = await read(space.id);
    const again = await read(space.id);
    expect(again.tree).toEqual(first.tree);
    // The second read finds the tree kept: it reads no shard of the manifest.
    expect(again.statements).toBe(first.statements - 1);

    // A change makes a new manifest: the next read shows it, nothing stale.
    await writeLive(h, owner.token, space.id, [{ operation: 'update_page', page: written.pages[0]!, title: 'One, renamed' }]);
    const changed = await read(space.id);
    expect(changed.tree.map((p) => p.title)).toEqual(['One, renamed', 'Two']);

    // A duplicate shares the manifest (content-addressed) but its pages are its own: its URLs.
    const copy = (await h.call('POST', `/v1/spaces/${space.id}/duplicate`, { token: owner.token })).body;
    const copied = await read(copy.id);
    expect(copied.tree.map((p) => p.title)).toEqual(['One, renamed', 'Two']);
    expect(copied.tree[0].urls.app).toContain(`/s/${copy.id}/`);
    expect(changed.tree[0].urls.app).toContain(`/s/${space.id}/`);
  });
});
