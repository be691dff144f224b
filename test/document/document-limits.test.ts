import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupHarness, type Harness } from '../support/harness.js';
import { requestRefusalChecker } from '../support/refused.js';
import { writeLive } from '../support/content-writes.js';
import { describeHealth, serveOnLoopback, whileProbing } from '../support/stall.js';
import { MARKDOWN_MAX_BYTES, MARKDOWN_MAX_DEPTH, documentFromMarkdown, markdownParseCount } from '../../src/document/index.js';

/**
 * Markdown is refused before the parser runs when it is too big
 * or nested too deeply (before the parser runs, with a 400 naming the field, the event loop free);
 * rich-text documents nested 20,000 deep are a 400, not a 500; links that run code are refused.
 */
let h: Harness;
let owner: Awaited<ReturnType<Harness['owner']>>;
let server: Awaited<ReturnType<typeof serveOnLoopback>>;
let spaceId: string;
let pageId: string;
const refused = requestRefusalChecker({ call: (m, p, o) => h.call(m, p, o), rest: (id, m, p, o) => h.rest(id, m, p, o) }, () =>
  h.snapshot(),
);

/** A list nested `levels` deep, two spaces per level (300 levels: 91 KB, as in the issue). */
const nestedList = (levels: number) => Array.from({ length: levels }, (_, i) => `${'  '.repeat(i)}- item ${i}`).join('\n');
/** The JSON of a rich-text document whose blocks nest `depth` deep (as text: JSON.stringify would overflow). */
const deepDocument = (depth: number) =>
  `{"object":"document","data":{},"nodes":[${'{"object":"block","type":"blockquote","data":{},"nodes":['.repeat(depth)}{"object":"text","leaves":[]}${']}'.repeat(depth)}]}`;
/** Sends a JSON body given as text, to the app on loopback. */
async function send(method: string, path: string, json: string) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
    body: json,
  });
  return { status: res.status, body: await res.json() };
}

const content = (_body: unknown) => `/v1/spaces/${spaceId}/content`;
const post = (url: string, body: string) =>
  fetch(url, { method: 'POST', headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' }, body });

beforeAll(async () => {
  h = await setupHarness();
  owner = await h.owner();
  server = await serveOnLoopback(h.app);
  spaceId = (await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { title: 'Docs' } })).body.id;
  [pageId] = (await writeLive(h, owner.token, spaceId, [{ operation: 'insert_page', title: 'Guide', document: { markdown: 'Hello' } }]))
    .pages as [string];
});
afterAll(() => server?.close());

describe('Markdown size and nesting', () => {
  const write = (markdown: string) => ({ changes: [{ operation: 'update_page', page: pageId, document: { markdown } }] });

  it('refuses a 300-level list and 5,000 levels with a 400 naming the field, before parsing, the event loop free', async () => {
    // Warm the write path first (the first request of a file loads modules), so the timing is the refusal's.
    expect((await h.call('POST', content(null), { token: owner.token, body: write('>'.repeat(40)) })).status).toBe(400);
    const list300 = JSON.stringify(write(nestedList(300)));
    // 5,000 levels of list on one line (10 KB; indented one per line it is 25 MB, a body-size matter).
    const list5000 = JSON.stringify(write(`${'- '.repeat(5000)}deep`));
    expect(list300.length).toBeGreaterThan(90_000);
    const parses = markdownParseCount();
    const { result, health } = await whileProbing(server.url, async () => {
      const a = await post(`${server.url}${content(null)}`, list300);
      const b = await post(`${server.url}${content(null)}`, list5000);
      return { a: { status: a.status, body: await a.json() }, b: { status: b.status, body: await b.json() } };
    });
    // Refused before the parser ran (on this thread or a worker's): what made the refusal cheap.
    expect(markdownParseCount()).toBe(parses);
    expect(result.a.status).toBe(400);
    expect(result.a.body.error.message).toMatch(
      /^changes\[0\]\.document: is nested too deeply: lists and quotes go at most 32 levels deep \(line 33\)/,
    );
    expect(result.b.status).toBe(400);
    expect(result.b.body.error.message).toMatch(
      /^changes\[0\]\.document: is nested too deeply: lists and quotes go at most 32 levels deep \(line 1\)/,
    );
    expect(health.failures).toBe(0);
    expect(health.free, describeHealth(health)).toBe(true);
  });

  it('answers 2,000 nested quotes with a clear 400, not an internal message', async () => {
    const res = await refused(400, 'POST', content(null), {
      token: owner.token,
      body: write(`${'>'.repeat(2000)} deep`),
      field: 'changes[0].document',
    });
    expect(res.body.error.message).toMatch(/nested too deeply/);
    expect(res.body.error.message).not.toMatch(/call stack/i);
  });

  it('refuses deep emphasis and nested images, and more than 1 MB, before parsing', async () => {
    await refused(400, 'POST', content(null), {
      token: owner.token,
      body: write(`${'!['.repeat(2000)}x${'](u)'.repeat(2000)}`),
      field: 'changes[0].document',
    });
    await refused(400, 'POST', content(null), {
      token: owner.token,
      body: write(`${'**'.repeat(40)}x${'**'.repeat(40)}`),
      field: 'changes[0].document',
    });
    // Closing brackets hidden in code spans do not fool the count.
    await refused(400, 'POST', content(null), {
      token: owner.token,
      body: write(`${'[`]`'.repeat(100)}x${'](u)'.repeat(100)}`),
      field: 'changes[0].document',
    });
    // Thousands of emphasis marks in one paragraph: micromark's pairing grows with their square.
    const marks = await refused(400, 'POST', content(null), {
      token: owner.token,
      body: write('a *b* c '.repeat(16_000)),
      field: 'changes[0].document',
    });
    expect(marks.body.error.message).toMatch(/too many emphasis marks and links in one paragraph/);
    const big = await refused(400, 'POST', content(null), {
      token: owner.token,
      body: write('x'.repeat(MARKDOWN_MAX_BYTES + 1)),
      field: 'changes[0].document',
    });
    expect(big.body.error.message).toMatch(/at most 1048576 bytes/);
  });

  it(`accepts a ${MARKDOWN_MAX_DEPTH}-level list and reads it back as a document`, async () => {
    const res = await h.call('POST', content(null), { token: owner.token, body: write(nestedList(MARKDOWN_MAX_DEPTH)) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const page = await h.call('GET', `/v1/spaces/${spaceId}/content/page/${pageId}?format=document`, { token: owner.token });
    expect(page.status).toBe(200);
    expect(page.body.document).toEqual(documentFromMarkdown(nestedList(MARKDOWN_MAX_DEPTH)));
    expect(JSON.stringify(page.body.document)).toContain(`item ${MARKDOWN_MAX_DEPTH - 1}`);
  });

  it('reads an over-deep body stored before the limits as its source in a code block, without parsing it', () => {
    const parses = markdownParseCount();
    const doc = documentFromMarkdown(nestedList(300));
    expect(markdownParseCount()).toBe(parses);
    expect(doc.nodes).toHaveLength(1);
    expect(doc.nodes[0]).toMatchObject({ type: 'code', data: { syntax: 'markdown' } });
  });
});

describe('large ordinary pages are parsed off the event loop', () => {
  it('writes a 256 KB page and reads it as a document while the event loop stays free', { timeout: 60_000 }, async () => {
    const paragraph =
      'Lorem ipsum dolor sit amet, **consectetur** adipiscing elit, [sed do](https://example.com) `eiusmod` tempor incididunt.\n\n';
    const markdown = `# Big\n\n${paragraph.repeat(Math.floor(MARKDOWN_MAX_BYTES / 4 / paragraph.length))}`;
    const body = JSON.stringify({ changes: [{ operation: 'insert_page', title: 'Big', document: { markdown } }] });
    // Parsing this on the event loop took 0.5-0.9 s (micromark: ~3 µs a character; 1 MB 1.5-3 s).
    const written = await whileProbing(server.url, () => send('POST', `/v1/spaces/${spaceId}/content`, body));
    expect(written.result.status, JSON.stringify(written.result.body).slice(0, 300)).toBe(200);
    expect(written.health.free, describeHealth(written.health)).toBe(true);
    const page = written.result.body.changes.at(-1).page.id;

    const read = await whileProbing(server.url, () =>
      fetch(`${server.url}/v1/spaces/${spaceId}/content/page/${page}?format=document`, {
        headers: { authorization: `Bearer ${owner.token}` },
      }).then((r) => r.json() as Promise<any>),
    );
    expect(read.health.free, describeHealth(read.health)).toBe(true);
    expect(read.result.document.nodes[0]).toMatchObject({ type: 'heading-1' });
    expect(read.result.document.nodes.length).toBeGreaterThan(2000);
    // The same document as parsing inline gives (the worker runs the same parser).
    expect(read.result.document).toEqual(documentFromMarkdown(markdown));
    // Read again: the cached document is a copy (references resolved for one read do not leak into the next).
    const again = (await h.call('GET', `/v1/spaces/${spaceId}/content/page/${page}?format=document`, { token: owner.token })).body;
    expect(again.document).toEqual(read.result.document);
  });
});

describe('rich-text documents nested 20,000 deep', () => {
  const deep = deepDocument(20_000);

  const expectRefused = async (res: { status: number; body: any }, field: string) => {
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(400);
    expect(res.body).toEqual({ error: { code: 400, message: expect.any(String) } });
    expect(res.body.error.message).toMatch(new RegExp(`^${field.replace(/\./g, '\\.')}(:| )`));
  };

  it('agent instructions: 400 naming the field, nothing changed', async () => {
    const before = await h.snapshot();
    const res = await send('PUT', `/v1/orgs/${owner.orgId}/agent-instructions`, `{"instructions":${deep}}`);
    await expectRefused(res, 'instructions');
    expect(res.body.error.message).toMatch(/nested too deeply/);
    expect(await h.snapshot()).toBe(before);
    expect(await h.db.prisma.agentInstructions.count()).toBe(0);
  });

  it('a comment body: 400 naming the field', async () => {
    const res = await send('POST', `/v1/spaces/${spaceId}/comments`, `{"body":{"document":${deep}}}`);
    // Deeper than any body may be (256 levels of JSON): refused naming the top-level field.
    await expectRefused(res, 'body');
    expect(res.body.error.message).toMatch(/nested too deeply/);
    expect(await h.db.prisma.comment.count()).toBe(0);
  });

  it('a comment whose Markdown nests past the page limits: 400 naming body.markdown, nothing stored', async () => {
    const res = await send('POST', `/v1/spaces/${spaceId}/comments`, JSON.stringify({ body: { markdown: nestedList(300) } }));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^body\.markdown: .*nested/);
    expect(await h.db.prisma.comment.count()).toBe(0);
  });

  it('translation instructions: 400 naming the field', async () => {
    const res = await send(
      'POST',
      `/v1/orgs/${owner.orgId}/translations`,
      `{"source":{"space":"${spaceId}","language":"en"},"language":"fr","instructions":${deep}}`,
    );
    await expectRefused(res, 'instructions');
    expect(res.body.error.message).toMatch(/nested too deeply/);
    expect(await h.db.prisma.translation.count()).toBe(0);
  });

  it('the same document through GraphQL: an error naming the field, not a 500', async () => {
    const query = 'mutation($o: ID!, $i: JSON!) { updateAgentInstructions(organizationId: $o, input: { instructions: $i }) { updatedAt } }';
    const res = await send('POST', '/graphql', `{"query":${JSON.stringify(query)},"variables":{"o":"${owner.orgId}","i":${deep}}}`);
    expect(res.status).not.toBe(500);
    expect(res.body.errors[0].message).toMatch(/nested too deeply/);
    expect(res.body.errors[0].message).not.toMatch(/call stack/i);
  });
});

describe('links that run code', () => {
  const write = (markdown: string) => ({ changes: [{ operation: 'update_page', page: pageId, document: { markdown } }] });

  it.each([
    ['javascript:', '[click](javascript:alert(1))'],
    ['JavaScript: in a reference definition', '[click][x]\n\n[x]: JavaScript:alert(1)'],
    ['an autolink', '<javascript:alert(1)>'],
    ['vbscript:', '[x](vbscript:msgbox)'],
    ['data: text', '[x](data:text/html;base64,PHNjcmlwdD4=)'],
    ['data: SVG image', '![x](data:image/svg+xml;base64,PHN2Zz4=)'],
    ['an entity-encoded scheme', '[x](&#106;avascript:alert(1))'],
  ])('refuses %s with a 400 naming the field and the link, changing nothing', async (_, markdown) => {
    const res = await refused(400, 'POST', content(null), { token: owner.token, body: write(markdown), field: 'changes[0].document' });
    expect(res.body.error.message).toMatch(/link ".*" uses a scheme that is not allowed/i);
  });

  it('keeps safe links and raster data: images; a stored javascript: link reads as its text; raw HTML is marked as text', async () => {
    const ok = await h.call('POST', content(null), {
      token: owner.token,
      body: write('[a](https://example.com) [b](/rel) [c](mailto:a@b.c) ![d](data:image/png;base64,iVBORw0KGgo=)'),
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const doc = documentFromMarkdown('A [click](javascript:alert(1)) and ![i](javascript:x) <b>bold</b>');
    expect(JSON.stringify(doc)).not.toMatch(/javascript/i);
    expect(JSON.stringify(doc)).toContain('click');
    expect(doc.data).toEqual({ schemaVersion: 1, rawHtml: 'text' });
    expect(documentFromMarkdown('plain').data).toEqual({ schemaVersion: 1 });
  });
});
