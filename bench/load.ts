/**
 * npm run bench (first part) — one command: a fresh database with realistic data (3 organizations,
 * 1,000 spaces in 20 collections, a site of 50 sections × 20 site spaces, 10,000 pages), the server
 * started in its own process (bench/server.ts), driven over loopback by autocannon. For each
 * scenario, side by side: req/s, p50, p99, SQL statements per request and the server's RSS.
 * Scenarios: GET /v1/spaces/{id} through the REST adapter; the same data through /graphql; the same
 * read through a bare Prisma handler (the floor); raw SQL (pg, no HTTP); a list walked page by page
 * (REST and GraphQL); the nested site-structure query; a write (create a change request, edit a page,
 * merge it). Uses DATABASE_URL when set, else an embedded PostgreSQL. Writes bench/results.md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { issueToken } from '../src/auth/tokens.js';
import { rebuildSearchIndex } from '../src/modules/content/search-index.js';
import { createOrganization } from '../src/modules/orgs/service.js';
import { SPACE_FIELDS } from '../src/modules/spaces/routes.js';
import { createUser } from '../src/modules/users/service.js';
import { newId } from '../src/ids.js';
import { closedLoop, openBenchDatabase, seedPageTree, SITE_TREE_QUERY, spawnBenchServer } from './support.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
// The one-object rows' timed runs are cut into slices of a second taken in turns (measureInterleaved);
// a profiled run keeps one run per row (a profile per slice would overwrite the last).
const SLICES = Number(process.env.BENCH_SLICES ?? (process.env.BENCH_PROFILE_ROWS ? 1 : Math.max(1, Math.round(SECONDS))));
const SPACES = 1000;
const COLLECTIONS = 20;
const BIG_SPACES = 10; // 940 pages each
const SITE_SPACES = 20; // 30 pages each: 9,400 + 600 = 10,000 pages
const SECTIONS = 50;

const markdownOf = (i: number) =>
  `# Page ${i}\n\n${'Some documentation text about the product. '.repeat(12)}\n\n## Details\n\nline a\nline b\nline c\n`;

async function main() {
  const bench = await openBenchDatabase('load');
  const { db, server, database } = bench;
  const t0 = performance.now();

  // People and organizations: the owner writes, a member with the read role reads.
  const owner = await createUser(db.prisma, { email: 'owner@load.bench', name: 'Owner' });
  const reader = await createUser(db.prisma, { email: 'reader@load.bench', name: 'Reader' });
  const org = await createOrganization(db.prisma, { title: 'Acme', ownerId: owner.id });
  await createOrganization(db.prisma, { title: 'Globex', ownerId: owner.id });
  await createOrganization(db.prisma, { title: 'Initech', ownerId: reader.id });
  await db.prisma.member.create({ data: { organizationId: org.id, userId: reader.id, role: 'read' } });
  const ownerToken = await issueToken(db.prisma, owner.id);
  const readerToken = await issueToken(db.prisma, reader.id);

  // The data goes in through a server of its own: the one measured starts after it (below).
  const seeder = await spawnBenchServer({ server, database });

  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${seeder.url}${p}`, {
      method,
      headers: { authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = (await res.json()) as any;
    if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  // 1,000 spaces in 20 collections, created through the API, four at a time.
  const collections: string[] = [];
  for (let c = 0; c < COLLECTIONS; c++)
    collections.push((await call('POST', `/v1/orgs/${org.id}/collections`, { title: `Collection ${c}` })).id);
  const spaces: string[] = new Array(SPACES);
  for (let s = 0; s < SPACES; s += 4) {
    await Promise.all(
      [0, 1, 2, 3].map(
        async (k) =>
          (spaces[s + k] = (
            await call('POST', `/v1/orgs/${org.id}/spaces`, { title: `Space ${s + k}`, parent: collections[(s + k) % COLLECTIONS] })
          ).id),
      ),
    );
  }
  // 10,000 pages, straight through the content store, then indexed for search as a merge would.
  const bigPages = new Map<string, string[]>();
  const seedSpace = async (spaceId: string, count: number) => {
    const { ids, revision } = await seedPageTree(db, spaceId, count, markdownOf);
    await db.prisma.$transaction((tx) => rebuildSearchIndex(tx, spaceId, revision), { timeout: 600_000 });
    return ids;
  };
  for (const spaceId of spaces.slice(0, BIG_SPACES)) bigPages.set(spaceId, (await seedSpace(spaceId, 940)).slice(110));
  const siteSpaces = spaces.slice(BIG_SPACES, BIG_SPACES + SITE_SPACES);
  for (const spaceId of siteSpaces) await seedSpace(spaceId, 30);
  // A site: 50 sections through the API, the other 19 site spaces of each in bulk, a group, published.
  const site = await call('POST', `/v1/orgs/${org.id}/sites`, { title: 'Acme docs' });
  const sections: string[] = [];
  for (let c = 0; c < SECTIONS; c++)
    sections.push(
      (await call('POST', `/v1/orgs/${org.id}/sites/${site.id}/sections`, { spaceId: siteSpaces[0], title: `Section ${c}` })).id,
    );
  await db.prisma.siteSpace.createMany({
    data: sections.flatMap((sectionId) =>
      siteSpaces
        .slice(1)
        .map((spaceId, i) => ({ id: newId(), siteId: site.id, sectionId, spaceId, path: `space-${i + 1}`, position: i + 2 })),
    ),
  });
  await call('POST', `/v1/orgs/${org.id}/sites/${site.id}/section-groups`, { title: 'Guides', sections: sections.slice(0, 5) });
  await call('POST', `/v1/orgs/${org.id}/sites/${site.id}/publish`);
  await db.pool.query('VACUUM ANALYZE');
  await seeder.stop();
  const seedMs = performance.now() - t0;
  // The server under test, in its own process, started fresh as the one of BENCH_BEFORE is: the same
  // code read ~7 % more CPU per request in the server that had also served the seeding (its heap and
  // compiled code shaped by a thousand writes).
  const spawned = await spawnBenchServer({ server, database });
  const { child, url, bareUrl } = spawned;

  const pages = await db.pool.query<{ n: string }>(`SELECT count(DISTINCT ("spaceId", "pageId")) AS n FROM "SearchSection"`);
  console.log(
    `seeded 3 organizations, ${SPACES} spaces, ${pages.rows[0]!.n} pages, a site of ${SECTIONS} × ${SITE_SPACES} in ${(seedMs / 1000).toFixed(1)} s`,
  );

  const randomSpace = () => spaces[Math.floor(Math.random() * SPACES)]!;
  const json = { 'content-type': 'application/json' };
  const graphql = (query: string, variables: () => Record<string, unknown>) => ({
    method: 'POST' as const,
    path: '/graphql',
    setupRequest: (req: any) => ({ ...req, body: JSON.stringify({ query, variables: variables() }) }),
  });
  // Walks the whole list: each request asks for the page after the one the previous answer ended.
  const walk = (first: (ctx: any) => Record<string, string>, next: (body: any) => string | undefined) => ({
    setupRequest: (req: any, ctx: any) => ({ ...req, ...first(ctx) }),
    onResponse: (status: number, body: string, ctx: any) => (ctx.next = status === 200 ? next(JSON.parse(body)) : undefined),
  });
  // The write: each flow edits its own page (a counter spreads flows over 10 spaces × 830 leaves).
  let flow = 0;
  const bigSpaces = [...bigPages.keys()];
  const writeFlow = [
    {
      method: 'POST' as const,
      setupRequest: (req: any, ctx: any) => {
        const k = flow++;
        ctx.space = bigSpaces[k % BIG_SPACES];
        ctx.page = bigPages.get(ctx.space)![Math.floor(k / BIG_SPACES) % 830];
        ctx.k = k;
        return { ...req, path: `/v1/spaces/${ctx.space}/change-requests`, body: JSON.stringify({ subject: `Edit ${k}` }) };
      },
      onResponse: (_status: number, body: string, ctx: any) => (ctx.cr = JSON.parse(body).id),
    },
    {
      method: 'POST' as const,
      setupRequest: (req: any, ctx: any) => ({
        ...req,
        path: `/v1/spaces/${ctx.space}/change-requests/${ctx.cr}/content`,
        body: JSON.stringify({
          changes: [{ operation: 'update_page', page: ctx.page, document: { markdown: `${markdownOf(0)}\nEdited by flow ${ctx.k}.\n` } }],
        }),
      }),
    },
    {
      method: 'POST' as const,
      setupRequest: (req: any, ctx: any) => ({ ...req, path: `/v1/spaces/${ctx.space}/change-requests/${ctx.cr}/merge` }),
    },
  ];

  /** `oneObject`: a read of one object, measured interleaved with the others of its kind (measureInterleaved). */
  type Scenario = { data: string; via: string; base?: string; token?: string; requests: any[]; perFlow?: number; oneObject?: boolean };
  const scenarios: Scenario[] = [
    {
      data: 'one space (of 1,000)',
      oneObject: true,
      via: 'REST GET /v1/spaces/{id}',
      requests: [{ setupRequest: (req: any) => ({ ...req, path: `/v1/spaces/${randomSpace()}` }) }],
    },
    {
      data: 'one space (of 1,000)',
      oneObject: true,
      via: 'GraphQL space(id)',
      requests: [graphql(`query($id: ID!) { space(id: $id) { ...SpaceFields } } ${SPACE_FIELDS}`, () => ({ id: randomSpace() }))],
    },
    {
      data: 'one space (of 1,000)',
      oneObject: true,
      via: 'bare Prisma handler (floor)',
      base: bareUrl,
      requests: [{ setupRequest: (req: any) => ({ ...req, path: `/bare/spaces/${randomSpace()}` }) }],
    },
    {
      data: 'one space (of 1,000)',
      oneObject: true,
      via: 'bare handler, one SQL statement (pg)',
      base: bareUrl,
      requests: [{ setupRequest: (req: any) => ({ ...req, path: `/bare-sql/spaces/${randomSpace()}` }) }],
    },
    {
      // What the HTTP stack costs on its own (adapter, request id, metrics, router): the floor under every row above.
      data: 'no data',
      oneObject: true,
      via: 'GET /healthz (no token, no statement)',
      requests: [{ path: '/healthz' }],
    },
    {
      data: '1,000 spaces, 100 a page',
      via: 'REST GET /v1/orgs/{id}/spaces, page after page',
      requests: [
        walk(
          (ctx) => ({ path: `/v1/orgs/${org.id}/spaces?limit=100${ctx.next ? `&page=${ctx.next}` : ''}` }),
          (body) => body.next?.page,
        ),
      ],
    },
    {
      data: '1,000 spaces, 100 a page',
      via: 'GraphQL organization.spaces, page after page',
      requests: [
        {
          method: 'POST',
          path: '/graphql',
          ...walk(
            (ctx) => ({
              body: JSON.stringify({
                query: `query($id: ID!, $page: String) { organization(id: $id) { spaces(limit: 100, page: $page) { count next { page } items { ...SpaceFields } } } } ${SPACE_FIELDS}`,
                variables: { id: org.id, page: ctx.next },
              }),
            }),
            (body) => body.data?.organization.spaces.next?.page,
          ),
        },
      ],
    },
    {
      data: `site: ${SECTIONS} sections × ${SITE_SPACES} site spaces, page trees`,
      via: 'GraphQL, one nested query',
      token: ownerToken,
      requests: [graphql(SITE_TREE_QUERY, () => ({ id: org.id }))],
    },
    {
      data: 'write: create CR, edit a page, merge (10 spaces × 940 pages)',
      via: 'REST, 3 requests per flow',
      token: ownerToken,
      requests: writeFlow,
      perFlow: 3,
    },
  ];

  type Target = { label: string; url: string; bareUrl: string; pid: number };
  const targets: Target[] = [{ label: 'this tree', url, bareUrl, pid: child.pid! }];
  // BENCH_BEFORE=DIR: a checkout of an earlier commit (with node_modules and src/generated) serves
  // the same database beside this tree's server; each row then runs on both, in turns, so the
  // before/after figures come from one run on the same data and the same machine load.
  // BENCH_BEFORE_NODE_FLAGS: that server's node flags (BENCH_BEFORE=. compares flags on one tree).
  const before = process.env.BENCH_BEFORE
    ? await spawnBenchServer(
        { server, database },
        { script: path.join(process.env.BENCH_BEFORE, 'bench', 'server.ts'), flags: process.env.BENCH_BEFORE_NODE_FLAGS },
      )
    : null;
  if (before) targets.unshift({ label: 'before', url: before.url, bareUrl: before.bareUrl, pid: before.child.pid! });
  const rounds = before ? Number(process.env.BENCH_ROUNDS ?? 3) : 1;

  // The server's CPU time (user + system, ms): per request it is what a request costs the server
  // whatever else runs on the machine (req/s on a shared machine also measures the neighbours).
  const cpuMsOfPid = (pid: number) => {
    const fields = fs
      .readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /, '')
      .split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  };
  // PostgreSQL's CPU time (ms) per process: summed over a run, what a request costs the database
  // (its planning included), which the server's CPU does not show. Null where the database is not a
  // local process this user can read (a server of DATABASE_URL elsewhere).
  const postgresCpuMs = (): Map<string, number> | null => {
    const cpu = new Map<string, number>();
    for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
      let stat: string;
      try {
        stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        continue; // ended meanwhile
      }
      if (!stat.includes(' (postgres) ')) continue;
      const fields = stat.replace(/^.*\) /, '').split(' ');
      cpu.set(pid, ((Number(fields[11]) + Number(fields[12])) * 1000) / 100);
    }
    return cpu.size ? cpu : null;
  };
  // A process that ended during the run (an idle connection closed) takes its share with it: undercounted, never negative.
  const postgresCpuSince = (before: Map<string, number> | null): number | null => {
    const after = postgresCpuMs();
    if (!before || !after) return null;
    let total = 0;
    for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
    return total;
  };
  const rssOfPid = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  const statsOf = async (target: Target) => (await (await fetch(`${target.bareUrl}/__stats`)).json()) as { statements: number };

  const optionsOf = (scenario: Scenario, target: Target) => ({
    url: scenario.base === bareUrl ? target.bareUrl : target.url,
    connections: CONNECTIONS,
    headers: { authorization: `Bearer ${scenario.token ?? readerToken}`, ...json },
    requests: scenario.requests,
  });
  type Timed = {
    seconds: number;
    requests: number;
    cpuMs: number;
    databaseMs: number | null;
    p50: number;
    p99: number;
    rss: number;
    failed: number;
  };

  /** One timed run of a scenario on one server: requests, the server's and PostgreSQL's CPU, latencies. */
  async function timed(scenario: Scenario, target: Target, seconds: number): Promise<Timed> {
    let rss = 0;
    const sampler = setInterval(() => (rss = Math.max(rss, rssOfPid(target.pid))), 100);
    // BENCH_PROFILE_ROWS=1: the server's CPU profile of the timed run alone, one file per row.
    const profiling = process.env.BENCH_PROFILE_ROWS
      ? path.join(
          import.meta.dirname,
          'profiles',
          `${target.label === 'before' ? 'before-' : ''}${scenario.via.replace(/[^A-Za-z0-9]+/g, '-')}.cpuprofile`,
        )
      : null;
    if (profiling) fs.mkdirSync(path.dirname(profiling), { recursive: true }), await fetch(`${target.bareUrl}/__profile/start`);
    const cpuBefore = cpuMsOfPid(target.pid);
    const databaseBefore = postgresCpuMs();
    const result = await autocannon({ ...optionsOf(scenario, target), duration: seconds });
    const cpuMs = cpuMsOfPid(target.pid) - cpuBefore;
    const databaseMs = postgresCpuSince(databaseBefore);
    if (profiling) await fetch(`${target.bareUrl}/__profile/stop?file=${encodeURIComponent(profiling)}`);
    clearInterval(sampler);
    const failed = result.non2xx + result.errors;
    return { seconds, requests: result.requests.total, cpuMs, databaseMs, p50: result.latency.p50, p99: result.latency.p99, rss, failed };
  }

  /** SQL statements per request, counted apart from the load: one connection, whole flows. */
  async function statementsPerRequest(scenario: Scenario, target: Target) {
    // Requests cut off when a timed run ends would otherwise count their statements without counting as requests.
    await new Promise((resolve) => setTimeout(resolve, 500)); // let cut-off requests finish
    // The job worker's polling runs meanwhile: its statements over as long an idle time are taken off.
    const flows = 10;
    const counting = await statsOf(target);
    const started = performance.now();
    const counted = await autocannon({ ...optionsOf(scenario, target), connections: 1, amount: flows * scenario.requests.length });
    const during = (await statsOf(target)).statements - counting.statements;
    const idleBefore = await statsOf(target);
    await new Promise((resolve) => setTimeout(resolve, performance.now() - started));
    const idle = (await statsOf(target)).statements - idleBefore.statements;
    return (during - idle) / counted.requests.total;
  }

  /** A row's figures from its timed runs (one, or the slices of an interleaved round) and its statements. */
  const summary = (runs: Timed[], statements: number) => {
    const requests = runs.reduce((n, r) => n + r.requests, 0);
    const seconds = runs.reduce((n, r) => n + r.seconds, 0);
    const databaseMs = runs.every((r) => r.databaseMs !== null) ? runs.reduce((n, r) => n + r.databaseMs!, 0) : null;
    return {
      rate: requests / seconds,
      // Latencies of slices are averaged (each slice is as long as the others).
      p50: runs.reduce((n, r) => n + r.p50, 0) / runs.length,
      p99: runs.reduce((n, r) => n + r.p99, 0) / runs.length,
      statements,
      cpu: runs.reduce((n, r) => n + r.cpuMs, 0) / Math.max(1, requests),
      databaseCpu: databaseMs === null ? null : databaseMs / Math.max(1, requests),
      rss: Math.max(...runs.map((r) => r.rss)),
      failed: runs.reduce((n, r) => n + r.failed, 0),
    };
  };

  /** One timed run of a scenario on one server, after a second of warm-up. */
  async function measure(scenario: Scenario, target: Target) {
    await autocannon({ ...optionsOf(scenario, target), duration: 1 }); // warm up
    const run = await timed(scenario, target, SECONDS);
    return summary([run], await statementsPerRequest(scenario, target));
  }

  /**
   * The one-object rows of a round, measured side by side: each warmed up, then their timed runs cut
   * into one-second slices taken in turns (row after row, then again), so that a change in the
   * machine's load during the round weighs on every row alike. Measured one after the other, 8 s
   * each, the ratio to the bare handler moved from 0.60 to 0.89 between the rounds of one run.
   */
  async function measureInterleaved(pairs: { scenario: Scenario; target: Target }[]) {
    for (const { scenario, target } of pairs) await autocannon({ ...optionsOf(scenario, target), duration: 1 }); // warm up
    const runs = pairs.map((): Timed[] => []);
    for (let slice = 0; slice < SLICES; slice++) {
      const order = pairs.map((_, i) => i);
      for (const i of slice % 2 ? order.reverse() : order)
        runs[i]!.push(await timed(pairs[i]!.scenario, pairs[i]!.target, SECONDS / SLICES));
    }
    const measured = [];
    for (const [i, { scenario, target }] of pairs.entries()) measured.push(summary(runs[i]!, await statementsPerRequest(scenario, target)));
    return measured;
  }

  const rows: string[] = [];
  const header = before
    ? '| data | via | server | req/s (mean of rounds) | × bare, same round (mean) | p50 ms | p99 ms | SQL statements / request | server CPU ms / request | PostgreSQL CPU ms / request | server RSS MiB (max) | non-2xx |'
    : '| data | via | req/s | p50 ms | p99 ms | SQL statements / request | server CPU ms / request | PostgreSQL CPU ms / request | server RSS MiB (max) | non-2xx |';
  const ruler = `|${'---|'.repeat(header.split('|').length - 2)}`;
  console.log(`${header}\n${ruler}`);
  const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, 'i') : null;
  const chosen = scenarios.filter((s) => !only || only.test(`${s.data} ${s.via}`));
  type Measured = ReturnType<typeof summary>;
  const results = new Map<string, Measured[]>();
  const keyOf = (scenario: Scenario, target: Target) => `${scenario.via}\u0000${target.label}`;
  // The two servers take turns going first, so that neither always runs right after the other's load.
  const inTurn = (round: number) => (round % 2 ? [...targets].reverse() : targets);
  const targetsOf = (scenario: Scenario, round: number) => (scenario.base === bareUrl ? targets.slice(-1) : inTurn(round));
  // And each server first runs every row once unrecorded: with one second of warm-up per row alone, the
  // same code read 597 against 656 req/s on two servers (GET one space), its first reads still compiling it.
  for (const scenario of chosen) for (const target of targetsOf(scenario, 0)) await measure(scenario, target);
  const record = (scenario: Scenario, target: Target, round: number, measured: Measured) => {
    results.set(keyOf(scenario, target), [...(results.get(keyOf(scenario, target)) ?? []), measured]);
    if (before)
      console.log(
        `round ${round + 1}: ${target.label} ${scenario.via}: ${measured.rate.toFixed(0)} req/s, ${measured.cpu.toFixed(2)} ms CPU, ${measured.databaseCpu?.toFixed(2) ?? '–'} ms PostgreSQL CPU`,
      );
  };
  for (let round = 0; round < rounds; round++) {
    const pairs = chosen
      .filter((s) => s.oneObject)
      .flatMap((scenario) => targetsOf(scenario, round).map((target) => ({ scenario, target })));
    if (pairs.length > 1 && SLICES > 1)
      for (const [i, measured] of (await measureInterleaved(pairs)).entries())
        record(pairs[i]!.scenario, pairs[i]!.target, round, measured);
    for (const scenario of chosen)
      for (const target of targetsOf(scenario, round))
        if (!(scenario.oneObject && pairs.length > 1 && SLICES > 1)) record(scenario, target, round, await measure(scenario, target));
  }
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const bareRuns = results.get([...results.keys()].find((k) => k.startsWith('bare handler, one SQL statement')) ?? '');
  for (const scenario of chosen)
    for (const target of scenario.base === bareUrl ? targets.slice(-1) : targets) {
      const runs = results.get(keyOf(scenario, target))!;
      const rate = mean(runs.map((r) => r.rate));
      const cells = [
        scenario.perFlow ? `${rate.toFixed(0)} (${(rate / scenario.perFlow).toFixed(1)} flows/s)` : rate.toFixed(0),
        mean(runs.map((r) => r.p50)).toFixed(0),
        mean(runs.map((r) => r.p99)).toFixed(0),
        mean(runs.map((r) => r.statements)).toFixed(1),
        mean(runs.map((r) => r.cpu)).toFixed(2),
        runs.every((r) => r.databaseCpu !== null) ? mean(runs.map((r) => r.databaseCpu!)).toFixed(2) : '–',
        (Math.max(...runs.map((r) => r.rss)) / 2 ** 20).toFixed(0),
        String(runs.reduce((n, r) => n + r.failed, 0)),
      ];
      if (before) {
        const ratio = bareRuns && scenario.base !== bareUrl ? mean(runs.map((r, i) => r.rate / bareRuns[i]!.rate)).toFixed(2) : '–';
        cells.splice(1, 0, ratio);
        cells.unshift(target.label);
      }
      rows.push(`| ${scenario.data} | ${scenario.via} | ${cells.join(' | ')} |`);
      console.log(rows.at(-1));
    }
  await before?.stop();

  // Raw SQL through pg in this process (no HTTP): what PostgreSQL alone takes for the one-space read.
  const raw = new pg.Pool({ ...server, database, max: CONNECTIONS });
  const rawSql = await closedLoop(
    () =>
      raw.query(
        `SELECT s.*, (SELECT count(*) FROM "Comment" c WHERE c."spaceId" = s.id AND c.status = 'open') AS comments,
                (SELECT count(*) FROM "ChangeRequest" r WHERE r."spaceId" = s.id) AS crs
         FROM "Space" s WHERE s.id = $1 AND s."deletedAt" IS NULL`,
        [randomSpace()],
      ),
    { durationMs: SECONDS * 1000, concurrency: CONNECTIONS },
  );
  const rawCells = `${rawSql.perSecond.toFixed(0)} | ${before ? '– | ' : ''}${rawSql.p50.toFixed(2)} | ${rawSql.p99.toFixed(2)} | 1 (by construction) | – | – | – | 0`;
  const afterBare = rows.findIndex((row) => row.includes('bare handler, one SQL statement'));
  rows.splice(
    afterBare < 0 ? rows.length : afterBare + 1,
    0,
    `| one space (of 1,000) | raw SQL (pg, one statement, no HTTP) | ${before ? '– | ' : ''}${rawCells} |`,
  );
  await raw.end();

  const peak = Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  const table = [
    `# Lectern bench — ${new Date().toISOString()}`,
    '',
    `## Load: ${bench.mode}, ${os.cpus().length} cores, autocannon ${CONNECTIONS} connections × ${SECONDS} s per row (after 1 s of warm-up)${SLICES > 1 ? `; the one-object rows in ${SLICES} slices taken in turns` : ''}`,
    '',
    `Seeded in ${(seedMs / 1000).toFixed(1)} s: 3 organizations, ${SPACES} spaces in ${COLLECTIONS} collections, ${pages.rows[0]!.n} pages (${BIG_SPACES} spaces × 940, ${SITE_SPACES} × 30), a published site of ${SECTIONS} sections × ${SITE_SPACES} site spaces.`,
    '',
    header,
    ruler,
    ...rows,
    '',
    `The server runs in its own process (peak RSS over the run: ${peak.toFixed(0)} MiB); autocannon runs in the bench process, over loopback.`,
    'Reads use a member with the read role; writes and the site query use the owner. Statements per request include the',
    'authentication statement (which also counts the request for rate limiting). Latencies of the write row are per request.',
    '',
  ].join('\n');
  // A partial run (BENCH_ONLY) prints its rows without replacing the whole run's results.
  if (!only) fs.writeFileSync(path.join(import.meta.dirname, 'results.md'), table);
  console.log(`\n${table}`);

  await spawned.stop();
  await bench.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
