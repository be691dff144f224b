/**
 * A docs site's whole tree for a front-end — the organization's sites → sections and section groups
 * → site spaces → spaces → each space's page tree — fetched by one GraphQL query, beside the same
 * data fetched by REST calls (the sites, each site's sections with their site spaces and spaces,
 * then each distinct space's content), p50/p99 latency and SQL statements per fetch.
 * The site has 50 sections × 20 site spaces (over 20 spaces of 30 pages each).
 * Uses DATABASE_URL when set, else an embedded PostgreSQL. Appends its table to bench/results.md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newId } from '../src/ids.js';
import { closedLoop, openBenchDatabase, SITE_TREE_QUERY, startBenchServer } from './support.js';

const DURATION_MS = Number(process.env.BENCH_MS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 1);
const SECTIONS = 50;
const SPACES = 20;
const PAGES = 30;

async function measure(run: () => Promise<void>, statements: { count: number }) {
  for (let i = 0; i < 5; i++) await run(); // warm-up, outside the statement count
  const before = statements.count;
  const r = await closedLoop(run, { durationMs: DURATION_MS, concurrency: CONCURRENCY });
  return {
    perSecond: r.perSecond.toFixed(1),
    p50: r.p50.toFixed(1),
    p99: r.p99.toFixed(1),
    statements: ((statements.count - before) / r.count).toFixed(1),
  };
}

async function main() {
  const bench = await openBenchDatabase('sites');
  const { db } = bench;
  const { org, token, app, call } = await startBenchServer(bench, 'sites');

  // Seed through the API: spaces with pages, a site, its sections (each with every space) and a group.
  const t0 = performance.now();
  const spaces: string[] = [];
  for (let s = 0; s < SPACES; s++) {
    const space = await call('POST', `/v1/orgs/${org.id}/spaces`, { title: `Space ${s}` });
    const changes = Array.from({ length: PAGES }, (_, p) => ({
      operation: 'insert_page',
      title: `Page ${p}`,
      document: { markdown: `Page ${p} of space ${s}.` },
    }));
    await call('POST', `/v1/spaces/${space.id}/content`, { changes });
    spaces.push(space.id);
  }
  const site = await call('POST', `/v1/orgs/${org.id}/sites`, { title: 'Bench docs' });
  const sections: string[] = [];
  for (let c = 0; c < SECTIONS; c++) {
    const section = await call('POST', `/v1/orgs/${org.id}/sites/${site.id}/sections`, { spaceId: spaces[0], title: `Section ${c}` });
    sections.push(section.id);
  }
  // The other site spaces in bulk (19 × 50), straight into the table: the API path is measured above.
  await db.prisma.siteSpace.createMany({
    data: sections.flatMap((sectionId) =>
      spaces.slice(1).map((spaceId, i) => ({ id: newId(), siteId: site.id, sectionId, spaceId, path: `space-${i + 1}`, position: i + 2 })),
    ),
  });
  await call('POST', `/v1/orgs/${org.id}/sites/${site.id}/section-groups`, { title: 'Guides', sections: sections.slice(0, 5) });
  await call('POST', `/v1/orgs/${org.id}/sites/${site.id}/publish`);
  console.log(
    `seeded ${SPACES} spaces × ${PAGES} pages, ${SECTIONS} sections × ${SPACES} site spaces in ${(performance.now() - t0).toFixed(0)} ms`,
  );

  const graphql = async () => {
    const res = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: SITE_TREE_QUERY, variables: { id: org.id } }),
    });
    const body = (await res.json()) as any;
    if (res.status !== 200 || body.errors) throw new Error(`GraphQL: ${res.status} ${JSON.stringify(body.errors)}`);
    if (body.data.organization.sites.items[0].sections.items.length !== SECTIONS) throw new Error('GraphQL: missing sections');
  };
  // The same data over REST: sites, then per site its sections (site spaces and spaces inside) and
  // groups, then each distinct space's content, the independent calls in parallel as a client would.
  const rest = async () => {
    const sites = await call('GET', `/v1/orgs/${org.id}/sites?limit=5`);
    const perSite = await Promise.all(
      sites.items.map((s: any) =>
        Promise.all([
          call('GET', `/v1/orgs/${org.id}/sites/${s.id}/sections?limit=100`),
          call('GET', `/v1/orgs/${org.id}/sites/${s.id}/section-groups?limit=100`),
        ]),
      ),
    );
    const spaceIds = new Set<string>(
      perSite.flatMap(([sections]) => sections.items.flatMap((c: any) => c.siteSpaces.map((ss: any) => ss.space.id))),
    );
    await Promise.all([...spaceIds].map((id) => call('GET', `/v1/spaces/${id}/content`)));
  };
  const restRequests = 1 + 2 + SPACES; // one site

  const rows = [
    {
      via: 'GraphQL, one query (organization.sites → sections → siteSpaces → space.content.pageList)',
      ...(await measure(graphql, db.statements)),
    },
    {
      via: `REST, ${restRequests} calls (sites, sections, section-groups, then each space's content in parallel)`,
      ...(await measure(rest, db.statements)),
    },
  ];
  const table = [
    '',
    `## Sites: one site of ${SECTIONS} sections × ${SPACES} site spaces, each space ${PAGES} pages — ${new Date().toISOString()}, ${bench.mode}, ${os.cpus().length} cores, concurrency ${CONCURRENCY}, ${DURATION_MS} ms per row`,
    '',
    '| via | fetches/s | p50 ms | p99 ms | SQL statements / fetch |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.via} | ${r.perSecond} | ${r.p50} | ${r.p99} | ${r.statements} |`),
    '',
    "Over HTTP (loopback) with the owner's token; statements include the token lookups (one per HTTP request). The GraphQL answer",
    "holds every site space's page tree (1,000 trees: the 20 spaces recur in every section); REST fetches the 20 distinct trees once.",
    '',
  ].join('\n');
  fs.appendFileSync(path.join(import.meta.dirname, 'results.md'), table);
  console.log(table);

  await app.close();
  await bench.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
