import { beforeAll, describe, expect, it } from 'vitest';
import { BASE, setupHarness, type Harness } from '../support/harness.js';
import { insertPage, writeLive } from '../support/content-writes.js';
import { siteHelpers } from '../support/sites.js';

/**
 * `Page.html` (the app's page view): the published site's renderer over the page's Markdown — the
 * same HTML as the reader (escaped raw HTML, heading ids, highlighted code), with links to other
 * pages of the space pointing at their screen in the app.
 */
describe('Page.html', () => {
  let h: Harness;
  const s = siteHelpers(() => h);
  let owner: Awaited<ReturnType<Harness['owner']>>;
  let spaceId: string;

  beforeAll(async () => {
    h = await setupHarness();
    owner = await h.owner();
    spaceId = (await s.space(owner, 'Handbook')).id;
    await writeLive(h, owner.token, spaceId, [
      insertPage(
        'Intro',
        'Read **this**, then [the setup](setup.md#install).\n\n<script>alert("x")</script>\n\n## Next steps\n\n```js\nconst a = 1;\n```\n',
      ),
      insertPage('Setup', 'Install it.'),
    ]);
  });

  const html = async (path: string) => {
    const res = await h.graphql(owner.token, 'query ($id: ID!, $path: String!) { space(id: $id) { page(path: $path) { type html } } }', {
      id: spaceId,
      path,
    });
    expect(res.body.errors).toBeUndefined();
    return res.body.data.space.page as { type: string; html: string | null };
  };

  it('renders the Markdown as the published site does, raw HTML escaped', async () => {
    const page = await html('intro');
    expect(page.html).toContain('<strong>this</strong>');
    expect(page.html).toContain('&#x3C;script>');
    expect(page.html).not.toContain('<script>');
    expect(page.html).toMatch(/<h2 id="next-steps"/);
    expect(page.html).toMatch(/<code class="[^"]*language-js/);
  });

  it('points links to other pages at their app screen, anchors kept', async () => {
    const page = await html('intro');
    expect(page.html).toContain(`href="${BASE}/app/s/${spaceId}/setup#install"`);
  });

  it('is null on a group page', async () => {
    await writeLive(h, owner.token, spaceId, [{ operation: 'insert_page', type: 'group', title: 'Reference' }]);
    const page = await html('reference');
    expect(page.type).toBe('group');
    expect(page.html).toBeNull();
  });
});
