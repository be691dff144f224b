/**
 * npm run bench — throughput and latency of the same reads over REST, over GraphQL, and as raw SQL
 * on the same database, side by side in one run, with SQL statements per request.
 * Uses DATABASE_URL when set, else a fresh embedded PostgreSQL in a temporary directory.
 * Writes the table to stdout and to bench/results.md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import pg from 'pg';
import { hashToken } from '../src/auth/tokens.js';
import { issueToken } from '../src/auth/tokens.js';
import { benchConfig, openBenchDatabase } from './support.js';
import { createOrganization } from '../src/modules/orgs/service.js';
import { createUser } from '../src/modules/users/service.js';
import { SPACE_FIELDS } from '../src/modules/spaces/routes.js';
import { startServer } from '../src/server.js';

const DURATION_MS = Number(process.env.BENCH_MS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const SPACES = 100;

async function main() {
  const bench = await openBenchDatabase('http');
  const { db, server, database } = bench;

  // Seed: an organization with SPACES spaces spread over 10 collections, read by a member.
  const owner = await createUser(db.prisma, { email: 'owner@bench.test', name: 'Owner' });
  const member = await createUser(db.prisma, { email: 'member@bench.test', name: 'Member' });
  const org = await createOrganization(db.prisma, { title: 'Bench', ownerId: owner.id });
  await db.prisma.member.create({ data: { organizationId: org.id, userId: member.id, role: 'edit' } });
  const token = await issueToken(db.prisma, member.id);
  const ownerToken = await issueToken(db.prisma, owner.id);
  const app = await startServer({ ...benchConfig(), port: 0 }, { db });
  const call = (method: string, p: string, body?: unknown, t = token) =>
    fetch(`${app.url}${p}`, { method, headers: { authorization: `Bearer ${t}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
  const collections: string[] = [];
  for (let c = 0; c < 10; c++) collections.push(((await (await call('POST', `/v1/orgs/${org.id}/collections`, { title: `C${c}` }, ownerToken)).json()) as any).id);
  let spaceId = '';
  for (let s = 0; s < SPACES; s++) {
    spaceId = ((await (await call('POST', `/v1/orgs/${org.id}/spaces`, { title: `S${s}`, parent: collections[s % 10] }, ownerToken)).json()) as any).id;
  }

  const gql = (query: string, variables: Record<string, unknown>) => () => call('POST', '/graphql', { query, variables });
  const raw = new pg.Pool({ ...server, database, max: CONCURRENCY });
  const rawSpace = () =>
    raw.query(
      `SELECT s.*, (SELECT count(*) FROM "Comment" c WHERE c."spaceId" = s.id AND c.status = 'open') AS comments,
              (SELECT count(*) FROM "ChangeRequest" r WHERE r."spaceId" = s.id) AS crs
       FROM "Space" s WHERE s.id = $1 AND s."deletedAt" IS NULL`,
      [spaceId],
    );
  const rawList = () =>
    raw.query(
      `SELECT s.*, (SELECT count(*) FROM "Comment" c WHERE c."spaceId" = s.id AND c.status = 'open') AS comments,
              count(*) OVER () AS total
       FROM "Space" s WHERE s."organizationId" = $1 AND s."deletedAt" IS NULL ORDER BY s.position, s.id LIMIT 100`,
      [org.id],
    );

  // The floor for this stack: a bare HTTP handler doing the same reads with Prisma directly
  // (token lookup, the space, the caller's membership, the counts), no GraphQL, no adapter.
  const bare = http.createServer(async (req, res) => {
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    const { rows } = await db.pool.query('SELECT u.id FROM "ApiToken" t JOIN "User" u ON u.id = t."userId" WHERE t.hash = $1', [hashToken(token)]);
    if (!rows[0]) return res.writeHead(401).end();
    const space = await db.prisma.space.findUnique({ where: { id: req.url!.split('/').pop()! } });
    const [member, crs, comments] = await Promise.all([
      db.prisma.member.findUnique({ where: { organizationId_userId: { organizationId: space!.organizationId, userId: rows[0].id } } }),
      db.prisma.changeRequest.groupBy({ by: ['status'], where: { spaceId: space!.id }, _count: { _all: true } }),
      db.prisma.comment.count({ where: { spaceId: space!.id, status: 'open' } }),
    ]);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'space', ...space, role: member?.role, crs, comments }));
  });
  await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
  const bareUrl = `http://127.0.0.1:${(bare.address() as { port: number }).port}`;
  const bareSpace = () => fetch(`${bareUrl}/bare/spaces/${spaceId}`, { headers: { authorization: `Bearer ${token}` } });

  const scenarios: { name: string; via: string; run: () => Promise<unknown>; http: boolean }[] = [
    { name: 'one space', via: 'REST GET /v1/spaces/:id', run: () => call('GET', `/v1/spaces/${spaceId}`), http: true },
    { name: 'one space', via: 'bare Prisma handler (floor)', run: bareSpace, http: true },
    { name: 'one space', via: 'GraphQL space(id)', run: gql(`query($id: ID!) { space(id: $id) { ...SpaceFields } } ${SPACE_FIELDS}`, { id: spaceId }), http: true },
    { name: 'one space', via: 'raw SQL (pg)', run: rawSpace, http: false },
    { name: `${SPACES} spaces`, via: 'REST GET /v1/orgs/:id/spaces?limit=100', run: () => call('GET', `/v1/orgs/${org.id}/spaces?limit=100`), http: true },
    {
      name: `${SPACES} spaces`,
      via: 'GraphQL organization.spaces(limit: 100)',
      run: gql(`query($id: ID!) { organization(id: $id) { spaces(limit: 100) { count items { ...SpaceFields } } } } ${SPACE_FIELDS}`, { id: org.id }),
      http: true,
    },
    { name: `${SPACES} spaces`, via: 'raw SQL (pg)', run: rawList, http: false },
    {
      name: 'site tree (10 collections × 10 spaces)',
      via: 'GraphQL collections { spaces }',
      run: gql(`query($id: ID!) { organization(id: $id) { collections(limit: 10) { items { id title spaces(limit: 100) { items { id title permissions { edit } } } } } } }`, { id: org.id }),
      http: true,
    },
  ];

  const rows: string[] = [];
  for (const scenario of scenarios) {
    // Warm up, then a closed loop of CONCURRENCY callers for DURATION_MS.
    for (let i = 0; i < 20; i++) {
      const r = await scenario.run();
      if (r instanceof Response && r.status !== 200) throw new Error(`${scenario.via}: ${r.status} ${await r.text()}`);
      if (r instanceof Response) await r.arrayBuffer();
    }
    const latencies: number[] = [];
    const statementsBefore = db.statements.count;
    const until = performance.now() + DURATION_MS;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (performance.now() < until) {
          const t0 = performance.now();
          const r = await scenario.run();
          if (r instanceof Response) await r.arrayBuffer();
          latencies.push(performance.now() - t0);
        }
      }),
    );
    latencies.sort((a, b) => a - b);
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]!.toFixed(2);
    const statements = scenario.http ? ((db.statements.count - statementsBefore) / latencies.length).toFixed(1) : '1 (by construction)';
    rows.push(`| ${scenario.name} | ${scenario.via} | ${(latencies.length / (DURATION_MS / 1000)).toFixed(0)} | ${pct(0.5)} | ${pct(0.99)} | ${statements} |`);
    console.log(rows.at(-1));
  }

  const table = [
    `Lectern bench — ${new Date().toISOString()} — ${bench.mode}, ${os.cpus().length} cores, concurrency ${CONCURRENCY}, ${DURATION_MS} ms per row`,
    '',
    '| data | via | req/s | p50 ms | p99 ms | SQL statements / request |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
    'REST and GraphQL go through the HTTP server (loopback) with a member token; statements include the token lookup.',
    '',
  ].join('\n');
  fs.writeFileSync(path.join(import.meta.dirname, 'results.md'), table);
  console.log(`\n${table}`);

  await raw.end();
  bare.close();
  await app.close();
  await bench.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
