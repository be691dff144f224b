import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupHarness, type Harness, type World } from '../support/harness.js';
import { insertPage, writeCr, writeLive } from '../support/content-writes.js';
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
 * Comments in the app (headless Chromium, two people in two browser contexts): Alice picks a block
 * of a page and comments on it; Bob, on the same page, sees the thread appear without a reload, on
 * that block, replies mentioning Alice (typing @ offers the members) and reacts; Alice sees the reply
 * live, resolves the thread, and the filter shows it under resolved. In a change request's editor,
 * Bob's save reaches Alice as an "Updated by Bob" prompt, and her typing is held (not written over
 * his) until she reloads; a save that lands while hers is on its way is caught by the server (her
 * write says the revision it is based on) and asks her the same. No script error, and axe-core
 * finds no serious or critical violation.
 */
const PASSWORD = 'comments passphrase here';

if (skipBrowser) console.warn(`test/app/browser-comments.test.ts skipped: ${MISSING_CHROMIUM}`);

/** Waits for what the page shows (a busy machine runs several browsers at once: generous, not a measure). */
const eventually = <T>(read: () => Promise<T> | T, message?: string) => expect.poll(read, { timeout: 20_000, message });

describe.skipIf(skipBrowser)('the app in headless Chromium: comments on a page, live, between two people', () => {
  let h: Harness;
  const s = siteHelpers(() => h);
  let served: Awaited<ReturnType<typeof serveApp>>;
  let browser: Browser;
  let world: World;
  let spaceId: string;
  let alice: { id: string; email: string; token: string };
  let bob: { id: string; email: string; token: string };
  let a: Page;
  let b: Page;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];
  const axeFindings: { screen: string; violations: AxeViolation[] }[] = [];
  const checkAxe = async (page: Page, screen: string) => axeFindings.push({ screen, violations: await axeViolations(page) });

  const signedIn = async (person: { email: string }) => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      // Chromium logs every error status; a 409 is the answer to a save refused as based on an old revision (below).
      if (m.type() === 'error' && !/status of (401|409)/.test(m.text())) pageErrors.push(m.text());
    });
    await signInThroughApp(page, served.origin, person.email, PASSWORD);
    return page;
  };
  const threadOf = (page: Page, author: string): Locator => page.getByRole('article', { name: `Comment by ${author}` });

  beforeAll(async () => {
    h = await setupHarness();
    const launching = launchChromium();
    launching.catch(() => undefined);
    served = await serveApp(h);
    world = await h.world('Commenters');
    alice = await h.user('Alice Author');
    bob = await h.user('Bob Builder');
    for (const person of [alice, bob]) {
      await h.addMember(world.orgId, person.id, 'create');
      await setPassword({ db: h.db }, person.id, PASSWORD);
    }
    spaceId = (await s.space(world.owner, 'Product')).id;
    await writeLive(h, world.owner.token, spaceId, [
      insertPage('Release notes', 'What changed in this release.\n\nSync is now twice as fast.\n\nThanks to everyone who tested.\n'),
    ]);
    browser = await launching;
    a = await signedIn(alice);
    b = await signedIn(bob);
  });

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await served?.close();
  });

  it('Alice comments on a block; Bob sees it appear live on that block, replies with a mention and reacts; Alice sees it live', async () => {
    for (const page of [a, b]) {
      await page.goto(`${served.origin}/app/s/${spaceId}/release-notes`);
      await eventually(() => page.getByRole('heading', { level: 1, name: 'Release notes' }).isVisible()).toBe(true);
      await eventually(() => page.getByText('No open comments on this page.').isVisible()).toBe(true);
    }

    // Alice picks the second paragraph on the page, then comments on it.
    await a.locator('.page-body').getByText('Sync is now twice as fast.').click();
    await eventually(() => a.getByLabel('Comment on').evaluate((el: HTMLSelectElement) => el.selectedOptions[0]?.textContent)).toBe(
      'block 2: Sync is now twice as fast.',
    );
    await eventually(() => a.locator('.block-highlight').isVisible()).toBe(true);
    await a.getByLabel('New comment').fill('Can we say <b>how much</b> faster?');
    await a.getByRole('button', { name: 'Comment', exact: true }).click();
    await eventually(() => threadOf(a, 'Alice Author').isVisible()).toBe(true);
    await checkAxe(a, 'page with a comment (Alice)');

    // Bob did not reload: the thread comes through the subscription, its text as text, on its block.
    const bobThread = threadOf(b, 'Alice Author');
    await eventually(() => bobThread.isVisible(), 'the comment reaches Bob live').toBe(true);
    expect(await bobThread.getByText('Can we say <b>how much</b> faster?').isVisible()).toBe(true);
    expect(await bobThread.locator('b').count()).toBe(0);
    await bobThread.getByRole('button', { name: 'On “Sync is now twice as fast.”' }).click();
    const highlight = await b.locator('.block-highlight').boundingBox();
    const block = await b.locator('.page-body').getByText('Sync is now twice as fast.').boundingBox();
    expect(highlight && block && highlight.y <= block.y && highlight.y + highlight.height >= block.y + block.height).toBe(true);

    // A reply that mentions Alice: typing @ offers the members.
    const reply = bobThread.getByLabel('Reply to Alice Author');
    await reply.click();
    await b.keyboard.type('About 2x, see @ali');
    await eventually(() => b.getByRole('option', { name: 'Alice Author' }).isVisible()).toBe(true);
    await b.getByRole('option', { name: 'Alice Author' }).click();
    await eventually(() => reply.inputValue()).toBe('About 2x, see @Alice Author ');
    await b.keyboard.type('for the numbers');
    await checkAxe(b, 'reply with the mention list open (Bob)');
    await bobThread.getByRole('button', { name: 'Reply', exact: true }).click();
    await eventually(() => bobThread.getByRole('article', { name: 'Reply by Bob Builder' }).isVisible()).toBe(true);
    await bobThread.getByRole('button', { name: 'Thumbs up, 0 reactions' }).first().click();
    await eventually(() => bobThread.getByRole('button', { name: 'Thumbs up, 1 reaction' }).first().getAttribute('aria-pressed')).toBe(
      'true',
    );

    // Alice sees the reply, its mention, and Bob's reaction (not hers) without a reload.
    const aliceThread = threadOf(a, 'Alice Author');
    const bobReply = aliceThread.getByRole('article', { name: 'Reply by Bob Builder' });
    await eventually(() => bobReply.isVisible(), 'the reply reaches Alice live').toBe(true);
    expect(await bobReply.locator('.mention').textContent()).toBe('@Alice Author');
    expect(await bobReply.textContent()).toContain('About 2x, see @Alice Author for the numbers');
    await eventually(() => aliceThread.getByRole('button', { name: 'Thumbs up, 1 reaction' }).first().getAttribute('aria-pressed')).toBe(
      'false',
    );
    await checkAxe(b, 'thread with a reply (Bob)');
  });

  it('Alice resolves the thread: it leaves the open list and the filter shows it under resolved, for both', async () => {
    await threadOf(a, 'Alice Author').getByRole('button', { name: 'Resolve' }).click();
    for (const page of [a, b]) {
      await eventually(() => page.getByText('No open comments on this page.').isVisible()).toBe(true);
      await page.getByRole('radio', { name: 'Resolved' }).check();
      const resolved = page.getByRole('list', { name: 'Resolved comments' }).getByRole('article', { name: 'Comment by Alice Author' });
      await eventually(() => resolved.isVisible()).toBe(true);
      expect(await resolved.getByText(/^Resolved by Alice Author/).isVisible()).toBe(true);
      expect(await resolved.getByRole('button', { name: 'Reopen' }).isVisible()).toBe(true);
    }
    await checkAxe(a, 'resolved comments (Alice)');
    const stored = await h.graphql(
      alice.token,
      'query ($s: ID!) { space(id: $s) { commentList(status: resolved) { items { target { node { id } } replyList { items { body { markdown } } } } } } }',
      {
        s: spaceId,
      },
    );
    const [comment] = stored.body.data.space.commentList.items;
    expect(comment.target.node.id).toMatch(/^block:[0-9a-f]{8}:1$/);
    expect(comment.replyList.items[0].body.markdown).toBe('About 2x, see @Alice Author for the numbers');
  });

  /** Bob's change request with Alice in its editor, and the page's id. */
  const editing = async (subject: string) => {
    const created = await h.graphql(
      bob.token,
      'mutation ($s: ID!, $t: String!) { createChangeRequest(spaceId: $s, input: { subject: $t }) { id number } }',
      { s: spaceId, t: subject },
    );
    const cr = created.body.data.createChangeRequest as { id: string; number: number };
    const pageId = (
      await h.graphql(alice.token, 'query ($s: ID!) { space(id: $s) { page(path: "release-notes") { id } } }', { s: spaceId })
    ).body.data.space.page.id as string;
    await a.goto(`${served.origin}/app/s/${spaceId}/~/changes/${cr.number}/edit/release-notes`);
    const editor = a.getByRole('textbox', { name: 'Page content' });
    await eventually(() => editor.isVisible()).toBe(true);
    const markdown = async () =>
      (
        await h.graphql(
          alice.token,
          'query ($s: ID!, $n: String!) { space(id: $s) { changeRequest(id: $n) { content { typedPage(path: "release-notes") { markdown } } } } }',
          { s: spaceId, n: String(cr.number) },
        )
      ).body.data.space.changeRequest.content.typedPage.markdown as string;
    return { cr, pageId, editor, markdown };
  };

  /** Alice types " Mine." at the end of a line and leaves the editor (which saves at once). */
  const typeAndLeave = async (editor: Locator) => {
    await editor.click();
    await a.keyboard.press('End');
    await a.keyboard.type(' Mine.');
    await editor.evaluate((el) => (el as HTMLElement).blur());
  };

  it("in a change request's editor, Bob's save shows Alice an 'Updated by Bob Builder' prompt, and her typing does not overwrite it", async () => {
    const { cr, pageId, editor, markdown } = await editing('Numbers');
    await eventually(() => a.getByRole('complementary', { name: 'Comments' }).isVisible()).toBe(true);

    await writeCr(h, bob.token, spaceId, cr.id, [
      { operation: 'update_page', page: pageId, document: { markdown: 'Sync is three times as fast.\n' } },
    ]);
    const prompt = a.getByRole('alert').filter({ hasText: 'Updated by Bob Builder' });
    await eventually(() => prompt.isVisible(), 'the prompt reaches Alice live').toBe(true);

    // Alice types on: her text waits for her choice instead of replacing Bob's.
    await typeAndLeave(editor);
    // The save has started (the editor says so) and is held by the prompt.
    await eventually(() => a.getByRole('status').filter({ hasText: 'Saving…' }).count()).toBe(1);
    expect(await markdown()).toBe('Sync is three times as fast.\n');
    await checkAxe(a, 'editor with the updated prompt (Alice)');

    await prompt.getByRole('button', { name: 'Reload' }).click();
    await eventually(() => editor.textContent()).toBe('Sync is three times as fast.');
    await eventually(() => prompt.count()).toBe(0);
    expect(await markdown()).toBe('Sync is three times as fast.\n');
  });

  /**
   * Alice types and leaves the editor; `other` saves the page after her save has checked for
   * others' saves and before her write reaches the server (her write is held on its way until then).
   */
  const typeWhileAnotherSaves = async (editor: Locator, other: () => Promise<unknown>) => {
    let held = 0;
    await a.route('**/graphql', async (route) => {
      if (held || !route.request().postData()?.includes('EditWritePage')) return route.fallback();
      held++;
      await other();
      return route.fallback();
    });
    try {
      await typeAndLeave(editor);
      await eventually(() => held, 'her write was sent').toBe(1);
    } finally {
      await a.unroute('**/graphql');
    }
  };

  it("a save of Bob's that lands while Alice's is on its way is not replaced: she is asked, and keeping her version replaces his knowingly", async () => {
    const { cr, pageId, editor, markdown } = await editing('Race');
    await typeWhileAnotherSaves(editor, () =>
      writeCr(h, bob.token, spaceId, cr.id, [{ operation: 'update_page', page: pageId, document: { markdown: 'Bob was here.\n' } }]),
    );
    const prompt = a.getByRole('alert').filter({ hasText: 'Updated by Bob Builder' });
    await eventually(() => prompt.isVisible(), 'the refusal asks Alice').toBe(true);
    expect(await markdown()).toBe('Bob was here.\n');

    await prompt.getByRole('button', { name: 'Keep my version' }).click();
    await eventually(() => markdown(), 'her version, written over his as she chose').toContain('Mine.');
    expect(await markdown()).not.toContain('Bob was here');
    await eventually(() => a.getByRole('status').filter({ hasText: 'All changes saved' }).count()).toBe(1);
    expect(await prompt.count()).toBe(0);
  });

  it('a save of her own from another window is not replaced either: "Changed by another save", and Reload shows it', async () => {
    const { cr, pageId, editor, markdown } = await editing('Two windows');
    await typeWhileAnotherSaves(editor, () =>
      writeCr(h, alice.token, spaceId, cr.id, [
        { operation: 'update_page', page: pageId, document: { markdown: 'From my other window.\n' } },
      ]),
    );
    const prompt = a.getByRole('alert').filter({ hasText: 'Changed by another save' });
    await eventually(() => prompt.isVisible(), 'the refusal asks Alice').toBe(true);
    expect(await markdown()).toBe('From my other window.\n');
    await prompt.getByRole('button', { name: 'Reload' }).click();
    await eventually(() => editor.textContent()).toBe('From my other window.');
    expect(await markdown()).toBe('From my other window.\n');
  });

  it('had no script error, and axe-core found no serious violation', () => {
    expect(pageErrors).toEqual([]);
    expect(seriousViolations(axeFindings)).toEqual([]);
    expect(axeFindings.length).toBe(5);
  });
});
