/**
 * Git sync: a 1,000-page repository imported, a merge committed and pushed
 * (Lectern → Git), a push of 10 changed files reflected in main (Git → Lectern, through the signed
 * webhook), and the 1,000-page space exported as a .zip. The server runs as in production, its job
 * worker included (the latencies contain the worker's wait for the queue, as users see them).
 *
 * The remote is a bare repository on local disk below LECTERN_GIT_LOCAL_ROOT (the single-machine
 * form of a connection): the same git commands as over HTTPS, without a Git server to start; the
 * network round trips of a hosted remote come on top. Appends its table to bench/results.md
 * (BENCH_OUT: to that file instead). BENCH_RUNS: latency samples (default 5).
 */
import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openBenchDatabase, startBenchServer } from './support.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const PAGES = 1000;
const GROUPS = 10;
const CHAPTERS = 9; // per group, each a README and 10 pages: 10 × 9 × 11 = 990, + README + 9 top pages
const IMAGES = 20;

const gitEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Dev',
  GIT_AUTHOR_EMAIL: 'dev@example.com',
  GIT_COMMITTER_NAME: 'Dev',
  GIT_COMMITTER_EMAIL: 'dev@example.com',
};
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, env: gitEnv, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).trim();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** A realistic docs repository: SUMMARY with groups, nested pages, front matter, tables, code, hints, images, relative links. */
function writeRepository(dir: string): string[] {
  const files = new Map<string, string | Buffer>();
  const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
  for (let i = 0; i < IMAGES; i++) files.set(`.gitbook/assets/figure-${i}.png`, Buffer.concat([png, Buffer.from([i])]));
  const page = (title: string, n: number, sibling: string, image: string) =>
    `${n % 3 === 0 ? `---\ndescription: About ${title.toLowerCase()}.\n${n % 9 === 0 ? 'icon: book\n' : ''}---\n\n` : ''}# ${title}\n\n` +
    `${'This page documents one part of the product in some detail. '.repeat(6)}\n\nSee also [the next page](${sibling}).\n\n` +
    (n % 4 === 0
      ? `| Option | Default | Meaning |\n| --- | --- | --- |\n| \`size\` | 10 | How many |\n| \`mode\` | fast | How |\n\n`
      : '') +
    (n % 5 === 0
      ? `\`\`\`typescript\nconst client = new Client({ token: process.env.TOKEN });\nawait client.pages.list();\n\`\`\`\n\n`
      : '') +
    (n % 7 === 0 ? `{% hint style="info" %}\nA hint about ${title}.\n{% endhint %}\n\n` : '') +
    (n % 10 === 0 ? `![Figure](${image})\n\n` : '') +
    `## Details\n\n${'More text for the search index and the diff. '.repeat(4)}\n`;
  const summary = ['# Table of contents', '', '* [Introduction](README.md)'];
  const paths: string[] = ['README.md'];
  files.set('README.md', '# Introduction\n\nWelcome to the docs. Start with [the first chapter](part-0/chapter-0/README.md).\n');
  for (let t = 0; t < 9; t++) {
    const p = `notes-${t}.md`;
    summary.push(`* [Notes ${t}](${p})`);
    files.set(p, page(`Notes ${t}`, t, t < 8 ? `notes-${t + 1}.md` : 'README.md', `.gitbook/assets/figure-${t % IMAGES}.png`));
    paths.push(p);
  }
  let n = 0;
  for (let g = 0; g < GROUPS; g++) {
    summary.push('', `## Part ${g}`, '');
    for (let c = 0; c < CHAPTERS; c++) {
      const dirOf = `part-${g}/chapter-${c}`;
      summary.push(`* [Chapter ${g}.${c}](${dirOf}/README.md)`);
      files.set(`${dirOf}/README.md`, page(`Chapter ${g}.${c}`, n++, 'topic-0.md', `../../.gitbook/assets/figure-${n % IMAGES}.png`));
      paths.push(`${dirOf}/README.md`);
      for (let p = 0; p < 10; p++) {
        summary.push(`  * [Topic ${g}.${c}.${p}](${dirOf}/topic-${p}.md)`);
        files.set(
          `${dirOf}/topic-${p}.md`,
          page(`Topic ${g}.${c}.${p}`, n++, p < 9 ? `topic-${p + 1}.md` : 'README.md', `../../.gitbook/assets/figure-${n % IMAGES}.png`),
        );
        paths.push(`${dirOf}/topic-${p}.md`);
      }
    }
  }
  files.set('SUMMARY.md', `${summary.join('\n')}\n`);
  for (const [p, data] of files) {
    fs.mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    fs.writeFileSync(path.join(dir, p), data);
  }
  if (paths.length !== PAGES) throw new Error(`generated ${paths.length} pages, not ${PAGES}`);
  return paths;
}

async function main() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-git-bench-'));
  process.env.LECTERN_GIT_LOCAL_ROOT = root;
  const bench = await openBenchDatabase('gitsync');
  const { db } = bench;
  const { org, token, app, call } = await startBenchServer(bench, 'gitsync');
  try {
    // The remote, and a developer's clone holding the 1,000 pages.
    const bare = path.join(root, 'docs.git');
    git(root, 'init', '-q', '--bare', '-b', 'main', 'docs.git');
    const dev = path.join(root, 'dev');
    fs.mkdirSync(dev);
    git(dev, 'clone', '-q', bare, '.');
    git(dev, 'checkout', '-q', '-b', 'main');
    const pagePaths = writeRepository(dev);
    git(dev, 'add', '-A');
    git(dev, 'commit', '-q', '-m', 'docs');
    git(dev, 'push', '-q', 'origin', 'main');
    const head = () => git(bare, 'rev-parse', 'refs/heads/main');

    const space = await call('POST', `/v1/orgs/${org.id}/spaces`, { title: 'Synced' });
    const info = () => call('GET', `/v1/spaces/${space.id}/git/info`);
    const revisionOf = async () =>
      (await db.prisma.space.findUniqueOrThrow({ where: { id: space.id }, select: { revisionId: true } })).revisionId;
    const until = async <T>(probe: () => Promise<T | undefined>, what: string, limitMs = 300_000): Promise<T> => {
      const end = performance.now() + limitMs;
      for (;;) {
        const value = await probe();
        if (value !== undefined) return value;
        if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
        await sleep(10);
      }
    };

    // 1. Import of the 1,000-page repository: request → operation succeeded.
    let statements = db.statements.count;
    let t = performance.now();
    await call('POST', `/v1/spaces/${space.id}/git/import`, { url: bare, ref: 'refs/heads/main' });
    const imported = await until(async () => {
      const op = (await info()).operation;
      if (op?.state === 'failure') throw new Error(`import failed: ${op.error}`);
      return op?.state === 'success' ? op : undefined;
    }, 'the import');
    void imported;
    const importMs = performance.now() - t;
    const importStatements = db.statements.count - statements;
    const content = await call('GET', `/v1/spaces/${space.id}/content`);
    const count = (ps: any[]): number => ps.reduce((n, p) => n + (p.type === 'document' ? 1 : 0) + count(p.pages ?? []), 0);
    const importedPages = count(content.pages);
    if (importedPages !== PAGES) throw new Error(`imported ${importedPages} pages`);
    console.log(`import: ${(importMs / 1000).toFixed(2)} s, ${importStatements} statements`);

    // 2. Lectern → Git: merge of a change request editing one page → the commit on the remote.
    const flat = (ps: any[]): any[] => ps.flatMap((p) => [p, ...flat(p.pages ?? [])]);
    const docs = flat(content.pages).filter((p) => p.type === 'document');
    const toGit: number[] = [];
    const mergeStatements: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const page = docs[100 + run * 37]!;
      const cr = await call('POST', `/v1/spaces/${space.id}/change-requests`, { subject: `Edit ${run}` });
      await call('POST', `/v1/spaces/${space.id}/change-requests/${cr.id}/content`, {
        changes: [
          { operation: 'update_page', page: page.id, document: { markdown: `# ${page.title}\n\nEdited in Lectern, run ${run}.\n` } },
        ],
      });
      const before = head();
      statements = db.statements.count;
      t = performance.now();
      await call('POST', `/v1/spaces/${space.id}/change-requests/${cr.id}/merge`);
      await until(async () => (head() !== before ? true : undefined), 'the commit on the remote');
      toGit.push(performance.now() - t);
      await until(
        async () =>
          (await info()).operation?.state === 'success' &&
          (await db.prisma.job.count({ where: { status: { in: ['pending', 'running'] }, kind: 'git-sync.export' } })) === 0
            ? true
            : undefined,
        'the export job',
      );
      mergeStatements.push(db.statements.count - statements);
    }
    console.log(`Lectern → Git p50: ${median(toGit).toFixed(0)} ms`);

    // 3. Git → Lectern: a push of 10 changed files, the signed webhook, a new revision of main.
    const hook = await call('GET', `/v1/spaces/${space.id}/git/webhook`);
    const toLectern: number[] = [];
    const importStatementsPerPush: number[] = [];
    git(dev, 'pull', '-q', '--ff-only', 'origin', 'main');
    for (let run = 0; run < RUNS; run++) {
      for (let f = 0; f < 10; f++) {
        const file = path.join(dev, pagePaths[200 + run * 50 + f * 3]!);
        fs.appendFileSync(file, `\nPushed from Git, run ${run}.\n`);
      }
      git(dev, 'commit', '-q', '-am', `ten files, run ${run}`);
      const before = await revisionOf();
      statements = db.statements.count;
      t = performance.now();
      git(dev, 'push', '-q', 'origin', 'main');
      const body = JSON.stringify({
        ref: 'refs/heads/main',
        before: '0'.repeat(40),
        after: git(dev, 'rev-parse', 'HEAD'),
        repository: { full_name: 'acme/docs' },
      });
      const res = await fetch(`${app.url}/git-sync/webhooks/${space.id}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'push',
          'x-hub-signature-256': `sha256=${createHmac('sha256', hook.secret).update(body).digest('hex')}`,
        },
        body,
      });
      if (res.status !== 202) throw new Error(`webhook: ${res.status} ${await res.text()}`);
      await until(async () => ((await revisionOf()) !== before ? true : undefined), 'the new revision');
      toLectern.push(performance.now() - t);
      importStatementsPerPush.push(db.statements.count - statements);
      await until(
        async () =>
          (await db.prisma.job.count({ where: { status: { in: ['pending', 'running'] }, kind: 'git-sync.import' } })) === 0
            ? true
            : undefined,
        'the import job',
      );
    }
    console.log(`Git → Lectern p50: ${median(toLectern).toFixed(0)} ms`);

    // 4. Export of the 1,000-page space as a .zip (the Git layout).
    const exportTimes: number[] = [];
    let zipBytes = 0;
    let exportStatements = 0;
    for (let run = 0; run < 3; run++) {
      statements = db.statements.count;
      t = performance.now();
      const res = await fetch(`${app.url}/archives/spaces/${space.id}/content.zip`, { headers: { authorization: `Bearer ${token}` } });
      if (res.status !== 200) throw new Error(`export: ${res.status} ${await res.text()}`);
      zipBytes = (await res.arrayBuffer()).byteLength;
      exportTimes.push(performance.now() - t);
      exportStatements = db.statements.count - statements;
    }
    console.log(`export p50: ${median(exportTimes).toFixed(0)} ms`);

    const table = [
      '',
      `## Git sync: ${PAGES}-page repository, local bare remote — ${new Date().toISOString()}, ${bench.mode}, ${RUNS} runs`,
      '',
      '| figure | value | SQL statements |',
      '|---|---|---|',
      `| import of ${PAGES} pages (${IMAGES} images), request → main | ${(importMs / 1000).toFixed(2)} s | ${importStatements} |`,
      `| Lectern → Git: merge (1 page) → commit on the remote, p50 | ${median(toGit).toFixed(0)} ms (min ${Math.min(...toGit).toFixed(0)}, max ${Math.max(...toGit).toFixed(0)}) | ${median(mergeStatements)} (merge + export job) |`,
      `| Git → Lectern: push of 10 files → new revision of main (webhook), p50 | ${median(toLectern).toFixed(0)} ms (min ${Math.min(...toLectern).toFixed(0)}, max ${Math.max(...toLectern).toFixed(0)}) | ${median(importStatementsPerPush)} |`,
      `| export of the ${PAGES}-page space as a .zip (${(zipBytes / 1024).toFixed(0)} KB), p50 of 3 | ${median(exportTimes).toFixed(0)} ms | ${exportStatements} |`,
      '',
      'Latencies include the job worker picking the job up (it polls the queue every 500 ms when idle) and, Git → Lectern, the',
      'push itself and the webhook delivery. The remote is local: a hosted remote adds its network round trips (fetch + push).',
      '',
    ].join('\n');
    console.log(table);
    fs.appendFileSync(path.resolve(import.meta.dirname, process.env.BENCH_OUT ?? 'results.md'), table);
  } finally {
    await app.close();
    await bench.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
