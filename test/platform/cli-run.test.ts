import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { setupHarness, type Harness } from '../support/harness.js';

/** Running Lectern as a new user does: the CLI, the start, the first requests, backups. */
const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/lectern.js');
const cleanEnv = () => {
  const env = { ...process.env };
  for (const name of ['DATABASE_URL', 'LOG_FORMAT', 'npm_lifecycle_event']) delete env[name];
  return env;
};
const cli = (args: string[], env: NodeJS.ProcessEnv) =>
  run('node', [BIN, ...args], { env }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }),
  );
const tempDirs: string[] = [];
afterAll(() => tempDirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

describe('lectern CLI: help, version, usage errors', () => {
  it('answers --help, -h and help on stdout with exit 0 for every command, fast; names unknown commands and options (exit 2)', async () => {
    const env = cleanEnv();
    const started = performance.now();
    const answers = await Promise.all([
      cli(['--help'], env),
      cli(['-h'], env),
      cli(['help'], env),
      cli(['user', 'create', '--help'], env),
      cli(['help', 'token', 'revoke'], env),
      cli(['backup', '-h'], env),
      cli(['user', '--help'], env),
      cli(['--version'], env),
    ]);
    const ms = (performance.now() - started) / answers.length;
    console.log(`help answers: ${ms.toFixed(0)} ms each (8 in parallel on 2 cores)`);
    for (const a of answers) expect({ code: a.code, stderr: a.stderr }).toEqual({ code: 0, stderr: '' });
    expect(answers[0]!.stdout).toContain('lectern token revoke --id TOKEN_ID');
    expect(answers[3]!.stdout).toContain('Usage: lectern user create --email E --name N [--org-title T]');
    expect(answers[4]!.stdout).toContain('Usage: lectern token revoke');
    expect(answers[7]!.stdout).toMatch(/^lectern \d+\.\d+\.\d+/);

    const unknown = await cli(['frobnicate'], env);
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    const sub = await cli(['user', 'frob'], env);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain('unknown command "user frob"');
    const option = await cli(['user', 'create', '--colour', 'x'], env);
    expect(option.code).toBe(2);
    expect(option.stderr).toMatch(/Unknown option '--colour'/);
    const missing = await cli(['token', 'revoke'], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--id is required');
  });
});

describe('lectern serve', () => {
  it('a taken port fails at once, naming PORT, leaving no process, pid file or database behind', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as net.AddressInfo).port;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lc-port-'));
    tempDirs.push(dir);
    try {
      const started = performance.now();
      const result = await cli(['serve'], { ...cleanEnv(), LECTERN_DATA_DIR: path.join(dir, 'data'), PORT: String(port) });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`Port ${port}`);
      expect(result.stderr).toContain('set PORT');
      console.log(`port clash refused in ${(performance.now() - started).toFixed(0)} ms`);
      // Nothing was started (what makes it fast): no pid file, no cluster.
      expect(fs.existsSync(path.join(dir, 'data'))).toBe(false);
    } finally {
      blocker.close();
    }
  });

  // As root (CI, containers), from a directory the `postgres` system user cannot enter (a clone in
  // /root): the embedded database starts anyway. Under `npm start`, stopping npm stops the server.
  it.skipIf(process.getuid?.() !== 0)(
    'as root in a 0700 directory, under npm start: starts, serves /, GraphiQL on reload, JSON logs without secrets; SIGTERM to npm stops everything',
    async () => {
      const home = fs.mkdtempSync(path.join(os.tmpdir(), 'lc-root-'));
      tempDirs.push(home);
      expect(fs.statSync(home).mode & 0o777).toBe(0o700);
      const dataDir = path.join(home, 'data');
      const env = {
        ...cleanEnv(),
        LECTERN_DATA_DIR: dataDir,
        PORT: '0',
        LOG_FORMAT: 'json',
        LECTERN_METRICS: 'open',
        LECTERN_AUTH_FAILURE_LIMIT: '2',
      };
      const npm = spawn('npm', ['start', '--silent'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      npm.stdout.on('data', (c) => (output += c));
      npm.stderr.on('data', (c) => (output += c));
      let cluster: string | undefined;
      try {
        const url = await new Promise<string>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no start: ${output}`)), 60_000);
          npm.stdout.on('data', () => {
            const match = output.match(/listening on (http:\/\/[\d.]+:\d+)/);
            if (match) clearTimeout(timer), resolve(match[1]!);
          });
          npm.on('exit', () => reject(new Error(`npm exited: ${output}`)));
        });
        cluster = fs.readFileSync(path.join(dataDir, 'pg.location'), 'utf8').trim();
        expect(fs.existsSync(path.join(cluster, 'PG_VERSION'))).toBe(true);
        expect(output).toContain('first start: creating the database cluster');
        expect(output).toContain('applying pending database migrations');

        const landing = await fetch(`${url}/`);
        expect(landing.status).toBe(200);
        expect(landing.headers.get('content-type')).toContain('text/html');
        const html = await landing.text();
        expect(html).toContain('href="/graphql"');
        expect(html).toContain('lectern user create');
        expect(html).not.toMatch(/<script|src="https?:|href="https?:/);

        // A GraphiQL page reloaded with its ?query=: GraphiQL again, asking for the token (sessionStorage only).
        const reload = await fetch(`${url}/graphql?query=${encodeURIComponent('{ viewer { id } }')}`, {
          headers: { accept: 'text/html,application/xhtml+xml' },
        });
        expect(reload.status).toBe(200);
        const page = await reload.text();
        // (Not printed on failure: the page is megabytes.)
        expect(page.includes('function lecternGraphiQL') && page.includes('sessionStorage.setItem(key, token)')).toBe(true);
        expect(page.includes('"shouldPersistHeaders":false')).toBe(true);

        // The CLI attaches to the running server's database; a token's requests are logged without it.
        const created = JSON.parse(
          (await run('node', [BIN, 'user', 'create', '--email', 'root@example.com', '--name', 'Root', '--org-title', 'Ops'], { env }))
            .stdout,
        );
        const api = await fetch(`${url}/v1/orgs/${created.organization.id}/spaces?shareKey=sekrit-share`, {
          headers: { authorization: `Bearer ${created.token}`, 'x-request-id': 'req-42' },
        });
        expect(api.status).toBe(200);
        expect(api.headers.get('x-request-id')).toBe('req-42');
        // A full flow: several REST calls with the token, a share key and a JWT in query strings, a
        // persisted GraphQL query and an anonymous one, then invalid tokens until the address is refused.
        const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzZWtyaXQifQ.c2Vrcml0LXNpZ25hdHVyZQ';
        const auth = { authorization: `Bearer ${created.token}`, 'content-type': 'application/json' };
        const space = await (
          await fetch(`${url}/v1/orgs/${created.organization.id}/spaces`, {
            method: 'POST',
            headers: auth,
            body: JSON.stringify({ title: 'Logged' }),
          })
        ).json();
        expect((await fetch(`${url}/v1/spaces/${space.id}?jwt_token=${jwt}`, { headers: auth })).status).toBe(200);
        expect((await fetch(`${url}/v1/spaces/${space.id}/content?share=sekrit-share&jwt_token=${jwt}`, { headers: auth })).status).toBe(
          200,
        );
        const query = 'query ViewerId { viewer { id } }';
        const hash = (await import('node:crypto')).createHash('sha256').update(query).digest('hex');
        const persisted = await fetch(`${url}/graphql`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ query, extensions: { persistedQuery: { version: 1, sha256Hash: hash } } }),
        });
        expect(persisted.status).toBe(200);
        expect(
          (
            await fetch(`${url}/graphql`, {
              method: 'POST',
              headers: auth,
              body: JSON.stringify({ query: 'query Whatever { viewer { id } }' }),
            })
          ).status,
        ).toBe(200);
        const bad = () =>
          fetch(`${url}/v1/user`, { headers: { authorization: 'Bearer lct_not-a-real-token-sekrit' } }).then((r) => r.status);
        expect([await bad(), await bad(), await bad()]).toEqual([401, 401, 429]);
        const metrics = await (await fetch(`${url}/metrics`)).text();
        expect(metrics).toContain('lectern_graphql_operations_total{type="query",name="ViewerId"} 1');
        expect(metrics).toContain('lectern_graphql_operations_total{type="query",name="anonymous"} 1');
        expect(metrics).toContain('lectern_rate_limit_refusals_total{limiter="auth-failures"} 1');
        expect(metrics).toMatch(/^process_cpu_seconds_total \d/m); // prom-client's default metrics
        expect(metrics).toContain('lectern_http_requests_total{method="GET",route="/v1/orgs/:organizationId/spaces",status="200"} 1');
        expect(metrics).toMatch(/lectern_http_request_duration_seconds_bucket\{le="\+Inf",method="GET",route="\/"\} 1/);
        expect(metrics).toMatch(/lectern_db_pool_connections\{state="total"\} \d+/);
        expect(metrics).toContain('lectern_jobs{status="pending"}');
        await new Promise((r) => setTimeout(r, 100));
        const requests = output
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l))
          .filter((l) => l.msg === 'request');
        expect(requests.find((l) => l.requestId === 'req-42')).toMatchObject({
          method: 'GET',
          route: '/v1/orgs/:organizationId/spaces',
          status: 200,
        });
        for (const secret of [created.token, 'sekrit', jwt, 'jwt_token', 'Bearer', 'share=']) expect(output).not.toContain(secret);
        expect(requests.filter((l) => l.route === '/v1/spaces/:spaceId').map((l) => l.path)).toEqual([`/v1/spaces/${space.id}`]);

        // What a supervisor does: SIGTERM to npm's pid. The server (node) drains and stops its database.
        const owner = JSON.parse(fs.readFileSync(path.join(dataDir, 'lectern.pid'), 'utf8')).pid as number;
        npm.kill('SIGTERM');
        const until = Date.now() + 20_000;
        const alive = (pid: number) => {
          try {
            return process.kill(pid, 0);
          } catch {
            return false;
          }
        };
        while (alive(owner) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
        expect(alive(owner)).toBe(false);
        expect(fs.existsSync(path.join(dataDir, 'lectern.pid'))).toBe(false);
        expect(fs.existsSync(path.join(cluster, 'postmaster.pid'))).toBe(false);
      } finally {
        if (npm.exitCode === null) npm.kill('SIGKILL');
        if (cluster) fs.rmSync(cluster, { recursive: true, force: true });
      }
    },
    90_000,
  );
});

describe('lectern CLI on a PostgreSQL server: users, tokens, backup and restore', () => {
  let h: Harness;
  let env: NodeJS.ProcessEnv;
  const urlFor = (database: string) => {
    const server = inject('dbServer');
    return server.host!.startsWith('/')
      ? `postgres://postgres@localhost:${server.port}/${database}?host=${server.host}`
      : `postgres://${server.user}${server.password ? `:${server.password}` : ''}@${server.host}:${server.port}/${database}`;
  };
  beforeAll(async () => {
    h = await setupHarness();
    const database = (await h.db.pool.query<{ db: string }>('SELECT current_database() AS db')).rows[0]!.db;
    env = { ...cleanEnv(), DATABASE_URL: urlFor(database) };
  });

  it('user create is all or nothing; users and tokens are found by email; token revoke; clear errors', async () => {
    const refused = await cli(['user', 'create', '--email', 'grace@example.com', '--name', 'Grace', '--org-title', 'x'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--org-title: must be at least 2 characters');
    // Nothing was created: the same command with a good title works.
    expect(await h.db.prisma.user.count({ where: { email: 'grace@example.com' } })).toBe(0);
    const created = JSON.parse(
      (await cli(['user', 'create', '--email', 'grace@example.com', '--name', 'Grace', '--org-title', 'Navy'], env)).stdout,
    );
    expect(created).toMatchObject({
      user: { email: 'grace@example.com' },
      token: expect.stringMatching(/^lct_/),
      organization: { title: 'Navy' },
    });

    const [list, show, issued, nobody] = await Promise.all([
      cli(['user', 'list'], env),
      cli(['user', 'show', '--email', 'Grace@Example.com'], env),
      cli(['token', 'create', '--email', 'grace@example.com', '--label', 'ci'], env),
      cli(['token', 'create', '--user', 'nosuchuser'], env),
    ]);
    expect(JSON.parse(list.stdout)).toContainEqual(
      expect.objectContaining({ id: created.user.id, organizations: [{ id: created.organization.id, role: 'admin' }] }),
    );
    const shown = JSON.parse(show.stdout);
    expect(shown).toMatchObject({ id: created.user.id, organizations: [{ id: created.organization.id, title: 'Navy', role: 'admin' }] });
    expect(shown.tokens).toContainEqual(expect.objectContaining({ label: 'cli' }));
    expect(show.stdout).not.toContain(created.token);
    const second = JSON.parse(issued.stdout).token as string;
    expect((await h.call('GET', '/v1/user', { token: second })).status).toBe(200);
    expect(nobody).toMatchObject({ code: 1 });
    expect(nobody.stderr).toBe('lectern token create: no user with id nosuchuser (lectern user list shows them)\n');

    const tokens = JSON.parse((await cli(['token', 'list', '--user', created.user.id], env)).stdout) as { id: string; label: string }[];
    expect(tokens.map((t) => t.label)).toEqual(['cli', 'ci']);
    expect(JSON.parse((await cli(['token', 'revoke', '--id', tokens[1]!.id], env)).stdout)).toEqual({ revoked: tokens[1]!.id });
    expect((await h.call('GET', '/v1/user', { token: second })).status).toBe(401);
    expect((await h.call('GET', '/v1/user', { token: created.token })).status).toBe(200);
  });

  it('export --space writes the space as a zip in the Git layout and prints its path; a missing space is exit 1', async () => {
    const owner = await h.user();
    const org = (await h.call('POST', '/v1/orgs', { token: owner.token, body: { title: 'Exported' } })).body;
    const space = (await h.call('POST', `/v1/orgs/${org.id}/spaces`, { token: owner.token, body: { title: 'Manual' } })).body;
    expect(
      (
        await h.call('POST', `/v1/spaces/${space.id}/content`, {
          token: owner.token,
          body: {
            changes: [
              { operation: 'insert_page', title: 'Welcome', document: { markdown: 'Hello' } },
              { operation: 'insert_page', title: 'Boilers', document: { markdown: 'Steam engines' } },
            ],
          },
        })
      ).status,
    ).toBe(200);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lc-export-'));
    tempDirs.push(dir);
    const out = path.join(dir, 'manual.zip');
    const exported = await cli(['export', '--space', space.id, '--out', out], env);
    expect(exported).toEqual({ code: 0, stdout: `${out}\n`, stderr: '' });
    const yauzl = (await import('yauzl')).default;
    const names = await new Promise<string[]>((resolve, reject) =>
      yauzl.open(out, { lazyEntries: false }, (error, zip) => {
        if (error) return reject(error);
        const found: string[] = [];
        zip.on('entry', (e: { fileName: string }) => found.push(e.fileName));
        zip.on('end', () => resolve(found));
        zip.on('error', reject);
      }),
    );
    expect(names).toContain('SUMMARY.md');
    expect(names).toContain('boilers.md');
    const [help, missing] = await Promise.all([
      cli(['export', '--help'], env),
      cli(['export', '--space', 'nosuchspace', '--out', path.join(dir, 'x.zip')], env),
    ]);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toContain('Usage: lectern export --space SPACE_ID [--out FILE]');
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toContain('No space with id nosuchspace');
    expect(fs.existsSync(path.join(dir, 'x.zip'))).toBe(false);
  });

  it('backup then restore into an empty database gives every table identical; a non-empty database is refused', async () => {
    // Some content in many tables: a space with pages (revisions, search sections).
    const owner = await h.user();
    const org = (await h.call('POST', '/v1/orgs', { token: owner.token, body: { title: 'Backed up' } })).body;
    const space = (await h.call('POST', `/v1/orgs/${org.id}/spaces`, { token: owner.token, body: { title: 'Docs' } })).body;
    const write = await h.call('POST', `/v1/spaces/${space.id}/content`, {
      token: owner.token,
      body: { changes: [{ operation: 'insert_page', title: 'Boilers', document: { markdown: 'Steam "engines"\nand\ttabs ✓' } }] },
    });
    expect(write.status).toBe(200);

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lc-backup-'));
    tempDirs.push(dir);
    const file = path.join(dir, 'lectern.jsonl.gz');
    const backedUp = await cli(['backup', file], env);
    expect({ code: backedUp.code, stderr: backedUp.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(backedUp.stdout)).toMatchObject({ file, rows: expect.any(Number) });
    console.log(`backup: ${backedUp.stdout.replace(/\s+/g, ' ')}`);

    const target = `${(await h.db.pool.query<{ db: string }>('SELECT current_database() AS db')).rows[0]!.db}_restored`;
    const admin = new pg.Client(inject('dbServer'));
    await admin.connect();
    await admin.query(`CREATE DATABASE "${target}"`);
    const restoredPool = new pg.Pool({ ...inject('dbServer'), database: target, max: 2 });
    restoredPool.on('error', () => {}); // the DROP … WITH (FORCE) below ends its idle connections
    try {
      const restored = await cli(['restore', file], { ...env, DATABASE_URL: urlFor(target) });
      expect(restored.stderr).toBe('');
      expect(JSON.parse(restored.stdout)).toMatchObject({ rows: JSON.parse(backedUp.stdout).rows });

      // Every table, row for row (the migrations table aside: each database has its own).
      const tables = (
        await h.db.pool.query<{ t: string }>(
          "SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' ORDER BY 1",
        )
      ).rows.map((r) => r.t);
      const digest = (pool: pg.Pool, t: string) =>
        pool
          .query<{ n: number; d: string | null }>(
            `SELECT count(*)::int AS n, md5(string_agg(x.j, E'\\n' ORDER BY x.j)) AS d FROM (SELECT row_to_json(t)::text AS j FROM "${t}" t) x`,
          )
          .then((r) => r.rows[0]);
      let rows = 0;
      for (const t of tables) {
        const [a, b] = await Promise.all([digest(h.db.pool, t), digest(restoredPool, t)]);
        expect({ table: t, ...b }).toEqual({ table: t, ...a });
        rows += a!.n;
      }
      expect(rows).toBeGreaterThan(10);

      const again = await cli(['restore', file], { ...env, DATABASE_URL: urlFor(target) });
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('this database is not empty');
    } finally {
      await restoredPool.end();
      await admin.query(`DROP DATABASE IF EXISTS "${target}" WITH (FORCE)`);
      await admin.end();
    }
  });
});
