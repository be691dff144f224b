import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { landingPage } from '../../src/http/landing.js';
import { setupHarness, type Harness } from '../support/harness.js';
import { databaseUrl, freePort, ROOT, startChildServer, stopChildServer, type ChildServer } from '../support/child-server.js';

/**
 * The quick start runs as written: docs/quickstart.sh (what the README shows, line for line) against
 * a fresh `lectern serve` child process, from `npx lectern user create` to a published page and a
 * share link that both answer 200; and the landing page's first steps, run as a shell script.
 */
const run = promisify(execFile);
const SCRIPT = path.join(ROOT, 'docs/quickstart.sh');

let h: Harness;
let server: ChildServer | undefined;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  h = await setupHarness();
  // A real port, not 0: the site's and the share link's URLs name it.
  env = { ...process.env, DATABASE_URL: await databaseUrl(h), PORT: String(await freePort()) };
  server = await startChildServer(env);
  env.LECTERN_URL = server.url;
}, 300_000);

afterAll(async () => {
  expect(await stopChildServer(server)).toBe(0);
});

/** The commands of the script: its lines after `set -euo pipefail`, up to the first `echo`. */
function scriptCommands(): string[] {
  const lines = fs.readFileSync(SCRIPT, 'utf8').split('\n');
  const body = lines.slice(lines.indexOf('set -euo pipefail') + 1);
  return body
    .slice(
      0,
      body.findIndex((l) => l.startsWith('echo ')),
    )
    .filter((l) => l.trim());
}

describe('the quick start', () => {
  it('docs/quickstart.sh creates a user, a page, a share-link site and a share link that open', async () => {
    const { stdout } = await run('bash', [SCRIPT], { cwd: ROOT, env: { ...env, EMAIL: 'ada@example.com' } });
    const out = Object.fromEntries(
      stdout
        .trim()
        .split('\n')
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    expect(Object.keys(out)).toEqual(['USER_ID', 'ORG', 'SPACE', 'SITE', 'PAGE_URL', 'SHARE_URL', 'TOKEN']);

    // The site is `share-link`: the page opens for a member's token, not for anyone.
    const page = await fetch(out.PAGE_URL!, { headers: { authorization: `Bearer ${out.TOKEN}` } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Setup');
    // The body's leading `# Setup` is the page's title: shown once.
    expect(html.match(/<h1[\s>]/g)).toHaveLength(1);
    expect((await fetch(out.PAGE_URL!)).status).toBe(404);

    // The share link sets the cookie that keeps the site open, and leaves the key out of the address.
    const shared = await fetch(out.SHARE_URL!, { redirect: 'manual' });
    expect(shared.status).toBe(302);
    const cookie = shared.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const location = new URL(shared.headers.get('location')!, out.SHARE_URL).href;
    expect(location).not.toContain('share=');
    const opened = await fetch(location, { headers: { cookie } });
    expect(opened.status).toBe(200);
    expect(await opened.text()).toContain('Setup');
    expect((await fetch(`${location}/setup`, { headers: { cookie } })).status).toBe(200);
  }, 300_000);

  it('the README shows the script line for line', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const quickStart = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('\n## ', readme.indexOf('## Quick start') + 1));
    const missing = scriptCommands().filter((line) => !quickStart.includes(`\n${line}\n`));
    expect(missing).toEqual([]);
  });

  it("the landing page's first steps run as a shell script", async () => {
    const html = await landingPage({ publicUrl: server!.url, graphiql: true }).text();
    const blocks = [...html.matchAll(/<pre>([\s\S]*?)<\/pre>/g)].map((m) =>
      m[1]!.replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code))),
    );
    const steps = blocks.join('\n').replace('you@example.com', 'landing@example.com');
    const { stdout } = await run(
      'bash',
      [
        '-c',
        `set -euo pipefail\n${steps}\ncurl -sS -H "Authorization: Bearer $TOKEN" "${server!.url}/v1/spaces/$SPACE/content/path/setup?format=markdown"`,
      ],
      { cwd: ROOT, env },
    );
    expect(stdout).toContain('First steps.');
  }, 300_000);
});
