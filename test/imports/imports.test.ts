/**
 * Imports over real HTTP: an upload URL served by Lectern (signed, expiring, size-limited PUT),
 * archives built here (.zip with yazl, .tar.gz with tar-stream + zlib) imported into main and into
 * a change request, progress, cancelling, and the archive refusals (path traversal, zip bomb, links).
 */
import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';
import yazl from 'yazl';
import yauzl from 'yauzl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainJobs } from '../../src/jobs/queue.js';
import { IMPORT_RUN_JOB } from '../../src/modules/imports/index.js';
import { putBody } from '../../src/modules/content/store.js';
import { startServer } from '../../src/server.js';
import { createUrls } from '../../src/urls.js';
import { BASE, setupHarness, type Harness, type World } from '../support/harness.js';

let h: Harness;
let w: World;
let spaceId: string;
let server: Awaited<ReturnType<typeof startServer>>;
const services = () => ({ db: h.db, config: h.config, urls: createUrls(BASE) });
const drain = () => drainJobs(services(), [IMPORT_RUN_JOB]);
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

function zip(files: Record<string, string | Buffer>, opts: { mode?: Record<string, number> } = {}): Promise<Buffer> {
  const z = new yazl.ZipFile();
  for (const [path, data] of Object.entries(files))
    z.addBuffer(Buffer.isBuffer(data) ? data : Buffer.from(data), path, { mode: opts.mode?.[path] ?? 0o100644 });
  z.end();
  const chunks: Buffer[] = [];
  return new Promise((done) => {
    z.outputStream.on('data', (c: Buffer) => chunks.push(c));
    z.outputStream.on('end', () => done(Buffer.concat(chunks)));
  });
}

async function tarGz(entries: { name: string; data?: string; type?: 'file' | 'symlink'; linkname?: string }[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (c: Buffer) => chunks.push(c));
  const ended = new Promise((done) => pack.on('end', done));
  for (const e of entries) {
    if (e.type === 'symlink') pack.entry({ name: e.name, type: 'symlink', linkname: e.linkname });
    else pack.entry({ name: e.name }, e.data ?? '');
  }
  pack.finalize();
  await ended;
  return gzipSync(Buffer.concat(chunks));
}

async function uploadUrl(name: string, size: number, token = w.owner.token) {
  if (token !== w.owner.token)
    return h.call('POST', `/v1/orgs/${w.orgId}/storage/upload`, {
      token,
      body: { kind: 'import_file', file: { name, type: 'application/zip', size } },
    });
  return h.rest('generateStorageUploadURL', 'POST', `/v1/orgs/${w.orgId}/storage/upload`, {
    token,
    body: { kind: 'import_file', file: { name, type: 'application/zip', size } },
  });
}
const put = (url: string, body: Buffer) => fetch(url.replace(BASE, server.url), { method: 'PUT', body: new Uint8Array(body) });
async function upload(name: string, data: Buffer): Promise<string> {
  const res = await uploadUrl(name, data.length);
  expect(res.status).toBe(201);
  expect((await put(res.body.url, data)).status).toBe(200);
  return res.body.key;
}
async function start(body: unknown, token = w.owner.token) {
  if (token !== w.owner.token) return h.call('POST', `/v1/org/${w.orgId}/imports`, { token, body });
  return h.rest('startImportRun', 'POST', `/v1/org/${w.orgId}/imports`, { token, body });
}
const getRun = async (id: string) =>
  (await h.rest('getImportRun', 'GET', `/v1/org/${w.orgId}/imports/${id}`, { token: w.owner.token })).body;
const flat = (pages: any[]): any[] => pages.flatMap((p) => [p, ...flat(p.pages ?? [])]);
const pagesOf = async (path: string) => (await h.call('GET', `${path}/content`, { token: w.owner.token })).body.pages as any[];
const markdown = async (path: string, pageId: string) =>
  (await h.call('GET', `${path}/content/page/${pageId}?format=markdown`, { token: w.owner.token })).body.markdown as string;

beforeAll(async () => {
  h = await setupHarness();
  w = await h.world('Imports Co');
  spaceId = (await h.call('POST', `/v1/orgs/${w.orgId}/spaces`, { token: w.owner.token, body: { title: 'Imported' } })).body.id;
  server = await startServer({ ...h.config, host: '127.0.0.1', port: 0 }, { db: h.db, worker: false });
});
afterAll(() => server?.close());

describe('uploads', () => {
  it('gives a signed upload URL (official shape) that takes at most the declared size, once', async () => {
    const res = await uploadUrl('docs.zip', 10);
    expect(res.body).toMatchObject({ object: 'storage-signed-url', key: expect.stringMatching(/^imports\//) });
    expect(res.body.url).toMatch(new RegExp(`^${BASE}/storage/uploads/imports/`));
    const url = res.body.url as string;
    expect((await put(url.replace(/signature=[^&]+/, 'signature=forged'), Buffer.alloc(5))).status).toBe(403);
    expect((await put(url.replace(/expires=\d+/, 'expires=1'), Buffer.alloc(5))).status).toBe(403);
    expect((await put(url, Buffer.alloc(11))).status).toBe(413);
    expect((await put(url, Buffer.alloc(10))).status).toBe(200);
    expect((await put(url, Buffer.alloc(10))).status).toBe(409);
  });

  it('400 names the field; a reader and an outsider are refused', async () => {
    const path = `/v1/orgs/${w.orgId}/storage/upload`;
    expect(
      (
        await h.call('POST', path, {
          token: w.owner.token,
          body: { kind: 'customization_font', file: { name: 'a.woff', type: 'font/woff', size: 1 } },
        })
      ).body.error.message,
    ).toMatch(/^kind:/);
    expect(
      (
        await h.call('POST', path, {
          token: w.owner.token,
          body: { kind: 'import_file', file: { name: 'a.zip', type: 'application/zip', size: 1e12 } },
        })
      ).body.error.message,
    ).toMatch(/^file\.size:/);
    expect((await h.call('POST', path, { token: w.owner.token, body: { kind: 'import_file' } })).body.error.message).toMatch(/^file:/);
    expect((await uploadUrl('a.zip', 5, w.reader.token)).status).toBe(403);
    expect([403, 404]).toContain((await uploadUrl('a.zip', 5, w.outsider.token)).status);
  });
});

describe('import runs', () => {
  it('imports a Git-layout .zip into main: pages appended after the space’s own, links and images resolved, progress complete', async () => {
    const before = flat(await pagesOf(`/v1/spaces/${spaceId}`));
    const archive = await zip({
      'handbook-main/docs/SUMMARY.md':
        '# Table of contents\n\n* [Welcome](README.md)\n* [Guide](guide/README.md)\n  * [Install](guide/install.md)\n\n## Reference\n\n* [API](reference/api.md)\n',
      'handbook-main/docs/README.md': '# Welcome\n\nRead [the install](guide/install.md).\n\n![Logo](.gitbook/assets/logo.png)\n',
      'handbook-main/docs/guide/README.md': '# Guide\n',
      'handbook-main/docs/guide/install.md': '---\ndescription: How to install.\n---\n\n# Install\n\n```sh\nnpm i\n```\n',
      'handbook-main/docs/reference/api.md': '# API\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n',
      'handbook-main/docs/stray.md': '# Not listed\n',
      'handbook-main/docs/.gitbook/assets/logo.png': PNG,
      'handbook-main/src/index.ts': 'export {};\n',
    });
    const key = await upload('handbook.zip', archive);
    const res = await start({ source: { type: 'file', files: [key] }, target: { space: spaceId } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: 'import-run',
      status: 'pending',
      target: { space: spaceId },
      createdBy: w.owner.id,
      urls: { location: `${BASE}/v1/org/${w.orgId}/imports/${res.body.id}` },
    });
    expect(await drain()).toBe(1);
    const run = await getRun(res.body.id);
    expect(run).toMatchObject({ status: 'completed', progress: { pagesDone: 5, pagesTotal: 5 } });
    expect(run.pages.map((p: any) => [p.type, p.status, p.sourceURL])).toEqual([
      ['page', 'complete', 'README.md'],
      ['page', 'complete', 'guide/README.md'],
      ['page', 'complete', 'guide/install.md'],
      ['folder', 'complete', undefined],
      ['page', 'complete', 'reference/api.md'],
    ]);
    expect(run.skipped).toContainEqual({ path: 'stray.md', reason: 'not listed in SUMMARY.md' });
    const after = flat(await pagesOf(`/v1/spaces/${spaceId}`));
    expect(after.slice(0, before.length).map((p) => p.id)).toEqual(before.map((p) => p.id));
    const imported = after.slice(before.length);
    expect(imported.map((p) => p.title)).toEqual(['Welcome', 'Guide', 'Install', 'Reference', 'API']);
    const install = imported[2];
    expect(install.description).toBe('How to install.');
    const welcome = await markdown(`/v1/spaces/${spaceId}`, imported[0].id);
    expect(welcome).toContain(`[the install](/pages/${install.id})`);
    const files = (await h.call('GET', `/v1/spaces/${spaceId}/content/files`, { token: w.owner.token })).body.items as any[];
    expect(files.map((f) => f.name)).toEqual(['logo.png']);
    expect(welcome).toContain(`/files/${files[0].id}`);
    const list = await h.rest('listImportRuns', 'GET', `/v1/org/${w.orgId}/imports?space=${spaceId}&status=completed`, {
      token: w.owner.token,
    });
    expect(list.body.items.map((r: any) => r.id)).toEqual([res.body.id]);
    expect(
      (await h.rest('listImportRuns', 'GET', `/v1/org/${w.orgId}/imports?status=active`, { token: w.owner.token })).body.items,
    ).toEqual([]);
  });

  it('imports an MkDocs .tar.gz (nav → tree, index.md as folder pages) into a change request; main is untouched', async () => {
    const cr = (await h.call('POST', `/v1/spaces/${spaceId}/change-requests`, { token: w.owner.token, body: { subject: 'Import MkDocs' } }))
      .body;
    const mainBefore = (await h.call('GET', `/v1/spaces/${spaceId}`, { token: w.owner.token })).body.revision;
    const archive = await tarGz([
      {
        name: 'mkdocs.yml',
        data: 'site_name: Tool\nnav:\n  - Home: index.md\n  - Usage:\n    - usage/index.md\n    - Flags: usage/flags.md\n',
      },
      { name: 'docs/index.md', data: '# Tool\n\nSee [flags](usage/flags.md).\n' },
      { name: 'docs/usage/index.md', data: '# Usage\n' },
      { name: 'docs/usage/flags.md', data: '# Flags\n\n- `-v`\n' },
      { name: 'docs/usage/link.md', type: 'symlink', linkname: '/etc/passwd' },
    ]);
    const key = await upload('tool.tar.gz', archive);
    const res = await start({ source: { type: 'file', files: [key] }, target: { space: spaceId, changeRequest: cr.id } });
    expect(res.status).toBe(201);
    await drain();
    const run = await getRun(res.body.id);
    expect(run.reason).toBeUndefined();
    expect(run).toMatchObject({ status: 'completed', target: { changeRequest: cr.id }, progress: { pagesDone: 4, pagesTotal: 4 } });
    expect(run.skipped).toContainEqual({ path: 'docs/usage/link.md', reason: 'a symlink entry: only regular files are read' });
    const crPages = flat(await pagesOf(`/v1/spaces/${spaceId}/change-requests/${cr.id}`));
    const tool = crPages.find((p) => p.title === 'Home');
    const usage = crPages.find((p) => p.title === 'Usage' && p.type === 'group');
    const flags = crPages.find((p) => p.title === 'Flags');
    // A top-level nav section is a group; an untitled entry takes its page's heading.
    expect(usage.pages.map((p: any) => [p.title, p.type])).toEqual([
      ['Usage', 'document'],
      ['Flags', 'document'],
    ]);
    expect(await markdown(`/v1/spaces/${spaceId}/change-requests/${cr.id}`, tool.id)).toBe(`# Tool\n\nSee [flags](/pages/${flags.id}).\n`);
    expect((await h.call('GET', `/v1/spaces/${spaceId}`, { token: w.owner.token })).body.revision).toBe(mainBefore);
  });

  it('cancels a pending run (official shape): the space stays as it was; an ended run cannot be cancelled (400)', async () => {
    const revision = (await h.call('GET', `/v1/spaces/${spaceId}`, { token: w.owner.token })).body.revision;
    const key = await upload('one.md', Buffer.from('# One page\n'));
    const res = await start({ source: { type: 'file', files: [key] }, target: { space: spaceId } });
    expect((await h.call('POST', `/v1/org/${w.orgId}/imports/${res.body.id}/cancel`, { token: w.reader.token })).status).toBe(403);
    const cancelled = await h.rest('cancelImportRun', 'POST', `/v1/org/${w.orgId}/imports/${res.body.id}/cancel`, { token: w.owner.token });
    expect(cancelled.body).toMatchObject({ status: 'cancelled' });
    await drain();
    expect((await getRun(res.body.id)).status).toBe('cancelled');
    expect((await h.call('GET', `/v1/spaces/${spaceId}`, { token: w.owner.token })).body.revision).toBe(revision);
    expect((await h.call('POST', `/v1/org/${w.orgId}/imports/${res.body.id}/cancel`, { token: w.owner.token })).body.error.message).toMatch(
      /^status:.*cancelled/,
    );
  });

  it('cancels a RUNNING run mid-way (pages stored, progress shown): the space is exactly as it was', async () => {
    // A large archive whose 13th page onwards share one body. The test holds that body's row
    // uninserted-but-pending in its own transaction (same content hash), so the job, once past its
    // progress report at page 10, waits on the row in the middle of its page loop: a real running
    // import, paused by the database rather than by timing. The cancel comes then; the transaction
    // ends; the job finds the cancel at its next check and writes nothing.
    const nonce = `${Date.now()}-${Math.random()}`;
    const shared = `# Chapter\n\nThe same text (${nonce}).\n`;
    const files: Record<string, string> = {};
    const lines = ['# Table of contents', ''];
    for (let i = 1; i <= 12; i++) {
      files[`big/a${String(i).padStart(2, '0')}.md`] = `# Part ${i}\n\nUnique ${i} (${nonce}).\n`;
      lines.push(`* [Part ${i}](a${String(i).padStart(2, '0')}.md)`);
    }
    for (let i = 1; i <= 100; i++) {
      files[`big/b${String(i).padStart(3, '0')}.md`] = shared;
      lines.push(`* [Chapter ${i}](b${String(i).padStart(3, '0')}.md)`);
    }
    files['big/SUMMARY.md'] = `${lines.join('\n')}\n`;
    const key = await upload('big.zip', await zip(files));
    const snapshot = async () => ({
      space: (await h.call('GET', `/v1/spaces/${spaceId}`, { token: w.owner.token })).body.revision,
      pages: await pagesOf(`/v1/spaces/${spaceId}`),
      revisions: await h.db.prisma.revision.count({ where: { spaceId } }),
      changeRequests: await h.db.prisma.changeRequest.count({ where: { spaceId } }),
    });
    const before = await snapshot();
    const res = await start({ source: { type: 'file', files: [key] }, target: { space: spaceId } });
    expect(res.status).toBe(201);
    let release!: () => void;
    const released = new Promise<void>((done) => (release = done));
    let held!: () => void;
    const holding = new Promise<void>((done) => (held = done));
    const blocker = h.db.prisma
      .$transaction(
        async (tx) => {
          await putBody(tx, shared, []);
          held();
          await released;
          throw new Error('rolled back on purpose');
        },
        { timeout: 120_000, maxWait: 10_000 },
      )
      .catch((error: Error) => expect(error.message).toBe('rolled back on purpose'));
    await holding;
    const job = drain();
    let run = await getRun(res.body.id);
    for (let i = 0; i < 3000 && !(run.status === 'in-progress' && run.progress.pagesDone >= 10); i++) {
      await new Promise((done) => setTimeout(done, 10));
      run = await getRun(res.body.id);
    }
    expect(run).toMatchObject({ status: 'in-progress', progress: { pagesDone: 10, pagesTotal: 112 } });
    const cancelled = await h.rest('cancelImportRun', 'POST', `/v1/org/${w.orgId}/imports/${res.body.id}/cancel`, { token: w.owner.token });
    expect(cancelled.body).toMatchObject({ status: 'cancelled' });
    release();
    await blocker;
    expect(await job).toBe(1);
    run = await getRun(res.body.id);
    expect(run.status).toBe('cancelled');
    // It stopped at its next check (page 20, before reporting it), not at the end.
    expect(run.progress).toEqual({ pagesDone: 10, pagesTotal: 112 });
    expect(await snapshot()).toEqual(before);
  });

  it('fails archives that escape their folder or inflate like a bomb, changing nothing', async () => {
    const revision = (await h.call('GET', `/v1/spaces/${spaceId}`, { token: w.owner.token })).body.revision;
    // yazl refuses to write `..`: the name is patched in both headers after the fact (names are not in the CRC).
    const evil = Buffer.from(
      (await zip({ 'README.md': '# Hi\n', 'xx/evil.md': '# Evil\n' })).toString('latin1').replaceAll('xx/evil.md', '../evil.md'),
      'latin1',
    );
    const bomb = await zip({ 'README.md': '# Hi\n', 'big.png': Buffer.alloc(20 * 1024 * 1024) });
    const traversalTar = await tarGz([{ name: '../../etc/cron.d/x.md', data: '# x\n' }]);
    const reasons: string[] = [];
    for (const [name, data] of [
      ['evil.zip', evil],
      ['bomb.zip', bomb],
      ['evil.tar.gz', traversalTar],
    ] as const) {
      const res = await start({ source: { type: 'file', files: [await upload(name, data)] }, target: { space: spaceId } });
      await drain();
      const run = await getRun(res.body.id);
      expect(run.status).toBe('failed');
      reasons.push(run.reason);
    }
    expect(reasons[0]).toMatch(/outside the archive|invalid relative path/);
    expect(reasons[1]).toMatch(/zip bomb/);
    expect(reasons[2]).toMatch(/outside the archive/);
    expect((await h.call('GET', `/v1/spaces/${spaceId}`, { token: w.owner.token })).body.revision).toBe(revision);
  });

  it('400 names the field; callers without rights are refused', async () => {
    const key = await upload('two.md', Buffer.from('# Two\n'));
    const path = `/v1/org/${w.orgId}/imports`;
    const message = async (body: unknown) => (await h.call('POST', path, { token: w.owner.token, body })).body.error.message as string;
    expect(await message({ source: { type: 'website', url: 'https://example.com' }, target: { space: spaceId } })).toMatch(
      /^source\.type:/,
    );
    expect(await message({ source: { type: 'file', files: ['imports/nope'] }, target: { space: spaceId } })).toMatch(
      /^source\.files\[0\]:/,
    );
    expect(await message({ source: { type: 'file', files: [key] }, target: {} })).toMatch(/^target\.space:/);
    expect(await message({ source: { type: 'file', files: [key] }, target: { space: spaceId, page: 'nope' } })).toMatch(/^target\.page:/);
    expect(await message({ target: { space: spaceId } })).toMatch(/^source:/);
    const notArchive = await upload('data.bin', Buffer.from([0, 1, 2, 3]));
    expect(await message({ source: { type: 'file', files: [notArchive] }, target: { space: spaceId } })).toMatch(
      /^source\.files\[0\]: data\.bin is not/,
    );
    expect((await start({ source: { type: 'file', files: [key] }, target: { space: spaceId } }, w.reader.token)).status).toBe(403);
    expect([403, 404]).toContain(
      (await start({ source: { type: 'file', files: [key] }, target: { space: spaceId } }, w.outsider.token)).status,
    );
    const run = (await h.call('GET', path, { token: w.owner.token })).body.items[0];
    expect((await h.call('GET', `${path}/${run.id}`, { token: w.outsider.token })).status).toBe(404);
    expect((await h.call('GET', `${path}?status=done`, { token: w.owner.token })).body.error.message).toMatch(/^status:/);
    expect(await h.db.prisma.job.count({ where: { kind: IMPORT_RUN_JOB, status: 'pending' } })).toBe(0);
  });
});

function unzip(data: Buffer): Promise<Record<string, string>> {
  return new Promise((done, fail) => {
    yauzl.fromBuffer(data, { lazyEntries: true }, (error, z) => {
      if (error) return fail(error);
      const out: Record<string, string> = {};
      z.on('entry', (entry: yauzl.Entry) =>
        z.openReadStream(entry, (err, stream) => {
          if (err) return fail(err);
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            out[entry.fileName] = Buffer.concat(chunks).toString('utf8');
            z.readEntry();
          });
        }),
      );
      z.on('end', () => done(out));
      z.readEntry();
    });
  });
}

describe('exports', () => {
  it('exports a space as a .zip in the Git layout (a reader may), which imports back into another space', async () => {
    const path = `/archives/spaces/${spaceId}/content.zip`;
    const get = (token?: string) => fetch(`${server.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    expect((await get()).status).toBe(401);
    expect((await get(w.outsider.token)).status).toBe(404);
    const res = await get(w.reader.token);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    const data = Buffer.from(await res.arrayBuffer());
    const files = await unzip(data);
    expect(files['SUMMARY.md']).toContain('## Reference');
    expect(Object.keys(files)).toContain('.gitbook/assets/logo.png');
    const install = Object.entries(files).find(([, text]) => text.includes('# Install'));
    expect(install![1]).toMatch(/^---\ndescription: How to install.\n---\n/);
    // Back in: the same tree in a new space.
    const other = (await h.call('POST', `/v1/orgs/${w.orgId}/spaces`, { token: w.owner.token, body: { title: 'Copy' } })).body.id;
    const before = flat(await pagesOf(`/v1/spaces/${other}`)).length;
    const run = await start({ source: { type: 'file', files: [await upload('export.zip', data)] }, target: { space: other } });
    await drain();
    expect((await getRun(run.body.id)).status).toBe('completed');
    const titles = (id: string) => pagesOf(`/v1/spaces/${id}`).then((pages) => flat(pages).map((p) => p.title));
    expect((await titles(other)).slice(before)).toEqual(await titles(spaceId));
  });
});
