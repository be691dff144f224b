/**
 * The README's screenshots of the app, taken on a fresh Lectern: `npx tsx scripts/screenshot-app.ts`.
 * It starts `lectern serve` on its own embedded database (a temporary LECTERN_DATA_DIR), creates a
 * person with `lectern user create … --password-stdin`, writes a space with a few pages through the
 * REST API, signs in at /app in headless Chromium, and saves 1280×800 PNGs to docs/images/: a page,
 * the Ctrl+K search, the editor inside a change request, and that change request with its diff. PORT (default 18099) and CHROMIUM (default /usr/bin/chromium) may be set.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Page } from 'playwright-core';

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'bin/lectern.js');
const OUT = path.join(ROOT, 'docs/images');
const PORT = process.env.PORT ?? '18099';
const ORIGIN = `http://localhost:${PORT}`;
const EMAIL = 'ada@example.com';
const PASSWORD = 'a long enough passphrase';

const dataDir = mkdtempSync(path.join(tmpdir(), 'lectern-screenshots-'));
const env: NodeJS.ProcessEnv = { ...process.env, PORT, LECTERN_DATA_DIR: dataDir, LECTERN_PUBLIC_URL: ORIGIN };
delete env.DATABASE_URL;
delete env.npm_lifecycle_event;

/** `lectern serve`, ready once it logs its "listening on" line. */
function serve(): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const read = (d: Buffer) => {
      output += d;
      if (/listening on/i.test(output)) resolve(child);
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.on('exit', (code) => reject(new Error(`lectern serve exited (${code}) before listening:\n${output}`)));
  });
}

/** A CLI command on the server's data directory, the password on stdin; its JSON answer. */
function cli(args: string[], stdin: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(stdout)) : reject(new Error(`lectern ${args[0]}: ${code}\n${stderr}`))));
    child.stdin.end(`${stdin}\n`);
  });
}

async function api(token: string, method: string, route: string, body?: unknown): Promise<any> {
  const res = await fetch(`${ORIGIN}/v1${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${await res.text()}`);
  return res.json();
}

const page = (title: string, markdown: string) => ({ operation: 'insert_page', title, document: { markdown } });

/** A space that looks like a team's handbook: a few pages, one nested, with a code block. */
async function writeHandbook(token: string, orgId: string): Promise<string> {
  const space = await api(token, 'POST', `/orgs/${orgId}/spaces`, { title: 'Engineering handbook' });
  const written = await api(token, 'POST', `/spaces/${space.id}/content`, {
    changes: [
      page(
        'Welcome',
        'How the team works: where the code lives, how it ships, who to ask.\n\nStart with **Getting started**, then read the guides.',
      ),
      page(
        'Getting started',
        'Set up a development machine in ten minutes.\n\n## Requirements\n\n- Node.js 20.19 or later\n- Git\n\n## Run it\n\n```sh\nnpm ci\nnpm start\n```\n\n> **Tip** — the app opens at `/app`; sign in with the account an admin created for you.\n\nEverything else is in the **Guides**.',
      ),
      page('Guides', 'The guides, one per task.'),
    ],
  });
  const created = (written.changes as { object: string; page: { id: string } }[]).filter((c) => c.object === 'created_page');
  const guides = created[2]!.page.id;
  await api(token, 'POST', `/spaces/${space.id}/content`, {
    changes: [
      { ...page('Deployment', 'Ship a release with one command.\n\n```sh\nmake release\n```'), into: guides },
      { ...page('On call', 'Who answers the pager, and how to hand over.'), into: guides },
    ],
  });
  return space.id;
}

async function signIn(tab: Page, next: string): Promise<void> {
  await tab.goto(next);
  await tab.waitForURL(/\/app\/sign-in/);
  await tab.getByLabel('Email').fill(EMAIL);
  await tab.getByLabel('Password').fill(PASSWORD);
  await tab.getByRole('button', { name: 'Sign in' }).click();
  await tab.waitForURL((url) => !url.pathname.includes('sign-in'));
}

/** Edit opens a change request; a bold line is typed, saved, and the change request shows its diff. */
async function editAndReview(tab: Page, spaceId: string): Promise<void> {
  await tab.goto(`${ORIGIN}/app/s/${spaceId}/getting-started`);
  await tab.getByRole('button', { name: 'Edit' }).click();
  const editor = tab.getByRole('textbox', { name: 'Page content' });
  await editor.waitFor();
  await editor.click();
  // The caret at the page's end through the DOM selection: a key pressed before the editor has the
  // focus goes nowhere.
  await editor.evaluate((el) => {
    const end = document.createRange();
    end.selectNodeContents(el.lastElementChild ?? el);
    end.collapse(false);
    getSelection()!.removeAllRanges();
    getSelection()!.addRange(end);
  });
  await tab.keyboard.press('End');
  await tab.keyboard.press('Enter');
  await tab.keyboard.press('Control+b');
  await tab.keyboard.type('Ask in #dev-help');
  await tab.keyboard.press('Control+b');
  await tab.keyboard.type(' when a step does not work.');
  await tab.getByText('All changes saved').waitFor();
  await tab.screenshot({ path: path.join(OUT, 'app-editor.png') });

  await tab.getByRole('link', { name: /^change request #\d+/ }).click();
  await tab.getByRole('region', { name: 'Changes to Getting started' }).waitFor();
  await tab.screenshot({ path: path.join(OUT, 'app-change-request.png') });
}

async function main(): Promise<void> {
  const server = await serve();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  try {
    const created = await cli(
      ['user', 'create', '--email', EMAIL, '--name', 'Ada Lovelace', '--org-title', 'Acme', '--password-stdin'],
      PASSWORD,
    );
    const spaceId = await writeHandbook(created.token, created.organization.id);
    const tab = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await signIn(tab, `${ORIGIN}/app/s/${spaceId}/getting-started`);
    await tab.getByRole('heading', { level: 1, name: 'Getting started' }).waitFor();
    // Guides expanded from the keyboard (→), then back to Getting started: the tree keeps Guides open.
    await tab.getByRole('treeitem', { name: 'Guides' }).focus();
    await tab.keyboard.press('ArrowRight');
    await tab.getByRole('treeitem', { name: 'Deployment' }).waitFor();
    await tab.getByRole('treeitem', { name: 'Getting started' }).click();
    await tab.getByRole('heading', { level: 1, name: 'Getting started' }).waitFor();
    mkdirSync(OUT, { recursive: true });
    await tab.screenshot({ path: path.join(OUT, 'app-page.png') });

    await tab.keyboard.press('Control+k');
    const dialog = tab.getByRole('dialog');
    await dialog.getByLabel('Search').fill('npm');
    await dialog.getByRole('option').first().waitFor();
    await tab.screenshot({ path: path.join(OUT, 'app-search.png') });
    await tab.keyboard.press('Escape');
    await editAndReview(tab, spaceId);
    console.log(`saved app-page.png, app-search.png, app-editor.png and app-change-request.png in ${OUT}`);
  } finally {
    await browser.close();
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
