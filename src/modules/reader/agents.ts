import type { SiteSpace } from '../../generated/prisma/client.js';
import { markdownWithoutTitleHeading } from '../../document/index.js';
import { bodiesOf, pageTree, viewOf, type PageNode, type PageTree } from '../content/index.js';
import { evaluateVariables, INCLUDE } from './render-markdown.js';
import { pageUrl, readingOrder, sectionsVisible, siteSpacesIn, spacesOf, visibleTree, type Reading } from './site-model.js';
import type { Resolution } from '../sites/index.js';

/**
 * What agents and crawlers read of a published site, for the same audience as its pages (the caller
 * checked access and claims): a page's Markdown (`<page URL>.md`), `llms.txt` (llmstxt.org: the
 * site's pages as a Markdown list of links to their `.md`), `llms-full.txt` (every page's Markdown),
 * `sitemap.xml` and `robots.txt`. A site that is not `public` (unlisted, share-link, visitor-auth)
 * is kept out of robots' reach: robots.txt disallows everything and the sitemap lists nothing; pages
 * marked noIndex / noRobotsIndex and hidden pages are left out of the sitemap too.
 */

/** A page's Markdown as the reader shows it: title and description, variables evaluated, reusable contents expanded. */
export async function pageMarkdown(r: Reading, res: Resolution): Promise<string> {
  const { content } = res.content;
  const page = res.page;
  const body = page.body ? ((await bodiesOf(r.ctx, [page.body])).get(page.body) ?? '') : '';
  let text = body.replace(/^\uFEFF?---\r?\n[\s\S]*?\r?\n---\r?\n/, '');
  if (text.split(/\r?\n/).some((l) => INCLUDE.test(l.trim()))) {
    const entries = await content.reusableContents();
    const bodies = await bodiesOf(
      r.ctx,
      entries.map((e) => e.body),
    );
    const bySlug = new Map(entries.map((e) => [e.slug, bodies.get(e.body) ?? '']));
    text = text
      .split(/\r?\n/)
      .map((line) => {
        const m = INCLUDE.exec(line.trim());
        return m && bySlug.has(m[1]!) ? bySlug.get(m[1]!)! : line;
      })
      .join('\n');
  }
  const head = `# ${page.title}\n\n${page.description ? `${page.description}\n\n` : ''}`;
  return `${head}${markdownWithoutTitleHeading(evaluateVariables(text, content.manifest.variables).trim(), page.title)}\n`;
}

interface Listed {
  heading: string;
  siteSpace: SiteSpace;
  tree: PageTree;
  pages: PageNode[];
  variables: Record<string, string>;
}

/** Every site space the visitor may see, with its visible pages in reading order (contents loaded together). */
async function listed(r: Reading): Promise<Listed[]> {
  const entries: { heading: string; siteSpace: SiteSpace }[] = [];
  if (r.view.sectioned) {
    for (const section of sectionsVisible(r)) {
      const spaces = siteSpacesIn(r, section.id).filter((ss) => !ss.hidden);
      for (const ss of spaces) entries.push({ heading: section.title, siteSpace: ss });
    }
  } else {
    for (const ss of siteSpacesIn(r, null).filter((x) => !x.hidden)) entries.push({ heading: '', siteSpace: ss });
  }
  const spaces = await spacesOf(
    r,
    entries.map((e) => e.siteSpace),
  );
  const variants = new Map<string, number>();
  for (const e of entries) variants.set(e.heading, (variants.get(e.heading) ?? 0) + 1);
  const out = await Promise.all(
    entries.map(async (e) => {
      const space = spaces.get(e.siteSpace.spaceId);
      if (!space) return null;
      const view = await viewOf(r.ctx, space, space.revisionId);
      const tree = await pageTree(r.ctx, view);
      const title = space.title || e.siteSpace.path;
      const heading = !e.heading ? title : (variants.get(e.heading) ?? 0) > 1 ? `${e.heading} — ${title}` : e.heading;
      return {
        heading,
        siteSpace: e.siteSpace,
        tree,
        pages: readingOrder(visibleTree(r, tree.roots)),
        variables: view.content.manifest.variables,
      };
    }),
  );
  return out.filter((x): x is Listed => x !== null);
}

/** Agents read URLs out of context: absolute ones (at a custom hostname, whose base is '', its published URL). */
const absolute = (r: Reading) => r.base || r.canonical;

export async function llmsTxt(r: Reading): Promise<string> {
  const lists = await listed(r);
  const lines = [`# ${r.site.title}`, ''];
  for (const list of lists) {
    if (lists.length > 1 || list.heading) lines.push(`## ${list.heading}`, '');
    for (const p of list.pages)
      lines.push(
        `- [${p.title.replace(/[[\]]/g, '')}](${pageUrl(r, list.siteSpace, p, absolute(r))}.md)${p.description ? `: ${p.description.replace(/\s+/g, ' ')}` : ''}`,
      );
    lines.push('');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

export async function llmsFullTxt(r: Reading): Promise<string> {
  const lists = await listed(r);
  const hashes = [...new Set(lists.flatMap((l) => l.pages.map((p) => p.body).filter((b): b is string => !!b)))];
  const bodies = await bodiesOf(r.ctx, hashes);
  const parts: string[] = [`# ${r.site.title}\n`];
  for (const list of lists) {
    for (const p of list.pages) {
      const body = (p.body ? (bodies.get(p.body) ?? '') : '').replace(/^\uFEFF?---\r?\n[\s\S]*?\r?\n---\r?\n/, '');
      parts.push(
        `# ${p.title}\n\nSource: ${pageUrl(r, list.siteSpace, p, absolute(r))}\n\n${p.description ? `${p.description}\n\n` : ''}${markdownWithoutTitleHeading(evaluateVariables(body, list.variables).trim(), p.title)}\n`,
      );
    }
  }
  return parts.join('\n---\n\n');
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export async function sitemapXml(r: Reading): Promise<string> {
  const urls: string[] = [];
  if (r.site.visibility === 'public') {
    for (const list of await listed(r)) {
      for (const p of list.pages) {
        if (p.noIndex || p.noRobotsIndex) continue;
        urls.push(
          `<url><loc>${xml(pageUrl(r, list.siteSpace, p, r.canonical))}</loc>${p.updatedAt ? `<lastmod>${xml(String(p.updatedAt))}</lastmod>` : ''}</url>`,
        );
      }
    }
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join('\n')}${urls.length ? '\n' : ''}</urlset>\n`;
}

export function robotsTxt(r: Reading): string {
  if (r.site.visibility !== 'public') return 'User-agent: *\nDisallow: /\n';
  return `User-agent: *\nAllow: /\n\nSitemap: ${r.canonical}/sitemap.xml\n`;
}
