import { CONTENT_REF_SELECTION } from './content-refs.js';

/**
 * The official page JSON (RevisionPageDocument, RevisionPageGroup, RevisionPageLink, a computed
 * page) rebuilt from the typed `Page` fields the REST routes select: the same keys in the same
 * order, optional keys present exactly when the official answer has them (the listing's pageJson
 * in service.ts is the shape). A GraphQL selection has a fixed depth, so the routes select pages
 * flat (`Revision.pageEntries`, `Page.descendants`, each with its `parentId`) and nest them here.
 */
export const PAGE_REST_FIELDS = /* GraphQL */ `
fragment RestPageFields on Page {
  id title emoji icon createdAt updatedAt hidden condition noIndex noRobotsIndex kind type
  href target ${CONTENT_REF_SELECTION} computed { type props { models downloadLink grouping } dependencies { spec { ref { kind spec } } } }
  urls { app } slug path description documentId
  layout { width cover coverSize coverMask title description tableOfContents outline pagination metadata tags actions anchors }
  tags { tag ${CONTENT_REF_SELECTION} primary }
  body { ... on PageMarkdownBody { markdown } ... on PageDocumentBody { document } }
}`;

/** A page as the REST adapter hands it over (null fields left out). */
export interface RestPageFields {
  id: string;
  title: string;
  emoji?: string;
  icon?: string;
  createdAt?: string;
  updatedAt?: string;
  hidden: boolean;
  condition?: string;
  noIndex: boolean;
  noRobotsIndex: boolean;
  kind?: string;
  type: string;
  href?: string;
  target?: unknown;
  computed?: unknown;
  urls?: unknown;
  slug?: string;
  path?: string;
  description?: string;
  documentId?: string;
  layout?: unknown;
  tags?: unknown[];
  body?: { markdown?: string; document?: unknown };
  parentId?: string;
}

/** One page's official JSON, with `pages` (its subpages' JSON) where the official page has them. */
export function restPage(p: RestPageFields, pages: unknown[]): Record<string, unknown> {
  const common = {
    id: p.id,
    title: p.title,
    ...(p.emoji ? { emoji: p.emoji } : {}),
    ...(p.icon ? { icon: p.icon } : {}),
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
    ...(p.hidden ? { hidden: true } : {}),
    ...(p.condition ? { condition: p.condition } : {}),
  };
  // Link pages have no indexing flags in the official schema.
  const indexing = { ...(p.noIndex ? { noIndex: true } : {}), ...(p.noRobotsIndex ? { noRobotsIndex: true } : {}) };
  if (p.type === 'link') return { ...common, kind: p.kind, type: p.type, href: p.href, target: p.target };
  if (p.type === 'computed') return { ...common, type: p.type, computed: p.computed };
  if (p.type === 'group') return { ...common, ...indexing, kind: p.kind, type: p.type, slug: p.slug, path: p.path, pages };
  return {
    ...common,
    kind: p.kind,
    type: p.type,
    urls: p.urls,
    slug: p.slug,
    path: p.path,
    ...(p.description ? { description: p.description } : {}),
    ...indexing,
    ...(p.documentId ? { documentId: p.documentId } : {}),
    pages,
    layout: p.layout,
    tags: p.tags,
    ...(p.body && 'markdown' in p.body ? { markdown: p.body.markdown } : {}),
    ...(p.body && 'document' in p.body ? { document: p.body.document } : {}),
  };
}

/** The official page tree from pages listed depth first, each naming its parent (`parentId`); `under`: the tree below that page. */
export function restTree(entries: RestPageFields[], under?: string): Record<string, unknown>[] {
  const children = new Map<string | undefined, RestPageFields[]>();
  for (const entry of entries) {
    const list = children.get(entry.parentId);
    if (list) list.push(entry);
    else children.set(entry.parentId, [entry]);
  }
  const nest = (parent: string | undefined): Record<string, unknown>[] => (children.get(parent) ?? []).map((p) => restPage(p, nest(p.id)));
  return nest(under);
}

/** A page read (getPageById, getPageByPath): the page with its subtree (`descendants`). */
export const restPageRead = (p: RestPageFields & { descendants: RestPageFields[] }) => restPage(p, restTree(p.descendants, p.id));
