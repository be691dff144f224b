/**
 * Git sync against a real Git server on loopback: `git http-backend` (the git CLI's own smart-HTTP
 * server) behind a small node http server that demands the token (HTTP Basic), and a second clone
 * that pushes like a developer would.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { drainJobs } from '../../src/jobs/queue.js';
import { createUrls } from '../../src/urls.js';
import { BASE, setupHarness, type Harness } from '../support/harness.js';
import { insertPage, writeCr, writeLive } from '../support/content-writes.js';
import { IMPORT_JOB, EXPORT_JOB, POLL_JOB } from '../../src/modules/git-sync/jobs.js';
import { Content, getBodies } from '../../src/modules/content/store.js';

const TOKEN = 'ghp_SECRETtoken1234567890abcdef';
let h: Harness;
let server: http.Server;
let root: string;
let port: number;
let owner: Awaited<ReturnType<Harness['owner']>>;
let outsider: Awaited<ReturnType<Harness['user']>>;
const logs: string[] = [];
/** Runs when the next push reaches the server, before the server answers it (a concurrent push). */
let beforeReceivePack: (() => void) | null = null;

const gitEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Dev',
  GIT_AUTHOR_EMAIL: 'dev@example.com',
  GIT_COMMITTER_NAME: 'Dev',
  GIT_COMMITTER_EMAIL: 'dev@example.com',
};
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: gitEnv, encoding: 'utf8' }).trim();
const remoteUrl = (repo: string, token = TOKEN) => `http://x-access-token:${token}@127.0.0.1:${port}/${repo}.git`;
const services = () => ({ db: h.db, config: h.config, urls: createUrls(BASE) });
const drain = () => drainJobs(services(), [IMPORT_JOB, EXPORT_JOB]);

/** A bare repository on the server, seeded with `files` by a developer's clone (returned). */
function newRepo(name: string, files: Record<string, string>): string {
  git(root, 'init', '-q', '--bare', '-b', 'main', `${name}.git`);
  git(join(root, `${name}.git`), 'config', 'http.receivepack', 'true');
  const dev = mkdtempSync(join(tmpdir(), 'dev-'));
  git(dev, 'clone', '-q', join(root, `${name}.git`), '.');
  git(dev, 'checkout', '-q', '-b', 'main');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dev, path, '..'), { recursive: true });
    writeFileSync(join(dev, path), text);
  }
  git(dev, 'add', '-A');
  git(dev, 'commit', '-q', '-m', 'docs');
  git(dev, 'push', '-q', 'origin', 'main');
  return dev;
}

const FILES = {
  'README.md': '# Code\n',
  'docs/.gitbook.yaml': 'root: ./\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\n',
  'docs/SUMMARY.md':
    '# Table of contents\n\n* [Welcome](README.md)\n* [Guide](guide/README.md)\n  * [Setup](guide/setup.md)\n\n## Reference\n\n* [API](reference/api.md)\n',
  'docs/README.md': '# Welcome\n\nStart with [the setup](guide/setup.md).\n',
  'docs/guide/README.md': '---\nlayout:\n  width: wide\n---\n\n# Guide\n',
  'docs/guide/setup.md': '---\ndescription: How to set up.\n---\n\n# Setup\n\nLine one.\n\nLine two.\n',
  'docs/reference/api.md': '# API\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n',
  'docs/.gitbook/includes/note.md': '---\ntitle: A note\n---\n\nSee [the API](../../reference/api.md).\n',
};

beforeAll(async () => {
  process.env.LECTERN_ALLOW_PRIVATE_NETWORK = '1';
  for (const method of ['log', 'error', 'warn', 'info'] as const) {
    const original = console[method];
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      logs.push(args.map(String).join(' '));
      original(...args);
    });
  }
  root = mkdtempSync(join(tmpdir(), 'git-server-'));
  server = http.createServer((req, res) => {
    const auth = req.headers.authorization ?? '';
    if (Buffer.from(auth.replace(/^Basic /, ''), 'base64').toString() !== `x-access-token:${TOKEN}`) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end('unauthorized');
      return;
    }
    const url = new URL(req.url!, 'http://x');
    // A push arriving (its ref advertisement asked for): the test's hook runs first, once.
    if (url.searchParams.get('service') === 'git-receive-pack' && beforeReceivePack) {
      const hook = beforeReceivePack;
      beforeReceivePack = null;
      hook();
    }
    const cgi = spawn('git', ['http-backend'], {
      env: {
        ...gitEnv,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method!,
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        REMOTE_USER: 'dev',
        REMOTE_ADDR: '127.0.0.1',
        ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] } : {}),
        GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
      },
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let sent = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (sent) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of head.subarray(0, end).toString().split('\r\n')) {
        const [k, ...v] = line.split(':');
        if (k!.toLowerCase() === 'status') status = parseInt(v.join(':'), 10);
        else headers[k!] = v.join(':').trim();
      }
      res.writeHead(status, headers);
      res.write(head.subarray(end + 4));
      sent = true;
    });
    cgi.on('close', () => res.end());
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  port = (server.address() as AddressInfo).port;
  h = await setupHarness();
  owner = await h.owner('Git Co');
  outsider = await h.user('Outsider');
});

afterAll(async () => {
  await new Promise((done) => server?.close(done));
  if (root) rmSync(root, { recursive: true, force: true });
  delete process.env.LECTERN_ALLOW_PRIVATE_NETWORK;
});

async function newSpace(title: string) {
  const res = await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { title } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}
const pagesOf = async (spaceId: string) =>
  (await h.call('GET', `/v1/spaces/${spaceId}/content`, { token: owner.token })).body.pages as any[];
const flat = (pages: any[]): any[] => pages.flatMap((p) => [p, ...flat(p.pages ?? [])]);
const reusableOf = async (spaceId: string) => {
  const space = await h.db.prisma.space.findUniqueOrThrow({ where: { id: spaceId } });
  return (
    await Content.load(h.db.prisma, (await h.db.prisma.revision.findUniqueOrThrow({ where: { id: space.revisionId } })).manifest)
  ).reusableContents();
};
const pageMarkdown = async (spaceId: string, pageId: string) =>
  (await h.call('GET', `/v1/spaces/${spaceId}/content/page/${pageId}?format=markdown`, { token: owner.token })).body.markdown as string;

describe('Git sync over a real Git server', () => {
  let spaceId: string;
  let dev: string;

  it('imports a repository folder (token in the URL) and shows the state, never the token', async () => {
    dev = newRepo('docs', FILES);
    spaceId = await newSpace('Synced');
    const res = await h.rest('importGitRepository', 'POST', `/v1/spaces/${spaceId}/git/import`, {
      token: owner.token,
      body: { url: remoteUrl('docs'), ref: 'refs/heads/main', repoProjectDirectory: 'docs' },
    });
    expect(res.status).toBe(204);
    expect(await drain()).toBeGreaterThanOrEqual(1);
    const titles = flat(await pagesOf(spaceId)).map((p) => [p.title, p.type]);
    expect(titles).toEqual([
      ['Welcome', 'document'],
      ['Guide', 'document'],
      ['Setup', 'document'],
      ['Reference', 'group'],
      ['API', 'document'],
    ]);
    const welcome = flat(await pagesOf(spaceId))[0];
    const setup = flat(await pagesOf(spaceId))[2];
    expect(await pageMarkdown(spaceId, welcome.id)).toBe(`# Welcome\n\nStart with [the setup](/pages/${setup.id}).\n`);
    expect(setup.description).toBe('How to set up.');
    // .gitbook/includes/note.md: a reusable content of the space, its link an id reference.
    const [note] = await reusableOf(spaceId);
    expect([note!.slug, note!.title]).toEqual(['note', 'A note']);
    const api = flat(await pagesOf(spaceId)).find((p) => p.title === 'API');
    expect((await getBodies(h.db.prisma, [note!.body])).get(note!.body)).toBe(`See [the API](/pages/${api.id}).\n`);
    const info = await h.rest('getSpaceGitInfo', 'GET', `/v1/spaces/${spaceId}/git/info`, { token: owner.token });
    expect(info.body).toMatchObject({
      installationStatus: 'active',
      operation: { state: 'success', direction: 'import' },
      lastCommit: git(dev, 'rev-parse', 'HEAD'),
    });
    const space = await h.call('GET', `/v1/spaces/${spaceId}`, { token: owner.token });
    expect(space.body.gitSync).toMatchObject({ operation: { state: 'success' } });
    const row = await h.db.prisma.gitSyncConnection.findUniqueOrThrow({ where: { spaceId } });
    expect(row.url).toBe(`http://127.0.0.1:${port}/docs.git`);
    for (const text of [JSON.stringify(info.body), JSON.stringify(space.body), JSON.stringify(row), ...logs])
      expect(text).not.toContain(TOKEN);
  });

  it('commits a merge to the branch: one commit, authored by the merger, message from the subject and number', async () => {
    const setup = flat(await pagesOf(spaceId)).find((p) => p.title === 'Setup');
    const cr = (await h.call('POST', `/v1/spaces/${spaceId}/change-requests`, { token: owner.token, body: { subject: 'Explain setup' } }))
      .body;
    await writeCr(h, owner.token, spaceId, cr.number, [
      { operation: 'update_page', page: setup.id, document: { markdown: '# Setup\n\nLine one, edited in Lectern.\n\nLine two.\n' } },
      insertPage('FAQ', `# FAQ\n\nSee [Setup](/pages/${setup.id}).\n`),
    ]);
    // Lectern's own operation (not in the official request body): straight to the route.
    const reusable = await h.call('POST', `/v1/spaces/${spaceId}/change-requests/${cr.number}/content`, {
      token: owner.token,
      body: {
        changes: [
          { operation: 'insert_reusable_content', title: 'Beta', document: { markdown: `Beta: see [Setup](/pages/${setup.id}).\n` } },
        ],
      },
    });
    expect(reusable.status).toBe(200);
    const merged = await h.call('POST', `/v1/spaces/${spaceId}/change-requests/${cr.number}/merge`, { token: owner.token });
    expect(merged.status).toBe(200);
    const before = git(dev, 'rev-parse', 'HEAD');
    expect(await drain()).toBe(1);
    git(dev, 'pull', '-q', '--ff-only', 'origin', 'main');
    expect(git(dev, 'rev-list', '--count', `${before}..HEAD`)).toBe('1');
    const me = await h.db.prisma.user.findUniqueOrThrow({ where: { id: owner.id } });
    expect(git(dev, 'log', '-1', '--format=%an <%ae>|%s')).toBe(`${me.displayName} <${me.email}>|Explain setup (#${cr.number})`);
    expect(readFileSync(join(dev, 'docs/guide/setup.md'), 'utf8')).toBe(
      '---\ndescription: How to set up.\n---\n\n# Setup\n\nLine one, edited in Lectern.\n\nLine two.\n',
    );
    expect(readFileSync(join(dev, 'docs/faq.md'), 'utf8')).toBe('# FAQ\n\nSee [Setup](guide/setup.md).\n');
    expect(readFileSync(join(dev, 'docs/SUMMARY.md'), 'utf8')).toContain('* [FAQ](faq.md)');
    // A reusable content made in Lectern: .gitbook/includes/<slug>.md, links relative to that folder.
    expect(readFileSync(join(dev, 'docs/.gitbook/includes/beta.md'), 'utf8')).toBe('Beta: see [Setup](../../guide/setup.md).\n');
    // Untouched files are byte for byte what the developer wrote; files outside the folder stay.
    for (const path of [
      'docs/README.md',
      'docs/guide/README.md',
      'docs/reference/api.md',
      'README.md',
      'docs/.gitbook.yaml',
      'docs/.gitbook/includes/note.md',
    ])
      expect(readFileSync(join(dev, path), 'utf8')).toBe(FILES[path as keyof typeof FILES]);
  });

  it('brings a developer push into main (poll), and merges three ways with Lectern edits', async () => {
    writeFileSync(join(dev, 'docs/reference/api.md'), '# API\n\nPushed from Git.\n');
    git(dev, 'commit', '-q', '-am', 'api docs');
    git(dev, 'push', '-q', 'origin', 'main');
    // A live edit in Lectern meanwhile, on another page (no export drained yet).
    await h.db.prisma.space.update({ where: { id: spaceId }, data: { editMode: 'live' } });
    const welcome = flat(await pagesOf(spaceId)).find((p) => p.title === 'Welcome');
    await writeLive(h, owner.token, spaceId, [{ operation: 'update_page', page: welcome.id, title: 'Welcome!' }]);
    // The export job finds the branch moved: Git's commit comes in first (three-way), then the push.
    expect(await drain()).toBe(1);
    const api = flat(await pagesOf(spaceId)).find((p) => p.title === 'API');
    expect(await pageMarkdown(spaceId, api.id)).toBe('# API\n\nPushed from Git.\n');
    git(dev, 'pull', '-q', '--ff-only', 'origin', 'main');
    expect(readFileSync(join(dev, 'docs/SUMMARY.md'), 'utf8')).toContain('* [Welcome!](README.md)');
    expect(readFileSync(join(dev, 'docs/reference/api.md'), 'utf8')).toBe('# API\n\nPushed from Git.\n');
    // A push alone is found by the poll job.
    writeFileSync(join(dev, 'docs/guide/README.md'), '# Guide\n\nPolled.\n');
    git(dev, 'commit', '-q', '-am', 'guide');
    git(dev, 'push', '-q', 'origin', 'main');
    await h.db.prisma.job.updateMany({ where: { kind: POLL_JOB }, data: { runAfter: new Date() } });
    expect(await drainJobs(services(), [POLL_JOB])).toBe(1);
    const guide = flat(await pagesOf(spaceId)).find((p) => p.title === 'Guide');
    expect(await pageMarkdown(spaceId, guide.id)).toBe('# Guide\n\nPolled.\n');
  });

  it('opens a change request holding Git’s side when both sides changed the same lines', async () => {
    const setup = flat(await pagesOf(spaceId)).find((p) => p.title === 'Setup');
    writeFileSync(
      join(dev, 'docs/guide/setup.md'),
      '---\ndescription: How to set up.\n---\n\n# Setup\n\nLine one, from Git.\n\nLine two.\n',
    );
    git(dev, 'commit', '-q', '-am', 'setup from git');
    git(dev, 'push', '-q', 'origin', 'main');
    await writeLive(h, owner.token, spaceId, [
      { operation: 'update_page', page: setup.id, document: { markdown: '# Setup\n\nLine one, from Lectern.\n\nLine two.\n' } },
    ]);
    await drain();
    const crs = (await h.call('GET', `/v1/spaces/${spaceId}/change-requests`, { token: owner.token })).body.items as any[];
    const conflict = crs.find((c) => /Git sync conflict/.test(c.subject));
    expect(conflict.subject).toContain('Setup');
    const gitSide = (
      await h.call('GET', `/v1/spaces/${spaceId}/change-requests/${conflict.id}/content/page/${setup.id}?format=markdown`, {
        token: owner.token,
      })
    ).body.markdown;
    expect(gitSide).toContain('Line one, from Git.');
    expect(await pageMarkdown(spaceId, setup.id)).toContain('Line one, from Lectern.');
    // One numbering for the space: the conflict's change request follows the merged one (#1), and
    // the next one made through the API follows it.
    const before = await h.db.prisma.changeRequest.findMany({ where: { spaceId, id: { not: conflict.id } }, select: { number: true } });
    expect(before.map((c) => c.number)).toEqual([1]);
    expect(conflict.number).toBe(2);
    const next = await h.call('POST', `/v1/spaces/${spaceId}/change-requests`, {
      token: owner.token,
      body: { subject: 'After the conflict' },
    });
    expect(next.body.number).toBe(3);
  });

  it('a second clone pushes while Lectern pushes a merge: Lectern’s push is rejected, Git’s commit comes in, then Lectern pushes; nothing lost', async () => {
    const dev2 = newRepo('race', FILES);
    const race = await newSpace('Race');
    expect(
      (
        await h.rest('importGitRepository', 'POST', `/v1/spaces/${race}/git/import`, {
          token: owner.token,
          body: { url: remoteUrl('race'), ref: 'refs/heads/main', repoProjectDirectory: 'docs' },
        })
      ).status,
    ).toBe(204);
    await drain();
    const setup = flat(await pagesOf(race)).find((p) => p.title === 'Setup');
    const api = flat(await pagesOf(race)).find((p) => p.title === 'API');
    const cr = (await h.call('POST', `/v1/spaces/${race}/change-requests`, { token: owner.token, body: { subject: 'Setup from Lectern' } }))
      .body;
    await writeCr(h, owner.token, race, cr.number, [
      { operation: 'update_page', page: setup.id, document: { markdown: '# Setup\n\nLine one, from Lectern.\n\nLine two.\n' } },
    ]);
    expect((await h.call('POST', `/v1/spaces/${race}/change-requests/${cr.number}/merge`, { token: owner.token })).status).toBe(200);
    // The developer's push lands while Lectern's export is pushing (after Lectern fetched and committed).
    const devCommits: string[] = [];
    beforeReceivePack = () => {
      git(dev2, 'pull', '-q', '--ff-only', 'origin', 'main');
      writeFileSync(join(dev2, 'docs/reference/api.md'), '# API\n\nPushed by a second clone during the export.\n');
      git(dev2, 'commit', '-q', '-am', 'api from a second clone');
      git(dev2, 'push', '-q', 'origin', 'main');
      devCommits.push(git(dev2, 'rev-parse', 'HEAD'));
    };
    await drain();
    expect(devCommits).toHaveLength(1); // the race happened
    expect(beforeReceivePack).toBeNull();
    const info = (await h.call('GET', `/v1/spaces/${race}/git/info`, { token: owner.token })).body;
    expect(info.operation).toMatchObject({ state: 'success', direction: 'export' });
    // Lectern: the developer's commit came in, the merge is still there.
    expect(await pageMarkdown(race, api.id)).toBe('# API\n\nPushed by a second clone during the export.\n');
    expect(await pageMarkdown(race, setup.id)).toContain('Line one, from Lectern.');
    // Git: Lectern's commit on top of the developer's, both changes in the files.
    git(dev2, 'pull', '-q', '--ff-only', 'origin', 'main');
    expect(git(dev2, 'log', '-2', '--format=%s')).toBe(`Setup from Lectern (#${cr.number})\napi from a second clone`);
    expect(git(dev2, 'merge-base', '--is-ancestor', devCommits[0]!, 'HEAD')).toBe('');
    expect(readFileSync(join(dev2, 'docs/reference/api.md'), 'utf8')).toBe('# API\n\nPushed by a second clone during the export.\n');
    expect(readFileSync(join(dev2, 'docs/guide/setup.md'), 'utf8')).toContain('Line one, from Lectern.');
    expect(info.lastCommit).toBe(git(dev2, 'rev-parse', 'HEAD'));
  });

  it('refuses bad input (400 naming the field) and callers without rights; records bad credentials and refused remotes', async () => {
    const path = `/v1/spaces/${spaceId}/git/import`;
    expect((await h.call('POST', path, { token: owner.token, body: { url: remoteUrl('docs'), ref: 'main' } })).body.error.message).toMatch(
      /^ref:/,
    );
    expect((await h.call('POST', path, { token: owner.token, body: { ref: 'refs/heads/main' } })).body.error.message).toMatch(/^url:/);
    // Other protocols than https and ssh (test/git-sync/ssh.test.ts) are refused.
    for (const url of ['git://example.com/x.git', 'ext::sh -c touch% /tmp/pwned', 'ftp://example.com/x.git'])
      expect((await h.call('POST', path, { token: owner.token, body: { url, ref: 'refs/heads/main' } })).body.error.message).toMatch(
        /^url:/,
      );
    expect((await h.call('POST', path, { token: owner.token, body: { url: '/etc', ref: 'refs/heads/main' } })).body.error.message).toMatch(
      /LECTERN_GIT_LOCAL_ROOT/,
    );
    expect([403, 404]).toContain(
      (await h.call('POST', path, { token: outsider.token, body: { url: remoteUrl('docs'), ref: 'refs/heads/main' } })).status,
    );
    expect((await h.call('GET', `/v1/spaces/${spaceId}/git/info`, { token: outsider.token })).status).toBeGreaterThanOrEqual(403);
    const other = await newSpace('Unconnected');
    expect((await h.call('GET', `/v1/spaces/${other}/git/info`, { token: owner.token })).status).toBe(404);
    // A wrong token: the import fails with a message that says what to do, and changes nothing.
    const before = await pagesOf(spaceId);
    const wrong = 'wrong_token_value_42';
    expect(
      (
        await h.call('POST', path, {
          token: owner.token,
          body: { url: remoteUrl('docs', wrong), ref: 'refs/heads/main', repoProjectDirectory: 'docs' },
        })
      ).status,
    ).toBe(204);
    await drain();
    const info = (await h.call('GET', `/v1/spaces/${spaceId}/git/info`, { token: owner.token })).body;
    expect(info).toMatchObject({ installationStatus: 'unauthenticated', operation: { state: 'failure' } });
    expect(info.operation.error).toMatch(/refused the credential/);
    expect(await pagesOf(spaceId)).toEqual(before);
    // Loopback without the operator's permission: refused by the outbound guard.
    delete process.env.LECTERN_ALLOW_PRIVATE_NETWORK;
    try {
      await h.call('POST', path, {
        token: owner.token,
        body: { url: remoteUrl('docs'), ref: 'refs/heads/main', repoProjectDirectory: 'docs' },
      });
      await drain();
      expect((await h.call('GET', `/v1/spaces/${spaceId}/git/info`, { token: owner.token })).body.operation.error).toMatch(
        /private network address/,
      );
    } finally {
      process.env.LECTERN_ALLOW_PRIVATE_NETWORK = '1';
    }
    const jobs = await h.db.prisma.job.findMany();
    for (const text of [JSON.stringify(info), JSON.stringify(jobs), ...logs]) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(wrong);
    }
  });
});
