/**
 * Parse once, through the API: a page body is parsed once when written (the search index and later
 * reads use that parse) and never again when read, as REST or GraphQL documents.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { setupHarness, type Harness, type TestUser } from '../support/harness.js';
import { writeLive, type Change } from '../support/content-writes.js';
import { documentFromMarkdown, markdownParseCount } from '../../src/document/index.js';

let h: Harness;
let owner: TestUser & { orgId: string };
let spaceId: string;

beforeAll(async () => {
  h = await setupHarness();
  owner = await h.owner();
  spaceId = (await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { title: 'Docs' } })).body.id;
});

async function parsesDuring<T>(run: () => Promise<T>): Promise<{ parses: number; result: T }> {
  const before = markdownParseCount();
  const result = await run();
  return { parses: markdownParseCount() - before, result };
}

const body = (n: number) =>
  `# Guide ${n}\n\nRead [the setup](setup) and [the site](https://example.com).\n\n## Install ${n}\n\n- one\n- two\n\n\`\`\`sh\nnpm i\n\`\`\`\n`;
/** A live write in the official format (throws unless it answers 200). */
const write = (changes: Change[]) => writeLive(h, owner.token, spaceId, changes);
const readDocument = (pageId: string) =>
  h.call('GET', `/v1/spaces/${spaceId}/content/page/${pageId}?format=document`, { token: owner.token });
const graphqlDocument = (pageId: string) =>
  h.graphql(
    owner.token,
    'query($s: ID!, $p: ID!) { space(id: $s) { content { page(id: $p, format: document) { id title body { ... on PageDocumentBody { document } } } } } }',
    {
      s: spaceId,
      p: pageId,
    },
  );

describe('parse once (through the API)', () => {
  it('a live write parses its body once (the search index reuses it); reads parse nothing, REST or GraphQL', async () => {
    const written = await parsesDuring(() => write([{ operation: 'insert_page', title: 'Guide', document: { markdown: body(1) } }]));
    expect(written.parses).toBe(1);
    const pageId = written.result.pages[0]!;
    const indexed = await h.db.prisma.searchSection.findMany({ where: { spaceId, pageId }, orderBy: { sectionId: 'asc' } });
    expect(indexed.map((s) => s.title)).toEqual(['Guide 1', 'Install 1']);

    for (let i = 0; i < 2; i++) {
      const rest = await parsesDuring(() => readDocument(pageId));
      expect(rest.result.status).toBe(200);
      expect(rest.parses).toBe(0);
      expect(rest.result.body.document.nodes.map((n: { type: string }) => n.type)).toEqual(
        documentFromMarkdown(body(1)).nodes.map((n) => n.type),
      );
      const gql = await parsesDuring(() => graphqlDocument(pageId));
      expect(gql.parses).toBe(0);
      const { id, title, document } = rest.result.body;
      expect(gql.result.body.data.space.content.page).toEqual({ id, title, body: { document } });
    }
  });

  it('two pages with the same body parse it once; a body with front matter is parsed once, stored without it', async () => {
    const same = await parsesDuring(() =>
      write([
        { operation: 'insert_page', title: 'A', document: { markdown: body(2) } },
        { operation: 'insert_page', title: 'B', document: { markdown: body(2) } },
      ]),
    );
    expect(same.parses).toBe(1);
    const [a, b] = same.result.pages;
    const reads = await parsesDuring(async () => [await readDocument(a!), await readDocument(b!)]);
    expect(reads.parses).toBe(0);
    expect(reads.result[0]!.body.document).toEqual(reads.result[1]!.body.document);

    const fronted = await parsesDuring(() =>
      write([
        { operation: 'insert_page', document: { markdown: `---\ntitle: Fronted\ndescription: With front matter\n---\n\n${body(3)}` } },
      ]),
    );
    expect(fronted.parses).toBe(1);
    const read = await parsesDuring(() => readDocument(fronted.result.pages[0]!));
    expect(read.parses).toBe(0);
    expect(read.result.body).toMatchObject({ title: 'Fronted', description: 'With front matter' });
    expect(JSON.stringify(read.result.body.document.nodes)).toBe(JSON.stringify(documentFromMarkdown(body(3)).nodes));
  });

  it('a change request edit parses once, and its merge (indexing the new body) parses nothing', async () => {
    const pageId = (await write([{ operation: 'insert_page', title: 'Edited', document: { markdown: body(4) } }])).pages[0]!;
    const cr = (await h.call('POST', `/v1/spaces/${spaceId}/change-requests`, { token: owner.token, body: { subject: 'Edit' } })).body as {
      id: string;
    };
    const edit = await parsesDuring(() =>
      h.call('POST', `/v1/spaces/${spaceId}/change-requests/${cr.id}/content`, {
        token: owner.token,
        body: { changes: [{ operation: 'update_page', page: pageId, document: { markdown: body(5) } }] },
      }),
    );
    expect(edit.result.status, JSON.stringify(edit.result.body)).toBe(200);
    expect(edit.parses).toBe(1);
    const merge = await parsesDuring(() => h.call('POST', `/v1/spaces/${spaceId}/change-requests/${cr.id}/merge`, { token: owner.token }));
    expect(merge.result.status, JSON.stringify(merge.result.body)).toBeLessThan(300);
    expect(merge.parses).toBe(0);
    const indexed = await h.db.prisma.searchSection.findMany({ where: { spaceId, pageId }, orderBy: { sectionId: 'asc' } });
    expect(indexed.map((s) => s.title)).toEqual(['Guide 5', 'Install 5']);
  });
});
