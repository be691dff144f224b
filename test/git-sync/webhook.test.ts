/**
 * Git sync's push webhook over real HTTP (GitHub, Gitea and GitLab signatures), its settings
 * (secret, poll interval, disconnect), and the per-space sync lock held by "another process" (a
 * second pool on the same database). The remote is a local bare repository (LECTERN_GIT_LOCAL_ROOT):
 * the webhook's work ends at the job, which sync.test.ts covers over git http-backend.
 */
import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { drainJobs } from '../../src/jobs/queue.js';
import { IMPORT_JOB, EXPORT_JOB } from '../../src/modules/git-sync/jobs.js';
import { SyncBusy, spaceSyncLocked, withSpaceSyncLock } from '../../src/modules/git-sync/lock.js';
import { startServer } from '../../src/server.js';
import { createUrls } from '../../src/urls.js';
import { BASE, setupHarness, type Harness, type World } from '../support/harness.js';

let h: Harness;
let w: World;
let root: string;
let dev: string;
let spaceId: string;
let server: Awaited<ReturnType<typeof startServer>>;
let secret: string;
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
const services = () => ({ db: h.db, config: h.config, urls: createUrls(BASE) });
const pendingImports = () =>
  h.db.prisma.job.count({ where: { kind: IMPORT_JOB, status: 'pending', payload: { path: ['spaceId'], equals: spaceId } } });

function push(path: string, text: string) {
  writeFileSync(join(dev, path), text);
  git(dev, 'commit', '-q', '-am', `edit ${path}`);
  git(dev, 'push', '-q', 'origin', 'main');
  return git(dev, 'rev-parse', 'HEAD');
}

const hmac = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');
async function deliver(id: string, body: string, headers: Record<string, string>) {
  const res = await fetch(`${server.url}/git-sync/webhooks/${id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: res.status, body: await res.json() };
}
const pushBody = (ref: string, after = 'a'.repeat(40)) =>
  JSON.stringify({ ref, after, before: '0'.repeat(40), repository: { full_name: 'acme/docs' } });

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'git-local-'));
  process.env.LECTERN_GIT_LOCAL_ROOT = root;
  process.env.LECTERN_GIT_LOCK_WAIT_MS = '0';
  git(root, 'init', '-q', '--bare', '-b', 'main', 'docs.git');
  dev = join(root, 'dev');
  mkdirSync(dev);
  git(dev, 'clone', '-q', join(root, 'docs.git'), '.');
  git(dev, 'checkout', '-q', '-b', 'main');
  writeFileSync(join(dev, 'README.md'), '# Welcome\n');
  writeFileSync(join(dev, 'guide.md'), '# Guide\n\nFirst.\n');
  git(dev, 'add', '-A');
  git(dev, 'commit', '-q', '-m', 'docs');
  git(dev, 'push', '-q', 'origin', 'main');
  h = await setupHarness();
  w = await h.world('Hooks Co');
  spaceId = (await h.call('POST', `/v1/orgs/${w.orgId}/spaces`, { token: w.owner.token, body: { title: 'Hooked' } })).body.id;
  const res = await h.rest('importGitRepository', 'POST', `/v1/spaces/${spaceId}/git/import`, {
    token: w.owner.token,
    body: { url: join(root, 'docs.git'), ref: 'refs/heads/main' },
  });
  expect(res.status).toBe(204);
  await drainJobs(services(), [IMPORT_JOB]);
  server = await startServer({ ...h.config, host: '127.0.0.1', port: 0 }, { db: h.db, worker: false });
});

afterAll(async () => {
  await server?.close();
  delete process.env.LECTERN_GIT_LOCAL_ROOT;
  delete process.env.LECTERN_GIT_LOCK_WAIT_MS;
  if (root) rmSync(root, { recursive: true, force: true });
});

const markdownOf = async (title: string) => {
  const pages = (await h.call('GET', `/v1/spaces/${spaceId}/content`, { token: w.owner.token })).body.pages as any[];
  const page = pages.find((p) => p.title === title);
  return (await h.call('GET', `/v1/spaces/${spaceId}/content/page/${page.id}?format=markdown`, { token: w.owner.token })).body
    .markdown as string;
};

describe('the push webhook', () => {
  it('shows the URL and secret to space admins only; the secret is sealed at rest and absent from the Git info', async () => {
    const res = await h.call('GET', `/v1/spaces/${spaceId}/git/webhook`, { token: w.owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      object: 'git-webhook',
      url: `${BASE}/git-sync/webhooks/${spaceId}`,
      contentType: 'application/json',
      events: ['push'],
      ref: 'refs/heads/main',
    });
    secret = res.body.secret;
    expect(secret).toMatch(/^[\w-]{32}$/);
    expect((await h.call('GET', `/v1/spaces/${spaceId}/git/webhook`, { token: w.creator.token })).status).toBe(403);
    expect((await h.call('GET', `/v1/spaces/${spaceId}/git/webhook`, { token: w.outsider.token })).status).toBe(404);
    const row = await h.db.prisma.gitSyncConnection.findUniqueOrThrow({ where: { spaceId } });
    expect(row.webhookSecret).not.toContain(secret);
    const info = await h.rest('getSpaceGitInfo', 'GET', `/v1/spaces/${spaceId}/git/info`, { token: w.owner.token });
    expect(JSON.stringify(info.body)).not.toContain(secret);
  });

  it('GitHub: a signed push to the connected branch queues one import, which brings the commit in', async () => {
    const after = push('guide.md', '# Guide\n\nFrom a push.\n');
    const body = pushBody('refs/heads/main', after);
    const headers = { 'x-github-event': 'push', 'x-hub-signature-256': `sha256=${hmac(secret, body)}` };
    expect(await deliver(spaceId, body, headers)).toEqual({ status: 202, body: { status: 'queued' } });
    // A redelivery while the job waits: still one job.
    expect((await deliver(spaceId, body, headers)).status).toBe(202);
    expect(await pendingImports()).toBe(1);
    expect(await drainJobs(services(), [IMPORT_JOB])).toBe(1);
    expect(await markdownOf('Guide')).toBe('# Guide\n\nFrom a push.\n');
    // The same commit again (say, Lectern's own export coming back): nothing to do.
    expect((await deliver(spaceId, body, headers)).body).toMatchObject({ status: 'ignored', reason: 'this commit is already synced' });
    // Form-encoded deliveries (GitHub's other content type) are read too.
    const form = `payload=${encodeURIComponent(pushBody('refs/heads/main'))}`;
    const res = await fetch(`${server.url}/git-sync/webhooks/${spaceId}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-github-event': 'push',
        'x-hub-signature-256': `sha256=${hmac(secret, form)}`,
      },
      body: form,
    });
    expect(res.status).toBe(202);
    await h.db.prisma.job.deleteMany({ where: { kind: IMPORT_JOB, status: 'pending' } });
  });

  it('Gitea (X-Gitea-Signature) and GitLab (X-Gitlab-Token) deliveries are accepted', async () => {
    const body = pushBody('refs/heads/main');
    expect(await deliver(spaceId, body, { 'x-gitea-event': 'push', 'x-gitea-signature': hmac(secret, body) })).toEqual({
      status: 202,
      body: { status: 'queued' },
    });
    await h.db.prisma.job.deleteMany({ where: { kind: IMPORT_JOB, status: 'pending' } });
    expect(await deliver(spaceId, body, { 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': secret })).toEqual({
      status: 202,
      body: { status: 'queued' },
    });
    await h.db.prisma.job.deleteMany({ where: { kind: IMPORT_JOB, status: 'pending' } });
  });

  it('refuses unsigned, wrongly signed and unknown deliveries (401); ignores other branches and events (202); 400 names a missing ref', async () => {
    const body = pushBody('refs/heads/main');
    const refused = [
      await deliver(spaceId, body, { 'x-github-event': 'push' }),
      await deliver(spaceId, body, { 'x-github-event': 'push', 'x-hub-signature-256': `sha256=${hmac('wrong', body)}` }),
      await deliver(spaceId, body, { 'x-github-event': 'push', 'x-hub-signature-256': hmac(secret, body) }),
      // A valid GitHub signature does not excuse a wrong Gitea one beside it.
      await deliver(spaceId, body, {
        'x-github-event': 'push',
        'x-hub-signature-256': `sha256=${hmac(secret, body)}`,
        'x-gitea-signature': hmac('wrong', body),
      }),
      await deliver(spaceId, `${body} `, { 'x-gitea-event': 'push', 'x-gitea-signature': hmac(secret, body) }),
      await deliver(spaceId, body, { 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': `${secret}x` }),
      await deliver('no-such-space', body, { 'x-github-event': 'push', 'x-hub-signature-256': `sha256=${hmac(secret, body)}` }),
    ];
    for (const r of refused) expect(r).toMatchObject({ status: 401, body: { error: { code: 401 } } });
    const other = pushBody('refs/heads/feature');
    expect(await deliver(spaceId, other, { 'x-github-event': 'push', 'x-hub-signature-256': `sha256=${hmac(secret, other)}` })).toEqual({
      status: 202,
      body: { status: 'ignored', reason: 'a push to refs/heads/feature; this space follows refs/heads/main' },
    });
    const ping = JSON.stringify({ zen: 'Keep it simple.' });
    expect(
      (await deliver(spaceId, ping, { 'x-github-event': 'ping', 'x-hub-signature-256': `sha256=${hmac(secret, ping)}` })).body.status,
    ).toBe('ignored');
    const noRef = JSON.stringify({ after: 'b'.repeat(40) });
    expect(
      await deliver(spaceId, noRef, { 'x-github-event': 'push', 'x-hub-signature-256': `sha256=${hmac(secret, noRef)}` }),
    ).toMatchObject({ status: 400, body: { error: { message: expect.stringMatching(/^ref:/) } } });
    expect(await pendingImports()).toBe(0);
  });

  it('a regenerated secret replaces the old one', async () => {
    expect((await h.call('POST', `/v1/spaces/${spaceId}/git/webhook/regenerate`, { token: w.creator.token })).status).toBe(403);
    const res = await h.call('POST', `/v1/spaces/${spaceId}/git/webhook/regenerate`, { token: w.owner.token });
    expect(res.status).toBe(200);
    expect(res.body.secret).not.toBe(secret);
    const body = pushBody('refs/heads/main');
    expect((await deliver(spaceId, body, { 'x-github-event': 'push', 'x-hub-signature-256': `sha256=${hmac(secret, body)}` })).status).toBe(
      401,
    );
    secret = res.body.secret;
    expect((await deliver(spaceId, body, { 'x-github-event': 'push', 'x-hub-signature-256': `sha256=${hmac(secret, body)}` })).status).toBe(
      202,
    );
  });
});

describe('the per-space sync lock', () => {
  it('an import job finds the space locked by another process: it is queued again and changes nothing; it runs once the lock is free', async () => {
    const other = new pg.Client({
      ...inject('dbServer'),
      database: (h.db.pool as unknown as { options: { database: string } }).options.database,
    });
    await other.connect();
    try {
      push('guide.md', '# Guide\n\nWhile locked.\n');
      await h.db.prisma.job.deleteMany({ where: { kind: IMPORT_JOB } });
      await other.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [`lectern:space-sync:${spaceId}`]);
      expect(await spaceSyncLocked(services(), spaceId)).toBe(true);
      const body = pushBody('refs/heads/main');
      expect(
        (await deliver(spaceId, body, { 'x-github-event': 'push', 'x-hub-signature-256': `sha256=${hmac(secret, body)}` })).status,
      ).toBe(202);
      expect(await drainJobs(services(), [IMPORT_JOB])).toBe(1);
      expect(await markdownOf('Guide')).toBe('# Guide\n\nFrom a push.\n');
      const requeued = await h.db.prisma.job.findFirstOrThrow({ where: { kind: IMPORT_JOB, status: 'pending' } });
      expect(requeued.runAfter.getTime()).toBeGreaterThan(Date.now());
      // Two holders in one process are refused the same way (two workers of one server).
      await expect(withSpaceSyncLock(services(), spaceId, async () => 'ran')).rejects.toBeInstanceOf(SyncBusy);
      await other.query('SELECT pg_advisory_unlock_all()');
      expect(await spaceSyncLocked(services(), spaceId)).toBe(false);
      await h.db.prisma.job.update({ where: { id: requeued.id }, data: { runAfter: new Date() } });
      expect(await drainJobs(services(), [IMPORT_JOB])).toBe(1);
      expect(await markdownOf('Guide')).toBe('# Guide\n\nWhile locked.\n');
      // Concurrent holders: exactly one runs at a time.
      let inside = 0;
      let most = 0;
      const work = () =>
        withSpaceSyncLock(
          services(),
          spaceId,
          async () => {
            most = Math.max(most, ++inside);
            await new Promise((done) => setTimeout(done, 50));
            inside--;
          },
          { waitMs: 2_000 },
        );
      await Promise.all([work(), work(), work()]);
      expect(most).toBe(1);
    } finally {
      await other.end();
    }
  });
});

describe('settings', () => {
  it('changes the poll interval (400 naming the field; admins only) and disconnects (205, then 204)', async () => {
    const path = `/v1/spaces/${spaceId}/git`;
    expect((await h.call('PATCH', path, { token: w.owner.token, body: { pollSeconds: 5 } })).body.error.message).toMatch(/^pollSeconds:/);
    expect((await h.call('PATCH', path, { token: w.owner.token, body: { interval: 60 } })).body.error.message).toMatch(/^interval:/);
    expect((await h.call('PATCH', path, { token: w.creator.token, body: { pollSeconds: 60 } })).status).toBe(403);
    const res = await h.call('PATCH', path, { token: w.owner.token, body: { pollSeconds: 0 } });
    expect(res.status).toBe(200);
    expect((await h.db.prisma.gitSyncConnection.findUniqueOrThrow({ where: { spaceId } })).pollSeconds).toBe(0);
    expect((await h.call('DELETE', path, { token: w.creator.token })).status).toBe(403);
    expect((await h.call('DELETE', path, { token: w.owner.token })).status).toBe(205);
    expect((await h.call('DELETE', path, { token: w.owner.token })).status).toBe(204);
    expect((await h.call('GET', `${path}/info`, { token: w.owner.token })).status).toBe(404);
    const body = pushBody('refs/heads/main');
    expect((await deliver(spaceId, body, { 'x-github-event': 'push', 'x-hub-signature-256': `sha256=${hmac(secret, body)}` })).status).toBe(
      401,
    );
    expect((await h.call('GET', `/v1/spaces/${spaceId}`, { token: w.owner.token })).body.gitSync).toBeUndefined();
    await drainJobs(services(), [IMPORT_JOB, EXPORT_JOB]);
  });
});
