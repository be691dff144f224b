import type * as M from 'mdast';
import { badRequest } from '../errors.js';
import { richTextDocument, isObject } from '../validate.js';
import { unsafeUrl } from './markdown.js';
import { markdownOfTree } from './markdown-write.js';
import type { DocumentMarkType } from './types.js';

/**
 * GitBook JSONDocument → Markdown, the inverse of documentFromMarkdown (markdown.ts). Lectern stores
 * bodies as Markdown, so a document is written by building its mdast tree and serializing it with
 * mdast-util-to-markdown + mdast-util-gfm (tables, strikethrough, task lists); that serializer
 * escapes text (`*`, `#`, `[`, `<`, `&`, autolink literals) so text stays text.
 *
 * The contract: for every block, inline and mark the Markdown model has (see SUPPORTED_*),
 * documentFromMarkdown(jsonDocumentToMarkdown(doc)) equals doc up to what reading generates —
 * node keys, heading anchors (meta.id), table column/record/fragment ids — and Slate's normal form
 * (adjacent leaves with the same marks merged, marks in a fixed order, empty top-level paragraphs
 * dropped, a top-level paragraph of images only read back as an `images` block: both are the same
 * Markdown). Content Markdown cannot hold (hints, math, tabs, emoji, page refs, superscript...) is
 * refused with a 400 naming its path rather than stored altered; display options Markdown has no
 * place for (alignment, widths, code line numbers and titles, colors) are not kept.
 */

/** The blocks a blockquote may hold; a list item may also hold code and tables; the top level images too. */
const QUOTABLE_BLOCKS = [
  'paragraph',
  'heading-1',
  'heading-2',
  'heading-3',
  'list-unordered',
  'list-ordered',
  'list-tasks',
  'divider',
  'blockquote',
] as const;
export const SUPPORTED_BLOCKS = [...QUOTABLE_BLOCKS, 'code', 'images', 'table'] as const;
export const SUPPORTED_INLINES = ['link', 'inline-image'] as const;
export const SUPPORTED_MARKS: DocumentMarkType[] = ['bold', 'italic', 'strikethrough', 'code'];
/** Marks that only colour text: accepted, not kept (Markdown has no colour). */
const DISPLAY_ONLY_MARKS = new Set(['color']);

type Node = Record<string, unknown>;

/**
 * The Markdown of a JSONDocument given in field `field` (e.g. `changes[0].document`). Throws
 * badRequest naming the offending path (`${field}.nodes[3].type`) for anything invalid or with no
 * Markdown form.
 */
export function jsonDocumentToMarkdown(doc: unknown, field: string): string {
  // Structure, size and depth first (the one JSONDocument validator), then the Markdown mapping.
  const checked = richTextDocument(field, doc);
  const root: M.Root = { type: 'root', children: blocks(checked.nodes as Node[], `${field}.nodes`, 'top') };
  return markdownOfTree(root);
}

type Context = 'top' | 'item' | 'quote';

/** Which block types each container may hold (the official schema's unions, Markdown-capable part). */
const ALLOWED: Record<Context, ReadonlySet<string>> = {
  top: new Set(SUPPORTED_BLOCKS),
  item: new Set([...QUOTABLE_BLOCKS, 'code', 'table']),
  quote: new Set(QUOTABLE_BLOCKS),
};

function blocks(nodes: Node[], at: string, ctx: Context): M.BlockContent[] {
  return nodes.flatMap((node, i) => block(node, `${at}[${i}]`, ctx));
}

function unsupported(at: string, what: string, type: string, supported: readonly string[]) {
  return badRequest(`${at}.type`, `${what} "${type}" has no Markdown form in Lectern (supported: ${supported.join(', ')})`);
}

function block(node: Node, at: string, ctx: Context): M.BlockContent[] {
  const type = node.type as string;
  if (node.object !== 'block') throw badRequest(`${at}.object`, 'must be "block" here');
  if (!ALLOWED[ctx].has(type)) {
    if (
      SUPPORTED_BLOCKS.includes(type as (typeof SUPPORTED_BLOCKS)[number]) ||
      type === 'list-item' ||
      type === 'code-line' ||
      type === 'image'
    ) {
      throw badRequest(
        `${at}.type`,
        `a "${type}" block is not allowed ${ctx === 'top' ? 'at the top level' : ctx === 'item' ? 'in a list item' : 'in a blockquote'}`,
      );
    }
    throw unsupported(at, 'block type', type, [...ALLOWED[ctx]]);
  }
  const data = isObject(node.data) ? node.data : {};
  const children = (node.nodes ?? []) as Node[];
  switch (type) {
    case 'paragraph': {
      const phrasing = inlines(children, `${at}.nodes`);
      // An empty paragraph has no Markdown form; inside a container reading gives one back anyway.
      if (phrasing.length === 0 && ctx === 'top') return [];
      return [{ type: 'paragraph', children: phrasing }];
    }
    case 'heading-1':
    case 'heading-2':
    case 'heading-3': {
      const phrasing = inlines(children, `${at}.nodes`);
      if (containsBreak(phrasing)) throw badRequest(`${at}.nodes`, 'a heading cannot hold a line break');
      return [{ type: 'heading', depth: Number(type.slice(-1)) as 1 | 2 | 3, children: phrasing }];
    }
    case 'divider':
      return [{ type: 'thematicBreak' }];
    case 'blockquote':
      return [{ type: 'blockquote', children: nonEmpty(blocks(children, `${at}.nodes`, 'quote')) }];
    case 'list-unordered':
    case 'list-ordered':
    case 'list-tasks':
      return [list(type, data, children, at)];
    case 'code':
      return [code(data, children, at)];
    case 'images':
      return [images(children, at)];
    case 'table':
      return [table(node, at)];
  }
  throw unsupported(at, 'block type', type, SUPPORTED_BLOCKS);
}

function nonEmpty(children: M.BlockContent[]): M.BlockContent[] {
  return children.length > 0 ? children : [{ type: 'paragraph', children: [] }];
}

function list(type: string, data: Node, items: Node[], at: string): M.List {
  const tasks = type === 'list-tasks';
  let start: number | undefined;
  if (type === 'list-ordered' && data.start !== undefined) {
    if (!Number.isInteger(data.start) || (data.start as number) < 0 || (data.start as number) > 999_999_999) {
      throw badRequest(`${at}.data.start`, 'must be an integer from 0 to 999999999');
    }
    start = data.start as number;
  }
  // Every item of a task list is a task (one without `checked` is written unchecked): a list of
  // items none of which is marked would read back as a plain list.
  const children = items.map((item, i): M.ListItem => {
    const itemAt = `${at}.nodes[${i}]`;
    if (item.object !== 'block' || item.type !== 'list-item') throw badRequest(`${itemAt}.type`, 'must be "list-item" in a list');
    const itemData = isObject(item.data) ? item.data : {};
    if (itemData.checked !== undefined && typeof itemData.checked !== 'boolean')
      throw badRequest(`${itemAt}.data.checked`, 'must be a boolean');
    const content = nonEmpty(blocks((item.nodes ?? []) as Node[], `${itemAt}.nodes`, 'item'));
    // GFM marks a task only at the start of a paragraph: `- [ ] # heading` is not a task.
    if (tasks && content[0]!.type !== 'paragraph') {
      throw badRequest(`${itemAt}.nodes[0]`, 'a task list item must start with a paragraph');
    }
    // An item of several blocks is spread (blank lines between them): in a tight item a table or
    // paragraph after a blockquote would be read as a lazy continuation of the quote.
    return {
      type: 'listItem',
      spread: content.length > 1,
      checked: tasks ? itemData.checked === true : null,
      children: content as M.ListItem['children'],
    };
  });
  return { type: 'list', ordered: type === 'list-ordered', start: start ?? null, spread: false, children };
}

function code(data: Node, lines: Node[], at: string): M.Code {
  const syntax = data.syntax;
  if (syntax !== undefined && (typeof syntax !== 'string' || /\s|`/.test(syntax))) {
    throw badRequest(`${at}.data.syntax`, 'must be a word without spaces or backticks');
  }
  const text = lines.map((line, i) => {
    const lineAt = `${at}.nodes[${i}]`;
    if (line.object !== 'block' || line.type !== 'code-line') throw badRequest(`${lineAt}.type`, 'must be "code-line" in a code block');
    return ((line.nodes ?? []) as Node[])
      .map((t, j) => {
        if (t.object !== 'text') throw unsupported(`${lineAt}.nodes[${j}]`, 'inline type', String(t.type), ['text only in code lines']);
        return leavesOf(t, `${lineAt}.nodes[${j}]`)
          .map((l, k) => {
            if (l.marks.some((m) => !DISPLAY_ONLY_MARKS.has(m)))
              throw badRequest(`${lineAt}.nodes[${j}].leaves[${k}].marks`, 'code lines hold plain text');
            if (/[\r\n]/.test(l.text)) throw badRequest(`${lineAt}.nodes[${j}].leaves[${k}].text`, 'a code line cannot hold a line break');
            return l.text;
          })
          .join('');
      })
      .join('');
  });
  return { type: 'code', lang: syntax ? (syntax as string) : null, meta: null, value: text.join('\n') };
}

function urlOf(ref: unknown, at: string, image: boolean): string {
  if (!isObject(ref)) throw badRequest(at, 'is required');
  if (ref.kind !== 'url')
    throw badRequest(`${at}.kind`, `"${String(ref.kind)}" references have no Markdown form in Lectern (supported: url)`);
  if (typeof ref.url !== 'string' || ref.url === '') throw badRequest(`${at}.url`, 'must be a non-empty string');
  if (unsafeUrl(ref.url, image)) throw badRequest(`${at}.url`, 'uses a scheme that is not allowed (javascript:, vbscript:, data:)');
  return ref.url;
}

function optionalString(value: unknown, at: string): string | null {
  if (value === undefined || value === '') return null;
  if (typeof value !== 'string') throw badRequest(at, 'must be a string');
  return value;
}

function images(nodes: Node[], at: string): M.Paragraph {
  if (nodes.length === 0) throw badRequest(`${at}.nodes`, 'must hold at least one image');
  return {
    type: 'paragraph',
    children: nodes.map((image, i): M.Image => {
      const imageAt = `${at}.nodes[${i}]`;
      if (image.object !== 'block' || image.type !== 'image') throw badRequest(`${imageAt}.type`, 'must be "image" in an images block');
      const data = isObject(image.data) ? image.data : {};
      return {
        type: 'image',
        url: urlOf(data.ref, `${imageAt}.data.ref`, true),
        alt: optionalString(data.alt, `${imageAt}.data.alt`),
        title: caption(image.fragments, `${imageAt}.fragments`),
      };
    }),
  };
}

/** An image caption: Markdown keeps it as the image title, so plain text only. */
function caption(fragments: unknown, at: string): string | null {
  if (fragments === undefined) return null;
  const list = fragments as Node[];
  if (list.length === 0) return null;
  if (list.length > 1) throw badRequest(at, 'an image has at most one caption');
  const [fragment] = list;
  const paragraphs = fragment!.nodes as Node[];
  const text = paragraphs.map((p, i) => {
    const pAt = `${at}[0].nodes[${i}]`;
    if (p.type !== 'paragraph') throw badRequest(`${pAt}.type`, 'a caption holds paragraphs');
    return ((p.nodes ?? []) as Node[])
      .map((t, j) => {
        if (t.object !== 'text')
          throw badRequest(`${pAt}.nodes[${j}]`, 'a caption holds plain text only (Markdown keeps it as the image title)');
        return leavesOf(t, `${pAt}.nodes[${j}]`)
          .map((l, k) => {
            if (l.marks.some((m) => !DISPLAY_ONLY_MARKS.has(m)))
              throw badRequest(
                `${pAt}.nodes[${j}].leaves[${k}].marks`,
                'a caption holds plain text only (Markdown keeps it as the image title)',
              );
            return l.text;
          })
          .join('');
      })
      .join('');
  });
  if (paragraphs.length > 1) throw badRequest(`${at}[0].nodes`, 'a caption holds one paragraph');
  return text.join('') || null;
}

function table(node: Node, at: string): M.Table {
  const data = node.data;
  if (!isObject(data)) throw badRequest(`${at}.data`, 'is required');
  const view = data.view;
  if (!isObject(view) || view.type !== 'grid') throw badRequest(`${at}.data.view.type`, 'only "grid" tables have a Markdown form');
  if (view.hideHeader === true) throw badRequest(`${at}.data.view.hideHeader`, 'a Markdown table always shows its header');
  if (Array.isArray(data.cellMerges) && data.cellMerges.length > 0)
    throw badRequest(`${at}.data.cellMerges`, 'merged cells have no Markdown form');
  if (!Array.isArray(view.columns) || view.columns.length === 0 || view.columns.some((c) => typeof c !== 'string')) {
    throw badRequest(`${at}.data.view.columns`, 'must be a non-empty array of column ids');
  }
  const columns = view.columns as string[];
  const definition = isObject(data.definition) ? data.definition : {};
  const align: M.AlignType[] = [];
  const header: M.TableCell[] = columns.map((id) => {
    const def = definition[id];
    const defAt = `${at}.data.definition.${id}`;
    if (!isObject(def)) throw badRequest(defAt, 'is missing for a column of the view');
    if (def.type !== 'text')
      throw badRequest(`${defAt}.type`, `"${String(def.type)}" columns have no Markdown form in Lectern (supported: text)`);
    if (typeof def.title !== 'string') throw badRequest(`${defAt}.title`, 'must be a string');
    const alignment = def.textAlignment ?? 'left';
    if (alignment !== 'left' && alignment !== 'center' && alignment !== 'right')
      throw badRequest(`${defAt}.textAlignment`, 'must be left, center or right');
    align.push(alignment);
    // A column title is read back as the cell's plain text (links included), so no literal splitting.
    return { type: 'tableCell', children: textPhrasing(def.title, false) };
  });
  const fragments = new Map<string, { node: Node; at: string }>();
  ((node.fragments ?? []) as Node[]).forEach((f, i) => {
    if (typeof f.fragment === 'string') fragments.set(f.fragment, { node: f, at: `${at}.fragments[${i}]` });
  });
  if (!isObject(data.records)) throw badRequest(`${at}.data.records`, 'must be an object');
  const records = Object.entries(data.records).map(([id, record]) => {
    if (!isObject(record) || !isObject(record.values)) throw badRequest(`${at}.data.records.${id}.values`, 'must be an object');
    return { id, record };
  });
  // Rows in their order (orderIndex is a sortable string, as GitBook's fractional indexes are).
  records.sort((a, b) => String(a.record.orderIndex ?? '').localeCompare(String(b.record.orderIndex ?? '')) || a.id.localeCompare(b.id));
  const rows: M.TableRow[] = records.map(({ id, record }) => ({
    type: 'tableRow',
    children: columns.map((column): M.TableCell => {
      const value = (record.values as Node)[column];
      const valueAt = `${at}.data.records.${id}.values.${column}`;
      if (value === undefined || value === null || value === '') return { type: 'tableCell', children: [] };
      if (typeof value !== 'string') throw badRequest(valueAt, 'must name a fragment (text columns)');
      const fragment = fragments.get(value);
      if (!fragment) throw badRequest(valueAt, `names fragment "${value}", which the table does not have`);
      return { type: 'tableCell', children: cellPhrasing(fragment.node, fragment.at) };
    }),
  }));
  return { type: 'table', align, children: [{ type: 'tableRow', children: header }, ...rows] };
}

/** A table cell is one line of phrasing content: its fragment holds one paragraph. */
function cellPhrasing(fragment: Node, at: string): M.PhrasingContent[] {
  const nodes = (fragment.nodes ?? []) as Node[];
  if (nodes.length === 0) return [];
  if (nodes.length > 1 || nodes[0]!.type !== 'paragraph') throw badRequest(`${at}.nodes`, 'a table cell holds one paragraph in Markdown');
  const phrasing = inlines((nodes[0]!.nodes ?? []) as Node[], `${at}.nodes[0].nodes`);
  if (containsBreak(phrasing)) throw badRequest(`${at}.nodes[0]`, 'a table cell cannot hold a line break in Markdown');
  return phrasing;
}

function containsBreak(nodes: M.PhrasingContent[]): boolean {
  return nodes.some((n) => n.type === 'break' || ('children' in n && containsBreak(n.children as M.PhrasingContent[])));
}

// ---------------------------------------------------------------------------------------------
// Inlines and marks
// ---------------------------------------------------------------------------------------------

interface Leaf {
  text: string;
  marks: string[];
}

/** A run of phrasing: a marked text leaf, or an inline (link, image) with the marks around it. */
type Run = { leaf: Leaf } | { inline: M.PhrasingContent; marks: string[] };

function leavesOf(text: Node, at: string): Leaf[] {
  return (text.leaves as Node[]).map((leaf, i) => ({
    text: leaf.text as string,
    marks: (leaf.marks as Node[])
      .map((mark, j) => {
        const type = mark.type as string;
        if (!SUPPORTED_MARKS.includes(type as DocumentMarkType) && !DISPLAY_ONLY_MARKS.has(type)) {
          throw badRequest(
            `${at}.leaves[${i}].marks[${j}].type`,
            `mark "${type}" has no Markdown form in Lectern (supported: ${SUPPORTED_MARKS.join(', ')})`,
          );
        }
        return type;
      })
      .filter((type) => !DISPLAY_ONLY_MARKS.has(type)),
  }));
}

function inlines(nodes: Node[], at: string, inLink = false): M.PhrasingContent[] {
  const runs: Run[] = [];
  nodes.forEach((node, i) => {
    const nodeAt = `${at}[${i}]`;
    if (node.object === 'text') {
      // Each line break is a run of its own: see breakMarks.
      for (const leaf of leavesOf(node, nodeAt)) {
        for (const part of leaf.text.split(/(\n)/)) if (part !== '') runs.push({ leaf: { text: part, marks: leaf.marks } });
      }
      return;
    }
    if (node.object !== 'inline') throw badRequest(`${nodeAt}.object`, 'must be "text" or "inline" here');
    const data = isObject(node.data) ? node.data : {};
    switch (node.type) {
      case 'link': {
        if (inLink) throw badRequest(`${nodeAt}.type`, 'a link cannot hold a link');
        const url = urlOf(data.ref, `${nodeAt}.data.ref`, false);
        // The marks around a link's text go outside it in Markdown only when they cover all of it;
        // keeping them on the text inside is the same document once read back.
        runs.push({
          inline: {
            type: 'link',
            url,
            title: null,
            children: inlines((node.nodes ?? []) as Node[], `${nodeAt}.nodes`, true) as M.Link['children'],
          },
          marks: [],
        });
        return;
      }
      case 'inline-image':
        runs.push({
          inline: {
            type: 'image',
            url: urlOf(data.ref, `${nodeAt}.data.ref`, true),
            alt: optionalString(data.alt, `${nodeAt}.data.alt`),
            title: optionalString(data.caption, `${nodeAt}.data.caption`),
          },
          marks: [],
        });
        return;
      default:
        throw unsupported(nodeAt, 'inline type', String(node.type), SUPPORTED_INLINES);
    }
  });
  // A line break ending a block has no Markdown form (the `\` would read back as text): not kept.
  while (!inLink && runs.length > 0) {
    const last = runs[runs.length - 1]!;
    if (!('leaf' in last) || last.leaf.text !== '\n') break;
    runs.pop();
  }
  breakMarks(runs);
  return phrasing(runs, []);
}

/**
 * A line break inside `**…**` must have marked text on both sides: `**a\⏎**` does not close.
 * So a break keeps only the marks its two neighbours share; at the edge of a marked stretch it
 * goes outside (the break itself shows no mark, and reading back puts it in the unmarked leaf).
 */
function breakMarks(runs: Run[]) {
  const marksAt = (i: number) => {
    const run = runs[i];
    return run === undefined ? [] : 'leaf' in run ? run.leaf.marks : run.marks;
  };
  runs.forEach((run, i) => {
    if (!('leaf' in run) || run.leaf.text !== '\n') return;
    const after = marksAt(i + 1);
    run.leaf = { text: '\n', marks: marksAt(i - 1).filter((m) => m !== 'code' && after.includes(m)) };
  });
}

/**
 * Where GFM would turn plain text into a link: `www.`, `http(s)://`, `user@host`. GFM finds these
 * literals in the parsed text after escapes are resolved (mdast-util-gfm-autolink-literal), so no
 * escape prevents it; an empty HTML comment splitting the text does (reading drops comments and
 * joins the text again).
 */
const AUTOLINK_LITERAL = /(?<=www)(?=\.)|(?<=https?)(?=:\/\/)|(?<=[\w+.-])(?=@[\w.-])/gi;

/** Plain text as phrasing: hard line breaks where the text has newlines. */
function textPhrasing(text: string, keepLiterals = true): M.PhrasingContent[] {
  const out: M.PhrasingContent[] = [];
  text.split('\n').forEach((line, i) => {
    if (i > 0) out.push({ type: 'break' });
    (keepLiterals ? line.split(AUTOLINK_LITERAL) : [line]).forEach((part, j) => {
      if (j > 0) out.push({ type: 'html', value: '<!-- -->' });
      if (part !== '') out.push({ type: 'text', value: part });
    });
  });
  return out;
}

const WRAPPER: Record<string, 'strong' | 'emphasis' | 'delete'> = { bold: 'strong', italic: 'emphasis', strikethrough: 'delete' };

/**
 * Nests marked runs into mdast: at each point, the mark that covers the longest stretch of runs
 * wraps that whole stretch, so `**a *b***` rather than `**a*****b***` (adjacent strong nodes
 * would not parse back). The code mark is innermost: inline code holds only text.
 */
function phrasing(runs: Run[], open: string[]): M.PhrasingContent[] {
  const out: M.PhrasingContent[] = [];
  const marksOf = (run: Run) => ('leaf' in run ? run.leaf.marks : run.marks).filter((m) => m !== 'code' && !open.includes(m));
  let i = 0;
  while (i < runs.length) {
    const run = runs[i]!;
    const pending = marksOf(run);
    if (pending.length === 0) {
      if ('inline' in run) out.push(run.inline);
      else if (run.leaf.marks.includes('code')) out.push(...codeSpans(run.leaf.text));
      else out.push(...textPhrasing(run.leaf.text));
      i++;
      continue;
    }
    let best = pending[0]!;
    let bestEnd = i + 1;
    for (const mark of pending) {
      let end = i + 1;
      while (end < runs.length && marksOf(runs[end]!).includes(mark)) end++;
      if (end > bestEnd) [best, bestEnd] = [mark, end];
    }
    out.push({ type: WRAPPER[best]!, children: phrasing(runs.slice(i, bestEnd), [...open, best]) } as M.PhrasingContent);
    i = bestEnd;
  }
  return out;
}

/** Inline code cannot hold a line break in a way that reads back (it becomes a space). */
function codeSpans(text: string): M.PhrasingContent[] {
  const out: M.PhrasingContent[] = [];
  text.split('\n').forEach((part, i) => {
    if (i > 0) out.push({ type: 'break' });
    if (part !== '') out.push({ type: 'inlineCode', value: part });
  });
  return out;
}
