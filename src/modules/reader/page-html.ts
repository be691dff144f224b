import type { Context } from '../../context.js';
import { signedFileUrl } from '../../file-urls.js';
import { builder } from '../../graphql/builder.js';
import { serverKeys } from '../../secrets.js';
import { bodiesOf, PageType, resolveHref, type PageRef } from '../content/index.js';
import { includedSlugs, loadHighlighter, renderMarkdown, type LinkTarget } from './render-markdown.js';

/**
 * `Page.html`: a document page rendered by the published site's renderer (renderMarkdown: the same
 * Markdown pipeline, escaping and highlighting), so the app shows a page exactly as readers see it.
 * Links to pages of the space point to the app's screen of that page (its `urls.app`), files to
 * their signed download URLs; raw HTML in the page is shown as text, as on the site.
 */
builder.objectField(PageType, 'html', (t) =>
  t.string({
    nullable: true,
    description:
      "Lectern's own: a document page's body as HTML, from the same renderer as the published site (links to pages go to the app); null on other pages",
    resolve: (p, _args, ctx) => (p.json.type === 'document' ? pageHtml(p, ctx) : null),
  }),
);

async function pageHtml(p: PageRef, ctx: Context): Promise<string> {
  const { content, space } = p.view;
  const body = p.node?.body;
  const [bodies, files, keys] = await Promise.all([
    body ? bodiesOf(ctx, [body]) : new Map<string, string>(),
    content.files(),
    serverKeys(ctx),
  ]);
  const markdown = (body && bodies.get(body)) || '';
  const reusable = new Map<string, string>();
  const slugs = includedSlugs(markdown);
  if (slugs.length) {
    const entries = (await content.reusableContents()).filter((e) => slugs.includes(e.slug));
    const texts = await bodiesOf(
      ctx,
      entries.map((e) => e.body),
    );
    for (const e of entries) reusable.set(e.slug, texts.get(e.body) ?? '');
  }
  const tree = p.index.tree;
  const env = { byPath: tree.byPath, byId: tree.byId, files, publicUrl: ctx.config.publicUrl, spaceId: space.id };
  const node = p.node;
  const link = (url: string, image: boolean): LinkTarget => {
    const target = node ? resolveHref(url, node, env) : undefined;
    if (!target) return { broken: true };
    if (target.kind === 'file') return { href: signedFileUrl(ctx.urls, keys, space.id, target.file) };
    if (target.kind === 'page') {
      if (image) return { broken: true };
      const anchor = target.anchor ? `#${encodeURIComponent(target.anchor)}` : '';
      if (target.page.type === 'link') return { href: target.page.href ?? '#', external: true };
      return { href: `${ctx.urls.page(space.id, target.page.path).app}${anchor}` };
    }
    return target.status === 'broken' ? { broken: true } : { href: target.url, external: target.status === 'ok' };
  };
  await loadHighlighter();
  return renderMarkdown({ markdown, variables: content.manifest.variables, reusable, link }).html;
}
