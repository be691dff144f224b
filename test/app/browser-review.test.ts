import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupHarness, type Harness, type TestUser, type World } from '../support/harness.js';
import { insertPage, writeLive } from '../support/content-writes.js';
import { siteHelpers } from '../support/sites.js';
import { setPassword } from '../../src/modules/sessions/index.js';
import {
  axeViolations,
  launchChromium,
  MISSING_CHROMIUM,
  serveApp,
  skipBrowser,
  type AxeViolation,
  seriousViolations,
  signInThroughApp,
} from '../support/browser.js';

/**
 * Reviewing a change request in the app (headless Chromium), two people in two browsers: an editor
 * edits a page in a change request, gives it a subject and a description and asks a second member
 * for a review; the space's merge rule (one approval) holds the merge button back, saying why. The
 * reviewer signs in, approves with a comment; the editor sees the approval arrive, the rule met,
 * merges, and main has the change. The space's list of change requests shows it, open then merged;
 * another change request is archived and reopened; the list pages through many. Every request
 * stays on the server's origin, no script error happens, and axe-core finds no serious or critical
 * violation on the screens visited.
 */
const PASSWORD = 'review passphrase here';

if (skipBrowser) console.warn(`test/app/browser-review.test.ts skipped: ${MISSING_CHROMIUM}`);

/** Waits for what the page shows (a busy machine runs several browsers at once: generous, not a measure). */
const eventually = <T>(read: () => Promise<T> | T, message?: string) => expect.poll(read, { timeout: 20_000, message });

describe.skipIf(skipBrowser)('the app in headless Chromium: request a review, approve it, merge under a merge rule', () => {
  let h: Harness;
  const s = siteHelpers(() => h);
  let served: Awaited<ReturnType<typeof serveApp>>;
  let browser: Browser;
  let world: World;
  let reviewer: TestUser;
  let spaceId: string;
  let number: number;
  let editor: Page;
  const contexts: BrowserContext[] = [];
  const requests: string[] = [];
  const pageErrors: string[] = [];
  const axeFindings: { screen: string; violations: AxeViolation[] }[] = [];

  const checkAxe = async (page: Page, screen: string) => axeFindings.push({ screen, violations: await axeViolations(page) });
  const mainMarkdown = async () =>
    (await h.graphql(world.owner.token, 'query ($s: ID!) { space(id: $s) { page(path: "onboarding") { markdown } } }', { s: spaceId })).body
      .data.space.page.markdown as string;

  /** A browser of its own, signed in as `user`. */
  const signedIn = async (user: TestUser) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    context.on('request', (r) => requests.push(r.url()));
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/status of 401/.test(m.text())) pageErrors.push(m.text());
    });
    // The signed-out "who am I" before signing in is the one failed request expected.
    page.on('response', async (r) => {
      if (r.status() >= 400 && !(r.status() === 401 && r.url().endsWith('/graphql')))
        pageErrors.push(`${r.status()} ${r.url()} ${r.request().postData()?.slice(0, 200)}: ${await r.text().catch(() => '')}`);
    });
    await signInThroughApp(page, served.origin, user.email, PASSWORD);
    return page;
  };

  beforeAll(async () => {
    h = await setupHarness();
    const launching = launchChromium();
    launching.catch(() => undefined);
    served = await serveApp(h);
    world = await h.world('Reviewers');
    reviewer = await h.user('Rita Reviewer');
    await h.addMember(world.orgId, reviewer.id, 'review');
    await setPassword({ db: h.db }, world.creator.id, PASSWORD);
    await setPassword({ db: h.db }, reviewer.id, PASSWORD);
    spaceId = (await s.space(world.owner, 'Handbook')).id;
    await writeLive(h, world.owner.token, spaceId, [insertPage('Onboarding', 'Welcome to the team.\n')]);
    const rules = { type: 'rules', rules: [{ rule: 'require_at_least_one_review' }] };
    expect((await h.call('PATCH', `/v1/spaces/${spaceId}`, { token: world.owner.token, body: { mergeRules: rules } })).status).toBe(200);
    browser = await launching;
    editor = await signedIn(world.creator);
  });

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await served?.close();
  });

  it('the editor edits a page in a change request, names it and asks a second member to review it', async () => {
    await editor.goto(`${served.origin}/app/s/${spaceId}/onboarding`);
    await eventually(() => editor.getByRole('heading', { level: 1, name: 'Onboarding' }).isVisible()).toBe(true);
    await editor.getByRole('button', { name: 'Edit' }).click();
    await editor.waitForURL((url) => /\/changes\/\d+\/edit\/onboarding$/.test(url.pathname));
    number = Number(/\/changes\/(\d+)\//.exec(new URL(editor.url()).pathname)![1]);
    const content = editor.getByRole('textbox', { name: 'Page content' });
    await eventually(() => content.isVisible()).toBe(true);
    await content.click();
    await eventually(() => content.evaluate((el) => el.contains(document.activeElement))).toBe(true);
    // The caret at the page's end through the DOM selection (see browser-edit-merge.test.ts).
    await content.evaluate((el) => {
      const end = document.createRange();
      end.selectNodeContents(el.lastElementChild ?? el);
      end.collapse(false);
      getSelection()!.removeAllRanges();
      getSelection()!.addRange(end);
    });
    await editor.keyboard.press('End');
    await editor.keyboard.press('Enter');
    await editor.keyboard.type('Bring your badge on the first day.');
    await eventually(() => editor.getByText('All changes saved').isVisible()).toBe(true);

    await editor.getByRole('link', { name: /^change request #\d+/ }).click();
    await editor.waitForURL((url) => url.pathname.endsWith(`/changes/${number}`));
    await eventually(() => editor.getByRole('textbox', { name: 'Subject', exact: true }).isEnabled()).toBe(true);
    await editor.getByRole('textbox', { name: 'Subject', exact: true }).fill('First-day checklist');
    await editor.getByRole('textbox', { name: 'Description', exact: true }).fill('Tells newcomers what to bring.');
    await editor.getByRole('button', { name: 'Save subject and description' }).click();
    await eventually(() => editor.getByRole('status').filter({ hasText: 'Subject and description saved.' }).count()).toBe(1);
    await eventually(() => editor.getByRole('heading', { level: 1 }).textContent()).toBe(`#${number} First-day checklist`);

    await editor.getByRole('combobox', { name: 'Reviewer', exact: true }).selectOption({ label: 'Rita Reviewer' });
    await editor.getByRole('button', { name: 'Request review' }).click();
    await eventually(() => editor.getByRole('status').filter({ hasText: 'Review requested from Rita Reviewer.' }).count()).toBe(1);
    const requested = editor.getByRole('list', { name: 'Requested reviewers', exact: true });
    await eventually(() => requested.getByRole('listitem').filter({ hasText: 'Rita Reviewer' }).count()).toBe(1);

    const cr = (
      await h.graphql(
        world.owner.token,
        'query ($s: ID!, $n: String!) { space(id: $s) { changeRequest(id: $n) { subject description requestedReviewerList { items { user { id } } } } } }',
        { s: spaceId, n: String(number) },
      )
    ).body.data.space.changeRequest;
    expect(cr.subject).toBe('First-day checklist');
    expect(JSON.stringify(cr.description)).toContain('Tells newcomers what to bring.');
    expect(cr.requestedReviewerList.items.map((r: { user: { id: string } }) => r.user.id)).toEqual([reviewer.id]);
  });

  it('the merge rule requiring an approval holds the merge button back, saying why', async () => {
    const rules = editor.getByRole('list', { name: 'Merge rules', exact: true });
    await eventually(() => rules.getByRole('listitem').textContent()).toMatch(/^At least one approving review: not met/);
    const merge = editor.getByRole('button', { name: 'Merge', exact: true });
    await eventually(() => merge.isDisabled()).toBe(true);
    const describedBy = await merge.getAttribute('aria-describedby');
    expect(await editor.locator(`#${describedBy}`).textContent()).toBe('Merge is blocked: at least one approving review is needed');
    await checkAxe(editor, 'change request, review requested');

    // The space's list of open change requests has it, reached from the space's sidebar.
    await editor.getByRole('link', { name: 'Change requests', exact: true }).click();
    await editor.waitForURL((url) => url.pathname === `/app/s/${spaceId}/~/changes`);
    const row = editor.getByRole('row').filter({ has: editor.getByRole('link', { name: `#${number} First-day checklist` }) });
    await eventually(() => row.count()).toBe(1);
    expect(await row.getByRole('cell').allTextContents()).toEqual(expect.arrayContaining(['Creator', 'open']));
    await checkAxe(editor, 'change requests');
  });

  it('the reviewer signs in, sees they are asked, and approves with a comment', async () => {
    // The editor has the change request open meanwhile (the next test reads it there, not reloaded).
    await editor.goto(`${served.origin}/app/s/${spaceId}/~/changes/${number}`);
    await eventually(() => editor.getByRole('list', { name: 'Merge rules', exact: true }).getByRole('listitem').textContent()).toMatch(
      /: not met/,
    );
    const page = await signedIn(reviewer);
    await page.goto(`${served.origin}/app/s/${spaceId}/~/changes/${number}`);
    await eventually(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(`#${number} First-day checklist`);
    const requested = page.getByRole('list', { name: 'Requested reviewers', exact: true });
    await eventually(() => requested.getByRole('listitem').filter({ hasText: 'Rita Reviewer' }).count()).toBe(1);
    // The review role ranks above edit (as GitBook's roles do): the reviewer may change the description too.
    expect(await page.getByRole('textbox', { name: 'Description', exact: true }).inputValue()).toBe('Tells newcomers what to bring.');
    await page.getByRole('radio', { name: 'Approve' }).check();
    await page.getByRole('textbox', { name: 'Review comment', exact: true }).fill('Looks right, thanks!');
    await page.getByRole('button', { name: 'Submit review' }).click();
    await eventually(() => page.getByRole('status').filter({ hasText: 'Review submitted: approved.' }).count()).toBe(1);
    const reviews = page.getByRole('list', { name: 'Reviews', exact: true });
    const review = reviews.getByRole('listitem').filter({ hasText: 'Rita Reviewer' });
    await eventually(() => review.textContent()).toContain('Approved');
    expect(await review.textContent()).toContain('Looks right, thanks!');
    await checkAxe(page, 'change request, reviewed');
  });

  it('the editor sees the approval and the rule met without a reload, merges, and main has the change', async () => {
    const review = editor.getByRole('list', { name: 'Reviews', exact: true }).getByRole('listitem').filter({ hasText: 'Rita Reviewer' });
    await eventually(() => review.textContent()).toContain('Approved');
    expect(await review.textContent()).toContain('Looks right');
    await eventually(() => editor.getByRole('list', { name: 'Merge rules', exact: true }).getByRole('listitem').textContent()).toBe(
      'At least one approving review: met',
    );
    const merge = editor.getByRole('button', { name: 'Merge', exact: true });
    await eventually(() => merge.isEnabled()).toBe(true);
    expect(await editor.getByText(/^Merge is blocked/).count()).toBe(0);
    expect(await mainMarkdown()).not.toContain('Bring your badge');
    await merge.click();
    await eventually(() => editor.getByRole('status').filter({ hasText: 'This change request is merged into main.' }).count()).toBe(1);
    const markdown = await mainMarkdown();
    expect(markdown).toContain('Welcome to the team.');
    expect(markdown).toContain('Bring your badge on the first day.');

    await editor.goto(`${served.origin}/app/s/${spaceId}/~/changes`);
    await eventually(() => editor.getByText('No open change requests.').isVisible()).toBe(true);
    await editor.getByRole('link', { name: 'Merged', exact: true }).click();
    await eventually(() => editor.getByRole('link', { name: `#${number} First-day checklist` }).isVisible()).toBe(true);
  });

  it('archives a change request and reopens it', async () => {
    const created = await h.graphql(
      world.creator.token,
      'mutation ($s: ID!) { createChangeRequest(spaceId: $s, input: { subject: "Spare idea" }) { number } }',
      {
        s: spaceId,
      },
    );
    const other = created.body.data.createChangeRequest.number as number;
    await editor.goto(`${served.origin}/app/s/${spaceId}/~/changes/${other}`);
    await eventually(() => editor.getByRole('button', { name: 'Archive change request' }).isVisible()).toBe(true);
    await editor.getByRole('button', { name: 'Archive change request' }).click();
    await eventually(() => editor.getByRole('status').filter({ hasText: 'Change request archived.' }).count()).toBe(1);
    await eventually(() => editor.getByText('archived', { exact: true }).isVisible()).toBe(true);
    expect(await editor.getByRole('button', { name: 'Merge', exact: true }).count()).toBe(0);

    await editor.goto(`${served.origin}/app/s/${spaceId}/~/changes?status=archived`);
    await eventually(() => editor.getByRole('link', { name: `#${other} Spare idea` }).isVisible()).toBe(true);
    await editor.getByRole('link', { name: `#${other} Spare idea` }).click();
    await editor.getByRole('button', { name: 'Reopen change request' }).click();
    await eventually(() => editor.getByRole('status').filter({ hasText: 'Change request reopened.' }).count()).toBe(1);
    await eventually(() => editor.getByRole('button', { name: 'Merge', exact: true }).isVisible()).toBe(true);
  });

  it('pages through many change requests, newest first: "More change requests" adds the next page until all are shown', async () => {
    for (let i = 1; i <= 50; i++)
      await h.graphql(
        world.creator.token,
        'mutation ($s: ID!, $t: String!) { createChangeRequest(spaceId: $s, input: { subject: $t }) { id } }',
        {
          s: spaceId,
          t: `Batch ${i}`,
        },
      );
    const open = await h.graphql(world.owner.token, 'query ($s: ID!) { space(id: $s) { changeRequestList(status: "open") { count } } }', {
      s: spaceId,
    });
    const total = open.body.data.space.changeRequestList.count as number;
    expect(total).toBeGreaterThan(50);
    await editor.goto(`${served.origin}/app/s/${spaceId}/~/changes`);
    const links = editor.getByRole('table').getByRole('link', { name: /^#\d+ / });
    const more = editor.getByRole('button', { name: 'More change requests' });
    await eventually(() => links.count()).toBe(25);
    expect(await links.first().textContent()).toMatch(/ Batch 50$/);
    await more.click();
    await eventually(() => links.count()).toBe(50);
    await more.click();
    await eventually(() => links.count()).toBe(total);
    expect(await more.count()).toBe(0);
    const numbers = (await links.allTextContents()).map((text) => Number(/^#(\d+)/.exec(text)![1]));
    expect(new Set(numbers).size).toBe(total);
    await checkAxe(editor, 'change requests, three pages');
  });

  it('a reader reads the description and the reviews, and is offered no review, request or merge', async () => {
    await setPassword({ db: h.db }, world.reader.id, PASSWORD);
    const page = await signedIn(world.reader);
    await page.goto(`${served.origin}/app/s/${spaceId}/~/changes/${number}`);
    const description = page.getByRole('region', { name: 'Description', exact: true });
    await eventually(() => description.textContent()).toContain('Tells newcomers what to bring.');
    expect(await page.getByRole('list', { name: 'Reviews', exact: true }).textContent()).toContain('Looks right, thanks!');
    for (const name of ['Submit review', 'Request review', 'Save subject and description', 'Merge'])
      expect(await page.getByRole('button', { name, exact: true }).count()).toBe(0);
  });

  it('made no request to another origin, had no script error, and axe-core found no serious violation', () => {
    expect(requests.filter((url) => !url.startsWith(`${served.origin}/`))).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(seriousViolations(axeFindings)).toEqual([]);
    expect(axeFindings.length).toBe(4);
  });
});
