import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { embeddedTarget } from '../../src/db/database.js';
import { startEmbedded, type EmbeddedServer } from '../../src/db/embedded.js';
import { migrate } from '../../src/db/migrate.js';
import { setupHarness } from '../support/harness.js';

const run = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../../bin/lectern.js');
const cleanEnv = () => {
  const env = { ...process.env };
  delete env.DATABASE_URL;
  return env;
};
const tempDirs: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lc-'));
  fs.chmodSync(dir, 0o755);
  tempDirs.push(dir);
  return dir;
};
afterAll(() => tempDirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

describe('lectern CLI on a PostgreSQL server (DATABASE_URL)', () => {
  it('creates a user with an organization, a token and another organization, printing JSON', async () => {
    const h = await setupHarness();
    const server = inject('dbServer');
    const database = (await h.db.pool.query<{ db: string }>('SELECT current_database() AS db')).rows[0]!.db;
    // A socket directory goes in the `host` query parameter (the embedded server of the test run).
    const url = server.host!.startsWith('/')
      ? `postgres://postgres@localhost:${server.port}/${database}?host=${server.host}`
      : `postgres://${server.user}@${server.host}:${server.port}/${database}`;
    const env = { ...cleanEnv(), DATABASE_URL: url };
    const created = JSON.parse(
      (await run('node', [BIN, 'user', 'create', '--email', 'Ada@Example.com', '--name', 'Ada', '--org-title', 'Engines'], { env })).stdout,
    );
    expect(created).toMatchObject({
      user: { id: expect.any(String), email: 'ada@example.com' },
      token: expect.stringMatching(/^lct_/),
      organization: { title: 'Engines' },
    });
    // Stored hashed: the token itself is nowhere in the database.
    const stored = await h.db.prisma.apiToken.findMany({ where: { userId: created.user.id } });
    expect(stored).toHaveLength(1);
    expect(stored[0]!.hash).not.toContain(created.token);
    expect((await h.call('GET', '/v1/user', { token: created.token })).body.id).toBe(created.user.id);

    const token = JSON.parse((await run('node', [BIN, 'token', 'create', '--user', created.user.id], { env })).stdout);
    expect((await h.call('GET', `/v1/orgs/${created.organization.id}`, { token: token.token })).status).toBe(200);
    const org = JSON.parse((await run('node', [BIN, 'org', 'create', '--title', 'Second', '--owner', created.user.id], { env })).stdout);
    expect(org.title).toBe('Second');

    // reindex rebuilds a space's search index from its main content.
    const space = (await h.call('POST', `/v1/orgs/${created.organization.id}/spaces`, { token: created.token, body: { title: 'Docs' } }))
      .body;
    const live = await h.call('POST', `/v1/spaces/${space.id}/content`, {
      token: created.token,
      body: { changes: [{ operation: 'insert_page', title: 'Boilers', document: { markdown: 'Steam engines' } }] },
    });
    expect(live.status).toBe(200);
    const indexed = await h.db.prisma.searchSection.count({ where: { spaceId: space.id } });
    expect(indexed).toBeGreaterThan(0);
    await h.db.prisma.searchSection.deleteMany({ where: { spaceId: space.id } });
    const reindexed = JSON.parse((await run('node', [BIN, 'reindex', '--space', space.id], { env })).stdout);
    expect(reindexed).toEqual({ reindexed: 1 });
    expect(await h.db.prisma.searchSection.count({ where: { spaceId: space.id } })).toBe(indexed);

    const duplicate = await run('node', [BIN, 'user', 'create', '--email', 'ada@example.com', '--name', 'Ada'], { env }).catch((e) => e);
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toContain('already exists');
  }, 120_000);
});

describe('embedded PostgreSQL', () => {
  it('serves from a fresh data directory, refuses a second server there, lets the CLI attach, and recovers from a killed run', async () => {
    const dataDir = tempDir();
    const env = { ...cleanEnv(), LECTERN_DATA_DIR: dataDir, PORT: '0' };

    // A server in a child process, then killed without any chance to clean up.
    const child = spawn('node', [BIN, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk) => {
        output += chunk;
        if (output.includes('listening')) resolve();
      });
      child.on('exit', () => reject(new Error(`server exited: ${output}`)));
    });
    expect(fs.statSync(path.join(dataDir, 'pg')).isDirectory()).toBe(true);
    // Unix socket only: postmaster.pid records the socket directory and no listen address.
    const pidLines = fs.readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n');
    expect(pidLines[4]).toBe(path.join(dataDir, 'pg'));
    expect(pidLines[5]).toBe('');

    const second = await run('node', [BIN, 'serve'], { env }).catch((e) => e);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('Another Lectern process');

    const attached = JSON.parse(
      (await run('node', [BIN, 'user', 'create', '--email', 'eve@example.com', '--name', 'Eve'], { env })).stdout,
    );
    expect(attached.user.email).toBe('eve@example.com');

    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));

    // The killed run left its postgres and pid files behind; the next start still works.
    let embedded: EmbeddedServer | undefined;
    try {
      embedded = await startEmbedded(dataDir, 'server');
      const pool = new pg.Pool(embeddedTarget(embedded));
      const started = performance.now();
      expect((await migrate(pool)).applied).toEqual([]);
      console.log(`migrate with none pending: ${(performance.now() - started).toFixed(1)} ms`);
      const users = await pool.query('SELECT email FROM "User"');
      expect(users.rows).toEqual([{ email: 'eve@example.com' }]);
      await pool.end();
    } finally {
      await embedded?.stop();
    }
  }, 300_000);

  it('stops gracefully on SIGTERM', async () => {
    const dataDir = tempDir();
    const child = spawn('node', [BIN, 'serve'], {
      env: { ...cleanEnv(), LECTERN_DATA_DIR: dataDir, PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let errors = '';
    child.stderr.on('data', (c) => (errors += c));
    // Ready when it says it listens (or failed when it exits first): no start-up deadline of its own.
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (c) => (output += c).includes('listening') && resolve());
      child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening: ${output} ${errors}`)));
    });
    child.kill('SIGTERM');
    const code = await new Promise((r) => child.once('exit', r));
    expect({ code, errors }).toEqual({ code: 0, errors: '' });
    expect(fs.existsSync(path.join(dataDir, 'lectern.pid'))).toBe(false);
    expect(fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
    // Generous: a first start creates a cluster, slow on a busy machine.
  }, 300_000);
});
