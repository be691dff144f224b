/**
 * npm run bench (parse once) — what reading and writing page bodies costs: a page read as a rich-text
 * document (REST and GraphQL) and a write flow editing a page's body, on one space whose pages have
 * realistic bodies (5–20 KB of headings, prose, lists, code, tables and links; every body distinct).
 * The server runs in its own process (bench/server.ts) and reports, besides SQL statements, how
 * many Markdown texts it parsed: per request, side by side with req/s and latency. Appends a
 * "Parse once" section to bench/results.md (BENCH_SECONDS, BENCH_CONNECTIONS as bench/load.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { issueToken } from '../src/auth/tokens.js';
import { rebuildSearchIndex } from '../src/modules/content/search-index.js';
import { createOrganization } from '../src/modules/orgs/service.js';
import { createUser } from '../src/modules/users/service.js';
import { openBenchDatabase, seedPageTree, spawnBenchServer } from './support.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 4);
const PAGES = 200;

const WORDS =
  'the page explains how to configure a space and its content so that readers find answers quickly while editors review changes before they reach main'.split(
    ' ',
  );
const sentence = (seed: number, n: number) => {
  const words = Array.from({ length: n }, (_, k) => WORDS[(seed * 7 + k * 13) % WORDS.length]!);
  return `${words.join(' ').replace(/^./, (c) => c.toUpperCase())}.`;
};

/** A documentation page of about 5–20 KB (size varies with `i`), distinct for each `i`. */
export function realisticMarkdown(i: number, edit = ''): string {
  const sections = 4 + (i % 12);
  const parts = [
    `# Guide ${i}: configuring the product\n`,
    `${sentence(i, 24)} See [the overview](../overview) and [the API](https://example.com/api/${i}).\n`,
  ];
  for (let s = 0; s < sections; s++) {
    const seed = i * 31 + s;
    parts.push(
      `## Step ${s + 1}: ${sentence(seed, 4).slice(0, -1)}\n`,
      `${sentence(seed, 30)} **${sentence(seed + 1, 3).slice(0, -1)}** and \`option_${s}\` ${sentence(seed + 2, 20)}\n`,
      `- ${sentence(seed + 3, 9)}\n- ${sentence(seed + 4, 11)} [details](#step-${s + 1})\n- ${sentence(seed + 5, 7)}\n`,
      `\`\`\`ts\nconst config${s} = { space: 'docs-${i}', retries: ${s}, enabled: true };\nawait client.update(config${s});\n\`\`\`\n`,
      `| setting | default | meaning |\n|---|---|---|\n| retries | ${s} | ${sentence(seed + 6, 6)} |\n| timeout | ${s * 10} ms | ${sentence(seed + 7, 6)} |\n`,
      `> ${sentence(seed + 8, 16)}\n`,
      `${sentence(seed + 9, 40)} ![diagram ${s}](https://example.com/img/${i}-${s}.png)\n`,
    );
  }
  if (edit) parts.push(`${edit}\n`);
  return parts.join('\n');
}

async function main() {
  const bench = await openBenchDatabase('parse');
  const { db, server, database } = bench;
  const owner = await createUser(db.prisma, { email: 'owner@parse.bench', name: 'Owner' });
  const org = await createOrganization(db.prisma, { title: 'Parse bench', ownerId: owner.id });
  const token = await issueToken(db.prisma, owner.id);

  // The server under test, in its own process.
  const spawned = await spawnBenchServer({ server, database });
  const { url, bareUrl } = spawned;
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${url}${p}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = (await res.json()) as any;
    if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };

  const spaceId = (await call('POST', `/v1/orgs/${org.id}/spaces`, { title: 'Docs' })).id as string;
  const { ids, revision } = await seedPageTree(db, spaceId, PAGES, (i) => realisticMarkdown(i));
  await db.prisma.$transaction((tx) => rebuildSearchIndex(tx, spaceId, revision), { timeout: 600_000 });
  const sizes = Array.from({ length: PAGES }, (_, i) => realisticMarkdown(i).length);
  // Leaves only (pages 110+ have no children): a read parses one body, not a parent's and its children's.
  const leaves = ids.slice(110);
  const leafSizes = sizes.slice(110);
  const randomLeaf = () => leaves[Math.floor(Math.random() * leaves.length)]!;

  const stats = async () => (await (await fetch(`${bareUrl}/__stats`)).json()) as { statements: number; parses: number };
  let flow = 0;
  const writeFlow = [
    {
      method: 'POST' as const,
      setupRequest: (req: any, ctx: any) => {
        ctx.k = flow++;
        ctx.page = leaves[ctx.k % leaves.length];
        return { ...req, path: `/v1/spaces/${spaceId}/change-requests`, body: JSON.stringify({ subject: `Edit ${ctx.k}` }) };
      },
      onResponse: (_status: number, body: string, ctx: any) => (ctx.cr = JSON.parse(body).id),
    },
    {
      method: 'POST' as const,
      setupRequest: (req: any, ctx: any) => ({
        ...req,
        path: `/v1/spaces/${spaceId}/change-requests/${ctx.cr}/content`,
        body: JSON.stringify({
          changes: [
            {
              operation: 'update_page',
              page: ctx.page,
              document: { markdown: realisticMarkdown(110 + (ctx.k % leaves.length), `Edited by flow ${ctx.k}.`) },
            },
          ],
        }),
      }),
    },
    {
      method: 'POST' as const,
      setupRequest: (req: any, ctx: any) => ({ ...req, path: `/v1/spaces/${spaceId}/change-requests/${ctx.cr}/merge` }),
    },
  ];

  const scenarios = [
    {
      via: 'REST GET /v1/spaces/{id}/content/page/{pageId}?format=document',
      requests: [{ setupRequest: (req: any) => ({ ...req, path: `/v1/spaces/${spaceId}/content/page/${randomLeaf()}?format=document` }) }],
    },
    {
      via: 'GraphQL space.content.page(id, format: document)',
      requests: [
        {
          method: 'POST' as const,
          path: '/graphql',
          setupRequest: (req: any) => ({
            ...req,
            body: JSON.stringify({
              query:
                'query($s: ID!, $p: ID!) { space(id: $s) { content { page(id: $p, format: document) { body { ... on PageDocumentBody { document } } } } } }',
              variables: { s: spaceId, p: randomLeaf() },
            }),
          }),
        },
      ],
    },
    { via: 'write: create CR, edit a page body (5–20 KB), merge — 3 REST requests per flow', requests: writeFlow, perFlow: 3 },
  ];

  const rows: string[] = [];
  const header =
    '| case | req/s | p50 ms | p99 ms | SQL statements / request | parses / request (first pass) | parses / request (steady) | non-2xx |';
  console.log(`${header}\n|---|---|---|---|---|---|---|---|`);
  const counted = async (options: any, amount: number) => {
    const before = await stats();
    const done = await autocannon({ ...options, connections: 1, amount });
    const after = await stats();
    return {
      statements: (after.statements - before.statements) / done.requests.total,
      parses: (after.parses - before.parses) / done.requests.total,
    };
  };
  const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, 'i') : null;
  for (const [i, scenario] of scenarios.entries()) {
    if (only && !only.test(scenario.via)) continue;
    const options = { url, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, requests: scenario.requests };
    // First pass: one connection over bodies this process has not read yet (the write flow's bodies are always new).
    // The first read case then reads every leaf once, so the timed runs read bodies read before (pages are read many times).
    const first = await counted(options, 10 * scenario.requests.length);
    if (i === 0) for (const leaf of leaves) await call('GET', `/v1/spaces/${spaceId}/content/page/${leaf}?format=document`);
    await autocannon({ ...options, connections: CONNECTIONS, duration: 1 }); // warm up
    const result = await autocannon({ ...options, connections: CONNECTIONS, duration: SECONDS });
    await new Promise((resolve) => setTimeout(resolve, 500)); // let cut-off requests finish
    const steady = await counted(options, 10 * scenario.requests.length);
    const rate = scenario.perFlow
      ? `${result.requests.average.toFixed(0)} (${(result.requests.average / scenario.perFlow).toFixed(1)} flows/s)`
      : result.requests.average.toFixed(0);
    rows.push(
      `| ${scenario.via} | ${rate} | ${result.latency.p50} | ${result.latency.p99} | ${steady.statements.toFixed(1)} | ${first.parses.toFixed(2)} | ${steady.parses.toFixed(2)} | ${result.non2xx + result.errors} |`,
    );
    console.log(rows.at(-1));
  }

  const kb = (n: number) => (n / 1024).toFixed(1);
  const table = [
    `## Parse once: page reads and writes on realistic bodies — ${new Date().toISOString()}, ${bench.mode}, ${os.cpus().length} cores, autocannon ${CONNECTIONS} connections × ${SECONDS} s per row (after 1 s of warm-up)`,
    '',
    `One space of ${PAGES} pages, bodies ${kb(Math.min(...sizes))}–${kb(Math.max(...sizes))} KB (read pages: leaves, ${kb(Math.min(...leafSizes))}–${kb(Math.max(...leafSizes))} KB, mean ${kb(leafSizes.reduce((a, b) => a + b, 0) / leafSizes.length)} KB).`,
    '',
    header,
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    'Parses: Markdown texts handed to the parser (inline or in a worker thread) per request. First pass: 10 reads (or flows) on one',
    'connection on pages not read before (then every page is read once); steady: the same after the timed run. Statements per',
    'request include the token lookup.',
    '',
  ].join('\n');
  fs.appendFileSync(path.resolve(import.meta.dirname, process.env.BENCH_PARSE_OUT ?? 'results.md'), `\n${table}`);
  console.log(`\n${table}`);

  await spawned.stop();
  await bench.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
