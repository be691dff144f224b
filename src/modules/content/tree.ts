import { byPosition } from '../../positions.js';
import type { PageEntry } from './store.js';

/** A page with its children and its full path, as the API shows the tree. */
export interface PageNode extends PageEntry {
  path: string;
  depth: number;
  ancestors: { id: string; title: string }[];
  children: PageNode[];
}

/**
 * Builds the page tree from flat entries. A page whose parent is missing, or that is caught in a
 * ring of parents (neither can happen through the write path or a merge; data written before they
 * were checked can), is shown at the top level rather than lost: every page is in the tree once.
 */
export function buildTree(entries: Iterable<PageEntry>): { roots: PageNode[]; byId: Map<string, PageNode>; byPath: Map<string, PageNode> } {
  const byId = new Map<string, PageNode>();
  for (const e of entries) byId.set(e.id, { ...e, path: '', depth: 0, ancestors: [], children: [] });
  const roots: PageNode[] = [];
  for (const node of byId.values()) {
    const parent = node.parent ? byId.get(node.parent) : undefined;
    (parent ? parent.children : roots).push(node);
  }
  const byPath = new Map<string, PageNode>();
  const placed = new Set<string>();
  const walk = (nodes: PageNode[], parent: PageNode | null) => {
    nodes.sort(byPosition);
    for (const node of nodes) {
      placed.add(node.id);
      // Groups do not add a path segment of their own in GitBook's URLs; here every page does,
      // which keeps paths unique and stable.
      node.path = parent ? `${parent.path}/${node.slug}` : node.slug;
      node.depth = parent ? parent.depth + 1 : 0;
      node.ancestors = parent ? [...parent.ancestors, { id: parent.id, title: parent.title }] : [];
      byPath.set(node.path, node);
      node.children = node.children.filter((child) => !placed.has(child.id));
      walk(node.children, node);
    }
  };
  walk(roots, null);
  for (const node of [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    if (placed.has(node.id)) continue;
    const parent = byId.get(node.parent!)!;
    parent.children = parent.children.filter((child) => child.id !== node.id);
    roots.push(node);
    walk([node], null);
  }
  roots.sort(byPosition);
  return { roots, byId, byPath };
}

/** Pages in reading order (depth first), e.g. for a PDF. */
export function flatten(roots: PageNode[]): PageNode[] {
  const out: PageNode[] = [];
  const walk = (nodes: PageNode[]) => nodes.forEach((n) => (out.push(n), walk(n.children)));
  walk(roots);
  return out;
}

/** A slug unique among `siblings` (excluding the page itself): `intro`, `intro-1`, `intro-2`… */
export function uniqueSlug(base: string, siblings: PageEntry[], selfId?: string): string {
  const taken = new Set(siblings.filter((s) => s.id !== selfId).map((s) => s.slug));
  if (!taken.has(base)) return base;
  for (let i = 1; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}

/** Ids of a page and all pages below it. */
export function subtreeIds(entries: PageEntry[], rootId: string): Set<string> {
  const children = new Map<string | null, string[]>();
  for (const e of entries) children.set(e.parent, [...(children.get(e.parent) ?? []), e.id]);
  const ids = new Set([rootId]);
  const queue = [rootId];
  while (queue.length) for (const child of children.get(queue.pop()!) ?? []) if (!ids.has(child)) ids.add(child), queue.push(child);
  return ids;
}

/** Resolves a relative Markdown link (`../guide/setup.md`, `./faq`) from a page to a page of the tree. */
export function resolveRelativeLink(from: PageNode, href: string, byPath: Map<string, PageNode>): PageNode | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('#') || href.startsWith('/')) return undefined;
  const target = href
    .split('#')[0]!
    .replace(/\.md$/i, '')
    .replace(/\/(README|index)$/i, '');
  if (!target) return undefined;
  // Relative to the page's parent directory, as in a Git-synced docs folder.
  const segments = from.path.split('/').slice(0, -1);
  for (const part of target.split('/')) {
    if (part === '..') segments.pop();
    else if (part && part !== '.') segments.push(decodeURIComponent(part).toLowerCase());
  }
  return byPath.get(segments.join('/'));
}
