import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainJobs } from '../../src/jobs/queue.js';
import { RUN_JOB } from '../../src/modules/translations/run.js';
import { translationRoutes } from '../../src/modules/translations/routes.js';
import { wordCount } from '../../src/modules/conversations/text.js';
import { documentFromMarkdown } from '../../src/document/index.js';
import { createUrls } from '../../src/urls.js';
import { newId } from '../../src/ids.js';
import { assertMatchesSpec } from '../support/openapi.js';
import { BASE, setupHarness, type Harness, type TestUser } from '../support/harness.js';
import { writeLive, type Change } from '../support/content-writes.js';

/**
 * Translations: create, list, get, update instructions, delete, run. A run is a background job that
 * translates the source space into a result space through the LibreTranslate protocol — here against
 * a local server speaking it (its "translation" upper-cases text and tags it with the target
 * language, so what was and was not translated is visible) — end to end, then incrementally.
 */
type Owner = TestUser & { orgId: string };

let h: Harness;
let owner: Owner;
let reader: TestUser;
let creator: TestUser;
let guest: TestUser;
let outsider: TestUser;

// The LibreTranslate-compatible server.
let server: http.Server;
let translatorUrl: string;
let failWith: number | null = null;
const received: { q: string[]; source: string; target: string; format: string; api_key?: string }[] = [];
const translate = (text: string, target: string) => `⟦${target}⟧ ${text.toUpperCase()}`;

const services = (
  translator: { url: string; apiKey?: string; timeoutMs: number } | null = { url: translatorUrl, apiKey: 'k3y', timeoutMs: 10_000 },
) => ({
  db: h.db,
  config: { ...h.config, translator },
  urls: createUrls(BASE),
});
const runJobs = (s = services()) => drainJobs(s, [RUN_JOB]);

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.method !== 'POST' || req.url !== '/translate') {
        res.statusCode = 404;
        return res.end(JSON.stringify({ error: 'Not found' }));
      }
      if (failWith) {
        res.statusCode = failWith;
        return res.end(JSON.stringify({ error: 'Translation engine unavailable' }));
      }
      const request = JSON.parse(body);
      received.push(request);
      const q: string | string[] = request.q;
      res.end(
        JSON.stringify({ translatedText: Array.isArray(q) ? q.map((t) => translate(t, request.target)) : translate(q, request.target) }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  translatorUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  h = await setupHarness();
  ({ owner, reader, creator, guest, outsider } = await h.world('Docs Org'));
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const path = (suffix = '', org: Owner = owner) => `/v1/orgs/${org.orgId}/translations${suffix}`;

const GUIDE = `Install the **Lectern CLI** with \`npm install lectern\`, then read [the setup guide](https://docs.example.com/setup "Setup").
This sentence continues the paragraph.

\`\`\`bash
# configure the server
lectern serve --port 8080
\`\`\`

| Option | Meaning |
| --- | --- |
| port | Port to listen on |

> Tip: keep your {{ variables.product }} token secret.

Questions? Visit <https://help.example.com> or write to us.
`;

async function newSpace(title = 'Handbook', org: Owner = owner) {
  const res = await h.call('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.token, body: { title } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function write(spaceId: string, changes: Change[], token = owner.token): Promise<string[]> {
  return (await writeLive(h, token, spaceId, changes)).pages;
}

/** A space with a group, two pages (one nested), and a link page. */
async function handbook() {
  const spaceId = await newSpace();
  const [group] = await write(spaceId, [{ operation: 'insert_page', type: 'group', title: 'Getting started' }]);
  const [guide, link] = await write(spaceId, [
    { operation: 'insert_page', into: group, title: 'Installation guide', description: 'How to install it', document: { markdown: GUIDE } },
    { operation: 'insert_page', type: 'link', title: 'Status page', href: 'https://status.example.com' },
  ]);
  const [faq] = await write(spaceId, [
    {
      operation: 'insert_page',
      into: guide,
      title: 'Frequently asked questions',
      document: { markdown: 'Where are the logs?\n\nThey are in `/var/log/lectern`.\n' },
    },
  ]);
  return { spaceId, group: group!, guide: guide!, link: link!, faq: faq! };
}

async function pages(spaceId: string) {
  const res = await h.rest('listPages', 'GET', `/v1/spaces/${spaceId}/content/pages`, { token: owner.token });
  const flat: any[] = [];
  const walk = (list: any[], parent: string | null) =>
    list.forEach((p) => (flat.push({ ...p, parentId: parent }), walk(p.pages ?? [], p.id)));
  walk(res.body.pages, null);
  return flat;
}

async function markdownOf(spaceId: string, pageId: string) {
  const res = await h.rest('getPageById', 'GET', `/v1/spaces/${spaceId}/content/page/${pageId}?format=markdown`, { token: owner.token });
  return res.body.markdown as string;
}

async function createTranslation(body: Record<string, unknown>, token = owner.token) {
  const res = await h.rest('createTranslation', 'POST', path(), { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/**
 * A translation, checked against the official schema: a run that gave up is `completed` (the
 * official statuses are pending, running, completed), with its `failureReason`.
 */
async function get(id: string) {
  const res = await h.call('GET', path(`/${id}`), { token: owner.token });
  expect(res.status).toBe(200);
  assertMatchesSpec('getTranslation', 200, res.body);
  h.coveredOperations.add('getTranslation');
  return res.body;
}
const run = async (id: string, token = owner.token) =>
  expect((await h.rest('runTranslation', 'POST', path(`/${id}/run`), { token })).status).toBe(204);

describe('create, read, update, delete', () => {
  it('creates a translation (pending, no result yet) and reads it back', async () => {
    const spaceId = await newSpace('Create');
    const instructions = documentFromMarkdown('Keep product names in English. Use the informal *tu*.');
    const t = await createTranslation({ source: { space: spaceId, language: 'en' }, language: 'pt-br', instructions });
    expect(t).toMatchObject({
      object: 'translation',
      status: 'pending',
      source: { space: spaceId, language: 'en' },
      language: 'pt-br',
      instructions,
      stats: { runs: 0, totalWords: 0, totalPages: 0, totalDuration: 0, latestRunDuration: 0, latestPages: 0, latestWords: 0 },
      permissions: { view: true, edit: true },
      urls: { location: `${BASE}/v1/orgs/${owner.orgId}/translations/${t.id}` },
    });
    expect(t.result).toBeUndefined();
    expect(await get(t.id)).toEqual(t);
    const forReader = await h.rest('getTranslation', 'GET', path(`/${t.id}`), { token: reader.token });
    expect(forReader.body.permissions).toEqual({ view: true, edit: false });
    // Without instructions: an empty document.
    const bare = await createTranslation({ source: { space: spaceId, language: 'en' }, language: 'de' }, creator.token);
    expect(bare.instructions).toEqual({ object: 'document', data: expect.any(Object), nodes: [] });
    const list = await h.rest('listTranslations', 'GET', path(), { token: reader.token });
    expect(list.body.items.map((x: any) => x.id)).toEqual([t.id, bare.id]);
    expect(list.body.count).toBe(2);
    const page = await h.rest('listTranslations', 'GET', path('?limit=1'), { token: owner.token });
    expect(page.body.items.map((x: any) => x.id)).toEqual([t.id]);
    expect(
      (await h.rest('listTranslations', 'GET', path(`?limit=1&page=${page.body.next.page}`), { token: owner.token })).body.items.map(
        (x: any) => x.id,
      ),
    ).toEqual([bare.id]);
    expect((await h.rest('getTranslation', 'GET', path(`/${newId()}`), { token: owner.token })).status).toBe(404);
    for (const q of ['?limit=0', '?page=bogus']) expect((await h.call('GET', path(q), { token: owner.token })).status).toBe(400);
  });

  it('refuses invalid input with 400 naming the field, creating nothing', async () => {
    const spaceId = await newSpace('Invalid');
    const other = (await h.owner('Other org')) as Owner;
    const foreign = await newSpace('Foreign', other);
    await createTranslation({ source: { space: spaceId, language: 'en' }, language: 'fr' });
    const before = await h.db.prisma.translation.count();
    const cases: [Record<string, unknown>, string][] = [
      [{ source: { space: spaceId, language: 'en' }, language: 'en' }, 'language'],
      [{ source: { space: spaceId, language: 'en' }, language: 'xx' }, 'language'],
      [{ source: { space: spaceId, language: 'klingon' }, language: 'fr' }, 'source.language'],
      [{ source: { space: spaceId, language: 'en' } }, 'language'],
      [{ language: 'fr' }, 'source'],
      [{ source: { space: newId(), language: 'en' }, language: 'fr' }, 'source.space'],
      [{ source: { space: foreign, language: 'en' }, language: 'fr' }, 'source.space'],
      [{ source: { space: spaceId, language: 'en' }, language: 'fr' }, 'language'],
      [{ source: { space: spaceId, language: 'en' }, language: 'es', instructions: 'be nice' }, 'instructions'],
      [
        {
          source: { space: spaceId, language: 'en' },
          language: 'es',
          instructions: { object: 'document', data: {}, nodes: [{ object: 'paragraph' }] },
        },
        'instructions.nodes[0].object',
      ],
      [{ source: { space: spaceId, language: 'en' }, language: 'es', colour: 'red' }, 'colour'],
    ];
    for (const [body, field] of cases) {
      const res = await h.rest('createTranslation', 'POST', path(), { token: owner.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      // Fields the schema requires are named in GraphQL's message ("body: Field "language" … was not provided").
      expect(res.body.error.message, JSON.stringify(body)).toMatch(
        new RegExp(`^${field.replace(/[.[\]]/g, '\\$&')}:|^body: Field "${field}"`),
      );
    }
    expect(await h.db.prisma.translation.count()).toBe(before);
  });

  it('creates only for members who create content and can read the source: 401, 404, 403', async () => {
    const spaceId = await newSpace('Rights');
    const body = { source: { space: spaceId, language: 'en' }, language: 'it' };
    const before = await h.db.prisma.translation.count();
    expect((await h.call('POST', path(), { token: null, body })).status).toBe(401);
    expect((await h.call('POST', path(), { token: outsider.token, body })).status).toBe(404);
    for (const member of [reader, guest]) expect((await h.call('POST', path(), { token: member.token, body })).status).toBe(403);
    // A space the creator cannot read is bad input for them.
    await h.call('PATCH', `/v1/spaces/${spaceId}`, { token: owner.token, body: { defaultLevel: null } });
    const hidden = await h.call('POST', path(), { token: creator.token, body });
    expect(hidden.status).toBe(400);
    expect(hidden.body.error.message).toMatch(/^source\.space/);
    expect(await h.db.prisma.translation.count()).toBe(before);
    for (const p of [path(), path(`/${newId()}`)]) {
      expect((await h.call('GET', p, { token: null })).status).toBe(401);
      expect((await h.call('GET', p, { token: outsider.token })).status).toBe(404);
      expect((await h.call('GET', p, { token: guest.token })).status).toBe(403);
    }
  });

  it('updates the instructions (PUT), refusing bad documents and callers without rights', async () => {
    const spaceId = await newSpace('Update');
    const t = await createTranslation({ source: { space: spaceId, language: 'en' }, language: 'ja' });
    const instructions = documentFromMarkdown('Use polite forms (です/ます).');
    const updated = await h.rest('updateTranslation', 'PUT', path(`/${t.id}`), { token: creator.token, body: { instructions } });
    expect(updated.status).toBe(200);
    expect(updated.body.instructions).toEqual(instructions);
    expect(Date.parse(updated.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(t.updatedAt));
    const row = () => h.db.prisma.translation.findUniqueOrThrow({ where: { id: t.id } });
    const before = await row();
    for (const [body, field] of [
      [{}, 'instructions'],
      [{ instructions: null }, 'instructions'],
      [{ instructions: { object: 'doc', data: {}, nodes: [] } }, 'instructions.object'],
      [
        {
          instructions: {
            object: 'document',
            data: {},
            nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ text: 'x' }] }] }],
          },
        },
        'instructions.nodes[0].nodes[0].leaves[0].object',
      ],
      [{ instructions, language: 'fr' }, 'language'],
    ] as const) {
      const res = await h.call('PUT', path(`/${t.id}`), { token: owner.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.message).toContain(field);
    }
    expect((await h.call('PUT', path(`/${t.id}`), { token: null, body: { instructions } })).status).toBe(401);
    expect((await h.call('PUT', path(`/${t.id}`), { token: outsider.token, body: { instructions } })).status).toBe(404);
    expect((await h.call('PUT', path(`/${newId()}`), { token: owner.token, body: { instructions } })).status).toBe(404);
    for (const member of [reader, guest])
      expect(
        (await h.call('PUT', path(`/${t.id}`), { token: member.token, body: { instructions: documentFromMarkdown('no') } })).status,
      ).toBe(403);
    expect(await row()).toEqual(before);
  });

  it('deletes (205), then answers 404 for what is gone; refuses callers without rights', async () => {
    const spaceId = await newSpace('Delete');
    const t = await createTranslation({ source: { space: spaceId, language: 'en' }, language: 'nl' });
    expect((await h.call('DELETE', path(`/${t.id}`), { token: null })).status).toBe(401);
    expect((await h.call('DELETE', path(`/${t.id}`), { token: outsider.token })).status).toBe(404);
    for (const member of [reader, guest]) expect((await h.call('DELETE', path(`/${t.id}`), { token: member.token })).status).toBe(403);
    expect(await h.db.prisma.translation.count({ where: { id: t.id } })).toBe(1);
    expect((await h.rest('deleteTranslation', 'DELETE', path(`/${t.id}`), { token: creator.token })).status).toBe(205);
    expect((await h.call('DELETE', path(`/${t.id}`), { token: creator.token })).body).toEqual({
      error: { code: 404, message: 'Translation not found' },
    });
    expect((await h.call('GET', path(`/${t.id}`), { token: owner.token })).status).toBe(404);
  });
});

describe('runs', () => {
  let book: Awaited<ReturnType<typeof handbook>>;
  let translation: any;
  let firstRun: any;

  it('refuses to run for callers without rights, and a missing translation', async () => {
    const spaceId = await newSpace('Run rights');
    const t = await createTranslation({ source: { space: spaceId, language: 'en' }, language: 'sv' });
    const jobs = () => h.db.prisma.job.count({ where: { kind: RUN_JOB } });
    const before = await jobs();
    expect((await h.call('POST', path(`/${t.id}/run`), { token: null })).status).toBe(401);
    expect((await h.call('POST', path(`/${t.id}/run`), { token: outsider.token })).status).toBe(404);
    for (const member of [reader, guest]) expect((await h.call('POST', path(`/${t.id}/run`), { token: member.token })).status).toBe(403);
    expect((await h.rest('runTranslation', 'POST', path(`/${newId()}/run`), { token: owner.token })).status).toBe(404);
    expect(await jobs()).toBe(before);
  });

  it('translates the whole space into a new space, keeping structure, code, links and variables', async () => {
    book = await handbook();
    translation = await createTranslation({
      source: { space: book.spaceId, language: 'en' },
      language: 'fr',
      instructions: documentFromMarkdown('Formal register.'),
    });
    await run(translation.id, creator.token);
    expect((await get(translation.id)).status).toBe('pending');
    received.length = 0;
    expect(await runJobs()).toBe(1);

    firstRun = await get(translation.id);
    expect(firstRun.status).toBe('completed');
    expect(firstRun.result).toEqual({ space: expect.any(String), revision: expect.any(String), language: 'fr' });
    const target = await h.rest('getSpaceById', 'GET', `/v1/spaces/${firstRun.result.space}`, { token: owner.token });
    expect(target.body).toMatchObject({ title: 'Handbook (fr)', language: 'fr' });
    expect(target.body.revision).toBe(firstRun.result.revision);

    // The LibreTranslate protocol: text format, the languages, the API key.
    expect(received.length).toBeGreaterThan(0);
    expect(received.every((r) => r.source === 'en' && r.target === 'fr' && r.format === 'text' && r.api_key === 'k3y')).toBe(true);
    const sent = received.flatMap((r) => r.q);
    // Code, URLs and variables never reach the translator.
    for (const kept of [
      'npm install lectern',
      'lectern serve',
      'configure the server',
      'https://',
      'variables.product',
      '/var/log/lectern',
    ]) {
      expect(
        sent.some((t) => t.includes(kept)),
        kept,
      ).toBe(false);
    }

    // Same tree, same slugs, translated titles.
    const [src, dst] = [await pages(book.spaceId), await pages(firstRun.result.space)];
    expect(dst.map((p) => [p.type, p.path, p.title])).toEqual(src.map((p) => [p.type, p.path, translate(p.title, 'fr')]));
    const dstIndex = new Map(src.map((p, i) => [p.id, dst[i]]));
    for (const [i, p] of src.entries()) expect(dst[i]!.parentId).toBe(p.parentId ? dstIndex.get(p.parentId)!.id : null);
    const guide = dstIndex.get(book.guide)!;
    expect(guide.description).toBe(translate('How to install it', 'fr'));
    expect(dstIndex.get(book.link)!.href).toBe('https://status.example.com');

    const md = await markdownOf(firstRun.result.space, guide.id);
    expect(md).toContain('```bash\n# configure the server\nlectern serve --port 8080\n```');
    expect(md).toContain('`npm install lectern`');
    expect(md).toContain(`**${translate('Lectern CLI', 'fr')}**`);
    expect(md).toContain(`[${translate('the setup guide', 'fr')}](https://docs.example.com/setup "Setup")`);
    expect(md).toContain('<https://help.example.com>');
    expect(md).toContain('{{ variables.product }}');
    expect(md).toContain(`| ${translate('Option', 'fr')} | ${translate('Meaning', 'fr')} |\n| --- | --- |`);
    expect(md).toContain(`> ${translate('Tip: keep your', 'fr')} {{ variables.product }} ${translate('token secret.', 'fr')}`);
    expect(md).not.toMatch(/Install the|continues the paragraph/);

    // Stats are what was sent.
    expect(firstRun.stats).toMatchObject({ runs: 1, totalPages: 4, latestPages: 4 });
    const words = sent.reduce((n, t) => n + wordCount(t), 0);
    expect(firstRun.stats.latestWords).toBe(words);
    expect(firstRun.stats.totalWords).toBe(words);
    expect(firstRun.stats.totalDuration).toBe(firstRun.stats.latestRunDuration);
    expect(Number.isInteger(firstRun.stats.latestRunDuration)).toBe(true);
    // The translated space is searchable.
    const found = await h.rest(
      'searchSpaceContent',
      'GET',
      `/v1/spaces/${firstRun.result.space}/search?query=${encodeURIComponent('SETUP GUIDE')}`,
      { token: owner.token },
    );
    expect(found.body.items.length).toBeGreaterThan(0);
  });

  it('a later run translates only the pages changed since the last one', async () => {
    const dstBefore = await pages(firstRun.result.space);
    const faqBefore = (await h.db.prisma.revision.findUniqueOrThrow({ where: { id: firstRun.result.revision } })).manifest;
    // Edit one body, add a page, delete the FAQ.
    await write(book.spaceId, [
      { operation: 'update_page', page: book.guide, document: { markdown: `${GUIDE}\nA new closing paragraph.\n` } },
      { operation: 'insert_page', title: 'Release notes', document: { markdown: 'Version 2 is out.\n' } },
      { operation: 'delete_page', page: book.faq },
    ]);
    received.length = 0;
    await run(translation.id);
    await runJobs();
    const second = await get(translation.id);
    expect(second.status).toBe('completed');
    expect(second.result.space).toBe(firstRun.result.space);
    expect(second.result.revision).not.toBe(firstRun.result.revision);
    const sent = received.flatMap((r) => r.q);
    // The changed guide (its texts) and the new page; not the untouched group or link page.
    expect(sent).toContain('A new closing paragraph.');
    expect(sent).toContain('Release notes');
    expect(sent).toContain('Version 2 is out.');
    expect(sent).not.toContain('Getting started');
    expect(sent).not.toContain('Status page');
    expect(sent).not.toContain('Installation guide'); // its title did not change
    expect(second.stats).toMatchObject({ runs: 2, latestPages: 2, totalPages: 5, latestWords: sent.reduce((n, t) => n + wordCount(t), 0) });
    expect(second.stats.totalWords).toBe(firstRun.stats.totalWords + second.stats.latestWords);

    const dst = await pages(firstRun.result.space);
    expect(dst.map((p) => p.title).sort()).toEqual(
      [
        translate('Getting started', 'fr'),
        translate('Installation guide', 'fr'),
        translate('Release notes', 'fr'),
        translate('Status page', 'fr'),
      ].sort(),
    );
    // Unchanged pages are the same pages (same ids), the deleted one is gone.
    for (const p of dst.filter((x) => x.title !== translate('Release notes', 'fr')))
      expect(dstBefore.some((b) => b.id === p.id)).toBe(true);
    const guide = dst.find((p) => p.title === translate('Installation guide', 'fr'))!;
    expect(await markdownOf(firstRun.result.space, guide.id)).toContain(translate('A new closing paragraph.', 'fr'));
    expect(faqBefore).not.toBe((await h.db.prisma.revision.findUniqueOrThrow({ where: { id: second.result.revision } })).manifest);

    // Nothing changed: a run that sends nothing and writes no revision.
    received.length = 0;
    await run(translation.id);
    await runJobs();
    const third = await get(translation.id);
    expect(received).toHaveLength(0);
    expect(third.result.revision).toBe(second.result.revision);
    expect(third.stats).toMatchObject({ runs: 3, latestPages: 0, latestWords: 0, totalPages: 5, totalWords: second.stats.totalWords });
  });

  it('keeps edits made in the translated space to pages whose source did not change', async () => {
    const dst = await pages(firstRun.result.space);
    const status = dst.find((p) => p.type === 'link')!;
    await write(firstRun.result.space, [{ operation: 'update_page', page: status.id, title: 'Page de statut' }]);
    await write(book.spaceId, [{ operation: 'update_page', page: book.guide, document: { markdown: 'Short guide now.\n' } }]);
    await run(translation.id);
    await runJobs();
    const after = await pages(firstRun.result.space);
    expect(after.find((p) => p.id === status.id)!.title).toBe('Page de statut');
    expect(await markdownOf(firstRun.result.space, after.find((p) => p.title === translate('Installation guide', 'fr'))!.id)).toBe(
      `${translate('Short guide now.', 'fr')}\n`,
    );
  });

  it('starts a new space when the translated one was deleted', async () => {
    expect((await h.call('DELETE', `/v1/spaces/${firstRun.result.space}`, { token: owner.token })).status).toBeLessThan(300);
    await run(translation.id);
    await runJobs();
    const t = await get(translation.id);
    expect(t.status).toBe('completed');
    expect(t.result.space).not.toBe(firstRun.result.space);
    expect((await pages(t.result.space)).length).toBe(4);
    expect(t.stats.latestPages).toBe(4);
  });

  it('retries a failing translator, then fails with the reason', async () => {
    const t = await createTranslation({ source: { space: book.spaceId, language: 'en' }, language: 'es' });
    await run(t.id);
    failWith = 503;
    try {
      expect(await runJobs()).toBe(1);
      let now = await get(t.id);
      expect(now.status).toBe('pending');
      expect(now.failureReason).toMatch(/attempt 1 of 3 failed, retrying: translator answered 503: Translation engine unavailable/);
      for (let attempt = 2; attempt <= 3; attempt++) {
        await h.db.prisma.job.updateMany({ where: { kind: RUN_JOB, status: 'pending' }, data: { runAfter: new Date(0) } });
        await runJobs();
      }
      now = await get(t.id);
      expect(now.status).toBe('completed');
      expect(now.failureReason).toBe('translator answered 503: Translation engine unavailable');
      expect(now.result).toBeUndefined();
      expect(now.stats.runs).toBe(0);
    } finally {
      failWith = null;
    }
    // Once the translator is back, a new run completes.
    await run(t.id);
    expect((await get(t.id)).status).toBe('pending');
    await runJobs();
    // A run that succeeds is completed with no failure reason.
    const succeeded = await get(t.id);
    expect(succeeded.status).toBe('completed');
    expect(succeeded.failureReason).toBeUndefined();
  });

  it('fails at once without a translator configured, or when the source space is gone', async () => {
    const spaceId = await newSpace('Doomed');
    await write(spaceId, [{ operation: 'insert_page', title: 'Hello', document: { markdown: 'World.\n' } }]);
    const t = await createTranslation({ source: { space: spaceId, language: 'en' }, language: 'fi' });
    await run(t.id);
    await runJobs(services(null));
    expect(await get(t.id)).toMatchObject({
      status: 'completed',
      failureReason: expect.stringMatching(/No translator is configured: set LECTERN_TRANSLATOR_URL/),
    });
    expect((await h.call('DELETE', `/v1/spaces/${spaceId}`, { token: owner.token })).status).toBeLessThan(300);
    await run(t.id);
    await runJobs();
    expect(await get(t.id)).toMatchObject({ status: 'completed', failureReason: 'The source space was deleted' });
  });

  it('deleting a translation keeps the space it wrote', async () => {
    const t = await get(translation.id);
    expect((await h.rest('deleteTranslation', 'DELETE', path(`/${t.id}`), { token: owner.token })).status).toBe(205);
    expect((await h.rest('getSpaceById', 'GET', `/v1/spaces/${t.result.space}`, { token: owner.token })).status).toBe(200);
  });
});

describe('route coverage', () => {
  it('every translations operation was exercised', () => {
    expect(translationRoutes.map((r) => r.operationId).filter((id) => !h.coveredOperations.has(id))).toEqual([]);
  });
});
