/**
 * Merge cost against space size: a change request editing 10 pages, merged three ways (main moved
 * meanwhile by another change request editing 10 other pages), in a 100-page and a 10,000-page
 * space. Reports the REST merge time (median of several runs, the two sizes in turns) and the ratio. Appends to bench/results.md (BENCH_OUT: another file).
 */
import fs from 'node:fs';
import path from 'node:path';
import { openBenchDatabase, seedPageTree, startBenchServer } from './support.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 21);

const pageMarkdown = (i: number) => `# Page ${i}\n\n${'Some documentation text. '.repeat(20)}\n\nline a\nline b\nline c\n`;

async function main() {
  const bench = await openBenchDatabase('merge');
  const { db } = bench;
  const { org, app, call } = await startBenchServer(bench, 'merge');
  // Each page's lines a and c as main has them: one side rewrites line a, the other line c, each
  // from main's text, so every run is a clean three-way body merge, however often a page is edited.
  const lines = new Map<string, { a: string; c: string }>();
  const edit = (ids: string[], tag: string, line: 'a' | 'c') =>
    ids.map((page) => {
      const now = lines.get(page) ?? { a: 'line a', c: 'line c' };
      const text = { ...now, [line]: `line ${line} ${tag}` };
      return {
        operation: 'update_page',
        page,
        document: { markdown: `# Page\n\n${'Some documentation text. '.repeat(20)}\n\n${text.a}\nline b\n${text.c}\n` },
      };
    });
  const merged = (ids: string[], tags: { a: string; c: string }) =>
    ids.forEach((page) => lines.set(page, { a: `line a ${tags.a}`, c: `line c ${tags.c}` }));

  const rows: string[] = [];
  const medians: number[] = [];
  // Both spaces are seeded first, then merged in turns (100, 10,000, 100, …) after one unmeasured
  // warm-up merge each: measured one size after the other, the first size met a colder process
  // (JIT, caches) and the machine's drift, and the ratio moved between 1.04 and 1.36 across runs.
  const spaces: { size: number; id: string; ids: string[]; seedMs: number; times: number[]; statements: number[] }[] = [];
  for (const size of [100, 10_000]) {
    const space = await call('POST', `/v1/orgs/${org.id}/spaces`, { title: `${size} pages` });
    const t0 = performance.now();
    const { ids } = await seedPageTree(db, space.id, size, pageMarkdown);
    spaces.push({ size, id: space.id, ids, seedMs: performance.now() - t0, times: [], statements: [] });
  }
  const mergeOnce = async (space: (typeof spaces)[number], run: number) => {
    // Both change requests touch the same 10 pages in different lines: a real three-way body merge.
    const at = ((run + 1) * 10) % 100;
    const pages = space.ids.slice(at, at + 10);
    const other = await call('POST', `/v1/spaces/${space.id}/change-requests`, { subject: 'other' });
    const cr = await call('POST', `/v1/spaces/${space.id}/change-requests`, { subject: 'measured' });
    await call('POST', `/v1/spaces/${space.id}/change-requests/${other.id}/content`, { changes: edit(pages, `other ${run}`, 'a') });
    await call('POST', `/v1/spaces/${space.id}/change-requests/${cr.id}/content`, { changes: edit(pages, `cr ${run}`, 'c') });
    await call('POST', `/v1/spaces/${space.id}/change-requests/${other.id}/merge`);
    const before = db.statements.count;
    const t = performance.now();
    const result = await call('POST', `/v1/spaces/${space.id}/change-requests/${cr.id}/merge`);
    const ms = performance.now() - t;
    if (result.result !== 'merge') throw new Error('merge failed');
    merged(pages, { a: `other ${run}`, c: `cr ${run}` });
    return { ms, statements: db.statements.count - before };
  };
  for (const space of spaces) await mergeOnce(space, -1);
  for (let run = 0; run < RUNS; run++) {
    for (const space of spaces) {
      const { ms, statements } = await mergeOnce(space, run);
      space.times.push(ms);
      space.statements.push(statements);
    }
  }
  for (const { size, seedMs, times, statements } of spaces) {
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)]!;
    medians.push(median);
    rows.push(
      `| ${size} | ${seedMs.toFixed(0)} | ${median.toFixed(1)} | ${times[0]!.toFixed(1)} | ${times.at(-1)!.toFixed(1)} | ${statements.sort((a, b) => a - b)[Math.floor(statements.length / 2)]} |`,
    );
    console.log(rows.at(-1));
  }
  const table = [
    '',
    `## Merge: a change request editing 10 pages, three-way (main moved) — ${new Date().toISOString()}, ${bench.mode}, ${RUNS} runs per size, the sizes in turns after a warm-up merge each`,
    '',
    '| pages in space | seeding ms | merge p50 ms (REST) | min | max | SQL statements |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
    `Ratio 10,000 / 100 pages: ${(medians[1]! / medians[0]!).toFixed(2)}`,
    '',
  ].join('\n');
  console.log(table);
  fs.appendFileSync(path.resolve(import.meta.dirname, process.env.BENCH_OUT ?? 'results.md'), table);
  await app.close();
  await bench.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
