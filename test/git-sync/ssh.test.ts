/**
 * Git sync over SSH with a deploy key, against a real SSH server on loopback (ssh2's Server running
 * the real git-upload-pack / git-receive-pack, test/support/ssh-git-server.ts) and the real
 * /usr/bin/ssh on Lectern's side: Lectern makes the key pair, shows only the public key, the user
 * adds it as a deploy key, then imports and exports work; a wrong key or host key is refused with a
 * message saying what to do, and the private key is in no answer, log, job or leftover file.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { drainJobs } from '../../src/jobs/queue.js';
import { EXPORT_JOB, IMPORT_JOB } from '../../src/modules/git-sync/jobs.js';
import { serverKeys } from '../../src/secrets.js';
import { createUrls } from '../../src/urls.js';
import { writeCr } from '../support/content-writes.js';
import { BASE, setupHarness, type Harness } from '../support/harness.js';
import { ed25519Pair, startSshGitServer, type SshGitServer } from '../support/ssh-git-server.js';

let h: Harness;
let ssh: SshGitServer;
let root: string;
let scratch: string;
const originalTmp = process.env.TMPDIR;
let owner: Awaited<ReturnType<Harness['owner']>>;
let outsider: Awaited<ReturnType<Harness['user']>>;
const logs: string[] = [];

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
const sshUrl = (repo: string) => `ssh://git@127.0.0.1:${ssh.port}/${repo}.git`;
const services = () => ({ db: h.db, config: h.config, urls: createUrls(BASE) });
const drain = () => drainJobs(services(), [IMPORT_JOB, EXPORT_JOB]);
const FILES = {
  'SUMMARY.md': '# Table of contents\n\n* [Welcome](README.md)\n* [Setup](setup.md)\n',
  'README.md': '# Welcome\n\nOver SSH.\n',
  'setup.md': '# Setup\n\nLine one.\n',
};

/** A bare repository below the SSH server's root, seeded by a developer's clone (returned). */
function newRepo(name: string): string {
  git(root, 'init', '-q', '--bare', '-b', 'main', `${name}.git`);
  const dev = mkdtempSync(join(root, 'dev-'));
  git(dev, 'clone', '-q', join(root, `${name}.git`), '.');
  git(dev, 'checkout', '-q', '-b', 'main');
  for (const [path, text] of Object.entries(FILES)) writeFileSync(join(dev, path), text);
  git(dev, 'add', '-A');
  git(dev, 'commit', '-q', '-m', 'docs');
  git(dev, 'push', '-q', 'origin', 'main');
  return dev;
}

beforeAll(async () => {
  process.env.LECTERN_ALLOW_PRIVATE_NETWORK = '1';
  // Lectern's temporary files (working copies, key files) go here, so the test can see what is left.
  scratch = mkdtempSync(join(tmpdir(), 'ssh-test-tmp-'));
  process.env.TMPDIR = scratch;
  for (const method of ['log', 'error', 'warn', 'info'] as const) {
    const original = console[method];
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      logs.push(args.map(String).join(' '));
      original(...args);
    });
  }
  root = mkdtempSync(join(scratch, 'ssh-git-'));
  ssh = await startSshGitServer(root);
  h = await setupHarness();
  owner = await h.owner('SSH Co');
  outsider = await h.user('Outsider');
});

afterAll(async () => {
  await ssh?.close();
  if (originalTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = originalTmp;
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  delete process.env.LECTERN_ALLOW_PRIVATE_NETWORK;
});

async function newSpace(title: string) {
  const res = await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { title } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}
const titlesOf = async (spaceId: string) =>
  ((await h.call('GET', `/v1/spaces/${spaceId}/content`, { token: owner.token })).body.pages as any[]).map((p) => p.title);
const info = async (spaceId: string) =>
  (await h.rest('getSpaceGitInfo', 'GET', `/v1/spaces/${spaceId}/git/info`, { token: owner.token })).body;
const revisionOf = async (spaceId: string) => (await h.db.prisma.space.findUniqueOrThrow({ where: { id: spaceId } })).revisionId;
/** The private key Lectern holds for the space (opened here only to prove it appears nowhere else). */
async function storedPrivateKey(spaceId: string): Promise<string> {
  const row = await h.db.prisma.gitSyncConnection.findUniqueOrThrow({ where: { spaceId } });
  return (await serverKeys(services())).open(`git-sync:${spaceId}`, row.credential)!;
}
const leftovers = () => readdirSync(scratch).filter((n) => /^lectern-(ssh|git)-/.test(n));

describe('Git sync over SSH with a deploy key', () => {
  let spaceId: string;
  let dev: string;

  it('makes a deploy key, shows only its public key; the import fails saying to add it, then works once added', async () => {
    dev = newRepo('docs');
    spaceId = await newSpace('Over SSH');
    const before = await revisionOf(spaceId);
    const res = await h.rest('importGitRepository', 'POST', `/v1/spaces/${spaceId}/git/import`, {
      token: owner.token,
      body: { url: sshUrl('docs'), ref: 'refs/heads/main' },
    });
    expect(res.status).toBe(204);
    await drain();
    let state = await info(spaceId);
    expect(state.sshPublicKey).toMatch(new RegExp(`^ssh-ed25519 [A-Za-z0-9+/]+=* lectern-space-${spaceId}$`));
    expect(state).toMatchObject({
      installationStatus: 'unauthenticated',
      operation: { state: 'failure', direction: 'import' },
      repoName: 'docs',
    });
    expect(state.operation.error).toMatch(/refused the credential \(SSH deploy key\).*add the connection's public key \(sshPublicKey/);
    expect(await revisionOf(spaceId)).toBe(before);
    // Trust on first use: the host key ssh saw is recorded, even though authentication failed.
    expect(state.sshHostKey).toBe(ssh.hostKey);
    expect(ssh.log.some((l) => l.startsWith(`denied ssh-ed25519 ${state.sshPublicKey.split(' ')[1]}`))).toBe(true);

    // The user adds the public key as a deploy key; sending the request again keeps the same key.
    ssh.allow(state.sshPublicKey);
    const modes: number[] = [];
    ssh.onExec = () => {
      // While git runs: the key file exists, 0600, in a 0700 directory of its own, outside the working copy.
      for (const dir of readdirSync(scratch).filter((n) => n.startsWith('lectern-ssh-'))) {
        modes.push(statSync(join(scratch, dir)).mode & 0o777, statSync(join(scratch, dir, 'key')).mode & 0o777);
      }
    };
    expect(
      (
        await h.rest('importGitRepository', 'POST', `/v1/spaces/${spaceId}/git/import`, {
          token: owner.token,
          body: { url: sshUrl('docs'), ref: 'refs/heads/main' },
        })
      ).status,
    ).toBe(204);
    await drain();
    ssh.onExec = null;
    state = await info(spaceId);
    expect(state.operation).toMatchObject({ state: 'success', direction: 'import' });
    expect(state.installationStatus).toBe('active');
    expect(state.lastCommit).toBe(git(dev, 'rev-parse', 'HEAD'));
    expect(await titlesOf(spaceId)).toEqual(['Welcome', 'Setup']);
    expect(ssh.log).toContain(`git-upload-pack '/docs.git'`);
    expect(modes.length).toBeGreaterThan(0);
    expect(new Set(modes)).toEqual(new Set([0o700, 0o600]));
    expect(leftovers()).toEqual([]);
  });

  it('exports a merge over SSH: one commit pushed with the deploy key', async () => {
    const setup = ((await h.call('GET', `/v1/spaces/${spaceId}/content`, { token: owner.token })).body.pages as any[]).find(
      (p) => p.title === 'Setup',
    );
    const cr = (await h.call('POST', `/v1/spaces/${spaceId}/change-requests`, { token: owner.token, body: { subject: 'Setup over SSH' } }))
      .body;
    await writeCr(h, owner.token, spaceId, cr.number, [
      { operation: 'update_page', page: setup.id, document: { markdown: '# Setup\n\nLine one, edited in Lectern.\n' } },
    ]);
    expect((await h.call('POST', `/v1/spaces/${spaceId}/change-requests/${cr.number}/merge`, { token: owner.token })).status).toBe(200);
    expect(await drain()).toBe(1);
    expect((await info(spaceId)).operation).toMatchObject({ state: 'success', direction: 'export' });
    git(dev, 'pull', '-q', '--ff-only', 'origin', 'main');
    expect(git(dev, 'log', '-1', '--format=%s')).toBe(`Setup over SSH (#${cr.number})`);
    expect(readFileSync(join(dev, 'setup.md'), 'utf8')).toBe('# Setup\n\nLine one, edited in Lectern.\n');
    expect(ssh.log).toContain(`git-receive-pack '/docs.git'`);
    expect(leftovers()).toEqual([]);
  });

  it('a wrong key is refused with a clear message and changes nothing; so is a host key that is not the server’s', async () => {
    const other = await newSpace('Wrong key');
    newRepo('second');
    const wrong = ed25519Pair();
    const before = await revisionOf(other);
    expect(
      (
        await h.rest('importGitRepository', 'POST', `/v1/spaces/${other}/git/import`, {
          token: owner.token,
          body: { url: sshUrl('second'), ref: 'refs/heads/main', sshPrivateKey: wrong.private },
        })
      ).status,
    ).toBe(204);
    await drain();
    let state = await info(other);
    // The user's key is the one used (its public half shown), refused by the server.
    expect(state.sshPublicKey.split(' ').slice(0, 2).join(' ')).toBe(wrong.public.split(' ').slice(0, 2).join(' '));
    expect(state).toMatchObject({ installationStatus: 'unauthenticated', operation: { state: 'failure' } });
    expect(state.operation.error).toMatch(
      /^the remote refused the credential \(SSH deploy key\) for 127\.0\.0\.1: add the connection's public key/,
    );
    expect(await revisionOf(other)).toBe(before);
    expect(await titlesOf(other)).toEqual([]);

    // The accepted key, but a host key that is not the server's: refused before authenticating.
    ssh.allow(wrong.public);
    const notTheServer = ed25519Pair().public;
    expect(
      (
        await h.rest('importGitRepository', 'POST', `/v1/spaces/${other}/git/import`, {
          token: owner.token,
          body: { url: sshUrl('second'), ref: 'refs/heads/main', sshPrivateKey: wrong.private, sshHostKey: notTheServer },
        })
      ).status,
    ).toBe(204);
    const execs = ssh.log.length;
    await drain();
    state = await info(other);
    expect(state.sshHostKey).toBe(notTheServer.split(' ').slice(0, 2).join(' '));
    expect(state.operation.error).toMatch(/SSH host key of 127\.0\.0\.1 is not the one this connection trusts.*sshHostKey/);
    expect(ssh.log.length).toBe(execs); // nothing was run on the server
    expect(await revisionOf(other)).toBe(before);

    // With the server's real host key (as ssh-keyscan prints it, host field and all): the import works.
    expect(
      (
        await h.rest('importGitRepository', 'POST', `/v1/spaces/${other}/git/import`, {
          token: owner.token,
          body: { url: sshUrl('second'), ref: 'refs/heads/main', sshHostKey: `[127.0.0.1]:${ssh.port} ${ssh.hostKey}` },
        })
      ).status,
    ).toBe(204);
    await drain();
    state = await info(other);
    expect(state.operation).toMatchObject({ state: 'success' });
    expect(state.sshPublicKey.split(' ')[1]).toBe(wrong.public.split(' ')[1]); // the supplied key was kept
    expect(await titlesOf(other)).toEqual(['Welcome', 'Setup']);
    expect(leftovers()).toEqual([]);
    // The key the user sent is in no answer, audit event, job or log.
    const texts = [
      JSON.stringify(state),
      JSON.stringify(await h.db.prisma.auditEvent.findMany()),
      JSON.stringify(await h.db.prisma.job.findMany()),
      ...logs,
    ];
    expect((await h.db.prisma.auditEvent.findMany({ where: { action: 'importGitRepository' } })).length).toBeGreaterThan(0);
    for (const text of texts) for (const line of wrong.private.trim().split('\n').slice(1, -1)) expect(text).not.toContain(line);
  });

  it('refuses bad input (400 naming the field, data unchanged), callers without rights, and private addresses unless allowed', async () => {
    const path = `/v1/spaces/${spaceId}/git/import`;
    const snapshot = JSON.stringify(await h.db.prisma.gitSyncConnection.findUniqueOrThrow({ where: { spaceId } }));
    const garbage = '-----BEGIN OPENSSH PRIVATE KEY-----\nnot really a key at all\n-----END OPENSSH PRIVATE KEY-----\n';
    const bad = await h.call('POST', path, {
      token: owner.token,
      body: { url: sshUrl('docs'), ref: 'refs/heads/main', sshPrivateKey: garbage },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^sshPrivateKey:/);
    expect(JSON.stringify(bad.body)).not.toContain('not really a key');
    expect(
      (await h.call('POST', path, { token: owner.token, body: { url: sshUrl('docs'), ref: 'refs/heads/main', sshHostKey: 'nope' } })).body
        .error.message,
    ).toMatch(/^sshHostKey:/);
    expect(
      (
        await h.call('POST', path, {
          token: owner.token,
          body: { url: 'https://example.com/x.git', ref: 'refs/heads/main', sshHostKey: ssh.hostKey },
        })
      ).body.error.message,
    ).toMatch(/^sshHostKey: is only for an SSH remote/);
    expect(
      (
        await h.call('POST', path, {
          token: owner.token,
          body: { url: `ssh://git:pw@127.0.0.1:${ssh.port}/docs.git`, ref: 'refs/heads/main' },
        })
      ).body.error.message,
    ).toMatch(/^url: an SSH remote authenticates with a deploy key, not a password/);
    expect(
      (await h.call('POST', path, { token: owner.token, body: { url: 'git@-oProxyCommand=x:repo.git', ref: 'refs/heads/main' } })).status,
    ).toBe(400);
    expect(
      (await h.call('POST', path, { token: owner.token, body: { url: 'ssh://git@example.com/', ref: 'refs/heads/main' } })).body.error
        .message,
    ).toMatch(/^url: the SSH remote has no repository path/);
    expect([403, 404]).toContain(
      (await h.call('POST', path, { token: outsider.token, body: { url: sshUrl('docs'), ref: 'refs/heads/main' } })).status,
    );
    expect(JSON.stringify(await h.db.prisma.gitSyncConnection.findUniqueOrThrow({ where: { spaceId } }))).toBe(snapshot);

    // scp-like form: accepted, its name shown; loopback refused by the outbound guard unless the operator allows it.
    const scp = await newSpace('Scp-like');
    delete process.env.LECTERN_ALLOW_PRIVATE_NETWORK;
    try {
      expect(
        (
          await h.rest('importGitRepository', 'POST', `/v1/spaces/${scp}/git/import`, {
            token: owner.token,
            body: { url: 'git@127.0.0.1:team/handbook.git', ref: 'refs/heads/main' },
          })
        ).status,
      ).toBe(204);
      await drain();
      const state = await info(scp);
      expect(state.repoName).toBe('team/handbook');
      expect(state.operation.error).toMatch(/private network address/);
    } finally {
      process.env.LECTERN_ALLOW_PRIVATE_NETWORK = '1';
    }
  });

  it('the private key is in no answer, log, job, space or leftover file', async () => {
    const key = await storedPrivateKey(spaceId);
    expect(key).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----\n/);
    const body = key.split('\n').slice(1, -2).join('');
    const row = await h.db.prisma.gitSyncConnection.findUniqueOrThrow({ where: { spaceId } });
    const texts = [
      JSON.stringify(await info(spaceId)),
      JSON.stringify((await h.call('GET', `/v1/spaces/${spaceId}`, { token: owner.token })).body),
      JSON.stringify((await h.graphql(owner.token, `query($id: ID!) { spaceGitInfo(spaceId: $id) }`, { id: spaceId })).body),
      JSON.stringify({ ...row, credential: undefined }),
      JSON.stringify(await h.db.prisma.job.findMany()),
      JSON.stringify(await h.db.prisma.space.findMany()),
      JSON.stringify(await h.db.prisma.auditEvent.findMany()),
      ...logs,
    ];
    for (const text of texts) {
      expect(text).not.toContain('PRIVATE KEY');
      for (const line of key.split('\n').slice(1, -2)) expect(text).not.toContain(line);
    }
    expect(row.credential).not.toContain(body.slice(0, 40));
    expect(leftovers()).toEqual([]);
    // Disconnecting deletes the key with the connection.
    expect((await h.call('DELETE', `/v1/spaces/${spaceId}/git`, { token: owner.token })).status).toBeLessThan(300);
    expect(await h.db.prisma.gitSyncConnection.findUnique({ where: { spaceId } })).toBeNull();
  });
});
