import { createHash } from 'node:crypto';
import type { Services } from '../../context.js';
import type { GitSyncConnection, Prisma } from '../../generated/prisma/client.js';
import { Content, ContentWriter, getBodies, putBody, type FileEntry, type PageEntry } from '../content/index.js';
import {
  DEFAULT_CONFIG,
  layoutPageFields,
  type GitBookConfig,
  type KnownIds,
  type LayoutPage,
  type SpaceLayout,
} from './repository-layout.js';
import type { ReadResult } from './tasks.js';

// Between a revision's content (the content module's store) and a layout (layout.ts: pages and files
// as a repository folder holds them), both ways, and the paths a sync remembers so ids survive it.
type Tx = Prisma.TransactionClient;

const blobHash = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

/** The content a read layout makes on top of `base` (pages replaced, ids and dates kept where they match). */
export async function contentFromLayout(tx: Tx, base: Content, read: ReadResult, now: string): Promise<string> {
  const { layout, links } = read;
  const writer = new ContentWriter(base);
  const old = new Map((await base.allPages()).map((p) => [p.id, p]));
  const keep = new Set(layout.pages.map((p) => p.id));
  for (const id of old.keys()) if (!keep.has(id)) await writer.remove(id);
  const docs = layout.pages.filter((p) => p.type === 'document');
  // One body at a time (content's face offers putBody; a batched putBodies there would save statements on big imports).
  const hashes: string[] = [];
  for (const p of docs) hashes.push(await putBody(tx, p.markdown ?? '', links[p.id] ?? []));
  const bodyOf = new Map(docs.map((p, i) => [p.id, hashes[i]!]));
  // Positions: a page keeps its position while the order allows it (fewer changes to merge).
  const lastAt = new Map<string | null, number>();
  for (const page of layout.pages) {
    const before = old.get(page.id);
    const prev = lastAt.get(page.parent) ?? -Infinity;
    const position =
      before && before.parent === page.parent && before.position > prev
        ? before.position
        : Number.isFinite(prev)
          ? Math.floor(prev) + 1
          : 0;
    lastAt.set(page.parent, position);
    const entry: PageEntry = {
      id: page.id,
      parent: page.parent,
      position,
      type: page.type,
      title: page.title,
      slug: page.slug,
      ...layoutPageFields(page),
      ...(before?.condition ? { condition: before.condition } : {}),
      ...(page.type === 'document' ? { body: bodyOf.get(page.id) } : {}),
      ...(page.type === 'link' ? { href: page.href } : {}),
      createdAt: before?.createdAt ?? now,
      updatedAt: now,
    };
    const unchanged = before && JSON.stringify({ ...before, updatedAt: '' }) === JSON.stringify({ ...entry, updatedAt: '' });
    await writer.put(unchanged ? before : entry);
  }
  const oldFiles = new Map((await base.files()).map((f) => [f.id, f]));
  const files: FileEntry[] = [];
  for (const file of layout.files) {
    const data = Buffer.from(file.data);
    const blob = blobHash(data);
    await tx.fileBlob.createMany({ data: [{ hash: blob, data, size: data.length }], skipDuplicates: true });
    const before = oldFiles.get(file.id);
    files.push(
      before && before.blob === blob && before.name === file.name
        ? before
        : { id: file.id, name: file.name, contentType: file.contentType, size: data.length, blob, createdAt: before?.createdAt ?? now },
    );
  }
  writer.setFiles(files);
  // Reusable contents (.gitbook/includes/<slug>.md): Git's list replaces the revision's; an unchanged one keeps its entry.
  const oldReusable = new Map((await base.reusableContents()).map((r) => [r.id, r]));
  const includes = read.layout.includes ?? [];
  const reusable = [];
  for (const inc of includes) {
    const body = await putBody(tx, inc.markdown, links[inc.id] ?? []);
    const before = oldReusable.get(inc.id);
    reusable.push(
      before && before.body === body && before.title === inc.title && before.slug === inc.slug
        ? before
        : { id: inc.id, title: inc.title, slug: inc.slug, body, createdAt: before?.createdAt ?? now, updatedAt: now },
    );
  }
  if (reusable.length || oldReusable.size) writer.setReusableContents(reusable);
  return writer.write(tx);
}

/** The paths of the last sync (the connection's `paths`). */
export const knownOf = (conn: GitSyncConnection): KnownIds => (conn.paths as KnownIds) ?? {};

/** A layout's pages and files by path (`assigned`: the paths a write gave those that had none). */
export function pathsOf(
  layout: Pick<SpaceLayout, 'pages' | 'files' | 'includes'>,
  assigned?: { pages: Map<string, string>; files: Map<string, string> },
): KnownIds {
  const pages: Record<string, string> = {};
  const files: Record<string, string> = {};
  for (const p of layout.pages) {
    const path = assigned?.pages.get(p.id) ?? p.path;
    if (path) pages[path] = p.id;
    else if (p.type === 'group') pages[`#group:${p.title}`] = p.id;
    else if (p.type === 'link') pages[`#link:${p.href}`] = p.id;
  }
  for (const f of layout.files) {
    const path = assigned?.files.get(f.id) ?? f.path;
    if (path) files[path] = f.id;
  }
  const includes = Object.fromEntries((layout.includes ?? []).map((i) => [i.slug, i.id]));
  const frontMatter = Object.fromEntries(layout.pages.filter((p) => p.frontMatter).map((p) => [p.id, p.frontMatter!]));
  return { pages, files, ...(layout.includes?.length ? { includes } : {}), ...(Object.keys(frontMatter).length ? { frontMatter } : {}) };
}

/** Main's content as a layout (paths remembered from the last sync). */
export function layoutOfMain(services: Services, conn: GitSyncConnection, manifest: string): Promise<SpaceLayout> {
  return layoutOfContent(
    services.db.prisma,
    manifest,
    knownOf(conn),
    (conn.config as unknown as GitBookConfig | null) ?? { ...DEFAULT_CONFIG, root: conn.folder },
  );
}

/** A revision's content as a layout: `known` gives pages and files their remembered paths (else GitBook's). */
export async function layoutOfContent(
  prisma: Services['db']['prisma'],
  manifest: string,
  known: KnownIds = {},
  config: GitBookConfig = DEFAULT_CONFIG,
): Promise<SpaceLayout> {
  const content = await Content.load(prisma, manifest);
  const entries = await content.allPages();
  const reusable = await content.reusableContents();
  const bodies = await getBodies(
    prisma,
    [...entries.map((e) => e.body), ...reusable.map((r) => r.body)].filter((b): b is string => !!b),
  );
  const byParent = new Map<string | null, PageEntry[]>();
  for (const e of entries) byParent.set(e.parent, [...(byParent.get(e.parent) ?? []), e]);
  const pathOf = new Map(Object.entries(known.pages ?? {}).map(([path, id]) => [id, path]));
  const filePathOf = new Map(Object.entries(known.files ?? {}).map(([path, id]) => [id, path]));
  const pages: LayoutPage[] = [];
  const walk = (parent: string | null) => {
    for (const e of (byParent.get(parent) ?? []).sort((a, b) => a.position - b.position || (a.id < b.id ? -1 : 1))) {
      if (e.type === 'computed') continue; // computed pages are Lectern's own: not files
      const path = pathOf.get(e.id);
      pages.push({
        id: e.id,
        parent: e.parent,
        type: e.type as LayoutPage['type'],
        title: e.title,
        slug: e.slug,
        ...(e.description ? { description: e.description } : {}),
        ...(e.icon ? { icon: e.icon } : {}),
        ...(e.emoji ? { emoji: e.emoji } : {}),
        ...(e.hidden ? { hidden: true } : {}),
        ...(e.noIndex ? { noIndex: true } : {}),
        ...(e.noRobotsIndex ? { noRobotsIndex: true } : {}),
        ...(e.type === 'document' ? { markdown: bodies.get(e.body!) ?? '' } : {}),
        ...(e.type === 'link' ? { href: e.href } : {}),
        ...(path && !path.startsWith('#') ? { path } : {}),
        ...(known.frontMatter?.[e.id] && e.type === 'document' ? { frontMatter: known.frontMatter[e.id] } : {}),
      });
      walk(e.id);
    }
  };
  walk(null);
  const files = await content.files();
  const blobs = await prisma.fileBlob.findMany({ where: { hash: { in: files.map((f) => f.blob) } } });
  const dataOf = new Map(blobs.map((b) => [b.hash, new Uint8Array(b.data)]));
  return {
    config,
    pages,
    files: files.map((f) => ({
      id: f.id,
      name: f.name,
      contentType: f.contentType,
      data: dataOf.get(f.blob) ?? new Uint8Array(),
      ...(filePathOf.get(f.id) ? { path: filePathOf.get(f.id) } : {}),
    })),
    ...(reusable.length
      ? {
          includes: [...reusable]
            .sort((a, b) => (a.slug < b.slug ? -1 : 1))
            .map((r) => ({ id: r.id, title: r.title, slug: r.slug, markdown: bodies.get(r.body) ?? '' })),
        }
      : {}),
    skipped: [],
  };
}
