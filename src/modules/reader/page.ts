import type { SiteExternalLink, SiteSection, SiteSectionGroup, SiteSpace, Space } from '../../generated/prisma/client.js';
import type { PageNode } from '../content/index.js';
import type { Resolution } from '../sites/index.js';
import { esc } from './html-layout.js';
import {
  holds,
  pageUrl,
  readingOrder,
  sectionsVisible,
  siteSpacesIn,
  siteSpaceUrl,
  visibleTree,
  type Reading,
  type RenderedPage,
} from './site-model.js';

/**
 * Where the feedback form posts: Lectern's own route below the site's URL (http.ts). GitBook's
 * renderer posts a visitor's rating through its API with a script; this form needs none (the
 * reader's CSP allows no script of a site's own), so a plain POST answered by a 303 back here.
 */
export const FEEDBACK_PATH = '~gitbook/feedback';

/**
 * "Was this page helpful?" when the customization's `feedback.enabled`: the official page ratings
 * (good, ok, bad) as submit buttons; after a rating (`thanks`), a thank-you in their place.
 */
function feedbackBlock(r: Reading, res: Resolution, thanks: boolean): string {
  if (!r.customization.feedback?.enabled) return '';
  if (thanks) return '<p class="feedback" role="status">Thank you for your feedback.</p>';
  const choice = (rating: string, label: string) => `<button type="submit" name="rating" value="${rating}">${label}</button>`;
  return `<form class="feedback" method="post" action="${esc(`${r.base}/${FEEDBACK_PATH}`)}"><fieldset><legend>Was this page helpful?</legend><input type="hidden" name="page" value="${esc(res.page.id)}"><input type="hidden" name="path" value="${esc(pageUrl(r, res.siteSpace, res.page, ''))}">${choice('good', 'Good')}${choice('ok', 'OK')}${choice('bad', 'Bad')}</fieldset></form>`;
}

/** The body of a page view: sidebar (sections and groups, variants, page tree), the page, outline, previous/next, feedback. */
export function pageBody(r: Reading, res: Resolution, rendered: RenderedPage, spaces: Map<string, Space>, thanks = false): string {
  const tree = visibleTree(r, res.tree.roots);
  const order = readingOrder(tree);
  const at = order.findIndex((p) => p.id === res.page.id);
  const prev = at > 0 ? order[at - 1] : undefined;
  const next = at >= 0 ? order[at + 1] : undefined;
  const page = res.page;

  // A large tree shows the current page's branch open (its ancestors with their siblings, and its
  // children) and every other branch closed, as a link to its page that opens it: a whole tree of
  // thousands of pages would make every page megabytes of navigation.
  const open = order.length > SIDEBAR_WHOLE ? new Set([...page.ancestors.map((a) => a.id), page.id]) : null;
  const sidebar = [
    sectionNav(r, res),
    variantSwitcher(r, res, spaces),
    `<nav aria-label="Pages"><ul>${pageItems(r, res.siteSpace, tree, page.id, open)}</ul></nav>`,
  ].join('');
  const crumbs = page.ancestors.length
    ? `<div class="breadcrumbs">${page.ancestors
        .map((a) => {
          const node = res.tree.byId.get(a.id);
          return node?.type === 'document' ? `<a href="${esc(pageUrl(r, res.siteSpace, node))}">${esc(a.title)}</a>` : esc(a.title);
        })
        .join(' / ')}</div>`
    : '';
  const outline = rendered.outline.length
    ? `<aside class="outline" aria-label="On this page"><h2>On this page</h2><ul>${rendered.outline
        .map((o) => `<li class="d${o.depth}"><a href="#${esc(o.id)}">${esc(o.text)}</a></li>`)
        .join('')}</ul></aside>`
    : '<aside class="outline"></aside>';
  const pager =
    r.customization.pagination.enabled && (prev || next)
      ? `<nav class="pager" aria-label="Previous and next">${prev ? `<a class="prev" rel="prev" href="${esc(pageUrl(r, res.siteSpace, prev))}"><small>Previous</small>${esc(prev.title)}</a>` : '<span></span>'}${
          next
            ? `<a class="next" rel="next" href="${esc(pageUrl(r, res.siteSpace, next))}"><small>Next</small>${esc(next.title)}</a>`
            : '<span></span>'
        }</nav>`
      : '';
  return `<div class="layout"><aside class="sidebar" aria-label="Navigation">${sidebar}</aside>
<main id="content">${crumbs}<h1 class="title">${page.emoji ? `${esc(page.emoji)} ` : ''}${esc(page.title)}</h1>${page.description ? `<p class="description">${esc(page.description)}</p>` : ''}
<article class="content">${rendered.html}</article>${feedbackBlock(r, res, thanks)}${pager}</main>${outline}</div>`;
}

/** The body of a section whose space has no page yet (for this visitor): the site's sections and a note saying so. */
export function emptySectionBody(r: Reading, section: SiteSection | null): string {
  const title = section?.title || r.site.title;
  return `<div class="layout"><aside class="sidebar" aria-label="Navigation">${sectionNav(r, { section })}</aside>
<main id="content"><h1 class="title">${esc(title)}</h1><p class="empty-section" role="status">This section has no pages yet.</p></main><aside class="outline"></aside></div>`;
}

/** Document pages up to which a space's tree is shown whole in the sidebar. */
const SIDEBAR_WHOLE = 400;

/** The sidebar's page items; `open`: the pages whose children are shown (null: all; groups are always open). */
function pageItems(r: Reading, ss: SiteSpace, nodes: PageNode[], currentId: string, open: Set<string> | null): string {
  return nodes
    .map((n) => {
      const shown = n.children.length > 0 && (!open || n.type === 'group' || open.has(n.id));
      const children = shown ? `<ul>${pageItems(r, ss, n.children, currentId, open)}</ul>` : '';
      if (n.type === 'group') return `<li><div class="group-title">${esc(n.title)}</div>${children}</li>`;
      if (n.type === 'link') return `<li><a href="${esc(n.href ?? '#')}" rel="noopener noreferrer">${esc(n.title)} ↗</a></li>`;
      const current = n.id === currentId ? ' aria-current="page"' : '';
      // A closed branch says so: a mark drawn by the stylesheet, and words for screen readers.
      const closed = n.children.length > 0 && !shown;
      return `<li${closed ? ' class="closed"' : ''}><a href="${esc(pageUrl(r, ss, n))}"${current}>${n.emoji ? `${esc(n.emoji)} ` : ''}${esc(n.title)}${closed ? '<span class="sr-only"> (has pages inside)</span>' : ''}</a>${children}</li>`;
    })
    .join('');
}

/** The URL a section opens at: its default site space when the visitor sees it, else its first. */
function sectionUrl(r: Reading, section: SiteSection): string | null {
  const spaces = siteSpacesIn(r, section.id);
  const ss = spaces.find((x) => x.id === r.view.defaultSiteSpaceIn(section.id)) ?? spaces[0];
  return ss ? siteSpaceUrl(r, ss) : null;
}

/**
 * The section tabs: sections the visitor sees, in their groups, and the site's external links where
 * they sit in the structure (root items and group children, one ordering with the sections): drafts
 * left out, their adaptive condition honoured as a section's, only http(s) URLs (the API accepts no
 * other; a row holding one is left out rather than shown as a dead entry). Shown when there is a
 * choice: two sections or more, or a link.
 */
function sectionNav(r: Reading, res: Pick<Resolution, 'section'>): string {
  if (!r.view.sectioned) return '';
  const visible = new Set(sectionsVisible(r).map((s) => s.id));
  const links = r.view.links.filter((l) => linkShown(r, l));
  if (visible.size < 2 && !links.length) return '';
  const items = (parent: string | null): string =>
    r.view
      .items(parent)
      .map((node) => {
        if (isExternal(node)) {
          if (!linkShown(r, node)) return '';
          return `<li><a class="external" href="${esc(node.url)}" rel="noopener">${esc(node.title)} <span aria-hidden="true">↗</span><span class="sr-only"> (external link)</span></a></li>`;
        }
        if ('path' in node) {
          if (!visible.has(node.id)) return '';
          const url = sectionUrl(r, node as SiteSection);
          const current = res.section?.id === node.id ? ' aria-current="page"' : '';
          return url ? `<li><a href="${esc(url)}"${current}>${esc(node.title)}</a></li>` : '';
        }
        const inner = items(node.id);
        return inner ? `<li><div class="group-title">${esc(node.title)}</div><ul>${inner}</ul></li>` : '';
      })
      .join('');
  return `<nav class="sections" aria-label="Sections"><ul>${items(null)}</ul></nav>`;
}

const isExternal = (node: SiteSection | SiteSectionGroup | SiteExternalLink): node is SiteExternalLink => 'url' in node;
const linkShown = (r: Reading, l: SiteExternalLink) => !l.draft && holds(r, l.condition) && /^https?:\/\//i.test(l.url);

function variantSwitcher(r: Reading, res: Resolution, spaces: Map<string, Space>): string {
  const options = siteSpacesIn(r, res.siteSpace.sectionId).filter((ss) => !ss.hidden || ss.id === res.siteSpace.id);
  if (options.length < 2) return '';
  const label = (ss: SiteSpace) => spaces.get(ss.spaceId)?.title || ss.path;
  return `<details class="variants"><summary aria-label="Variant: ${esc(label(res.siteSpace))}">${esc(label(res.siteSpace))}</summary><ul>${options
    .map(
      (ss) =>
        `<li><a href="${esc(siteSpaceUrl(r, ss))}"${ss.id === res.siteSpace.id ? ' aria-current="page"' : ''}>${esc(label(ss))}</a></li>`,
    )
    .join('')}</ul></details>`;
}
