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

/**
 * One page's official JSON, with `pages` (its subpages' JSON) where the official page has them.
 * Built key by key, not with spreads: a listing builds one per page (a spread per optional key
 * cost as much as the rest of the route's work).
 */
export function restPage(p: RestPageFields, pages: unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = { id: p.id, title: p.title };
  if (p.emoji) out.emoji = p.emoji;
  if (p.icon) out.icon = p.icon;
  out.createdAt = p.createdAt;
  out.updatedAt = p.updatedAt;
  if (p.hidden) out.hidden = true;
  if (p.condition) out.condition = p.condition;
  if (p.type === 'link') {
    // Link pages have no indexing flags in the official schema.
    out.kind = p.kind;
    out.type = p.type;
    out.href = p.href;
    out.target = p.target;
    return out;
  }
  if (p.type === 'computed') {
    out.type = p.type;
    out.computed = p.computed;
    return out;
  }
  if (p.type === 'group') {
    if (p.noIndex) out.noIndex = true;
    if (p.noRobotsIndex) out.noRobotsIndex = true;
    out.kind = p.kind;
    out.type = p.type;
    out.slug = p.slug;
    out.path = p.path;
    out.pages = pages;
    return out;
  }
  out.kind = p.kind;
  out.type = p.type;
  out.urls = p.urls;
  out.slug = p.slug;
  out.path = p.path;
  if (p.description) out.description = p.description;
  if (p.noIndex) out.noIndex = true;
  if (p.noRobotsIndex) out.noRobotsIndex = true;
  if (p.documentId) out.documentId = p.documentId;
  out.pages = pages;
  out.layout = p.layout;
  out.tags = p.tags;
  if (p.body && 'markdown' in p.body) out.markdown = p.body.markdown;
  if (p.body && 'document' in p.body) out.document = p.body.document;
  return out;
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
