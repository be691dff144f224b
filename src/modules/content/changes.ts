import { createHash } from 'node:crypto';
import { badRequest, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import { byPosition, placeAt } from '../../positions.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { jsonDocumentToMarkdown, parseMarkdownOffLoop, slugify, type ParsedMarkdown } from '../../document/index.js';
import { checkComputedSource } from './computed-pages.js';
import {
  applyReusableContentChange,
  REUSABLE_CONTENT_FIELDS,
  REUSABLE_CONTENT_OPERATIONS,
  type ReusableContentChange,
} from './reusable-contents.js';
import { type Content, ContentWriter, putBody, sameJson, type FileEntry, type PageEntry, type PageType } from './store.js';
import { subtreeIds, uniqueSlug } from './tree.js';
import { isObject } from '../../validate.js';

/**
 * The write path, as GitBook's `updateChangeRequestContent` (@gitbook/api 0.202.0): a batch of up
 * to 50 changes, each with an `operation`, applied in order and atomically to a content, producing
 * one new manifest. Lectern additions: insert_page `type` (document, group, link) and `href` (link
 * pages), update_page `href`, and the `update_variables` operation. A field that is neither the
 * official schema's nor one of these is refused (400 naming it), never dropped.
 */
export const MAX_CHANGES = 50;
export const MAX_FILES_PER_CHANGE = 20;
export const MAX_FILE_BYTES = 1024 * 1024;

/** Page metadata of the official RevisionPageUpdate: the page entry's own fields, each optional. */
export type PageFields = Partial<
  Pick<PageEntry, 'title' | 'slug' | 'emoji' | 'icon' | 'description' | 'hidden' | 'noIndex' | 'noRobotsIndex' | 'condition'>
>;

/** `{ markdown }`, `{ document: JSONDocument }`, a bare JSONDocument (Lectern accepts it too) or `{}` (empty). */
export type DocumentInput = { markdown: string } | { document: unknown } | Record<string, unknown>;

export interface FileInput {
  name: string;
  contentType?: string;
  ref?: string;
  base64?: string;
  url?: string;
}

export type ContentChange =
  | ({
      operation: 'insert_page';
      document?: DocumentInput;
      into?: string | null;
      at?: number;
      ref?: string;
      type?: PageType;
      href?: string;
    } & PageFields)
  | ({ operation: 'update_page'; page: string; document?: DocumentInput; into?: string | null; at?: number; href?: string } & PageFields)
  | { operation: 'delete_page'; page: string }
  | { operation: 'revert_page'; page: string; revision?: string; block?: string[] }
  | { operation: 'insert_files'; files: FileInput[] }
  | { operation: 'update_variables'; variables: Record<string, string | null> }
  | ReusableContentChange;

export type Operation = ContentChange['operation'];
export const OPERATIONS: Operation[] = [
  'insert_page',
  'update_page',
  'delete_page',
  'revert_page',
  'insert_files',
  'update_variables',
  ...REUSABLE_CONTENT_OPERATIONS,
];

const PAGE_FIELDS = ['title', 'slug', 'emoji', 'icon', 'description', 'hidden', 'noIndex', 'noRobotsIndex', 'condition'];
/** The fields each operation takes: the official ones, plus Lectern's `type`/`href`. */
const FIELDS: Record<Operation, Set<string>> = {
  insert_page: new Set(['operation', 'document', 'into', 'at', 'ref', 'type', 'href', 'computed', ...PAGE_FIELDS]),
  update_page: new Set(['operation', 'page', 'document', 'into', 'at', 'href', ...PAGE_FIELDS]),
  delete_page: new Set(['operation', 'page']),
  revert_page: new Set(['operation', 'page', 'revision', 'block']),
  insert_files: new Set(['operation', 'files']),
  update_variables: new Set(['operation', 'variables']),
  ...REUSABLE_CONTENT_FIELDS,
};
const FILE_FIELDS = new Set(['name', 'contentType', 'ref', 'base64', 'url']);

/** What a batch did, in the official ChangeRequestContentUpdate's terms. */
export type ChangeOutcome =
  | { object: 'created_page'; page: string; ref?: string }
  | { object: 'updated_page'; page: string }
  | { object: 'deleted_page'; page: string };

export interface AppliedChanges {
  /** One entry per affected page, in the order the batch first touched it. */
  changes: ChangeOutcome[];
  /** The files inserted, in order. */
  insertedFiles: FileEntry[];
}

/** A file fetched from its `url` before the transaction (see `fetchFileSources`). */
export interface FetchedSource {
  bytes: Buffer;
  contentType: string | null;
}
export type FetchedSources = Map<string, FetchedSource>;

export interface ApplyOptions {
  /** The content `revert_page` restores from when it names no revision (a change request's base). */
  revertTo: Content;
  /** A revision of this space by id (undefined when there is none): `revert_page` with `revision`. */
  revisionContent: (id: string) => Promise<Content | undefined>;
  /** Files given by `url`, fetched beforehand, keyed `i/j` (change, file). */
  fetched?: FetchedSources;
  now?: Date;
}

type Db = Prisma.TransactionClient;

const FRONT_MATTER_FIELDS = ['title', 'description', 'emoji', 'icon', 'hidden', 'noIndex', 'noRobotsIndex'] as const;
type FrontMatter = Partial<Record<(typeof FRONT_MATTER_FIELDS)[number], unknown>>;

/** Strict base64: groups of four, padding only at the end (unpadded tails of 2 or 3 allowed). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;
/** A media type (`image/png`), parameters dropped: it becomes a response header when downloaded. */
const MEDIA_TYPE = /^[\w.+-]+\/[\w.+-]+$/;
/** Variable names as `{{ variables.name }}` expressions reference them. */
const VARIABLE_NAME = /^[\w-]{1,100}$/;
/** The title a page gets when none can be found (field, front matter, leading heading). */
export const DEFAULT_TITLE = 'Untitled';

/** Refuses a field the operation does not take, naming it (`changes[0].markdown`). */
function checkFields(change: Record<string, unknown>, allowed: Set<string>, field: string, what: string) {
  for (const key of Object.keys(change)) {
    if (change[key] !== undefined && !allowed.has(key))
      throw badRequest(`${field}.${key}`, `is not a field of ${what} (fields: ${[...allowed].join(', ')})`);
  }
}

function optionalString(value: unknown, field: string, max?: number): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw badRequest(field, 'must be a string');
  if (max !== undefined && value.length > max) throw badRequest(field, `must be at most ${max} characters`);
  return value;
}

function optionalBoolean(value: unknown, field: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw badRequest(field, 'must be true or false');
  return value;
}

/** Parses a Markdown body: its front matter may set the page's metadata. */
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
    throw badRequest(
      field,
      `link ${JSON.stringify(shown)} uses a scheme that is not allowed (javascript:, vbscript: and data: are refused; http(s), mailto and relative links are fine)`,
    );
  }
  const meta: FrontMatter = {};
  for (const key of FRONT_MATTER_FIELDS) if (key in parsed.frontMatter) meta[key] = parsed.frontMatter[key];
  return { body: parsed.body, links: parsed.links, meta, heading: leadingHeading(parsed.body) };
}

/** The text of a body's leading `# heading` (its inline Markdown reduced to text), if it starts with one. */
function leadingHeading(body: string): string | undefined {
  const line = body.replace(/^\s*\n/, '').match(/^ {0,3}#[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*(?:\n|$)/)?.[1];
  if (!line) return undefined;
  const text = line
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_`~]/g, '')
    .trim();
  return text || undefined;
}

/**
 * Replaces Markdown links to a batch-local ref (`./<ref>.md`, `./<ref>`, `/pages/<ref>`, with an
 * optional `#anchor` and title) by the id they stand for: `/pages/<id>` for a page, `/files/<id>`
 * for a file. Inline links, images and reference definitions are rewritten; code is not parsed
 * here, so a code span spelling such a link exactly is rewritten too (rare, and harmless).
 */
function resolveRefs(markdown: string, refs: Map<string, { kind: 'page' | 'file'; id: string }>): string {
  if (!refs.size) return markdown;
  const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const names = [...refs.keys()]
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp)
    .join('|');
  const target = `(?:\\./|/pages/)?(${names})(?:\\.md)?(#[^\\s)>]*)?`;
  const replace = (ref: string, anchor: string | undefined) => {
    const to = refs.get(ref)!;
    return `/${to.kind === 'page' ? 'pages' : 'files'}/${to.id}${anchor ?? ''}`;
  };
  // Only `./ref`, `/pages/ref` and a bare `ref.md` are refs: a bare `ref` could be a relative page path.
  const isRefForm = (whole: string) => whole.startsWith('./') || whole.startsWith('/pages/') || /\.md(#|$)/.test(whole);
  const inline = new RegExp(`(\\]\\(\\s*<?)(${target})(>?(?:\\s+(?:"[^"]*"|'[^']*'))?\\s*\\))`, 'g');
  const definition = new RegExp(`^( {0,3}\\[[^\\]]+\\]:\\s*<?)(${target})(>?(?:\\s+.*)?)$`, 'gm');
  const rewrite = (m: string, open: string, whole: string, ref: string, anchor: string | undefined, close: string) =>
    isRefForm(whole) ? `${open}${replace(ref, anchor)}${close}` : m;
  return markdown.replace(inline, rewrite).replace(definition, rewrite);
}

/** The Markdown of a change's `document`, or undefined when it has none. */
async function documentMarkdown(document: unknown, field: string): Promise<string | undefined> {
  if (document === undefined || document === null) return undefined;
  if (!isObject(document)) throw badRequest(field, 'must be { markdown } or { document: JSONDocument }');
  if ('markdown' in document) {
    checkFields(document, new Set(['markdown']), field, 'a Markdown document');
    if (typeof document.markdown !== 'string') throw badRequest(`${field}.markdown`, 'must be a string');
    return document.markdown;
  }
  if ('document' in document) {
    checkFields(document, new Set(['document']), field, 'a JSON document');
    return jsonDocumentToMarkdown(document.document, `${field}.document`);
  }
  // A bare JSONDocument (`{ object: 'document', nodes }`): Lectern takes it as `{ document: … }`.
  if (document.object === 'document') return jsonDocumentToMarkdown(document, field);
  checkFields(document, new Set(), field, 'a document ({ markdown } or { document: JSONDocument })');
  return ''; // `{}`: the official "Empty" document
}

/** A slug given explicitly: one path segment, in lower case (paths are matched case-insensitively). */
function explicitSlug(value: unknown, field: string): string | undefined {
  const slug = optionalString(value, field, 100);
  if (slug === undefined || slug === '') return undefined; // '' (allowed by the schema): derived from the title
  if (!/^[\p{Ll}\p{Lo}\p{M}\p{N}._~-]+$/u.test(slug))
    throw badRequest(field, 'must be lower-case letters, digits, ".", "_", "~" or "-" (one path segment)');
  return slug;
}

/** Files fetched at once for one batch, and the time all of a batch's fetches may take together. */
const FETCH_CONCURRENCY = 4;
export const FETCH_BUDGET_MS = 60_000;

/**
 * Fetches the files of `insert_files` changes given by `url`, before the batch's transaction (a
 * slow server must not hold a database connection), a few at a time and within FETCH_BUDGET_MS
 * for the whole batch. `fetch` is the one outbound guard's fetcher (public http(s) addresses
 * only, size- and time-limited); its refusal is a 400 naming the url.
 */
export async function fetchFileSources(
  changes: unknown,
  fetch: (url: string, maxBytes: number, deadline: number) => Promise<FetchedSource>,
): Promise<FetchedSources> {
  const fetched: FetchedSources = new Map();
  if (!Array.isArray(changes)) return fetched;
  const wanted: { key: string; url: string; field: string }[] = [];
  changes.forEach((change, i) => {
    if (!isObject(change) || change.operation !== 'insert_files' || !Array.isArray(change.files)) return;
    change.files.forEach((file, j) => {
      if (!isObject(file) || typeof file.url !== 'string' || file.base64 !== undefined) return;
      const field = `changes[${i}].files[${j}].url`;
      if (file.url.length > 2048) throw badRequest(field, 'must be at most 2048 characters');
      wanted.push({ key: `${i}/${j}`, url: file.url, field });
    });
  });
  const deadline = Date.now() + FETCH_BUDGET_MS;
  let next = 0;
  let failure: unknown;
  // A few workers take the files in batch order; after a refusal no new fetch starts, and every
  // started one settles before answering (none outlives the request).
  const worker = async () => {
    while (next < wanted.length && failure === undefined) {
      const item = wanted[next++]!;
      try {
        fetched.set(item.key, await fetch(item.url, MAX_FILE_BYTES, deadline));
      } catch (error) {
        failure ??= badRequest(item.field, `could not be fetched: ${(error as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(FETCH_CONCURRENCY, wanted.length) }, worker));
  if (failure !== undefined) throw failure;
  return fetched;
}

/** Sets the page fields of an insert or update on `entry` (explicit fields win over the front matter). */
function setFields(entry: PageEntry, change: Record<string, unknown>, meta: FrontMatter, field: string) {
  const pick = (key: (typeof FRONT_MATTER_FIELDS)[number] | 'condition') =>
    change[key] !== undefined
      ? { value: change[key], at: `${field}.${key}` }
      : { value: (meta as Record<string, unknown>)[key], at: `${field}.document` };
  for (const key of ['emoji', 'icon', 'condition'] as const) {
    const { value, at: where } = pick(key);
    const text = optionalString(value, where, key === 'condition' ? 1000 : 50);
    if (value === null || text === '')
      delete entry[key]; // an empty string (or null) removes it
    else if (text !== undefined) entry[key] = text;
  }
  const { value: description, at: where } = pick('description');
  const text = optionalString(description, where, 1000);
  if (description === null || text === '') delete entry.description;
  else if (text !== undefined) entry.description = text;
  for (const key of ['hidden', 'noIndex', 'noRobotsIndex'] as const) {
    const { value, at: whereFlag } = pick(key);
    const flag = optionalBoolean(value, whereFlag);
    if (flag === true) entry[key] = true;
    else if (flag === false) delete entry[key];
  }
}

/** A slug unique among `siblings`: an explicit one must be free (400), a derived one gets a suffix. */
function slugFor(explicit: string | undefined, title: string, siblings: PageEntry[], selfId: string, field: string) {
  if (explicit === undefined) return uniqueSlug(slugify(title), siblings, selfId);
  if (siblings.some((s) => s.id !== selfId && s.slug === explicit))
    throw badRequest(field, `"${explicit}" is already the slug of a sibling page`);
  return explicit;
}

/** An insert_page's type, checked with the `computed` source that only computed pages have. */
function insertedPageType(change: Record<string, any>, field: string): PageType {
  const type = (change.type ?? 'document') as PageType;
  if (!['document', 'group', 'link', 'computed'].includes(type))
    throw badRequest(`${field}.type`, 'must be document, group, link or computed');
  // Lectern addition: a computed page (type computed) takes its source in `computed` (computed-pages.ts).
  if ((type === 'computed') !== (change.computed !== undefined))
    throw badRequest(`${field}.computed`, type === 'computed' ? 'is required for a computed page' : 'only computed pages have a source');
  return type;
}

/** An inserted page's title: the field, else the front matter, else the body's leading `# heading` (the body is kept as sent). */
function insertedPageTitle(change: Record<string, any>, md: { meta: FrontMatter; heading?: string } | undefined, field: string) {
  const givenTitle = optionalString(change.title, `${field}.title`, 250);
  if (givenTitle !== undefined && !givenTitle.trim()) throw badRequest(`${field}.title`, 'cannot be empty');
  const fmTitle = md?.meta.title;
  if (fmTitle !== undefined && typeof fmTitle !== 'string') throw badRequest(`${field}.document`, 'front matter title must be a string');
  return (givenTitle ?? (fmTitle?.trim() || undefined) ?? md?.heading ?? DEFAULT_TITLE).trim();
}

/** The content type given for a file, parameters dropped, checked as a media type. */
function fileContentType(file: Record<string, unknown>, at: string): string | undefined {
  const contentType = optionalString(file.contentType, `${at}.contentType`, 200)?.split(';')[0]?.trim().toLowerCase();
  if (contentType !== undefined && !MEDIA_TYPE.test(contentType))
    throw badRequest(`${at}.contentType`, 'must be a media type such as image/png');
  return contentType;
}

/** A file's bytes from its base64 (decoded here) or its url (fetched before the transaction), and its type. */
function fileBytes(file: Record<string, unknown>, contentType: string | undefined, source: FetchedSource | undefined, at: string) {
  if (file.base64 !== undefined) {
    if (typeof file.base64 !== 'string') throw badRequest(`${at}.base64`, 'must be base64');
    if (!contentType) throw badRequest(`${at}.contentType`, 'is required with base64');
    // Refuse an oversized upload before decoding it.
    if (file.base64.length > Math.ceil(MAX_FILE_BYTES / 3) * 4)
      throw badRequest(`${at}.base64`, `files are limited to ${MAX_FILE_BYTES} bytes`);
    if (!BASE64.test(file.base64)) throw badRequest(`${at}.base64`, 'must be base64');
    return { bytes: Buffer.from(file.base64, 'base64'), type: contentType };
  }
  if (!source) throw badRequest(`${at}.url`, 'must be a public http(s) URL');
  const sourceType = source.contentType?.split(';')[0]?.trim().toLowerCase();
  return { bytes: Buffer.from(source.bytes), type: contentType ?? (sourceType && MEDIA_TYPE.test(sourceType) ? sourceType : undefined) };
}

type Ref = { kind: 'page' | 'file'; id: string };

/**
 * One batch being applied: the content being written, the page tree as it stands after the
 * changes so far, the refs the batch claimed, and what it did to which pages and files.
 */
class ChangeBatch {
  readonly writer: ContentWriter;
  readonly at: string;
  readonly variables: Record<string, string>;
  /** The tree is needed for parents, siblings and subtrees: loaded once, refreshed after each change. */
  pages: PageEntry[] = [];
  readonly refs = new Map<string, Ref>();
  /** Ids claimed by refs: insert_page by change index, files by `i/j` (change, file). */
  readonly presetIds = new Map<number, string>();
  readonly presetFileIds = new Map<string, string>();
  /** Outcomes, deduplicated by page in first-touched order (a page created then edited is "created"). */
  readonly outcomes = new Map<string, ChangeOutcome>();
  readonly insertedFiles: FileEntry[] = [];

  constructor(
    readonly db: Db,
    base: Content,
    readonly opts: ApplyOptions,
  ) {
    this.writer = new ContentWriter(base);
    this.at = (opts.now ?? new Date()).toISOString();
    this.variables = { ...base.manifest.variables };
  }

  async refresh() {
    this.pages = await this.writer.allPages();
  }

  siblingsOf(parent: string | null, except?: string) {
    return this.pages.filter((p) => p.parent === parent && p.id !== except).sort(byPosition);
  }

  /**
   * Refs first: a page or file may be linked (or a page used as `into`/`page`) by its ref from
   * anywhere in the batch, so each ref gets its id before any change is applied.
   */
  claimRefs(changes: unknown[]) {
    const paths = new Set(buildPaths(this.pages));
    const claimRef = (ref: unknown, kind: 'page' | 'file', field: string) => {
      if (ref === undefined || ref === null) return undefined;
      if (typeof ref !== 'string' || !ref.trim()) throw badRequest(field, 'must be a non-empty string');
      if (this.refs.has(ref)) throw badRequest(field, `"${ref}" is used twice in this batch: a ref must be unique`);
      if (paths.has(ref.replace(/\.md$/i, '').toLowerCase()))
        throw badRequest(field, `"${ref}" is the path of an existing page: choose another ref`);
      const id = newId();
      this.refs.set(ref, { kind, id });
      return id;
    };
    for (const [i, change] of changes.entries()) {
      const c = change as Record<string, unknown> | undefined;
      if (c?.operation === 'insert_page') {
        const id = claimRef(c.ref, 'page', `changes[${i}].ref`);
        if (id) this.presetIds.set(i, id);
      } else if (c?.operation === 'insert_files' && Array.isArray(c.files)) {
        c.files.forEach((file, j) => {
          const id = isObject(file) ? claimRef(file.ref, 'file', `changes[${i}].files[${j}].ref`) : undefined;
          if (id) this.presetFileIds.set(`${i}/${j}`, id);
        });
      }
    }
  }

  /** A page id, or a ref of a page inserted earlier in the batch. */
  pageIdOf(value: unknown, field: string): string {
    if (typeof value !== 'string' || !value) throw badRequest(field, 'is required (a page id)');
    const ref = this.refs.get(value);
    return ref?.kind === 'page' ? ref.id : value;
  }

  touched(page: string, object: ChangeOutcome['object'], ref?: string) {
    const previous = this.outcomes.get(page);
    if (object === 'deleted_page') {
      // Created and deleted in the same batch: it never existed outside it.
      if (previous?.object === 'created_page') this.outcomes.delete(page);
      else this.outcomes.set(page, { object, page });
    } else if (!previous || previous.object === 'deleted_page') {
      this.outcomes.set(page, object === 'created_page' ? { object, page, ...(ref ? { ref } : {}) } : { object, page });
    }
  }

  requireParent(value: unknown, field: string): string | null {
    if (value === null || value === undefined) return null;
    const id = this.pageIdOf(value, field);
    const parent = this.pages.find((p) => p.id === id);
    if (!parent) throw badRequest(field, `page ${value} does not exist`);
    if (parent.type === 'link' || parent.type === 'computed') throw badRequest(field, `a ${parent.type} page cannot have child pages`);
    return id;
  }

  /** The position for index `at` (default: the end) among `siblings`; pages renumbered to make room keep their content and updatedAt. */
  async placeAmong(siblings: PageEntry[], index: unknown, field: string): Promise<number> {
    let slot = siblings.length;
    if (index !== undefined && index !== null) {
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0) throw badRequest(field, 'must be an integer, 0 or more');
      if (index > siblings.length) throw badRequest(field, `must be at most ${siblings.length} (the number of pages at that place)`);
      slot = index;
    }
    const { position, renumber } = placeAt(siblings, slot);
    for (const { item, position: moved } of renumber) await this.writer.put({ ...item, position: moved });
    return position;
  }

  body(markdown: string, field: string) {
    return readMarkdown(field, resolveRefs(markdown, this.refs));
  }

  async apply(change: Record<string, any>, operation: Operation, i: number, field: string) {
    switch (operation) {
      case 'insert_page':
        return this.insertPage(change, i, field);
      case 'update_page':
        return this.updatePage(change, field);
      case 'delete_page':
        return this.deletePage(change, field);
      case 'revert_page':
        return this.revertPage(change, field);
      case 'insert_files':
        return this.insertFiles(change, i, field);
      case 'insert_reusable_content':
      case 'update_reusable_content':
      case 'delete_reusable_content':
        // Lectern's reusable-content operations (reusable-contents.ts); bodies are stored as pages' are.
        return applyReusableContentChange(this.writer, change, field, this.at, async (document, f) => {
          const md = await this.body((await documentMarkdown(document, f)) ?? '', f);
          return putBody(this.db, md.body, md.links);
        });
      case 'update_variables':
        return this.updateVariables(change, field);
    }
  }

  async insertPage(change: Record<string, any>, i: number, field: string) {
    const type = insertedPageType(change, field);
    const markdown = await documentMarkdown(change.document, `${field}.document`);
    if (markdown !== undefined && type !== 'document') throw badRequest(`${field}.document`, `a ${type} page has no body`);
    const md = markdown !== undefined ? await this.body(markdown, `${field}.document`) : undefined;
    const title = insertedPageTitle(change, md, field);
    if (type === 'link' && !change.href) throw badRequest(`${field}.href`, 'is required for a link page');
    if (type !== 'link' && change.href !== undefined) throw badRequest(`${field}.href`, 'only link pages have a target');
    const href = optionalString(change.href, `${field}.href`, 2048);
    const parent = this.requireParent(change.into, `${field}.into`);
    if (type === 'group' && parent) throw badRequest(`${field}.into`, 'group pages are only at the top level');
    const id = this.presetIds.get(i) ?? newId();
    const siblings = this.siblingsOf(parent);
    const entry: PageEntry = {
      id,
      parent,
      position: await this.placeAmong(siblings, change.at, `${field}.at`),
      type,
      title,
      slug: slugFor(explicitSlug(change.slug, `${field}.slug`), title, siblings, id, `${field}.slug`),
      ...(type === 'document' ? { body: await putBody(this.db, md?.body ?? '', md?.links ?? []) } : {}),
      ...(type === 'link' ? { href } : {}),
      ...(type === 'computed' ? { computed: checkComputedSource(change.computed, `${field}.computed`) } : {}),
      createdAt: this.at,
      updatedAt: this.at,
    };
    setFields(entry, change, md?.meta ?? {}, field);
    await this.writer.put(entry);
    this.touched(id, 'created_page', change.ref);
  }

  async updatePage(change: Record<string, any>, field: string) {
    const id = this.pageIdOf(change.page, `${field}.page`);
    const current = await this.writer.get(id);
    if (!current) throw notFound(`Page ${change.page}`);
    const next: PageEntry = { ...current, updatedAt: this.at };
    const markdown = await documentMarkdown(change.document, `${field}.document`);
    if (markdown !== undefined && current.type !== 'document') throw badRequest(`${field}.document`, `a ${current.type} page has no body`);
    const md = markdown !== undefined ? await this.body(markdown, `${field}.document`) : undefined;
    if (md) next.body = await putBody(this.db, md.body, md.links);
    const title = change.title !== undefined ? optionalString(change.title, `${field}.title`, 250) : md?.meta.title;
    if (title !== undefined) {
      if (typeof title !== 'string' || !title.trim())
        throw badRequest(change.title !== undefined ? `${field}.title` : `${field}.document`, 'a title cannot be empty');
      next.title = title.trim();
    }
    await this.movePage(change, current, next, field);
    setFields(next, change, md?.meta ?? {}, field);
    if (change.href !== undefined) {
      if (current.type !== 'link') throw badRequest(`${field}.href`, 'only link pages have a target');
      const href = optionalString(change.href, `${field}.href`, 2048);
      if (!href) throw badRequest(`${field}.href`, 'cannot be empty');
      next.href = href;
    }
    // The same values again change nothing: the entry (and its updatedAt) stays, so a merge
    // and the semantic changes see no change.
    if (!sameJson({ ...next, updatedAt: current.updatedAt }, current)) await this.writer.put(next);
    this.touched(id, 'updated_page');
  }

  /** An update_page's `into`/`at` and `slug`: the page's new place and a slug unique there. */
  async movePage(change: Record<string, any>, current: PageEntry, next: PageEntry, field: string) {
    if (change.into !== undefined || change.at !== undefined) {
      const parent = change.into === undefined ? current.parent : this.requireParent(change.into, `${field}.into`);
      if (parent && subtreeIds(this.pages, current.id).has(parent)) throw badRequest(`${field}.into`, 'cannot move a page below itself');
      if (parent && current.type === 'group') throw badRequest(`${field}.into`, 'group pages are only at the top level');
      // Same parent and no index: it stays where it is.
      if (parent !== current.parent || change.at !== undefined) {
        next.parent = parent;
        next.position = await this.placeAmong(this.siblingsOf(parent, current.id), change.at, `${field}.at`);
      }
    }
    // The slug changes only when given (a renamed page keeps its URL), or to stay unique at a new place.
    const slug = explicitSlug(change.slug, `${field}.slug`);
    const siblings = this.siblingsOf(next.parent, current.id);
    if (slug !== undefined) next.slug = slugFor(slug, next.title, siblings, current.id, `${field}.slug`);
    else if (next.parent !== current.parent) next.slug = uniqueSlug(current.slug, siblings, current.id);
  }

  async removeSubtree(id: string) {
    for (const removed of subtreeIds(this.pages, id)) {
      await this.writer.remove(removed);
      this.touched(removed, 'deleted_page');
    }
  }

  async deletePage(change: Record<string, any>, field: string) {
    const id = this.pageIdOf(change.page, `${field}.page`);
    if (!(await this.writer.get(id))) throw notFound(`Page ${change.page}`);
    await this.removeSubtree(id);
  }

  async revertPage(change: Record<string, any>, field: string) {
    const id = this.pageIdOf(change.page, `${field}.page`);
    if (change.block !== undefined) {
      // Lectern keeps page bodies as Markdown, whose blocks have no stable keys across edits.
      throw badRequest(
        `${field}.block`,
        'reverting single blocks is not supported by this server: revert the whole page (leave block out)',
      );
    }
    let source = this.opts.revertTo;
    if (change.revision !== undefined) {
      if (typeof change.revision !== 'string' || !change.revision) throw badRequest(`${field}.revision`, 'must be a revision id');
      const content = await this.opts.revisionContent(change.revision);
      if (!content) throw notFound(`Revision ${change.revision}`);
      source = content;
    }
    const original = await source.page(id);
    const current = await this.writer.get(id);
    if (!original && !current) throw notFound(`Page ${change.page}`);
    if (!original) return this.removeSubtree(id);
    if (original.parent && !this.pages.some((p) => p.id === original.parent)) {
      throw badRequest(`${field}.page`, 'its original parent no longer exists; move it first');
    }
    // Its old slug may have been taken by a sibling since: keep slugs unique among siblings.
    await this.writer.put({ ...original, slug: uniqueSlug(original.slug, this.siblingsOf(original.parent, original.id), original.id) });
    this.touched(id, current ? 'updated_page' : 'created_page');
  }

  async insertFiles(change: Record<string, any>, i: number, field: string) {
    if (!Array.isArray(change.files) || !change.files.length) throw badRequest(`${field}.files`, 'must hold at least one file');
    if (change.files.length > MAX_FILES_PER_CHANGE) throw badRequest(`${field}.files`, `at most ${MAX_FILES_PER_CHANGE} files per change`);
    const files: FileEntry[] = [...(await this.writer.getFiles())];
    for (const [j, file] of (change.files as unknown[]).entries()) {
      const entry = await this.insertFile(file, `${i}/${j}`, `${field}.files[${j}]`);
      files.push(entry);
      this.insertedFiles.push(entry);
    }
    this.writer.setFiles(files);
  }

  /** One file of insert_files: checked, its bytes stored once by hash, its entry returned. */
  async insertFile(file: unknown, key: string, at: string): Promise<FileEntry> {
    if (!isObject(file)) throw badRequest(at, 'must be an object');
    checkFields(file, FILE_FIELDS, at, 'a file');
    if (typeof file.name !== 'string' || !file.name.trim()) throw badRequest(`${at}.name`, 'is required');
    if (file.name.length > 256) throw badRequest(`${at}.name`, 'must be at most 256 characters');
    const contentType = fileContentType(file, at);
    if ((file.base64 === undefined) === (file.url === undefined)) throw badRequest(at, 'give exactly one of base64 and url');
    const { bytes, type } = fileBytes(file, contentType, this.opts.fetched?.get(key), at);
    if (bytes.length > MAX_FILE_BYTES)
      throw badRequest(`${at}.${file.base64 !== undefined ? 'base64' : 'url'}`, `files are limited to ${MAX_FILE_BYTES} bytes`);
    const blob = createHash('sha256').update(bytes).digest('hex');
    await this.db.fileBlob.createMany({ data: [{ hash: blob, data: bytes, size: bytes.length }], skipDuplicates: true });
    return {
      id: this.presetFileIds.get(key) ?? newId(),
      name: file.name,
      contentType: type || 'application/octet-stream',
      size: bytes.length,
      blob,
      createdAt: this.at,
    };
  }

  updateVariables(change: Record<string, any>, field: string) {
    const vars = change.variables as unknown;
    if (!isObject(vars)) throw badRequest(`${field}.variables`, 'must be an object of name to string (null removes one)');
    for (const [name, value] of Object.entries(vars)) {
      if (!VARIABLE_NAME.test(name)) throw badRequest(`${field}.variables.${name}`, 'a name is 1 to 100 letters, digits, _ or -');
      if (value === null) delete this.variables[name];
      else if (typeof value === 'string') this.variables[name] = value;
      else throw badRequest(`${field}.variables.${name}`, 'must be a string or null');
    }
    this.writer.setVariables({ ...this.variables });
  }
}

/**
 * Applies `changes` on top of `base`. Returns the new manifest hash (null when nothing changed)
 * and what happened to which pages and files. Throws (a 400 naming the field, or a 404) on the
 * first bad change: the caller's transaction then writes nothing.
 */
export async function applyChanges(
  db: Db,
  base: Content,
  changes: ContentChange[],
  opts: ApplyOptions,
): Promise<{ manifest: string | null } & AppliedChanges> {
  if (!Array.isArray(changes) || changes.length === 0) throw badRequest('changes', 'must hold at least one change');
  if (changes.length > MAX_CHANGES) throw badRequest('changes', `at most ${MAX_CHANGES} changes per request`);
  const batch = new ChangeBatch(db, base, opts);
  await batch.refresh();
  batch.claimRefs(changes);
  for (const [i, raw] of (changes as unknown[]).entries()) {
    const field = `changes[${i}]`;
    if (!isObject(raw)) throw badRequest(field, 'must be an object');
    // Every field is checked as it is read: the input may come from REST, GraphQL or a template.
    const change = raw as Record<string, any>;
    const operation = change.operation as Operation;
    if (!OPERATIONS.includes(operation)) throw badRequest(`${field}.operation`, `must be one of ${OPERATIONS.join(', ')}`);
    checkFields(change, FIELDS[operation], field, operation);
    await batch.apply(change, operation, i, field);
    await batch.refresh();
  }
  // Pages inserted under a ref must all exist (a ref claimed by a change that failed cannot reach here).
  const { writer, outcomes, insertedFiles } = batch;
  return { manifest: writer.changed ? await writer.write(db) : null, changes: [...outcomes.values()], insertedFiles };
}

/** Lower-cased paths of the pages (`guide`, `guide/setup`), for refs that must not shadow one. */
function buildPaths(pages: PageEntry[]): string[] {
  const byId = new Map(pages.map((p) => [p.id, p]));
  const pathOf = (p: PageEntry, depth = 0): string => {
    const parent = p.parent ? byId.get(p.parent) : undefined;
    return parent && depth < 100 ? `${pathOf(parent, depth + 1)}/${p.slug}` : p.slug;
  };
  return pages.map((p) => pathOf(p).toLowerCase());
}
