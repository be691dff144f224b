import { posix } from 'node:path';
import type * as M from 'mdast';
import YAML from 'yaml';
import { markdownTree, slugify } from '../../document/index.js';
import { newId } from '../../ids.js';

/**
 * A space as a folder of a Git repository, both ways, as GitBook lays it out (pure functions: no
 * I/O, no database; the sync jobs run them in a worker thread, src/jobs/isolate.ts):
 *
 * - `.gitbook.yaml` at the repository's top or in the connected folder: `root` (the docs folder,
 *   relative to the file), `structure.readme` (default README.md), `structure.summary` (default
 *   SUMMARY.md) and `redirects` (old path → file).
 * - `SUMMARY.md` is the page tree: `## Heading` starts a group, a list item `[Title](file.md)` is a
 *   page, nested list items are its children, `[Title](https://…)` is a link page. Without a
 *   SUMMARY.md the tree follows the folders (README.md of a folder is the folder's page).
 * - One Markdown file per page: front matter (`description`, `icon`, `emoji`, `hidden`, `noIndex`,
 *   `noRobotsIndex`) then the body as Lectern stores it. The readme is the first page.
 * - Every other file of the folder is a file of the space (GitBook puts them in `.gitbook/assets/`).
 * - `.gitbook/includes/<slug>.md` is a reusable content of the space (`title` in front matter when
 *   it is not the one the file name gives); pages include it with
 *   `{% include "<relative path>/.gitbook/includes/<slug>.md" %}`; the export writes that path
 *   again from where a new or moved page lands when the written one does not name the file.
 * - Relative links between files become Lectern's id references (`/pages/<id>`, `/files/<id>`, the
 *   forms the write path produces) on the way in and relative paths again on the way out.
 *
 * The export is canonical (SUMMARY as GitBook writes it, `path.relative` links, front matter keys
 * in a fixed order); a repository already in that form comes back byte for byte. Where a page or
 * file came from a path (the previous import), it keeps that path.
 */

/** A file of the repository: its path from the repository's top, and its bytes. */
export interface RepoFile {
  path: string;
  data: Uint8Array;
}

export interface GitBookConfig {
  /** The docs folder, relative to the repository's top ('' = the top). */
  root: string;
  readme: string;
  summary: string;
  redirects: Record<string, string>;
  /** Whether the repository had a `.gitbook.yaml` (an export writes one back only then, or when needed). */
  present: boolean;
}

export interface LayoutPage {
  id: string;
  parent: string | null;
  type: 'document' | 'group' | 'link';
  title: string;
  slug: string;
  description?: string;
  icon?: string;
  emoji?: string;
  hidden?: boolean;
  noIndex?: boolean;
  noRobotsIndex?: boolean;
  /** Document pages: the body as stored (front matter out, links as `/pages/<id>` and `/files/<id>`). */
  markdown?: string;
  href?: string;
  /** The file it came from / goes to, relative to the docs root. */
  path?: string;
  /** Front matter Lectern has no field for (GitBook's `layout`, a `title`, a tool's keys), and the file's key order: written back as read. */
  frontMatter?: PageFrontMatter;
}

/** A layout page's optional page fields, as a stored page entry holds them (only those set). */
export function layoutPageFields(page: LayoutPage) {
  return {
    ...(page.emoji ? { emoji: page.emoji } : {}),
    ...(page.icon ? { icon: page.icon } : {}),
    ...(page.description ? { description: page.description } : {}),
    ...(page.hidden ? { hidden: true } : {}),
    ...(page.noIndex ? { noIndex: true } : {}),
    ...(page.noRobotsIndex ? { noRobotsIndex: true } : {}),
  };
}

export interface PageFrontMatter {
  order: string[];
  extra: Record<string, unknown>;
}

export interface LayoutFile {
  id: string;
  name: string;
  contentType: string;
  data: Uint8Array;
  /** Relative to the docs root. */
  path?: string;
}

/** A reusable content: `.gitbook/includes/<slug>.md` (its body with links as `/pages/<id>`, `/files/<id>`). */
export interface LayoutInclude {
  id: string;
  title: string;
  slug: string;
  markdown: string;
}

/** A space's content in repository terms: pages in reading order (parents before children). */
export interface SpaceLayout {
  config: GitBookConfig;
  pages: LayoutPage[];
  files: LayoutFile[];
  /** Reusable contents (`.gitbook/includes/`), by slug order. Absent: none. */
  includes?: LayoutInclude[];
  /** What the import left out, and why. */
  skipped: { path: string; reason: string }[];
}

/** Ids of what an earlier import made, by path (relative to the docs root): a re-import keeps them. */
export interface KnownIds {
  pages?: Record<string, string>;
  files?: Record<string, string>;
  /** Reusable contents by slug. */
  includes?: Record<string, string>;
  /** Front matter kept for the export, by page id (LayoutPage.frontMatter). */
  frontMatter?: Record<string, PageFrontMatter>;
}

export const DEFAULT_CONFIG: GitBookConfig = { root: '', readme: 'README.md', summary: 'SUMMARY.md', redirects: {}, present: false };
const ASSETS = '.gitbook/assets';
export const INCLUDES = '.gitbook/includes';
const INCLUDE_FILE = /^\.gitbook\/includes\/([^/]+)\.md$/i;
/** An include alone on its line, as GitBook writes it: the path is recomputed on export. */
const INCLUDE_LINE = /^(\{%[ \t]*include[ \t]+")((?:[^"\n]*\/)?\.gitbook\/includes\/([^"/\n]+)\.md)("[ \t]*%\})[ \t]*$/gm;
const FRONT_MATTER_KEYS = ['description', 'icon', 'emoji', 'hidden', 'noIndex', 'noRobotsIndex'] as const;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

const TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  webp: 'image/webp',
  pdf: 'application/pdf',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  txt: 'text/plain',
  csv: 'text/csv',
  zip: 'application/zip',
  mp4: 'video/mp4',
};
export const contentTypeOf = (name: string) => TYPES[name.split('.').pop()!.toLowerCase()] ?? 'application/octet-stream';

const decoder = new TextDecoder('utf-8');
const text = (data: Uint8Array) => {
  const s = decoder.decode(data);
  return s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
};
const normalize = (p: string) =>
  posix
    .normalize(p)
    .replace(/^(\.\/)+/, '')
    .replace(/\/$/, '');
const safeDecode = (s: string) => {
  try {
    return decodeURI(s);
  } catch {
    return s;
  }
};
/** Paths in links: spaces and parentheses escaped, the rest as is (what GitBook writes). */
const encodePath = (p: string) => p.replace(/%/g, '%25').replace(/ /g, '%20').replace(/\(/g, '%28').replace(/\)/g, '%29');

// ---------------------------------------------------------------------------------------------
// .gitbook.yaml
// ---------------------------------------------------------------------------------------------

/** The configuration of a docs folder (`folder`, relative to the repository's top; '' = the top). */
export function readConfig(files: Map<string, Uint8Array>, folder: string): GitBookConfig {
  const at = folder ? `${folder}/.gitbook.yaml` : '.gitbook.yaml';
  const raw = files.get(at);
  if (!raw) return { ...DEFAULT_CONFIG, root: folder };
  let doc: any;
  try {
    doc = YAML.parse(text(raw)) ?? {};
  } catch (error) {
    throw new Error(`${at} is not valid YAML: ${(error as Error).message}`);
  }
  const str = (v: unknown, fallback: string) => (typeof v === 'string' && v.trim() ? v.trim() : fallback);
  const root = normalize(posix.join(folder, str(doc.root, '.')));
  if (root.startsWith('..')) throw new Error(`${at}: root must stay inside the repository`);
  const redirects: Record<string, string> = {};
  if (doc.redirects && typeof doc.redirects === 'object')
    for (const [from, to] of Object.entries(doc.redirects)) if (typeof to === 'string') redirects[from] = to;
  return {
    root: root === '.' ? '' : root,
    readme: str(doc.structure?.readme, 'README.md'),
    summary: str(doc.structure?.summary, 'SUMMARY.md'),
    redirects,
    present: true,
  };
}

export function writeConfig(config: GitBookConfig, folder: string): string {
  const root = posix.relative(folder, config.root);
  const out: Record<string, unknown> = { root: `./${root ? `${root}/` : ''}` };
  out.structure = { readme: config.readme, summary: config.summary };
  if (Object.keys(config.redirects).length) out.redirects = config.redirects;
  return YAML.stringify(out, { lineWidth: 0 });
}

// ---------------------------------------------------------------------------------------------
// Repository → space
// ---------------------------------------------------------------------------------------------

interface SummaryEntry {
  kind: 'group' | 'page' | 'link';
  title: string;
  target?: string;
  children: SummaryEntry[];
}

const inlineText = (nodes: M.PhrasingContent[]): string =>
  nodes.map((n) => ('value' in n ? n.value : 'children' in n ? inlineText(n.children as M.PhrasingContent[]) : '')).join('');

/** SUMMARY.md → entries (groups at the top, pages nested by list indentation). */
export function parseSummary(markdown: string): SummaryEntry[] {
  const root = markdownTree(markdown);
  const top: SummaryEntry[] = [];
  let group: SummaryEntry | null = null;
  const items = (list: M.List): SummaryEntry[] =>
    list.children.flatMap((item) => {
      const para = item.children.find((c): c is M.Paragraph => c.type === 'paragraph');
      const link = para?.children.find((c): c is M.Link => c.type === 'link');
      const nested = item.children.filter((c): c is M.List => c.type === 'list').flatMap(items);
      if (!link) return nested; // a list item without a link: its children move up
      const title = inlineText(link.children).trim();
      const target = link.url;
      if (SCHEME.test(target)) return [{ kind: 'link' as const, title, target, children: [] }];
      return [{ kind: 'page' as const, title, target: normalize(safeDecode(target.split('#')[0]!)), children: nested }];
    });
  for (const node of root.children) {
    if (node.type === 'heading' && node.depth >= 2) {
      group = { kind: 'group', title: inlineText(node.children).trim(), children: [] };
      top.push(group);
    } else if (node.type === 'list') {
      (group ? group.children : top).push(...items(node));
    }
  }
  return top;
}

/**
 * Front matter and body of a page file, as the document parser splits them (parseMarkdown's
 * frontMatter and body: leading blank lines out), without parsing the whole page: a file that does
 * not open with `---` has none, and the front matter block alone is parsed (its closing fence is
 * the first `---` line). A large import spends its time in Markdown parsing (bench/git-sync.ts).
 */
function splitPage(source: string): { meta: Record<string, unknown>; body: string } {
  if (!/^---[ \t]*\r?\n/.test(source)) return { meta: {}, body: source };
  const close = /\r?\n---[ \t]*(?:\r?\n|$)/.exec(source.slice(3));
  const prefix = close ? source.slice(0, 3 + close.index + close[0].replace(/\r?\n$/, '').length) : source;
  let first = markdownTree(prefix).children[0];
  if (first?.type !== 'yaml' || first.position?.end.offset !== prefix.length) first = markdownTree(source).children[0];
  if (first?.type !== 'yaml') return { meta: {}, body: source };
  const doc = YAML.parseDocument(first.value, { prettyErrors: true });
  if (doc.errors.length) throw new Error(`invalid front matter (YAML): ${doc.errors[0]!.message}`);
  const data = doc.toJS({ maxAliasCount: 100 }) as unknown;
  if (data !== null && data !== undefined && (typeof data !== 'object' || Array.isArray(data)))
    throw new Error('invalid front matter: expected a mapping of keys to values');
  return { meta: (data ?? {}) as Record<string, unknown>, body: source.slice(first.position!.end.offset!).replace(/^[\r\n]+/, '') };
}

function leadingHeading(body: string): string | undefined {
  return body.match(/^\s*#[ \t]+(.+?)[ \t]*#*[ \t]*(?:\n|$)/)?.[1]?.trim() || undefined;
}

/** The source spans of link destinations in a Markdown body (inline links, images, definitions, HTML src/href). */
function linkSpans(markdown: string): { start: number; end: number; url: string }[] {
  const spans: { start: number; end: number; url: string }[] = [];
  const root = markdownTree(markdown);
  const visit = (node: M.Nodes) => {
    const pos = node.position;
    if (pos && (node.type === 'link' || node.type === 'image')) {
      const slice = markdown.slice(pos.start.offset!, pos.end.offset!);
      const open = slice.lastIndexOf('](');
      if (open >= 0) {
        let i = open + 2;
        while (slice[i] === ' ' || slice[i] === '\t') i++;
        const angle = slice[i] === '<';
        if (angle) i++;
        let j = i;
        while (j < slice.length && (angle ? slice[j] !== '>' : !/[\s)]/.test(slice[j]!))) j++;
        spans.push({ start: pos.start.offset! + i, end: pos.start.offset! + j, url: slice.slice(i, j) });
      }
    } else if (pos && node.type === 'definition') {
      const slice = markdown.slice(pos.start.offset!, pos.end.offset!);
      const m = slice.match(/\]:[ \t]*\n?[ \t]*<?/);
      if (m) {
        const i = m.index! + m[0].length;
        let j = i;
        while (j < slice.length && !/[\s>]/.test(slice[j]!)) j++;
        spans.push({ start: pos.start.offset! + i, end: pos.start.offset! + j, url: slice.slice(i, j) });
      }
    } else if (pos && node.type === 'html') {
      const slice = markdown.slice(pos.start.offset!, pos.end.offset!);
      for (const m of slice.matchAll(/\b(?:src|href)="([^"]*)"/g)) {
        const i = m.index! + m[0].indexOf('"') + 1;
        spans.push({ start: pos.start.offset! + i, end: pos.start.offset! + i + m[1]!.length, url: m[1]! });
      }
    }
    if ('children' in node) for (const child of node.children as M.Nodes[]) visit(child);
  };
  visit(root);
  return spans.sort((a, b) => a.start - b.start);
}

function rewriteLinks(markdown: string, map: (url: string) => string | undefined): string {
  let out = '';
  let at = 0;
  for (const span of linkSpans(markdown)) {
    if (span.start < at) continue;
    const next = map(span.url);
    if (next === undefined || next === span.url) continue;
    out += markdown.slice(at, span.start) + next;
    at = span.end;
  }
  return out + markdown.slice(at);
}

const titleFromName = (name: string) => {
  const base = name.replace(/\.md$/i, '').replace(/[-_]+/g, ' ').trim();
  return base ? base[0]!.toUpperCase() + base.slice(1) : 'Untitled';
};

/** Reads a page file's front matter and body; a file that cannot be read is skipped, with the reason. */
function readPageFile(data: Uint8Array, path: string, skipped: SpaceLayout['skipped']) {
  try {
    return splitPage(text(data));
  } catch (error) {
    skipped.push({ path, reason: `could not be read as Markdown (${(error as Error).message})` });
    return undefined;
  }
}

/** The front matter of a page file set on its page; keys Lectern has no field for are kept (in the file's order) so the export writes them back. */
function setFrontMatter(page: LayoutPage, meta: Record<string, unknown>) {
  for (const key of FRONT_MATTER_KEYS) {
    const value = meta[key];
    if (key === 'hidden' || key === 'noIndex' || key === 'noRobotsIndex') {
      if (value === true) page[key] = true;
    } else if (typeof value === 'string' && value) page[key] = value;
  }
  const order = Object.keys(meta);
  const extra = Object.fromEntries(order.filter((k) => !(FRONT_MATTER_KEYS as readonly string[]).includes(k)).map((k) => [k, meta[k]]));
  const canonical = FRONT_MATTER_KEYS.filter((k) => k in meta);
  if (Object.keys(extra).length || order.join() !== canonical.join()) page.frontMatter = { order, extra };
}

const byPath = ([a]: [string, unknown], [b]: [string, unknown]) => (a < b ? -1 : 1);

/** One read of a docs folder: its files (relative to the docs root) and the pages, includes and files found so far. */
class RepositoryReader {
  readonly skipped: SpaceLayout['skipped'] = [];
  readonly pages: LayoutPage[] = [];
  readonly pageByPath = new Map<string, LayoutPage>();
  readonly includes: LayoutInclude[] = [];
  readonly includePaths = new Map<string, LayoutInclude>();
  /** Paths read as a page, an include or the summary. */
  readonly used = new Set<string>();
  readonly slugs = new Map<string | null, Set<string>>();

  constructor(
    readonly files: Map<string, Uint8Array>,
    readonly config: GitBookConfig,
    readonly known: KnownIds,
  ) {}

  uniqueSlug(parent: string | null, base: string) {
    const taken = this.slugs.get(parent) ?? new Set<string>();
    this.slugs.set(parent, taken);
    let slug = base;
    for (let i = 1; taken.has(slug); i++) slug = `${base}-${i}`;
    taken.add(slug);
    return slug;
  }

  slugOfPath(path: string, title: string) {
    const name = posix.basename(path).replace(/\.md$/i, '');
    const dir = posix.basename(posix.dirname(path));
    if (name.toLowerCase() === 'readme') return slugify(dir && dir !== '.' ? dir : title);
    return slugify(name);
  }

  addPage(path: string, parent: string | null, summaryTitle?: string): LayoutPage | undefined {
    const { config, skipped } = this;
    const data = this.files.get(path);
    if (!data) {
      skipped.push({ path, reason: `listed in ${config.summary} but the file does not exist` });
      return undefined;
    }
    if (this.used.has(path)) {
      skipped.push({ path, reason: `listed more than once in ${config.summary}: only the first entry is a page` });
      return undefined;
    }
    this.used.add(path);
    const split = readPageFile(data, path, skipped);
    if (!split) return undefined;
    const { meta, body } = split;
    const title =
      summaryTitle ||
      (typeof meta.title === 'string' && meta.title.trim()) ||
      leadingHeading(body) ||
      titleFromName(posix.basename(path) === config.readme ? posix.basename(posix.dirname(path)) || 'Introduction' : posix.basename(path));
    const page: LayoutPage = {
      id: this.known.pages?.[path] ?? newId(),
      parent,
      type: 'document',
      title,
      slug: this.uniqueSlug(parent, this.slugOfPath(path, title)),
      markdown: body,
      path,
    };
    setFrontMatter(page, meta);
    this.pages.push(page);
    this.pageByPath.set(path, page);
    return page;
  }

  /** Reusable contents: .gitbook/includes/<slug>.md (never pages). */
  readIncludes() {
    for (const [path, data] of [...this.files].sort(byPath)) {
      const m = INCLUDE_FILE.exec(path);
      if (!m) continue;
      this.used.add(path);
      const split = readPageFile(data, path, this.skipped);
      if (!split) continue;
      const slug = m[1]!;
      const title = (typeof split.meta.title === 'string' && split.meta.title.trim()) || titleFromName(slug);
      const include: LayoutInclude = { id: this.known.includes?.[slug] ?? newId(), title, slug, markdown: split.body };
      this.includes.push(include);
      this.includePaths.set(path, include);
    }
  }

  /** The tree as SUMMARY.md lists it: groups, links and pages. */
  walkSummary(entries: SummaryEntry[], parent: string | null) {
    for (const entry of entries) {
      if (entry.kind === 'group') {
        const id = this.known.pages?.[`#group:${entry.title}`] ?? newId();
        this.pages.push({ id, parent, type: 'group', title: entry.title, slug: this.uniqueSlug(parent, slugify(entry.title)) });
        this.walkSummary(entry.children, id);
      } else if (entry.kind === 'link') {
        const id = this.known.pages?.[`#link:${entry.target}`] ?? newId();
        this.pages.push({
          id,
          parent,
          type: 'link',
          title: entry.title,
          slug: this.uniqueSlug(parent, slugify(entry.title)),
          href: entry.target,
        });
      } else {
        const page = this.addPage(entry.target!, parent, entry.title);
        this.walkSummary(entry.children, page?.id ?? parent);
      }
    }
  }

  /** No SUMMARY.md: the folders are the tree; a folder's README.md is its page. */
  walkFolders() {
    const mdFiles = [...this.files.keys()].filter((p) => /\.md$/i.test(p) && !this.used.has(p)).sort();
    const readmeOf = (dir: string) =>
      mdFiles.find((p) => posix.dirname(p) === (dir || '.') && posix.basename(p).toLowerCase() === this.config.readme.toLowerCase());
    const walkDir = (dir: string, parent: string | null) => {
      const here = mdFiles.filter((p) => posix.dirname(p) === (dir || '.'));
      const subdirs = [
        ...new Set(
          mdFiles
            .filter((p) => p.startsWith(dir ? `${dir}/` : '') && posix.dirname(p) !== (dir || '.'))
            .map((p) => p.slice(dir ? dir.length + 1 : 0).split('/')[0]!),
        ),
      ].sort();
      const readme = readmeOf(dir);
      if (readme && !dir) this.addPage(readme, parent);
      for (const file of here) if (file !== readme) this.addPage(file, parent);
      for (const sub of subdirs) {
        const path = dir ? `${dir}/${sub}` : sub;
        const subReadme = readmeOf(path);
        const page = subReadme ? this.addPage(subReadme, parent) : undefined;
        walkDir(path, page?.id ?? this.folderPage(sub, parent));
      }
    };
    walkDir('', null);
  }

  /** A folder without a README: a group at the top, an empty page below it. Returns its id. */
  folderPage(sub: string, parent: string | null): string {
    const id = this.known.pages?.[`#group:${sub}`] ?? newId();
    const type = parent === null ? 'group' : 'document';
    this.pages.push({
      id,
      parent,
      type,
      title: titleFromName(sub),
      slug: this.uniqueSlug(parent, slugify(sub)),
      ...(type === 'document' ? { markdown: '' } : {}),
    });
    return id;
  }

  /** The files no page or include was read from (Markdown left over is skipped): candidates for the space's files. */
  candidateFiles(hasSummary: boolean) {
    const candidates: LayoutFile[] = [];
    for (const [path, data] of [...this.files].sort(byPath)) {
      if (this.used.has(path)) continue;
      if (/\.md$/i.test(path)) {
        this.skipped.push({ path, reason: hasSummary ? `not listed in ${this.config.summary}` : 'not a page' });
        continue;
      }
      candidates.push({
        id: this.known.files?.[path] ?? newId(),
        name: posix.basename(path),
        contentType: contentTypeOf(path),
        data,
        path,
      });
    }
    return candidates;
  }

  /** Relative links of pages and includes → id references; returns the ids of the files they link to. */
  resolveLinks(fileByPath: Map<string, LayoutFile>): Set<string> {
    const referenced = new Set<string>();
    const sources: { markdown: string; path: string; set: (markdown: string) => void }[] = [
      ...this.pages
        .filter((p) => p.markdown !== undefined && p.path)
        .map((p) => ({ markdown: p.markdown!, path: p.path!, set: (m: string) => void (p.markdown = m) })),
      ...[...this.includePaths].map(([path, inc]) => ({ markdown: inc.markdown, path, set: (m: string) => void (inc.markdown = m) })),
    ];
    for (const source of sources) {
      const from = posix.dirname(source.path);
      source.set(
        rewriteLinks(source.markdown, (url) => {
          if (!url || SCHEME.test(url) || url.startsWith('#') || url.startsWith('//')) return undefined;
          const hash = url.indexOf('#');
          const anchor = hash >= 0 ? url.slice(hash) : '';
          const raw = safeDecode(hash >= 0 ? url.slice(0, hash) : url);
          if (!raw) return undefined;
          const target = normalize(raw.startsWith('/') ? raw.slice(1) : posix.join(from, raw));
          const toPage = this.pageByPath.get(target) ?? this.pageByPath.get(posix.join(target, this.config.readme));
          if (toPage) return `/pages/${toPage.id}${anchor}`;
          const toFile = fileByPath.get(target);
          if (toFile) {
            referenced.add(toFile.id);
            return `/files/${toFile.id}`;
          }
          return undefined;
        }),
      );
    }
    return referenced;
  }
}

/**
 * Reads a docs folder of a repository into pages and files. `files` holds the repository's files
 * (paths from its top); `folder` is the connected folder. Pages and files keep the ids `known` gives
 * their paths; the others get new ids.
 */
export function readRepository(repoFiles: RepoFile[], opts: { folder?: string; known?: KnownIds } = {}): SpaceLayout {
  const folder = normalize(opts.folder ?? '').replace(/^\.$/, '');
  const all = new Map(repoFiles.map((f) => [normalize(f.path), f.data]));
  const config = readConfig(all, folder);
  const prefix = config.root ? `${config.root}/` : '';
  // Paths from here on are relative to the docs root.
  const files = new Map<string, Uint8Array>();
  for (const [path, data] of all) if (!prefix || path.startsWith(prefix)) files.set(path.slice(prefix.length), data);
  files.delete('.gitbook.yaml');
  const reader = new RepositoryReader(files, config, opts.known ?? {});
  reader.readIncludes();
  const summary = files.get(config.summary);
  if (summary) {
    reader.used.add(config.summary);
    reader.walkSummary(parseSummary(text(summary)), null);
  } else {
    reader.walkFolders();
  }
  // Files: what the pages link to, and everything in .gitbook/assets (GitBook's folder for them);
  // the rest of the folder (a code repository's sources, say) is not the space's.
  const candidates = reader.candidateFiles(summary !== undefined);
  const referenced = reader.resolveLinks(new Map(candidates.map((f) => [f.path!, f])));
  const layoutFiles = candidates.filter((f) => referenced.has(f.id) || f.path!.startsWith(`${ASSETS}/`));
  const { pages, includes, skipped } = reader;
  return { config, pages, files: layoutFiles, ...(includes.length ? { includes } : {}), skipped };
}

// ---------------------------------------------------------------------------------------------
// Space → repository
// ---------------------------------------------------------------------------------------------

/** Where each page and file goes (relative to the docs root): its remembered path, else GitBook's. */
export function assignPaths(layout: Pick<SpaceLayout, 'config' | 'pages' | 'files' | 'includes'>): {
  pages: Map<string, string>;
  files: Map<string, string>;
} {
  const { config } = layout;
  const taken = new Set<string>([
    config.summary,
    '.gitbook.yaml',
    ...(layout.includes ?? []).map((i) => `${INCLUDES}/${i.slug}.md`.toLowerCase()),
  ]);
  const pagePaths = new Map<string, string>();
  const children = new Map<string | null, LayoutPage[]>();
  for (const p of layout.pages) children.set(p.parent, [...(children.get(p.parent) ?? []), p]);
  const claim = (path: string) => {
    let candidate = path;
    for (let i = 1; taken.has(candidate.toLowerCase()); i++) candidate = path.replace(/(\/README)?\.md$/i, (m) => `-${i}${m}`);
    taken.add(candidate.toLowerCase());
    return candidate;
  };
  // Remembered paths first, so derived ones step around them.
  for (const p of layout.pages) if (p.type === 'document' && p.path && !taken.has(p.path.toLowerCase())) pagePaths.set(p.id, claim(p.path));
  const firstDocument = layout.pages.find((p) => p.type === 'document');
  if (firstDocument && !pagePaths.has(firstDocument.id) && !taken.has(config.readme.toLowerCase()))
    pagePaths.set(firstDocument.id, claim(config.readme));
  const walk = (parent: string | null, dir: string) => {
    for (const page of children.get(parent) ?? []) {
      const kids = children.get(page.id) ?? [];
      if (page.type === 'group') {
        walk(page.id, posix.join(dir, page.slug));
        continue;
      }
      if (page.type !== 'document') continue;
      let path = pagePaths.get(page.id);
      if (!path) {
        path = claim(kids.length ? posix.join(dir, page.slug, config.readme) : posix.join(dir, `${page.slug}.md`));
        pagePaths.set(page.id, path);
      }
      const base =
        posix.basename(path).toLowerCase() === config.readme.toLowerCase() && posix.dirname(path) !== '.'
          ? posix.dirname(path)
          : posix.join(posix.dirname(path), page.slug);
      walk(page.id, base === '.' ? '' : base);
    }
  };
  walk(null, '');
  const filePaths = new Map<string, string>();
  for (const f of layout.files) {
    let path = f.path && !taken.has(f.path.toLowerCase()) ? f.path : posix.join(ASSETS, f.name);
    for (let i = 1; taken.has(path.toLowerCase()); i++)
      path = posix.join(
        ASSETS,
        f.name.replace(/(\.[^.]*)?$/, (ext) => ` (${i})${ext}`),
      );
    taken.add(path.toLowerCase());
    filePaths.set(f.id, path);
  }
  return { pages: pagePaths, files: filePaths };
}

function frontMatter(page: LayoutPage): string {
  const meta: Record<string, unknown> = {};
  const known = new Set<string>(FRONT_MATTER_KEYS);
  for (const key of page.frontMatter?.order ?? []) {
    const value = known.has(key) ? page[key as (typeof FRONT_MATTER_KEYS)[number]] : page.frontMatter!.extra[key];
    if (value !== undefined) meta[key] = value;
  }
  for (const key of FRONT_MATTER_KEYS) if (page[key] !== undefined && !(key in meta)) meta[key] = page[key];
  return Object.keys(meta).length ? `---\n${YAML.stringify(meta, { lineWidth: 0 })}---\n\n` : '';
}

const escapeTitle = (title: string) => title.replace(/([\\[\]])/g, '\\$1');

/** The repository files of a space's layout, paths from the repository's top (`folder` = where `.gitbook.yaml` goes). */
export function writeRepository(layout: SpaceLayout, opts: { folder?: string } = {}): RepoFile[] {
  const folder = normalize(opts.folder ?? '').replace(/^\.$/, '');
  const { config } = layout;
  const paths = assignPaths(layout);
  const encoder = new TextEncoder();
  const out: RepoFile[] = [];
  const root = config.root;
  const at = (p: string) => (root ? `${root}/${p}` : p);
  if (
    config.present ||
    root !== folder ||
    config.readme !== 'README.md' ||
    config.summary !== 'SUMMARY.md' ||
    Object.keys(config.redirects).length
  ) {
    out.push({ path: folder ? `${folder}/.gitbook.yaml` : '.gitbook.yaml', data: encoder.encode(writeConfig(config, folder)) });
  }
  // SUMMARY.md
  const children = new Map<string | null, LayoutPage[]>();
  for (const p of layout.pages) children.set(p.parent, [...(children.get(p.parent) ?? []), p]);
  const lines: string[] = ['# Table of contents', ''];
  const list = (parent: string | null, depth: number) => {
    for (const page of children.get(parent) ?? []) {
      if (page.type === 'group') continue;
      const target = page.type === 'link' ? page.href! : encodePath(paths.pages.get(page.id)!);
      lines.push(`${'  '.repeat(depth)}* [${escapeTitle(page.title)}](${target})`);
      list(page.id, depth + 1);
    }
  };
  const top = children.get(null) ?? [];
  let inGroup = false;
  let pendingTop: LayoutPage[] = [];
  const flushTop = () => {
    if (!pendingTop.length) return;
    for (const page of pendingTop) {
      const target = page.type === 'link' ? page.href! : encodePath(paths.pages.get(page.id)!);
      lines.push(`* [${escapeTitle(page.title)}](${target})`);
      list(page.id, 1);
    }
    lines.push('');
    pendingTop = [];
  };
  for (const page of top) {
    if (page.type !== 'group') {
      pendingTop.push(page);
      continue;
    }
    flushTop();
    inGroup = true;
    lines.push(`## ${page.title}`, '');
    list(page.id, 0);
    lines.push('');
  }
  flushTop();
  void inGroup;
  out.push({ path: at(config.summary), data: encoder.encode(`${lines.join('\n').replace(/\n+$/, '')}\n`) });
  // Pages and reusable contents: id references → relative links; includes → paths from where the page is.
  const slugs = new Set((layout.includes ?? []).map((i) => i.slug));
  const relativeBody = (markdown: string, path: string, stayed: boolean) => {
    const dir = posix.dirname(path);
    const body = rewriteLinks(markdown, (url) => {
      const m = url.match(/^\/(pages|files)\/([^/#]+)(#.*)?$/);
      if (!m) return undefined;
      const target = m[1] === 'pages' ? paths.pages.get(m[2]!) : paths.files.get(m[2]!);
      if (!target) return undefined;
      const rel = target === path ? posix.basename(path) : posix.relative(dir, target);
      return encodePath(rel) + (m[1] === 'pages' ? (m[3] ?? '') : '');
    });
    // A path that names the file from the page's folder stays as written, and so do all of a page
    // still where Git had it (some repositories write them from the docs root); else it is recomputed.
    return body.replace(INCLUDE_LINE, (line, open: string, written: string, slug: string, close: string) => {
      const file = `${INCLUDES}/${slug}.md`;
      if (!slugs.has(slug) || stayed || normalize(posix.join(dir, written)) === file) return line;
      return `${open}${posix.relative(dir, file)}${close}`;
    });
  };
  for (const page of layout.pages) {
    if (page.type !== 'document') continue;
    const path = paths.pages.get(page.id)!;
    out.push({ path: at(path), data: encoder.encode(frontMatter(page) + relativeBody(page.markdown ?? '', path, page.path === path)) });
  }
  for (const include of layout.includes ?? []) {
    const path = `${INCLUDES}/${include.slug}.md`;
    const head =
      include.title !== titleFromName(include.slug) ? `---\n${YAML.stringify({ title: include.title }, { lineWidth: 0 })}---\n\n` : '';
    out.push({ path: at(path), data: encoder.encode(head + relativeBody(include.markdown, path, true)) });
  }
  for (const file of layout.files) out.push({ path: at(paths.files.get(file.id)!), data: file.data });
  return out.sort((a, b) => (a.path < b.path ? -1 : 1));
}
