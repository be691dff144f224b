import type { FileEntry } from './store.js';
import { resolveRelativeLink, type PageNode } from './tree.js';

/**
 * What a link's href points at, seen from one page of one revision. Pure (no I/O): the links
 * listings classify every indexed link with it, and page documents turn their link and image
 * references into page/file references with it. It reads only a revision's pages and files, so it
 * lives with them in content; the links module builds on it.
 */
export type LinkStatus = 'ok' | 'broken' | 'in-app';

export type ResolvedLink =
  | { kind: 'page'; page: PageNode; anchor?: string; status: 'ok' }
  | { kind: 'file'; file: FileEntry; status: 'ok' }
  /** External URLs (ok), app URLs (in-app), and targets missing from the revision (broken; `url` is the href as written). */
  | { kind: 'url'; url: string; status: LinkStatus };

/** The revision and instance a link is resolved in. */
export interface LinkEnv {
  byPath: Map<string, PageNode>;
  /** Pages by id: `/pages/<pageId>` links (the official form, and what batch-local refs become). */
  byId?: Map<string, PageNode>;
  files: FileEntry[];
  /** LECTERN_PUBLIC_URL: app URLs (`/app/…`) and file download URLs (`/files/…`) live below it. */
  publicUrl: string;
  spaceId: string;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

function safeDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

/** `path#anchor?query` → its parts (the query is dropped: it never selects a page or a file). */
function splitHref(href: string): { path: string; anchor?: string } {
  const hash = href.indexOf('#');
  const anchor = hash >= 0 ? safeDecode(href.slice(hash + 1)) || undefined : undefined;
  const path = (hash >= 0 ? href.slice(0, hash) : href).replace(/\?.*$/, '');
  return { path, ...(anchor ? { anchor } : {}) };
}

/** A file of the revision named like the last segment of a path (exact name first, then ignoring case). */
function fileByName(env: LinkEnv, path: string): FileEntry | undefined {
  const name = safeDecode(path.replace(/\/+$/, '').split('/').pop() ?? '');
  if (!name) return undefined;
  return env.files.find((f) => f.name === name) ?? env.files.find((f) => f.name.toLowerCase() === name.toLowerCase());
}

/** An absolute URL of this instance's app or file store; anything else is an external URL (ok). */
function resolveAbsolute(href: string, env: LinkEnv): ResolvedLink {
  const base = env.publicUrl.replace(/\/+$/, '');
  const filesPrefix = `${base}/files/`;
  if (href.startsWith(filesPrefix)) {
    // `${publicUrl}/files/<space>/<file id>/<name>?…` (a downloadURL: src/file-urls.ts) names a file
    // of this space by id, whatever its signature; `/files/<blob>/<name>` (URLs before signed ones)
    // a file of the revision holding that blob.
    const [first, ...rest] = splitHref(href.slice(filesPrefix.length)).path.split('/');
    const file =
      rest.length >= 2 && safeDecode(first ?? '') === env.spaceId
        ? env.files.find((f) => f.id === safeDecode(rest[0]!))
        : (env.files.find((f) => f.blob === first && (!safeDecode(rest.join('/')) || f.name === safeDecode(rest.join('/')))) ??
          env.files.find((f) => f.blob === first));
    return file ? { kind: 'file', file, status: 'ok' } : { kind: 'url', url: href, status: 'broken' };
  }
  const appPrefix = `${base}/app/`;
  if (!href.startsWith(appPrefix)) return { kind: 'url', url: href, status: 'ok' };
  // `${publicUrl}/app/s/<this space>/<page path>` is a page of this revision; every other app
  // location (another space, a change request, a revision, an organization…) is in-app.
  const spacePrefix = `${appPrefix}s/${env.spaceId}/`;
  if (href.startsWith(spacePrefix)) {
    const { path, anchor } = splitHref(href.slice(spacePrefix.length));
    const pagePath = safeDecode(path.replace(/\/+$/, ''));
    if (pagePath && !pagePath.startsWith('~')) {
      const page = env.byPath.get(pagePath.toLowerCase());
      return page ? { kind: 'page', page, ...(anchor ? { anchor } : {}), status: 'ok' } : { kind: 'url', url: href, status: 'broken' };
    }
  }
  return { kind: 'url', url: href, status: 'in-app' };
}

function safeResolve(origin: PageNode, path: string, env: LinkEnv): PageNode | undefined {
  try {
    return resolveRelativeLink(origin, path, env.byPath);
  } catch {
    return undefined; // a malformed %-escape
  }
}

/**
 * Resolves one href written in page `from`: `#anchor` (the page itself), relative (`./x.md`,
 * `../a/b`) and root-relative (`/a/b`) paths to a page or, failing that, to a file of the same
 * name; absolute URLs as described in `resolveAbsolute`. Undefined for an empty href.
 */
export function resolveHref(href: string, from: PageNode, env: LinkEnv): ResolvedLink | undefined {
  const raw = href.trim();
  if (!raw) return undefined;
  if (raw.startsWith('#')) {
    const { anchor } = splitHref(raw);
    return { kind: 'page', page: from, ...(anchor ? { anchor } : {}), status: 'ok' };
  }
  if (SCHEME.test(raw)) return resolveAbsolute(raw, env);
  if (raw.startsWith('//')) return { kind: 'url', url: raw, status: 'ok' };

  const { path, anchor } = splitHref(raw);
  if (!path) return undefined;
  // GitBook's id forms: `/pages/<pageId>` and `/files/<fileId>` (the write path turns refs into them).
  const byIdForm = path.match(/^\/(pages|files)\/([^/]+)$/);
  if (byIdForm) {
    const id = safeDecode(byIdForm[2]!) ?? '';
    const page = byIdForm[1] === 'pages' ? env.byId?.get(id) : undefined;
    if (page) return { kind: 'page', page, ...(anchor ? { anchor } : {}), status: 'ok' };
    const file = byIdForm[1] === 'files' ? env.files.find((f) => f.id === id) : undefined;
    if (file) return { kind: 'file', file, status: 'ok' };
  }
  // `/pages/<slug path>` (`.md`, `/README.md` too): a page by its path from the top, as GitBook links it.
  const pagePath = path.match(/^\/pages\/(.+)$/)?.[1];
  const byPagePath = pagePath ? safeResolve({ ...from, path: '' } as PageNode, pagePath, env) : undefined;
  if (byPagePath) return { kind: 'page', page: byPagePath, ...(anchor ? { anchor } : {}), status: 'ok' };
  // A root-relative path resolves like a relative one written in a top-level page.
  const origin = path.startsWith('/') ? ({ ...from, path: '' } as PageNode) : from;
  let page: PageNode | undefined;
  try {
    page = resolveRelativeLink(origin, path.replace(/^\/+/, ''), env.byPath);
  } catch {
    page = undefined; // a malformed %-escape
  }
  if (page) return { kind: 'page', page, ...(anchor ? { anchor } : {}), status: 'ok' };
  const file = fileByName(env, path);
  if (file) return { kind: 'file', file, status: 'ok' };
  return { kind: 'url', url: raw, status: 'broken' };
}

// ---------------------------------------------------------------------------------------------
// References inside page documents
// ---------------------------------------------------------------------------------------------

type Ref = { kind: string; [key: string]: unknown };
interface DocNode {
  type?: string;
  data?: { ref?: Ref; [key: string]: unknown };
  nodes?: DocNode[];
  fragments?: DocNode[];
}

/**
 * Rewrites, in place, the URL references of a page document that point into the revision:
 * links to a page become `{ kind: 'page', page }` (`{ kind: 'anchor', anchor, page? }` with a
 * `#anchor`; `page` left out for the page itself), links and images to a file become
 * `{ kind: 'file', file }`. Broken, in-app and external URLs keep their `{ kind: 'url' }`.
 */
export function resolveDocumentRefs<D extends object>(document: D, from: PageNode, env: LinkEnv): D {
  const visit = (node: DocNode) => {
    const ref = node.data?.ref;
    if (ref?.kind === 'url' && typeof ref.url === 'string') {
      const resolved = resolveHref(ref.url, from, env);
      if (resolved?.kind === 'file' && (node.type === 'link' || node.type === 'inline-image' || node.type === 'image')) {
        node.data!.ref = { kind: 'file', file: resolved.file.id };
      } else if (resolved?.kind === 'page' && node.type === 'link') {
        node.data!.ref = resolved.anchor
          ? { kind: 'anchor', anchor: resolved.anchor, ...(resolved.page.id !== from.id ? { page: resolved.page.id } : {}) }
          : { kind: 'page', page: resolved.page.id };
      }
    }
    node.nodes?.forEach(visit);
    node.fragments?.forEach(visit);
  };
  ((document as { nodes?: DocNode[] }).nodes ?? []).forEach(visit);
  return document;
}
