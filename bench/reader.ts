/**
 * The reader's published pages: what a visitor's browser, a crawler or an agent asks of
 * a published site, cold (first render of a page, or the render cache cleared) and warm (kept in the
 * reader's cache), beside the floor on this machine: a bare HTTP handler in the same server process
 * answering the same bytes with the same headers (`/floor/<path>`: no routing, no access decision, no
 * SQL). Rows:
 * - a page of a 10,000-page space (a three-level tree: 10 / 100 / 9,890), cold (distinct pages, each
 *   rendered for the first time; the space's tree already loaded) and warm (autocannon, 8 connections);
 *   warm with If-None-Match (304);
 * - a page of a site of 50 sections × 20 site spaces (section navigation, variant switcher, tree);
 * - llms-full.txt of a 1,000-page space (cold: the render cache cleared before each request).
 * For each: req/s, p50, p99, KiB, SQL statements per request, non-2xx. The server runs in its own
 * process (this file with `--serve`; anonymous visitors are not throttled there). Uses DATABASE_URL
 * when set, else an embedded PostgreSQL. Appends its table to bench/results.md.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { issueToken } from '../src/auth/tokens.js';
import { connect, targetFromUrl } from '../src/db/database.js';
import { newId } from '../src/ids.js';
import { createOrganization } from '../src/modules/orgs/service.js';
import { clearReaderCache } from '../src/modules/reader/index.js';
import { createUser } from '../src/modules/users/service.js';
import { startServer } from '../src/server.js';
import { benchApi, benchConfig, openBenchDatabase, seedPageTree, spawnBenchServer } from './support.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const COLD_PAGES = Number(process.env.BENCH_COLD_PAGES ?? 100);
const BIG = 10_000;
const LLMS_PAGES = 1_000;
const SECTIONS = 50;
const SITE_SPACES = 20;
const SITE_SPACE_PAGES = 30;

const markdownOf = (i: number) =>
  `# Page ${i}\n\nThis page explains part ${i} of the product: what it does, the settings a reader needs and what each of them changes.\n\n## Settings\n\n- Open the settings of area ${i % 97}.\n- Change option ${i} and save.\n\n\`\`\`js\nconst option = ${i};\n\`\`\`\n\n> Changes apply within a minute. See the [first page](/page-0).\n`;

// ---------------------------------------------------------------------------------------------
// The server under test (child process): Lectern, the floor and the bench's own endpoints.

async function serve() {
  const db = connect(targetFromUrl(process.env.DATABASE_URL!));
  const config = { ...benchConfig(), port: 0, addressLimits: { anonymous: 1_000_000_000, authFailures: 1_000_000_000 } };
  const app = await startServer(config, { db });
  const floors = new Map<string, Promise<{ body: Buffer; headers: Record<string, string> }>>();
  const bare = http.createServer(async (req, res) => {
    if (req.url === '/__stats')
      return res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ statements: db.statements.count, rss: process.memoryUsage().rss }));
    if (req.url === '/__clear') return (clearReaderCache(), res.writeHead(204).end());
    // The floor: the same bytes and headers Lectern answered for that path (fetched once).
    const target = req.url!.replace(/^\/floor/, '');
    let floor = floors.get(target);
    if (!floor) {
      floor = fetch(`${app.url}${target}`).then(async (r) => ({
        body: Buffer.from(await r.arrayBuffer()),
        headers: Object.fromEntries(
          [...r.headers].filter(([k]) => !['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(k)),
        ),
      }));
      floors.set(target, floor);
    }
    const { body, headers } = await floor;
    res.writeHead(200, { ...headers, 'content-length': body.byteLength }).end(body);
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  console.log(JSON.stringify({ url: app.url, bareUrl: `http://127.0.0.1:${(bare.address() as { port: number }).port}` }));
  process.once('SIGTERM', async () => {
    bare.close();
    await app.close();
    await db.close();
    process.exit(0);
  });
}

// ---------------------------------------------------------------------------------------------
// The driver.

async function main() {
  const bench = await openBenchDatabase('reader');
  const { db } = bench;
  const t0 = performance.now();
  const owner = await createUser(db.prisma, { email: 'owner@reader.bench', name: 'Owner' });
  const org = await createOrganization(db.prisma, { title: 'Acme', ownerId: owner.id });
  const token = await issueToken(db.prisma, owner.id);
  const server = await spawnBenchServer(bench, { script: import.meta.filename, args: ['--serve'] });
  const { url, bareUrl, child } = server;
  const call = benchApi(url, token);
  const publishedSite = async (title: string, spaceIds: string[]) => {
    const site = await call('POST', `/v1/orgs/${org.id}/sites`, { title, spaces: spaceIds });
    await call('POST', `/v1/orgs/${org.id}/sites/${site.id}/publish`);
    return { id: site.id as string, path: `/public/${org.id}/sites/${site.id}` };
  };

  // A: one space of 10,000 pages in a three-level tree, a site over it.
  const big = await call('POST', `/v1/orgs/${org.id}/spaces`, { title: 'Big space' });
  await seedPageTree(db, big.id, BIG, markdownOf);
  const siteA = await publishedSite('Big docs', [big.id]);
  /** Page i's path (i >= 110: third level), as seedPageTree nests them. */
  const bigPage = (i: number) => `${siteA.path}/page-${(10 + (i % 100)) % 10}/page-${10 + (i % 100)}/page-${i}`;

  // B: 50 sections × 20 site spaces over 20 spaces of 30 pages (the sections through the API, the other site spaces in bulk).
  const spaces: string[] = [];
  for (let s = 0; s < SITE_SPACES; s++) {
    const space = await call('POST', `/v1/orgs/${org.id}/spaces`, { title: `Variant ${s}` });
    await seedPageTree(
      db,
      space.id,
      SITE_SPACE_PAGES,
      (i) => markdownOf(s * 100 + i),
      (i, ids) => (i < 10 ? null : ids[i % 10]!),
    );
    spaces.push(space.id);
  }
  const siteB = await call('POST', `/v1/orgs/${org.id}/sites`, { title: 'Wide docs' });
  const sections: string[] = [];
  for (let c = 0; c < SECTIONS; c++)
    sections.push((await call('POST', `/v1/orgs/${org.id}/sites/${siteB.id}/sections`, { spaceId: spaces[0], title: `Section ${c}` })).id);
  await db.prisma.siteSpace.createMany({
    data: sections.flatMap((sectionId) =>
      spaces
        .slice(1)
        .map((spaceId, i) => ({ id: newId(), siteId: siteB.id, sectionId, spaceId, path: `variant-${i + 1}`, position: i + 2 })),
    ),
  });
  await call('POST', `/v1/orgs/${org.id}/sites/${siteB.id}/publish`);
  const listed = await call('GET', `/v1/orgs/${org.id}/sites/${siteB.id}/sections?limit=100`);
  const wideSpacePaths: string[] = listed.items.flatMap((section: any) =>
    section.siteSpaces.map((ss: any) => new URL(ss.urls.published).pathname),
  );
  const widePage = (k: number) => `${wideSpacePaths[(k * 37) % wideSpacePaths.length]}/page-${k % 10}`;

  // C: one space of 1,000 pages for llms-full.txt.
  const llms = await call('POST', `/v1/orgs/${org.id}/spaces`, { title: 'Handbook' });
  await seedPageTree(db, llms.id, LLMS_PAGES, markdownOf);
  const siteC = await publishedSite('Handbook', [llms.id]);
  await db.pool.query('VACUUM ANALYZE');
  console.log(
    `seeded ${BIG} + ${SITE_SPACES} × ${SITE_SPACE_PAGES} + ${LLMS_PAGES} pages, a site of ${SECTIONS} sections × ${SITE_SPACES} site spaces, in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );

  const stats = async () => (await (await fetch(`${bareUrl}/__stats`)).json()) as { statements: number; rss: number };
  const clear = () => fetch(`${bareUrl}/__clear`).then((r) => r.arrayBuffer());
  const rssOf = () => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  const fetched = async (base: string, p: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}${p}`, { headers });
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200 && res.status !== 304) throw new Error(`${p}: ${res.status} ${body.toString('utf8', 0, 300)}`);
    return { status: res.status, bytes: body.byteLength, etag: res.headers.get('etag') };
  };
  /** SQL statements per request of `run` (sequential), less the server's own background statements over as long an idle time. */
  const statementsPer = async (n: number, run: (i: number) => Promise<unknown>) => {
    const before = (await stats()).statements;
    const started = performance.now();
    for (let i = 0; i < n; i++) await run(i);
    const during = (await stats()).statements - before;
    const idleBefore = (await stats()).statements;
    await new Promise((resolve) => setTimeout(resolve, performance.now() - started));
    const idle = (await stats()).statements - idleBefore;
    return Math.max(0, during - idle) / n;
  };
  const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

  const rows: string[] = [];
  const row = (cells: (string | number)[]) => {
    const line = `| ${cells.join(' | ')} |`;
    rows.push(line);
    console.log(line);
  };
  const header =
    '| data | answer | via | connections | req/s | p50 ms | p99 ms | KiB | SQL statements / request | server RSS MiB (max) | non-2xx |';
  console.log(`${header}\n|---|---|---|---|---|---|---|---|---|---|---|`);

  /** Sequential first renders: `path(i)` for n values of i, each asked once (after `before(i)`, when given). */
  const cold = async (data: string, answer: string, n: number, pathOf: (i: number) => string, before?: () => Promise<unknown>) => {
    const latencies: number[] = [];
    let bytes = 0;
    for (let i = 0; i < n; i++) {
      if (before) await before();
      const started = performance.now();
      bytes = (await fetched(url, pathOf(i))).bytes;
      latencies.push(performance.now() - started);
    }
    const statements = await statementsPer(Math.min(n, 10), async (i) => {
      if (before) await before();
      await fetched(url, pathOf(n + i));
    });
    latencies.sort((a, b) => a - b);
    const mean = latencies.reduce((a, b) => a + b, 0) / latencies.length;
    row([
      data,
      answer,
      'Lectern, cold (first render)',
      1,
      (1000 / mean).toFixed(0),
      pct(latencies, 0.5).toFixed(1),
      pct(latencies, 0.99).toFixed(1),
      (bytes / 1024).toFixed(0),
      statements.toFixed(1),
      (rssOf() / 2 ** 20).toFixed(0),
      0,
    ]);
  };
  /** autocannon on one path: Lectern (warm), Lectern with If-None-Match, and the floor. */
  const warm = async (data: string, answer: string, p: string, opts: { notModified?: boolean; floor?: boolean } = {}) => {
    const first = await fetched(url, p);
    const variants: [string, string, string, Record<string, string>][] = [['Lectern, warm (kept)', url, p, {}]];
    if (opts.notModified) variants.push(['Lectern, warm, If-None-Match (304)', url, p, { 'if-none-match': first.etag! }]);
    if (opts.floor !== false) variants.push(['floor: bare handler, same bytes', bareUrl, `/floor${p}`, {}]);
    for (const [via, base, target, headers] of variants) {
      const { bytes } = await fetched(base, target, headers);
      const options = { url: base, connections: CONNECTIONS, headers, requests: [{ method: 'GET' as const, path: target }] };
      await autocannon({ ...options, duration: 1 }); // warm-up
      let rss = 0;
      const sampler = setInterval(() => (rss = Math.max(rss, rssOf())), 50);
      const result = await autocannon({ ...options, duration: SECONDS });
      clearInterval(sampler);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const statements = base === bareUrl ? 0 : await statementsPer(20, () => fetched(base, target, headers));
      const non2xx = result.non2xx - (headers['if-none-match'] ? (result as unknown as { '3xx': number })['3xx'] : 0) + result.errors;
      row([
        data,
        answer,
        via,
        CONNECTIONS,
        result.requests.average.toFixed(0),
        result.latency.p50,
        result.latency.p99,
        (bytes / 1024).toFixed(0),
        statements.toFixed(1),
        (rss / 2 ** 20).toFixed(0),
        non2xx,
      ]);
    }
  };

  const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, 'i') : null;
  const want = (name: string) => !only || only.test(name);

  // The first request after start loads the 10,000-page tree (manifest, shards, tree): said apart.
  const startedFirst = performance.now();
  await fetched(url, bigPage(110));
  const firstMs = performance.now() - startedFirst;
  if (want('big')) {
    await cold(`page of a ${BIG.toLocaleString('en')}-page space`, 'HTML', COLD_PAGES, (i) =>
      bigPage(110 + (((1 + i) * 97) % (BIG - 110))),
    );
    await warm(`page of a ${BIG.toLocaleString('en')}-page space`, 'HTML', bigPage(110), { notModified: true });
  }
  if (want('wide')) {
    await fetched(url, widePage(0));
    await cold(`page of a site of ${SECTIONS} sections × ${SITE_SPACES} site spaces`, 'HTML (navigation)', Math.min(COLD_PAGES, 200), (i) =>
      widePage(i + 1),
    );
    await warm(`page of a site of ${SECTIONS} sections × ${SITE_SPACES} site spaces`, 'HTML (navigation)', widePage(1));
  }
  if (want('llms')) {
    await cold(`a ${LLMS_PAGES.toLocaleString('en')}-page space`, 'llms-full.txt', 20, () => `${siteC.path}/llms-full.txt`, clear);
    await warm(`a ${LLMS_PAGES.toLocaleString('en')}-page space`, 'llms-full.txt', `${siteC.path}/llms-full.txt`, { notModified: true });
  }

  const table = [
    '',
    `## Reader: published pages, cold and kept — ${new Date().toISOString()}, ${bench.mode}, ${os.cpus().length} cores, autocannon ${CONNECTIONS} connections × ${SECONDS} s per warm row`,
    '',
    `Seeded: a ${BIG.toLocaleString('en')}-page space (three levels: 10 / 100 / 9,890) with its site; a site of ${SECTIONS} sections × ${SITE_SPACES} site spaces (${SITE_SPACES} spaces of ${SITE_SPACE_PAGES} pages); a ${LLMS_PAGES.toLocaleString('en')}-page space with its site. Anonymous visitors of public sites.`,
    '',
    header,
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Cold: each request a page not rendered before (llms-full.txt: the render cache cleared before each), sequential; req/s is 1 / mean latency. The very first`,
    `request after the server started, which also loads the ${BIG.toLocaleString('en')}-page tree, took ${firstMs.toFixed(0)} ms. Warm: the answer kept by the reader's cache (the`,
    "site's row with its fingerprint is kept up to 1 s and until this process's next write, access decided on every request: 0 statements for a public site,",
    '1 once a second). The floor answers the same bytes',
    'and headers from a bare handler in the same server process (no routing, access, SQL): the cost of HTTP and of the bytes on this machine.',
    'Statements are counted on sequential requests.',
    '',
  ].join('\n');
  fs.appendFileSync(path.join(import.meta.dirname, 'results.md'), table);
  console.log(table);
  await server.stop();
  await bench.close();
}

if (process.argv.includes('--serve')) await serve();
else
  await main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
