import { createHash } from 'node:crypto';
import { badRequest, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import { byPosition, indexFor, placeAt } from '../../positions.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { parseMarkdownOffLoop, slugify, type ParsedMarkdown } from '../../document/index.js';
import { Content, ContentWriter, putBody, type FileEntry, type PageEntry, type PageType } from './store.js';
import { subtreeIds, uniqueSlug } from './tree.js';

/**
 * The write path (GitBook's later public API, which the seed leaves out): a batch of up to 50
 * changes applied atomically to a content, producing a new manifest. Positions are relative to a
 * sibling (`before`/`after`) or at the end.
 */
export const MAX_CHANGES = 50;
export const MAX_FILE_BYTES = 1024 * 1024;

export interface PagePosition {
  before?: string | null;
  after?: string | null;
}

export type ContentChange =
  | { type: 'insert_page'; title?: string; parent?: string | null; position?: PagePosition | null; pageType?: PageType; markdown?: string; href?: string; emoji?: string; description?: string; hidden?: boolean }
  | { type: 'update_page'; page: string; title?: string; parent?: string | null; position?: PagePosition | null; markdown?: string; href?: string; emoji?: string | null; description?: string | null; hidden?: boolean }
  | { type: 'delete_page'; page: string }
  | { type: 'revert_page'; page: string }
  | { type: 'insert_files'; files: { name: string; contentType?: string; data: string }[] }
  | { type: 'update_variables'; variables: Record<string, string | null> };

export interface AppliedChanges {
  /** Ids of the pages inserted, in the order of the insert_page changes. */
  insertedPages: string[];
  insertedFiles: string[];
}

type Db = Prisma.TransactionClient;

const FRONT_MATTER_FIELDS = ['title', 'description', 'emoji', 'hidden'] as const;

/** Strict base64: groups of four, padding only at the end (unpadded tails of 2 or 3 allowed). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;
/** A media type without parameters (`image/png`): it becomes a response header when downloaded. */
const MEDIA_TYPE = /^[\w.+-]+\/[\w.+-]+$/;
/** Variable names as `{{ variables.name }}` expressions reference them. */
const VARIABLE_NAME = /^[\w-]{1,100}$/;

/** The id of the page a change acts on: a non-empty string, else a 400 naming the field. */
function pageIdOf(change: { page?: unknown }, field: string): string {
  if (typeof change.page !== 'string' || !change.page) throw badRequest(`${field}.page`, 'is required (a page id)');
  return change.page;
}

/** Reads a markdown body: its front matter may set title/description/emoji/hidden. */
async function readMarkdown(field: string, markdown: string) {
  let parsed: Pick<ParsedMarkdown, 'body' | 'links' | 'frontMatter' | 'unsafeLinks'>;
  try {
    // Large bodies parse in a worker thread (src/document/markdown-offload.ts): the event loop serves others meanwhile.
    parsed = await parseMarkdownOffLoop(markdown, ['body', 'links', 'frontMatter', 'unsafeLinks']);
  } catch (error) {
    // Only the parser's own refusals (size, nesting, front matter) are the writer's to fix; any
    // other error is a bug and must not hand its internal message out as a 400.
    const message = error instanceof Error ? error.message : '';
    if (!message.startsWith('markdown: ')) throw error;
    throw badRequest(field, message.replace(/^markdown: /, ''));
  }
  // Refused rather than silently rewritten: the writer learns which link to fix, and the stored
  // text stays what they sent. Bodies stored before this check (or arriving by import or merge)
  // are neutralized when read instead: such links become their text (markdown.ts, unsafeUrl).
  const unsafe = parsed.unsafeLinks[0];
  if (unsafe) {
    const shown = unsafe.href.length > 80 ? `${unsafe.href.slice(0, 80)}…` : unsafe.href;
    throw badRequest(field, `link ${JSON.stringify(shown)} uses a scheme that is not allowed (javascript:, vbscript: and data: are refused; http(s), mailto and relative links are fine)`);
  }
  const meta: Partial<Record<(typeof FRONT_MATTER_FIELDS)[number], unknown>> = {};
  for (const key of FRONT_MATTER_FIELDS) if (key in parsed.frontMatter) meta[key] = parsed.frontMatter[key];
  return { body: parsed.body, links: parsed.links, meta };
}

/**
 * The position for a page placed among `siblings` (before/after one of them, or at the end). Pages
 * renumbered to make room (only when repeated inserts at one place used up the gap) are written
 * with their new position alone: their content and `updatedAt` stay, as nobody edited them.
 */
async function placeAmong(writer: ContentWriter, siblings: PageEntry[], position: PagePosition | null | undefined, field: string): Promise<number> {
  const sorted = [...siblings].sort(byPosition);
  const anchor = position?.before ?? position?.after;
  const index = indexFor(sorted, anchor ? { after: !position?.before, matches: (s) => s.id === anchor } : null);
  if (index < 0) throw badRequest(`${field}.position`, `page ${anchor} is not a sibling at the target place`);
  const { position: placed, renumber } = placeAt(sorted, index);
  for (const { item, position: moved } of renumber) await writer.put({ ...item, position: moved });
  return placed;
}

/**
 * Applies `changes` on top of `base`; `revertTo` is the content `revert_page` restores pages from
 * (the change request's merged ancestor). Returns the new manifest hash (null when nothing changed).
 */
export async function applyChanges(db: Db, base: Content, changes: ContentChange[], revertTo: Content, now = new Date()): Promise<{ manifest: string | null } & AppliedChanges> {
  if (!Array.isArray(changes) || changes.length === 0) throw badRequest('changes', 'must hold at least one change');
  if (changes.length > MAX_CHANGES) throw badRequest('changes', `at most ${MAX_CHANGES} changes per request`);
  const writer = new ContentWriter(base);
  const at = now.toISOString();
  const result: AppliedChanges = { insertedPages: [], insertedFiles: [] };
  const variables = { ...base.manifest.variables };
  // The tree is needed for parents, siblings and subtrees: load it once for the batch.
  let pages = await writer.allPages();
  const refresh = async () => (pages = await writer.allPages());
  const siblingsOf = (parent: string | null, except?: string) => pages.filter((p) => p.parent === parent && p.id !== except);
  const requireParent = (parent: string | null | undefined, field: string) => {
    if (parent && !pages.some((p) => p.id === parent)) throw badRequest(`${field}.parent`, `page ${parent} does not exist`);
    const p = parent ? pages.find((x) => x.id === parent) : undefined;
    if (p && p.type === 'link') throw badRequest(`${field}.parent`, 'a link page cannot have child pages');
    return parent ?? null;
  };

  for (const [i, change] of changes.entries()) {
    const field = `changes[${i}]`;
    switch (change?.type) {
      case 'insert_page': {
        const type: PageType = change.pageType ?? 'document';
        if (!['document', 'group', 'link'].includes(type)) throw badRequest(`${field}.pageType`, 'must be document, group or link');
        const md = change.markdown !== undefined ? await readMarkdown(`${field}.markdown`, change.markdown) : undefined;
        const title = String(change.title ?? md?.meta.title ?? '').trim();
        if (!title) throw badRequest(`${field}.title`, 'is required (or give a title in the front matter)');
        if (type === 'link' && !change.href) throw badRequest(`${field}.href`, 'is required for a link page');
        const parent = requireParent(change.parent, field);
        if (type === 'group' && parent) throw badRequest(`${field}.parent`, 'group pages are only at the top level');
        const id = newId();
        const entry: PageEntry = {
          id,
          parent,
          position: await placeAmong(writer, siblingsOf(parent), change.position, field),
          type,
          title,
          slug: uniqueSlug(slugify(title), siblingsOf(parent)),
          ...(change.emoji ?? md?.meta.emoji ? { emoji: String(change.emoji ?? md?.meta.emoji) } : {}),
          ...(change.description ?? md?.meta.description ? { description: String(change.description ?? md?.meta.description) } : {}),
          ...(change.hidden ?? md?.meta.hidden ? { hidden: Boolean(change.hidden ?? md?.meta.hidden) } : {}),
          ...(type === 'document' ? { body: await putBody(db, md?.body ?? '', md?.links ?? []) } : {}),
          ...(type === 'link' ? { href: change.href } : {}),
          createdAt: at,
          updatedAt: at,
        };
        await writer.put(entry);
        result.insertedPages.push(id);
        break;
      }
      case 'update_page': {
        const current = await writer.get(pageIdOf(change, field));
        if (!current) throw notFound(`Page ${change.page}`);
        const next: PageEntry = { ...current, updatedAt: at };
        const md = change.markdown !== undefined ? await readMarkdown(`${field}.markdown`, change.markdown) : undefined;
        if (md && current.type !== 'document') throw badRequest(`${field}.markdown`, `a ${current.type} page has no body`);
        if (md) next.body = await putBody(db, md.body, md.links);
        const title = change.title ?? (md?.meta.title as string | undefined);
        if (title !== undefined) {
          if (!String(title).trim()) throw badRequest(`${field}.title`, 'cannot be empty');
          next.title = String(title).trim();
        }
        if (change.parent !== undefined || change.position) {
          const parent = change.parent === undefined ? current.parent : requireParent(change.parent, field);
          if (parent && subtreeIds(pages, current.id).has(parent)) throw badRequest(`${field}.parent`, 'cannot move a page below itself');
          if (parent && current.type === 'group') throw badRequest(`${field}.parent`, 'group pages are only at the top level');
          next.parent = parent;
          next.position = await placeAmong(writer, siblingsOf(parent, current.id), change.position, field);
        }
        // The slug follows the title, and stays unique where the page now sits.
        if (next.title !== current.title || next.parent !== current.parent) next.slug = uniqueSlug(slugify(next.title), siblingsOf(next.parent, current.id), current.id);
        for (const key of ['emoji', 'description'] as const) {
          const value = change[key] !== undefined ? change[key] : md?.meta[key];
          if (value === null) delete next[key];
          else if (value !== undefined) next[key] = String(value);
        }
        const hidden = change.hidden ?? md?.meta.hidden;
        if (hidden !== undefined) next.hidden = Boolean(hidden);
        if (change.href !== undefined) {
          if (current.type !== 'link') throw badRequest(`${field}.href`, 'only link pages have a target');
          next.href = change.href;
        }
        await writer.put(next);
        break;
      }
      case 'delete_page': {
        if (!(await writer.get(pageIdOf(change, field)))) throw notFound(`Page ${change.page}`);
        for (const id of subtreeIds(pages, change.page)) await writer.remove(id);
        break;
      }
      case 'revert_page': {
        const original = await revertTo.page(pageIdOf(change, field));
        const current = await writer.get(change.page);
        if (!original && !current) throw notFound(`Page ${change.page}`);
        if (!original) for (const id of subtreeIds(pages, change.page)) await writer.remove(id);
        else {
          if (original.parent && !pages.some((p) => p.id === original.parent)) {
            throw badRequest(`${field}.page`, 'its original parent no longer exists; move it first');
          }
          // Its old slug may have been taken by a sibling since: keep slugs unique among siblings.
          await writer.put({ ...original, slug: uniqueSlug(original.slug, siblingsOf(original.parent, original.id), original.id) });
        }
        break;
      }
      case 'insert_files': {
        if (!Array.isArray(change.files) || !change.files.length) throw badRequest(`${field}.files`, 'must hold at least one file');
        const files: FileEntry[] = [...(await writer.getFiles())];
        for (const [j, file] of change.files.entries()) {
          const at2 = `${field}.files[${j}]`;
          if (!file?.name || typeof file.name !== 'string') throw badRequest(`${at2}.name`, 'is required');
          if (file.contentType !== undefined && (typeof file.contentType !== 'string' || !MEDIA_TYPE.test(file.contentType))) {
            throw badRequest(`${at2}.contentType`, 'must be a media type such as image/png');
          }
          if (typeof file.data !== 'string') throw badRequest(`${at2}.data`, 'must be base64');
          // Refuse an oversized upload before decoding it.
          if (file.data.length > Math.ceil(MAX_FILE_BYTES / 3) * 4) throw badRequest(`${at2}.data`, `files are limited to ${MAX_FILE_BYTES} bytes`);
          if (!BASE64.test(file.data)) throw badRequest(`${at2}.data`, 'must be base64');
          const bytes = Buffer.from(file.data, 'base64');
          if (bytes.length > MAX_FILE_BYTES) throw badRequest(`${at2}.data`, `files are limited to ${MAX_FILE_BYTES} bytes`);
          const blob = createHash('sha256').update(bytes).digest('hex');
          await db.fileBlob.createMany({ data: [{ hash: blob, data: bytes, size: bytes.length }], skipDuplicates: true });
          const id = newId();
          files.push({ id, name: file.name, contentType: file.contentType || 'application/octet-stream', size: bytes.length, blob, createdAt: at });
          result.insertedFiles.push(id);
        }
        writer.setFiles(files);
        break;
      }
      case 'update_variables': {
        const vars = change.variables as unknown;
        if (!vars || typeof vars !== 'object' || Array.isArray(vars)) throw badRequest(`${field}.variables`, 'must be an object of name to string (null removes one)');
        for (const [name, value] of Object.entries(vars)) {
          if (!VARIABLE_NAME.test(name)) throw badRequest(`${field}.variables.${name}`, 'a name is 1 to 100 letters, digits, _ or -');
          if (value === null) delete variables[name];
          else if (typeof value === 'string') variables[name] = value;
          else throw badRequest(`${field}.variables.${name}`, 'must be a string or null');
        }
        writer.setVariables({ ...variables });
        break;
      }
      default:
        throw badRequest(`${field}.type`, 'must be insert_page, update_page, delete_page, revert_page, insert_files or update_variables');
    }
    await refresh();
  }
  return { manifest: writer.changed ? await writer.write(db) : null, ...result };
}
