/**
 * What a docs front-end asks: one published site's whole structure with every page tree, in one
 * GraphQL query — beside the floor for the same data on this machine (one hand-written SQL statement
 * nesting it with json_agg, behind a bare HTTP handler) in the same run.
 *
 * Data: 1 organization; 500 spaces, each 20 top-level pages with 2 child pages under each
 * (60 pages of ~400 bytes of Markdown: 30,000 pages); 20 sites, each 10 sections × 10 site spaces
 * (every site links 100 distinct spaces). Rows: the one-site query at concurrency 1 and 4 (req/s,
 * p50, p99, bytes, SQL statements per request, server RSS), the floor at 1 and 4, and the whole
 * organization (20 sites) in one query. The server runs in its own process (bench/server.ts).
 * Uses DATABASE_URL when set, else an embedded PostgreSQL. Appends its table to bench/results.md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { issueToken } from '../src/auth/tokens.js';
import { newId } from '../src/ids.js';
import { createOrganization } from '../src/modules/orgs/service.js';
import { createUser } from '../src/modules/users/service.js';
import { benchApi, openBenchDatabase, seedPageTree, spawnBenchServer } from './support.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const SPACES = Number(process.env.BENCH_SPACES ?? 500);
const TOP_PAGES = 20;
const CHILDREN = 2;
const SITES = 20;
const SECTIONS = 10;
const SITE_SPACES = 10;

/** ~400 bytes of Markdown, distinct per page. */
const markdownOf = (space: number, page: number) =>
  `## Page ${page} of space ${space}\n\nThis page explains how part ${page} of product area ${space} works, with the settings a reader needs and what each of them changes.\n\n- Step one: open the settings of area ${space}.\n- Step two: change option ${page} and save.\n\n> Changes apply to every workspace of the organization within a minute.\n\nSee the [overview](./) for the other parts.\n`;

const PAGE_FIELDS = 'id title path';
export const ONE_SITE_QUERY = /* GraphQL */ `
query OneSite($org: ID!, $site: ID!) {
  site(organizationId: $org, id: $site) {
    id title
    sections(limit: 100) { items { id title path siteSpaces { id path space { id title content { pageTree { ${PAGE_FIELDS} children { ${PAGE_FIELDS} children { ${PAGE_FIELDS} } } } } } } } }
  }
}`;
const ORGANIZATION_QUERY = /* GraphQL */ `
query Organization($org: ID!) {
  organization(id: $org) {
    sites(limit: 20) { items { id title sections(limit: 10) { items { id title path siteSpaces { id path space { id title content { pageTree { ${PAGE_FIELDS} children { ${PAGE_FIELDS} children { ${PAGE_FIELDS} } } } } } } } } } }
  }
}`;

async function main() {
  const bench = await openBenchDatabase('frontend');
  const { db } = bench;
  const t0 = performance.now();
  const owner = await createUser(db.prisma, { email: 'owner@frontend.bench', name: 'Owner' });
  const org = await createOrganization(db.prisma, { title: 'Acme', ownerId: owner.id });
  const token = await issueToken(db.prisma, owner.id);
  const spawned = await spawnBenchServer(bench);
  const { child, url, bareUrl } = spawned;
  const call = benchApi(url, token);

  // Spaces through the API, their pages straight through the content store, four at a time.
  const spaces: string[] = new Array(SPACES);
  for (let s = 0; s < SPACES; s += 4) {
    await Promise.all(
      [0, 1, 2, 3]
        .filter((k) => s + k < SPACES)
        .map(async (k) => {
          const id = (await call('POST', `/v1/orgs/${org.id}/spaces`, { title: `Space ${s + k}` })).id;
          await seedPageTree(
            db,
            id,
            TOP_PAGES * (1 + CHILDREN),
            (i) => markdownOf(s + k, i),
            (i, ids) => (i < TOP_PAGES ? null : ids[Math.floor((i - TOP_PAGES) / CHILDREN)]!),
          );
          spaces[s + k] = id;
        }),
    );
  }
  // Sites: each section made through the API with its first space, the other nine in bulk.
  const sites: string[] = [];
  for (let k = 0; k < SITES; k++) {
    const site = await call('POST', `/v1/orgs/${org.id}/sites`, { title: `Site ${k}` });
    const linked = Array.from({ length: SECTIONS * SITE_SPACES }, (_, i) => spaces[(k * 25 + i) % SPACES]!);
    for (let c = 0; c < SECTIONS; c++) {
      const own = linked.slice(c * SITE_SPACES, (c + 1) * SITE_SPACES);
      const section = await call('POST', `/v1/orgs/${org.id}/sites/${site.id}/sections`, { spaceId: own[0], title: `Section ${c}` });
      await db.prisma.siteSpace.createMany({
        data: own.slice(1).map((spaceId, i) => ({
          id: newId(),
          siteId: site.id,
          sectionId: section.id,
          spaceId,
          path: `variant-${i + 1}`,
          position: i + 2,
        })),
      });
    }
    await call('POST', `/v1/orgs/${org.id}/sites/${site.id}/publish`);
    sites.push(site.id);
  }
  await db.pool.query('VACUUM ANALYZE');
  console.log(
    `seeded ${SPACES} spaces × ${TOP_PAGES * (1 + CHILDREN)} pages, ${SITES} sites × ${SECTIONS} sections × ${SITE_SPACES} site spaces in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );

  const stats = async () => (await (await fetch(`${bareUrl}/__stats`)).json()) as { statements: number };
  const rssOf = () => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const graphqlBody = (query: string, variables: Record<string, unknown>) => JSON.stringify({ query, variables });
  const oneSite = { url, method: 'POST' as const, path: '/graphql', body: graphqlBody(ONE_SITE_QUERY, { org: org.id, site: sites[0] }) };
  const floor = { url: bareUrl, method: 'GET' as const, path: `/bare-sql/site-tree/${org.id}/${sites[0]}` };
  const wholeOrganization = { url, method: 'POST' as const, path: '/graphql', body: graphqlBody(ORGANIZATION_QUERY, { org: org.id }) };

  // One answer of each, checked: the same site with its 10 × 10 site spaces and every page.
  const answer = async (r: { url: string; method: string; path: string; body?: string }) => {
    const res = await fetch(`${r.url}${r.path}`, { method: r.method, headers, body: r.body });
    const text = await res.text();
    const body = JSON.parse(text);
    if (res.status !== 200 || body.errors) throw new Error(`${r.path}: ${res.status} ${text.slice(0, 300)}`);
    return { text, body };
  };
  const lectern = (await answer(oneSite)).body.data.site;
  const countPages = (pages: any[]): number => pages.reduce((n, p) => n + 1 + countPages(p.children ?? []), 0);
  const lecternPages = lectern.sections.items
    .flatMap((s: any) => s.siteSpaces)
    .reduce((n: number, ss: any) => n + countPages(ss.space.content.pageTree), 0);
  const floorPages = (await answer(floor)).body.data.site.sections.items
    .flatMap((s: any) => s.siteSpaces)
    .reduce((n: number, ss: any) => n + ss.space.content.pages.length, 0);
  if (lecternPages !== SECTIONS * SITE_SPACES * TOP_PAGES * (1 + CHILDREN) || floorPages !== lecternPages)
    throw new Error(`pages: Lectern ${lecternPages}, floor ${floorPages}`);

  const rows: string[] = [];
  const measure = async (
    label: string,
    via: string,
    r: { url: string; method: 'GET' | 'POST'; path: string; body?: string },
    connections: number,
  ) => {
    const bytes = Buffer.byteLength((await answer(r)).text);
    const options = { url: r.url, connections, headers, requests: [{ method: r.method, path: r.path, body: r.body }] };
    await autocannon({ ...options, duration: 1 }); // warm-up
    let rss = 0;
    const sampler = setInterval(() => (rss = Math.max(rss, rssOf())), 50);
    const result = await autocannon({ ...options, duration: SECONDS });
    clearInterval(sampler);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Statements per request: a counted sequential run, less the job worker's polling over as long an idle time.
    const before = (await stats()).statements;
    const started = performance.now();
    for (let i = 0; i < 5; i++) await answer(r);
    const during = (await stats()).statements - before;
    const idleBefore = (await stats()).statements;
    await new Promise((resolve) => setTimeout(resolve, performance.now() - started));
    const idle = (await stats()).statements - idleBefore;
    const row = `| ${label} | ${via} | ${connections} | ${result.requests.average.toFixed(1)} | ${result.latency.p50} | ${result.latency.p99} | ${(bytes / 1024).toFixed(0)} | ${((during - idle) / 5).toFixed(1)} | ${(rss / 2 ** 20).toFixed(0)} | ${result.non2xx + result.errors} |`;
    rows.push(row);
    console.log(row);
  };
  const header = '| data | via | connections | req/s | p50 ms | p99 ms | KiB | SQL statements / request | server RSS MiB (max) | non-2xx |';
  console.log(`${header}\n|---|---|---|---|---|---|---|---|---|---|`);
  const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, 'i') : null;
  const plan: [string, string, typeof oneSite | typeof floor, number][] = [
    ['one site: 10 sections × 10 site spaces, 6,000 pages', 'Lectern GraphQL, one query (typed page trees)', oneSite, 1],
    ['one site: 10 sections × 10 site spaces, 6,000 pages', 'floor: one SQL statement (json_agg) behind a bare handler', floor, 1],
    ['one site: 10 sections × 10 site spaces, 6,000 pages', 'Lectern GraphQL, one query (typed page trees)', oneSite, 4],
    ['one site: 10 sections × 10 site spaces, 6,000 pages', 'floor: one SQL statement (json_agg) behind a bare handler', floor, 4],
    [
      `whole organization: ${SITES} sites, ${SITES * SECTIONS * SITE_SPACES * TOP_PAGES * (1 + CHILDREN)} pages`,
      'Lectern GraphQL, one query',
      wholeOrganization,
      1,
    ],
  ];
  for (const [label, via, r, connections] of plan)
    if (!only || only.test(`${via} ${connections}`)) await measure(label, via, r, connections);

  const table = [
    '',
    `## Front-end: one site's structure and page trees — ${new Date().toISOString()}, ${bench.mode}, ${os.cpus().length} cores, autocannon ${SECONDS} s per row`,
    '',
    `${SPACES} spaces × ${TOP_PAGES * (1 + CHILDREN)} pages (${TOP_PAGES} top-level, ${CHILDREN} children each, ~400 bytes of Markdown), ${SITES} sites × ${SECTIONS} sections × ${SITE_SPACES} site spaces (each site links 100 distinct spaces).`,
    '',
    header,
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    'The floor answers the same site, sections, site spaces, spaces and pages (id, title, slug, parent: flat, as SQL cannot nest a',
    'tree of any depth without recursion) from the same rows in one statement; statements include the token lookup. Lectern answers',
    'the typed tree (id, title, path, children to depth 3). RSS is the server process (Lectern and the bare handler share it).',
    '',
  ].join('\n');
  fs.appendFileSync(path.join(import.meta.dirname, 'results.md'), table);
  console.log(table);
  await spawned.stop();
  await bench.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
