import type { Context } from '../../context.js';
import { badRequest, notFound } from '../../errors.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import { documentsOf, slugify } from '../../document/index.js';
import { documentIdOf } from './document-ids.js';
import { bodiesOf, evaluatedMarkdown, type ContentView } from './service.js';
import { canonicalJson, putObjects, type Content, type ContentWriter, type ReusableContentEntry } from './store.js';

/**
 * Reusable contents (GitBook's RevisionReusableContent): a titled body kept in the revision beside
 * its pages and files (manifest.reusableContents), included by pages. A page includes one the way
 * GitBook's Git Sync writes it, `{% include "../.gitbook/includes/<slug>.md" %}` alone in a
 * paragraph; read as a document, the include is a `reusable-content` block, or the reusable
 * content's own blocks with `dereferenced=true|reusable-contents`.
 *
 * The official write format cannot create them, so Lectern adds three operations to the content
 * batch: insert_reusable_content { title, document, slug? }, update_reusable_content
 * { reusableContent, title?, document? } and delete_reusable_content { reusableContent }.
 */

export const REUSABLE_CONTENT_FIELDS = {
  insert_reusable_content: new Set(['operation', 'title', 'document', 'slug']),
  update_reusable_content: new Set(['operation', 'reusableContent', 'title', 'document']),
  delete_reusable_content: new Set(['operation', 'reusableContent']),
};
export type ReusableContentOperation = keyof typeof REUSABLE_CONTENT_FIELDS;
export const REUSABLE_CONTENT_OPERATIONS = Object.keys(REUSABLE_CONTENT_FIELDS) as ReusableContentOperation[];

export type ReusableContentChange =
  | { operation: 'insert_reusable_content'; title: string; document: unknown; slug?: string }
  | { operation: 'update_reusable_content'; reusableContent: string; title?: string; document?: unknown }
  | { operation: 'delete_reusable_content'; reusableContent: string };

function titleOf(value: unknown, field: string): string {
  if (typeof value !== 'string' || !value.trim()) throw badRequest(field, 'must be a non-empty string');
  if (value.length > 250) throw badRequest(field, 'must be at most 250 characters');
  return value.trim();
}

/**
 * Applies one reusable-content operation of a batch. `storeBody` stores a document (`{ markdown }`
 * or a JSON document, as page bodies are written) and answers its body hash.
 */
export async function applyReusableContentChange(
  writer: ContentWriter,
  change: Record<string, unknown>,
  field: string,
  at: string,
  storeBody: (document: unknown, field: string) => Promise<string>,
): Promise<void> {
  const items = [...(await writer.getReusableContents())];
  const find = () => {
    const id = change.reusableContent;
    if (typeof id !== 'string' || !id) throw badRequest(`${field}.reusableContent`, 'must be a reusable content id');
    const index = items.findIndex((r) => r.id === id);
    if (index < 0) throw badRequest(`${field}.reusableContent`, `reusable content ${id} does not exist`);
    return index;
  };
  switch (change.operation as ReusableContentOperation) {
    case 'insert_reusable_content': {
      const title = titleOf(change.title, `${field}.title`);
      if (change.document === undefined) throw badRequest(`${field}.document`, 'is required');
      let slug = slugify(title) || 'reusable-content';
      if (change.slug !== undefined) {
        if (typeof change.slug !== 'string' || !/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(change.slug) || change.slug.length > 100)
          throw badRequest(`${field}.slug`, 'must be lower-case letters, digits and single dashes');
        if (items.some((r) => r.slug === change.slug))
          throw badRequest(`${field}.slug`, `another reusable content has the slug ${change.slug}`);
        slug = change.slug;
      } else {
        const base = slug;
        for (let i = 1; items.some((r) => r.slug === slug); i++) slug = `${base}-${i}`;
      }
      items.push({ id: newId(), title, slug, body: await storeBody(change.document, `${field}.document`), createdAt: at, updatedAt: at });
      break;
    }
    case 'update_reusable_content': {
      const index = find();
      const next = { ...items[index]!, updatedAt: at };
      if (change.title !== undefined) next.title = titleOf(change.title, `${field}.title`);
      if (change.document !== undefined) next.body = await storeBody(change.document, `${field}.document`);
      items[index] = next;
      break;
    }
    case 'delete_reusable_content':
      // Pages that include it keep their include, read as it is written.
      items.splice(find(), 1);
      break;
  }
  writer.setReusableContents(items);
}

type Db = Prisma.TransactionClient;
const same = (a: unknown, b: unknown) => canonicalJson(a ?? null) === canonicalJson(b ?? null);

/**
 * Three-way merge of reusable contents, each as a whole: one side's change is taken, a change on
 * both sides that differs is a conflict (reported like a page's). Answers the merged hash.
 */
export async function mergeReusableContents(
  db: Db,
  base: Content,
  ours: Content,
  theirs: Content,
  conflict: (title: string, reason: string) => void,
): Promise<string | undefined> {
  const [b, o, t] = [base.manifest.reusableContents, ours.manifest.reusableContents, theirs.manifest.reusableContents];
  if (o === t || t === b) return o;
  if (o === b) return t;
  const [bl, ol, tl] = await Promise.all([base.reusableContents(), ours.reusableContents(), theirs.reusableContents()]);
  const byId = (list: ReusableContentEntry[]) => new Map(list.map((r) => [r.id, r]));
  const [bm, om, tm] = [byId(bl), byId(ol), byId(tl)];
  const merged: ReusableContentEntry[] = [];
  for (const id of new Set([...om.keys(), ...tm.keys(), ...bm.keys()])) {
    const [be, oe, te] = [bm.get(id), om.get(id), tm.get(id)];
    let value: ReusableContentEntry | undefined;
    if (same(oe, te) || same(te, be)) value = oe;
    else if (same(oe, be)) value = te;
    else {
      conflict((oe ?? te ?? be)!.title, 'this reusable content was changed differently on both sides');
      continue;
    }
    if (value) merged.push(value);
  }
  return merged.length ? (await putObjects(db, [{ kind: 'reusable', data: { items: merged } }]))[0] : undefined;
}

/** A reusable content in the official shape: its body is named by its document id. */
export const reusableContentJson = (view: ContentView, entry: ReusableContentEntry) => ({
  id: entry.id,
  title: entry.title,
  document: documentIdOf(view.keys, view.space.id, entry.body),
});

async function requireReusableContent(view: ContentView, id: string): Promise<ReusableContentEntry> {
  const entry = (await view.content.reusableContents()).find((r) => r.id === id);
  if (!entry) throw notFound('Reusable content');
  return entry;
}

export async function reusableContentById(view: ContentView, id: string) {
  return reusableContentJson(view, await requireReusableContent(view, id));
}

const DEREFERENCED = ['true', 'reusable-contents'];

/** The JSON document of a reusable content's body (getReusableContentDocumentInRevisionById). */
export async function reusableContentDocument(
  ctx: Context,
  view: ContentView,
  id: string,
  opts: { evaluated?: string | null; dereferenced?: string | null },
) {
  if (opts.evaluated && !['true', 'false', 'deterministic-only'].includes(opts.evaluated))
    throw badRequest('evaluated', 'must be true, false or deterministic-only');
  if (opts.dereferenced && !['true', 'false', 'reusable-contents'].includes(opts.dereferenced))
    throw badRequest('dereferenced', 'must be true, false or reusable-contents');
  const entry = await requireReusableContent(view, id);
  const markdown = evaluatedMarkdown(view, (await bodiesOf(ctx, [entry.body])).get(entry.body) ?? '', opts.evaluated);
  const documents = await documentsOf([markdown]);
  await includeReusableContents(ctx, view, documents, opts.dereferenced);
  return documents.get(markdown);
}

const INCLUDE = /^\{%\s*include\s+"(?:[^"]*\/)?\.gitbook\/includes\/([^"/]+)\.md"\s*%\}$/;

type Node = { object?: string; type?: string; key?: string; nodes?: Node[]; leaves?: { text: string }[]; [k: string]: unknown };

/** The slug a top-level paragraph includes, when it is only an include. */
function includedSlug(node: Node): string | undefined {
  if (node.object !== 'block' || node.type !== 'paragraph' || node.nodes?.length !== 1) return undefined;
  const text = node.nodes[0]!;
  if (text.object !== 'text') return undefined;
  return INCLUDE.exec(
    (text.leaves ?? [])
      .map((l) => l.text)
      .join('')
      .trim(),
  )?.[1];
}

/** Keys stay unique in the including document: each included node's key is prefixed by the include's. */
function rekey(node: Node, prefix: string): Node {
  return {
    ...node,
    ...(node.key ? { key: `${prefix}-${node.key}` } : {}),
    ...(node.nodes ? { nodes: node.nodes.map((n) => rekey(n, prefix)) } : {}),
  };
}

/**
 * Replaces, in the documents made for a read (values of `documents`, never mutated: they may be
 * shared), each include of a reusable content of the revision by a `reusable-content` block, or by
 * its blocks when dereferenced. An include of no reusable content stays as written.
 */
export async function includeReusableContents(
  ctx: Context,
  view: ContentView,
  documents: Map<string, any>,
  dereferenced: string | null | undefined,
): Promise<void> {
  const including = [...documents].filter(([, d]) => (d?.nodes as Node[] | undefined)?.some((n) => includedSlug(n) !== undefined));
  if (!including.length) return;
  const bySlug = new Map((await view.content.reusableContents()).map((r) => [r.slug, r]));
  const expand = DEREFERENCED.includes(dereferenced ?? '');
  let included = new Map<string, any>();
  if (expand) {
    const used = [
      ...new Set(including.flatMap(([, d]) => (d.nodes as Node[]).map(includedSlug).filter((s): s is string => !!s && bySlug.has(s)))),
    ].map((s) => bySlug.get(s)!);
    const bodies = await bodiesOf(
      ctx,
      used.map((r) => r.body),
    );
    const docs = await documentsOf(used.map((r) => bodies.get(r.body) ?? ''));
    included = new Map(used.map((r) => [r.slug, docs.get(bodies.get(r.body) ?? '')]));
  }
  for (const [markdown, document] of including) {
    const nodes = (document.nodes as Node[]).flatMap((node, i): Node[] => {
      const slug = includedSlug(node);
      const entry = slug ? bySlug.get(slug) : undefined;
      if (!entry) return [node];
      const key = node.key ?? `include-${i}`;
      if (expand) return ((included.get(entry.slug)?.nodes ?? []) as Node[]).map((n) => rekey(n, key));
      return [
        {
          object: 'block',
          type: 'reusable-content',
          key,
          isVoid: true,
          data: { ref: { kind: 'reusable-content', reusableContent: entry.id } },
        },
      ];
    });
    documents.set(markdown, { ...document, nodes });
  }
}
