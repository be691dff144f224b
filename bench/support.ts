import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import pg from 'pg';
import { issueToken } from '../src/auth/tokens.js';
import { readConfig } from '../src/config.js';
import { createOrganization } from '../src/modules/orgs/service.js';
import { createUser } from '../src/modules/users/service.js';
import { startServer } from '../src/server.js';
import { connect, embeddedTarget, targetFromUrl, type Database, type PoolTarget } from '../src/db/database.js';
import { startEmbedded } from '../src/db/embedded.js';
import { migrate } from '../src/db/migrate.js';
import { newId } from '../src/ids.js';
import { Content, ContentWriter, putBodies, type PageEntry } from '../src/modules/content/store.js';

/**
 * A fresh, migrated database for one bench run: on the server at DATABASE_URL, else on an
 * embedded PostgreSQL started in a temporary directory. `close()` drops it (and stops the server).
 */
export interface BenchDatabase {
  db: Database;
  server: PoolTarget;
  database: string;
  mode: string;
  close(): Promise<void>;
}

export async function openBenchDatabase(name: string): Promise<BenchDatabase> {
  let server: PoolTarget;
  let stop = async () => {};
  let dataDir: string | undefined;
  if (process.env.DATABASE_URL) server = { ...targetFromUrl(process.env.DATABASE_URL), database: 'postgres' };
  else {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-'));
    fs.chmodSync(dataDir, 0o755);
    const embedded = await startEmbedded(dataDir, 'test');
    server = embeddedTarget(embedded);
    stop = () => embedded.stop();
  }
  const database = `lectern_bench_${name}_${process.pid}`;
  const admin = new pg.Client(server);
  await admin.connect();
  await admin.query(`CREATE DATABASE "${database}"`);
  const db = connect({ ...server, database });
  await migrate(db.pool);
  return {
    db,
    server,
    database,
    mode: process.env.DATABASE_URL ? 'PostgreSQL at DATABASE_URL' : 'embedded PostgreSQL',
    async close() {
      await db.close();
      await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      await admin.end();
      await stop();
      if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The node flags `npm start` runs the server with (package.json), so a spawned bench server runs as it does. */
const START_FLAGS = (
  /exec node ((?:--\S+ )*)bin\/lectern\.js/.exec(
    JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../package.json'), 'utf8')).scripts.start,
  )?.[1] ?? ''
).trim();

/**
 * The server under test in its own process (bench/server.ts, as `npm start` runs it: NODE_ENV
 * production unless set, and `npm start`'s node flags), on the bench database. BENCH_PROFILE=1 writes its CPU profile
 * (bench/profiles/*.cpuprofile) for a look in DevTools. BENCH_NODE_FLAGS (space-separated) replace
 * those flags for the server process alone, e.g. `--max-old-space-size=1024` to see what a cap on
 * V8's heap does to its RSS and throughput. `stop()` ends it.
 */
export async function spawnBenchServer(
  { server, database }: Pick<BenchDatabase, 'server' | 'database'>,
  opts: { script?: string; args?: string[]; flags?: string } = {},
) {
  const target = server.host?.startsWith('/')
    ? `postgres://${server.user}@localhost:${server.port}/${database}?host=${encodeURIComponent(server.host)}`
    : `postgres://${server.user}${server.password ? `:${server.password}` : ''}@${server.host}:${server.port}/${database}`;
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${path.join(import.meta.dirname, 'profiles')}`] : [];
  const flags = (opts.flags ?? process.env.BENCH_NODE_FLAGS ?? START_FLAGS).split(' ').filter(Boolean);
  // `script`: a bench that serves its own app (bench/reader.ts --serve) rather than bench/server.ts.
  const child = spawn(
    process.execPath,
    [...flags, ...profile, '--import', 'tsx', opts.script ?? path.join(import.meta.dirname, 'server.ts'), ...(opts.args ?? [])],
    {
      env: { ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'production', DATABASE_URL: target },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const { url, bareUrl } = JSON.parse(
    await new Promise<string>((resolve, reject) => {
      readline.createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
    }),
  ) as { url: string; bareUrl: string };
  return {
    child,
    url,
    bareUrl,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

export function benchConfig() {
  // One organization drives every connection: the per-user budget (1,200 a minute) would refuse most
  // of a bench's requests, so it is lifted. The per-organization gate stays as `npm start` has it (a
  // third of the pool at once, the rest wait their turn: test/db/contention.test.ts): it refuses nothing
  // at these concurrencies, and what it bounds (requests in flight) is what the RSS figures measure.
  return { ...readConfig({}), rateLimit: { limit: 1_000_000_000, windowSeconds: 60 } };
}

/**
 * A bench's organization, owner and token, the HTTP server on the bench database, and `call`: a
 * JSON request as the owner that throws on any non-2xx answer.
 */
export async function startBenchServer(bench: BenchDatabase, name: string) {
  const { db } = bench;
  const user = await createUser(db.prisma, { email: `owner@${name}.bench`, name: 'Owner' });
  const org = await createOrganization(db.prisma, { title: `${name} bench`, ownerId: user.id });
  const token = await issueToken(db.prisma, user.id);
  const app = await startServer({ ...benchConfig(), port: 0 }, { db });
  const call = async (method: string, p: string, body?: unknown, as = token) => {
    const res = await fetch(`${app.url}${p}`, {
      method,
      headers: { authorization: `Bearer ${as}`, 'content-type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = res.status === 204 || res.status === 205 ? undefined : ((await res.json()) as any);
    if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  return { user, org, token, app, call };
}

/**
 * Fills a space's main revision with `count` pages straight through the content store (the API's
 * write path is measured elsewhere): a three-level tree — 10 top pages, 100 below them, the rest
 * below those. Returns the page ids (in creation order) and the new revision.
 */
export async function seedPageTree(
  db: Database,
  spaceId: string,
  count: number,
  markdownOf: (i: number) => string,
  parentOf: (i: number, ids: string[]) => string | null = (i, ids) => (i < 10 ? null : i < 110 ? ids[i % 10]! : ids[10 + (i % 100)]!),
) {
  const space = (await db.prisma.space.findUnique({ where: { id: spaceId } }))!;
  const base = await Content.load(db.prisma, (await db.prisma.revision.findUnique({ where: { id: space.revisionId } }))!.manifest);
  const writer = new ContentWriter(base);
  const now = new Date().toISOString();
  const bodies: string[] = [];
  for (let i = 0; i < count; i += 1000) {
    bodies.push(
      ...(await putBodies(
        db.prisma,
        Array.from({ length: Math.min(1000, count - i) }, (_, j) => ({ markdown: markdownOf(i + j), links: [] })),
      )),
    );
  }
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = newId();
    const parent = parentOf(i, ids);
    const entry: PageEntry = {
      id,
      parent,
      position: i,
      type: 'document',
      title: `Page ${i}`,
      slug: `page-${i}`,
      body: bodies[i],
      createdAt: now,
      updatedAt: now,
    };
    await writer.put(entry);
    ids.push(id);
  }
  const manifest = await writer.write(db.prisma);
  const revision = newId();
  await db.prisma.revision.create({ data: { id: revision, spaceId, parents: [space.revisionId], manifest } });
  await db.prisma.space.update({ where: { id: spaceId }, data: { revisionId: revision } });
  return { ids, revision, manifest };
}

/** A docs site's whole tree for a front-end, in one GraphQL query (bench/sites.ts, bench/load.ts). */
export const SITE_TREE_QUERY = /* GraphQL */ `
query SiteTree($id: ID!) {
  organization(id: $id) {
    sites(limit: 5) {
      count
      items {
        id title published urls { published } structure { type }
        sectionGroups(limit: 100) { items { id title children { ... on SiteSection { id } ... on SiteSectionGroup { id } } } }
        sections(limit: 100) {
          count
          items {
            id title path default sectionGroup urls { published }
            siteSpaces { id path default urls { published } space { id title content { id pageList { id title path parent } } } }
          }
        }
      }
    }
  }
}`;

/**
 * A closed loop: `concurrency` callers each running `run` again and again for `durationMs` (after
 * `warmup` sequential runs). Answers how many runs completed, per second, and the p50 / p99 latency in ms.
 */
export async function closedLoop(run: () => Promise<unknown>, opts: { durationMs: number; concurrency: number; warmup?: number }) {
  for (let i = 0; i < (opts.warmup ?? 0); i++) await run();
  const latencies: number[] = [];
  const until = performance.now() + opts.durationMs;
  await Promise.all(
    Array.from({ length: opts.concurrency }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        await run();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]!;
  return { count: latencies.length, perSecond: latencies.length / (opts.durationMs / 1000), p50: pct(0.5), p99: pct(0.99) };
}

/** A caller of the bench server's API with the owner's token: the answer's JSON, or a thrown error naming the call. */
export function benchApi(url: string, token: string) {
  return async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${url}${p}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = res.status === 204 ? undefined : ((await res.json()) as any);
    if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
}
