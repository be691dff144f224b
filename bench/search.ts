/**
 * Search in a 10,000-page space: REST latency (HTTP, p50/p99) beside the raw SQL time of the same
 * statement (the total and the result window in one, as the service runs it, through `pg`) and their ratio, for queries of
 * different selectivity; plus the cost of building the index and of keeping it current (a one-page
 * edit vs a rename above 1,000 pages). The space is built straight through the content store.
 * Uses DATABASE_URL when set, else an embedded PostgreSQL. Appends its table to bench/results.md (BENCH_OUT: another file).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Database } from '../src/db/database.js';
import { newId } from '../src/ids.js';
import { rebuildSearchIndex, reindexSpace } from '../src/modules/content/search-index.js';
import { Content, ContentWriter, putBody } from '../src/modules/content/store.js';
import { spaceSearchSql } from '../src/modules/search/service.js';
import { openBenchDatabase, seedPageTree, startBenchServer } from './support.js';

const PAGES = Number(process.env.BENCH_PAGES ?? 10_000);
const DURATION_MS = Number(process.env.BENCH_MS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 1);
const LIMIT = 20;

// A deterministic vocabulary and text generator: pages read like prose with a Zipf-ish word mix.
let seed = 42;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const VOCABULARY = Array.from(
  { length: 3000 },
  (_, i) => `${['lor', 'ip', 'sum', 'dol', 'am', 'et', 'con', 'sec', 'tur', 'adi'][i % 10]}${i.toString(36)}`,
);
const words = (n: number) => Array.from({ length: n }, () => VOCABULARY[Math.floor(random() ** 3 * VOCABULARY.length)]).join(' ');

const markdownOf = (i: number) =>
  [
    `Page ${i} introduces ${words(12)} and the documentation.`,
    '',
    '## Overview',
    '',
    `${words(60)}. Cluster group${i % 100} material.`,
    '',
    '## Details',
    '',
    `${words(80)} unique${i} ${words(40)}.`,
    '',
    '### Notes',
    '',
    `${words(30)}.`,
  ].join('\n');

async function seedSpace(db: Database, spaceId: string) {
  const { ids, revision, manifest } = await seedPageTree(db, spaceId, PAGES, markdownOf);
  return { ids, revision, writer: new ContentWriter(await Content.load(db.prisma, manifest)) };
}

/** `a` and `b` timed in turns by CONCURRENCY callers for DURATION_MS (after 10 warm-up turns): p50 and p99 of each, in ms. */
async function inTurns(a: () => Promise<void>, b: () => Promise<void>) {
  for (let i = 0; i < 10; i++) await a().then(b);
  const times: [number[], number[]] = [[], []];
  const until = performance.now() + DURATION_MS;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        for (const [i, run] of [a, b].entries()) {
          const t0 = performance.now();
          await run();
          times[i]!.push(performance.now() - t0);
        }
      }
    }),
  );
  return times.map((list) => {
    list.sort((x, y) => x - y);
    const pct = (p: number) => list[Math.min(list.length - 1, Math.floor(list.length * p))]!;
    return { p50: pct(0.5), p99: pct(0.99) };
  }) as [{ p50: number; p99: number }, { p50: number; p99: number }];
}

async function main() {
  const bench = await openBenchDatabase('search');
  const { db, server, database } = bench;
  const { org, token, app, call } = await startBenchServer(bench, 'search');
  const space = await call('POST', `/v1/orgs/${org.id}/spaces`, { title: `${PAGES} pages` });

  let t = performance.now();
  const seeded = await seedSpace(db, space.id);
  const seedMs = performance.now() - t;
  t = performance.now();
  await db.prisma.$transaction((tx) => rebuildSearchIndex(tx, space.id, seeded.revision), { timeout: 600_000 });
  const indexMs = performance.now() - t;
  const sections = await db.prisma.searchSection.count({ where: { spaceId: space.id } });
  // What autovacuum would soon do after a bulk load: GIN's pending list merged, statistics taken.
  await db.pool.query('VACUUM ANALYZE "SearchSection"');
  console.log(`seeded ${PAGES} pages in ${seedMs.toFixed(0)} ms; index of ${sections} sections built in ${indexMs.toFixed(0)} ms`);

  const raw = new pg.Pool({ ...server, database, max: Math.max(2, CONCURRENCY * 2) });
  const queries = [
    { label: 'one page (rare word)', query: `unique${Math.floor(PAGES / 2)}` },
    { label: '~1% of pages', query: 'group42' },
    { label: 'phrase', query: '"cluster group7"' },
    { label: 'two common words', query: `${VOCABULARY[0]} ${VOCABULARY[1]}` },
    { label: 'every page', query: 'documentation' },
  ];
  const rows: string[] = [];
  for (const { label, query } of queries) {
    const url = `/v1/spaces/${space.id}/search?query=${encodeURIComponent(query)}&limit=${LIMIT}`;
    const first = await call('GET', url);
    const get = async () => {
      const res = await fetch(`${app.url}${url}`, { headers: { authorization: `Bearer ${token}` } });
      if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
      await res.arrayBuffer();
    };
    const statementsBefore = db.statements.count;
    for (let i = 0; i < 10; i++) await get();
    const statements = (db.statements.count - statementsBefore) / 10;
    // The statement the service sends (total, result window, snippets and descriptions in one), straight through pg.
    const statement = spaceSearchSql(space.id, query, 0, LIMIT);
    // Timed in turns (one request, then the statement, …) so both meet the same machine: on a busy
    // one, two rows timed one after the other compared two different loads.
    const [rest, sql] = await inTurns(get, async () => {
      await raw.query(statement.text, statement.values);
    });
    rows.push(
      `| ${label} | \`${query}\` | ${first.count} | ${rest.p50.toFixed(2)} | ${rest.p99.toFixed(2)} | ${sql.p50.toFixed(2)} | ${sql.p99.toFixed(2)} | ${(rest.p50 / sql.p50).toFixed(2)} | ${statements.toFixed(1)} |`,
    );
    console.log(rows.at(-1));
  }

  // Keeping the index current: the reindex step alone, inside a transaction that is rolled back.
  const reindexCost = async (label: string, change: (w: ContentWriter) => Promise<void>) => {
    const writer = new ContentWriter(seeded.writer.base);
    await change(writer);
    const manifest = await writer.write(db.prisma);
    const revision = newId();
    await db.prisma.revision.create({ data: { id: revision, spaceId: space.id, parents: [seeded.revision], manifest } });
    let ms = 0;
    let touched = 0;
    await db.prisma
      .$transaction(
        async (tx) => {
          const t0 = performance.now();
          await reindexSpace(tx, space.id, seeded.revision, revision);
          ms = performance.now() - t0;
          touched = await tx.searchSection.count({ where: { spaceId: space.id, revisionId: revision } });
          throw new Error('rollback');
        },
        { timeout: 600_000 },
      )
      .catch((e) => {
        if ((e as Error).message !== 'rollback') throw e;
      });
    return `| ${label} | ${touched} | ${ms.toFixed(1)} |`;
  };
  const [leafId, topId] = [seeded.ids[PAGES - 1]!, seeded.ids[3]!];
  const leaf = (await seeded.writer.get(leafId))!;
  const top = (await seeded.writer.get(topId))!;
  const newBody = await putBody(db.prisma, `${markdownOf(0)}\n\nAn edit.`, []);
  const reindexRows = [
    await reindexCost('one page body edited', (w) => w.put({ ...leaf, body: newBody })),
    await reindexCost('one leaf page renamed', (w) => w.put({ ...leaf, title: 'Renamed leaf', slug: 'renamed-leaf' })),
    await reindexCost(`top page renamed (${Math.round((PAGES - 10) / 10)} pages below)`, (w) =>
      w.put({ ...top, title: 'Renamed top', slug: 'renamed-top' }),
    ),
  ];
  reindexRows.forEach((r) => console.log(r));

  const table = [
    '',
    `## Search: one space of ${PAGES} pages (${sections} sections) — ${new Date().toISOString()}, ${bench.mode}, ${os.cpus().length} cores, concurrency ${CONCURRENCY}, ${DURATION_MS} ms per row`,
    '',
    `Seeded through the content store in ${seedMs.toFixed(0)} ms; full index build (rebuildSearchIndex) ${indexMs.toFixed(0)} ms.`,
    '',
    `| query | text | pages found | REST p50 ms | REST p99 ms | raw SQL p50 ms | raw SQL p99 ms | REST / SQL (p50) | SQL statements / request |`,
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `REST: GET /v1/spaces/:id/search?limit=${LIMIT} over HTTP (loopback), statements include the token lookup and the space's access rows; REST and raw SQL timed in turns.`,
    "Raw SQL: the service's search statement (total, result window with snippets and descriptions) through `pg`, the floor of the answer.",
    '',
    '| keeping the index current (reindexSpace alone) | rows rewritten | ms |',
    '|---|---|---|',
    ...reindexRows,
    '',
  ].join('\n');
  console.log(table);
  fs.appendFileSync(path.resolve(import.meta.dirname, process.env.BENCH_OUT ?? 'results.md'), table);
  await raw.end();
  await app.close();
  await bench.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
