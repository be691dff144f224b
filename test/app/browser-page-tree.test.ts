import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupHarness, type Harness, type World } from '../support/harness.js';
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
 * The page tree of a change request in the app (headless Chromium): a member who may edit opens a
 * change request (Edit) and, in its tree, creates a page, renames it in place, drags a page into
 * another, moves one with the "Move to…" dialog by keyboard alone and deletes one (with its child)
 * after a confirmation naming both. Main is untouched until the merge; after it, main's tree
 * (read through the API) is exactly the expected one, no page lost. No script error, and axe-core
 * finds no serious or critical violation on the tree, its rename field or its dialogs.
 */
const PASSWORD = 'tree editor passphrase';

if (skipBrowser) console.warn(`test/app/browser-page-tree.test.ts skipped: ${MISSING_CHROMIUM}`);

const eventually = <T>(read: () => Promise<T> | T, message?: string) => expect.poll(read, { timeout: 20_000, message });

/** A tree as nested [title, children] pairs, leaves as bare titles: easy to read in a failure. */
type Shape = (string | [string, Shape])[];

function shapeOf(pages: { id: string; parent: string | null; title: string }[]): Shape {
  const below = (parent: string | null): Shape =>
    pages
      .filter((p) => (p.parent ?? null) === parent)
      .map((p) => {
        const children = below(p.id);
        return children.length ? ([p.title, children] as [string, Shape]) : p.title;
      });
  return below(null);
}

const MAIN_BEFORE: Shape = [['Guide', ['Install']], 'Reference', ['Archive', ['Old notes']], 'Scratch', ['Drafts', ['Draft one']]];
const AFTER: Shape = [['Guide', ['Install', 'Reference']], ['Archive', ['Scratch', 'Old notes']], 'Tutorials and guides'];

describe.skipIf(skipBrowser)('the app in headless Chromium: change the page tree in a change request, merge it', () => {
  let h: Harness;
  const s = siteHelpers(() => h);
  let served: Awaited<ReturnType<typeof serveApp>>;
  let browser: Browser;
  let world: World;
  let spaceId: string;
  let number = 0;
  let page: Page;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];
  /** Writes the test cuts off on purpose (the browser logs net::ERR_FAILED for each). */
  let writesCutOff = 0;
  const axeFindings: { screen: string; violations: AxeViolation[] }[] = [];

  const checkAxe = async (screen: string) => axeFindings.push({ screen, violations: await axeViolations(page) });
  const pageList = async (changeRequest?: number) => {
    const query = changeRequest
      ? 'query ($s: ID!, $n: String!) { space(id: $s) { changeRequest(id: $n) { content { pageList { id parent title } } } } }'
      : 'query ($s: ID!) { space(id: $s) { content { pageList { id parent title } } } }';
    const res = await h.graphql(world.creator.token, query, { s: spaceId, ...(changeRequest ? { n: String(changeRequest) } : {}) });
    const space = res.body.data.space;
    return (changeRequest ? space.changeRequest.content : space.content).pageList as { id: string; parent: string | null; title: string }[];
  };
  const crShape = async () => shapeOf(await pageList(number));
  const tree = () => page.getByRole('tree', { name: /^Pages of change request #\d+$/ });
  const item = (name: string): Locator => tree().getByRole('treeitem', { name, exact: true });
  const focused = () =>
    page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? '');

  beforeAll(async () => {
    h = await setupHarness();
    const launching = launchChromium();
    launching.catch(() => undefined);
    served = await serveApp(h);
    world = await h.world('Tree writers');
    await setPassword({ db: h.db }, world.creator.id, PASSWORD);
    spaceId = (await s.space(world.owner, 'Handbook')).id;
    const { pages } = await writeLive(h, world.owner.token, spaceId, [
      insertPage('Guide', 'How to start.\n', { ref: 'guide' }),
      insertPage('Install', 'Steps.\n', { into: 'guide' }),
      insertPage('Reference', 'Every option.\n'),
      insertPage('Archive', 'Old things.\n', { ref: 'archive' }),
      insertPage('Old notes', 'Notes.\n', { into: 'archive' }),
      insertPage('Scratch', 'Ideas.\n'),
      insertPage('Drafts', 'Work in progress.\n', { ref: 'drafts' }),
      insertPage('Draft one', 'A draft.\n', { into: 'drafts' }),
    ]);
    expect(pages).toHaveLength(8);
    browser = await launching;

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      if (m.type() !== 'error' || /status of 401/.test(m.text())) return;
      if (!(writesCutOff > 0 && /net::ERR_FAILED/.test(m.text()))) pageErrors.push(m.text());
    });
    await signInThroughApp(page, served.origin, world.creator.email, PASSWORD);
  });

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await served?.close();
  });

  it('in a change request, creates a page and renames it in place; main is untouched', async () => {
    expect(shapeOf(await pageList())).toEqual(MAIN_BEFORE);
    await page.goto(`${served.origin}/app/s/${spaceId}/guide`);
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.waitForURL((url) => /\/changes\/\d+\/edit\/guide$/.test(url.pathname));
    number = Number(/\/changes\/(\d+)\//.exec(new URL(page.url()).pathname)![1]);
    await eventually(() => tree().isVisible()).toBe(true);
    // The sidebar's tree is the change request's, with its actions.
    expect(await page.getByRole('group', { name: 'Page actions' }).count()).toBe(1);

    await page.getByRole('button', { name: 'New page', exact: true }).click();
    const newTitle = page.getByLabel('Title of the new page');
    await newTitle.fill('Tutorials');
    // The connection is lost: the error is shown and the form stays, to try again.
    await page.route('**/graphql', (route) => {
      if (!route.request().postData()?.includes('WriteChangeRequestTree')) return route.fallback();
      writesCutOff++;
      return route.abort('failed');
    });
    try {
      await newTitle.press('Enter');
      await eventually(
        () =>
          page
            .getByRole('alert')
            .filter({ hasText: /^Not saved: / })
            .count(),
        'the alert after the write was cut off',
      ).toBe(1);
    } catch (error) {
      // What the page showed, so that a failure says whether the write was sent at all.
      const seen = await page.evaluate(() => ({
        focused: document.activeElement?.outerHTML.slice(0, 120),
        alerts: [...document.querySelectorAll('[role="alert"]')].map((a) => a.textContent),
        form: !!document.querySelector('form.tree-new'),
      }));
      throw new Error(`${(error as Error).message}\nwrites cut off: ${writesCutOff}; page: ${JSON.stringify(seen)}`);
    } finally {
      // Taken off whatever happens: the later tests write through the network.
      await page.unroute('**/graphql');
    }
    expect(await item('Tutorials').count()).toBe(0);
    await page.getByRole('button', { name: 'Create' }).click();
    await eventually(() => item('Tutorials').isVisible()).toBe(true);
    await eventually(() => focused()).toBe('Tutorials');
    expect(await item('Tutorials').getAttribute('aria-selected')).toBe('true');

    // Rename: Escape gives up, Enter saves.
    await page.keyboard.press('F2');
    const field = page.getByRole('textbox', { name: 'New title for Tutorials' });
    await eventually(() => field.isVisible()).toBe(true);
    await field.fill('Something else');
    await page.keyboard.press('Escape');
    await eventually(() => field.count()).toBe(0);
    await eventually(() => focused()).toBe('Tutorials');
    await page.getByRole('button', { name: 'Rename' }).click();
    await eventually(() => field.isVisible()).toBe(true);
    await checkAxe('tree, renaming a page');
    await field.fill('Tutorials and guides');
    await page.keyboard.press('Enter');
    await eventually(() => item('Tutorials and guides').isVisible()).toBe(true);
    expect(await item('Tutorials').count()).toBe(0);
    await eventually(() => crShape()).toEqual([...MAIN_BEFORE, 'Tutorials and guides']);
    expect(shapeOf(await pageList())).toEqual(MAIN_BEFORE);
  });

  it('drags a page into another, with a drop indicator on the way', async () => {
    const reference = item('Reference');
    const guide = item('Guide');
    const box = (await guide.boundingBox())!;
    // Over the middle of Guide's row (by mouse events): the row is outlined as the drop target.
    await reference.hover();
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 5 });
    await page.mouse.move(box.x + box.width / 2 + 2, box.y + box.height / 2, { steps: 2 });
    expect(await guide.evaluate((el) => el.className)).toContain('drop-inside');
    await page.mouse.up();
    await eventually(() => crShape()).toEqual([
      ['Guide', ['Install', 'Reference']],
      ['Archive', ['Old notes']],
      'Scratch',
      ['Drafts', ['Draft one']],
      'Tutorials and guides',
    ]);
    await eventually(() => item('Reference').getAttribute('aria-level')).toBe('2');
  });

  it('moves a page with the "Move to…" dialog, by keyboard alone', async () => {
    await item('Scratch').focus();
    await eventually(() => focused()).toBe('Scratch');
    // The actions sit before the tree: Shift+Tab reaches Delete, then Move to….
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    await eventually(() => focused()).toBe('Move to…');
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Move “Scratch”' });
    await eventually(() => dialog.isVisible()).toBe(true);
    const parent = dialog.getByLabel('New parent');
    await eventually(() => parent.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type('Archive');
    await eventually(() => parent.inputValue()).not.toBe('');
    await page.keyboard.press('Tab');
    const position = dialog.getByLabel('Position');
    await eventually(() => position.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press('ArrowUp');
    await eventually(() => position.evaluate((el) => (el as HTMLSelectElement).selectedOptions[0]?.textContent)).toBe(
      'First, before “Old notes”',
    );
    await checkAxe('Move to… dialog');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await eventually(() => dialog.count()).toBe(0);
    await eventually(() => crShape()).toEqual([
      ['Guide', ['Install', 'Reference']],
      ['Archive', ['Scratch', 'Old notes']],
      ['Drafts', ['Draft one']],
      'Tutorials and guides',
    ]);
    await eventually(() => focused()).toBe('Scratch');
  });

  it('deletes a page and its child after a confirmation naming them', async () => {
    await item('Drafts').focus();
    await page.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete “Drafts”?' });
    await eventually(() => dialog.isVisible()).toBe(true);
    expect(await dialog.textContent()).toContain('with the page below it: “Draft one”');
    await checkAxe('delete dialog');
    // Cancel keeps it.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await eventually(() => dialog.count()).toBe(0);
    expect(await item('Drafts').count()).toBe(1);
    await item('Drafts').focus();
    await page.keyboard.press('Delete');
    await eventually(() => dialog.isVisible()).toBe(true);
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await eventually(() => item('Drafts').count()).toBe(0);
    await eventually(() => crShape()).toEqual(AFTER);
    await checkAxe('tree after the changes');
    expect(shapeOf(await pageList())).toEqual(MAIN_BEFORE);
  });

  it("merges: main's tree is exactly the change request's, no page lost", async () => {
    const before = await pageList();
    await page.goto(`${served.origin}/app/s/${spaceId}/~/changes/${number}`);
    await page.getByRole('button', { name: 'Merge' }).click();
    await eventually(() => page.getByRole('status').filter({ hasText: 'This change request is merged into main.' }).count()).toBe(1);
    const after = await pageList();
    expect(shapeOf(after)).toEqual(AFTER);
    // The pages kept are the same pages (same ids), only the deleted ones are gone.
    const kept = new Set(after.map((p) => p.id));
    const lost = before.filter((p) => !kept.has(p.id)).map((p) => p.title);
    expect(lost.sort()).toEqual(['Draft one', 'Drafts']);
    // A merged change request's tree offers no actions.
    await page.reload();
    await eventually(() => tree().isVisible()).toBe(true);
    expect(await page.getByRole('group', { name: 'Page actions' }).count()).toBe(0);
  });

  it('had no script error, and axe-core found no serious violation', () => {
    expect(pageErrors).toEqual([]);
    expect(writesCutOff).toBe(1);
    expect(seriousViolations(axeFindings)).toEqual([]);
    expect(axeFindings.length).toBe(4);
  });
});
