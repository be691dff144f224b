import type * as M from 'mdast';
import type { Handle } from 'mdast-util-to-markdown';
import { isMap, parseDocument } from 'yaml';
import { markdownProcessor, markdownTree } from './processor.js';
import { markdownOfTree } from './markdown-write.js';

/**
 * Lectern's Markdown ↔ the app editor's document (Tiptap/ProseMirror JSON), through the one
 * Markdown pipeline: the server's parser (processor.ts) and serializer settings (markdown-write.ts).
 * Browser-safe (no node: imports): the app's editor and the server's tests import it alike.
 *
 * The contract: editorToMarkdown(markdownToEditor(md)) is md again, and editing one block rewrites
 * only that block's lines: top-level blocks left alone are written back as they were read (see
 * keepingUnchangedBlocks), edited ones as the serializer writes them. What the editor has no block
 * for (raw HTML, footnotes) is kept verbatim as raw blocks and inlines; reference-style links and
 * images read as inline ones (written so once their block is edited; link definitions stay). The
 * front matter stays outside the document: its YAML is kept as written, and the fields the editor
 * shows (description, hidden) are read from it and written back into it.
 */

/** A node of the editor's document, as Tiptap's `getJSON()` gives it. */
export interface EditorNode {
  type: string;
  attrs?: Record<string, unknown>;
  content?: EditorNode[];
  marks?: EditorMark[];
  text?: string;
}

export interface EditorMark {
  type: string;
  attrs?: Record<string, unknown>;
}

/** The front-matter fields edited beside the document. */
export interface PageFields {
  description?: string;
  hidden?: boolean;
}

/** A page as the editor holds it: the document, the front-matter fields and the YAML they came from. */
export interface EditorPage {
  doc: EditorNode;
  fields: PageFields;
  /** The front matter as written (without its `---` fences), or null when the page has none. */
  frontMatter: string | null;
  /** The text the page was read from, with where each top-level block was written in it. */
  origin?: PageOrigin;
}

/** Where the top-level blocks of a page were in the Markdown it was read from. */
export interface PageOrigin {
  source: string;
  /** Where the body starts (after the front matter). */
  bodyStart: number;
  /** `key`: the block's Markdown as the serializer writes it; `start`/`end`: its offsets in `source`. */
  blocks: { key: string; start: number; end: number }[];
}

/** Block node types of the editor's schema (Tiptap names) this converter reads and writes. */
export const EDITOR_BLOCKS = [
  'paragraph',
  'heading',
  'blockquote',
  'bulletList',
  'orderedList',
  'taskList',
  'listItem',
  'taskItem',
  'codeBlock',
  'horizontalRule',
  'table',
  'tableRow',
  'tableHeader',
  'tableCell',
  'rawBlock',
] as const;
export const EDITOR_INLINES = ['text', 'hardBreak', 'image', 'rawInline'] as const;
export const EDITOR_MARKS = ['bold', 'italic', 'strike', 'code', 'link'] as const;

// ---------------------------------------------------------------------------------------------
// Markdown → editor
// ---------------------------------------------------------------------------------------------

/** The editor page of a Markdown text (front matter included or not). */
export function markdownToEditor(markdown: string): EditorPage {
  const source = markdown.charCodeAt(0) === 0xfeff ? markdown.slice(1) : markdown;
  const root = markdownTree(source);
  let frontMatter: string | null = null;
  const first = root.children[0];
  if (first?.type === 'yaml') frontMatter = first.value;
  const reader = new MarkdownReader(source, root);
  const content: EditorNode[] = [];
  const origin: PageOrigin = { source, bodyStart: first?.type === 'yaml' ? (first.position?.end.offset ?? 0) : 0, blocks: [] };
  for (const node of root.children) {
    if (node.type === 'yaml') continue;
    const blocks = reader.block(node);
    content.push(...blocks);
    const { start, end } = node.position ?? {};
    if (blocks.length === 1 && start?.offset !== undefined && end?.offset !== undefined) {
      origin.blocks.push({ key: blockKey(blocks[0]!), start: start.offset, end: end.offset });
    }
  }
  return {
    doc: { type: 'doc', content: content.length > 0 ? content : [{ type: 'paragraph' }] },
    fields: fieldsOf(frontMatter),
    frontMatter,
    origin,
  };
}

const withMark = (marks: EditorMark[], mark: EditorMark) => (marks.some((m) => m.type === mark.type) ? marks : [...marks, mark]);
const marked = (node: EditorNode, marks: EditorMark[]): EditorNode => (marks.length > 0 ? { ...node, marks } : node);
const paragraphOf = (content: EditorNode[]): EditorNode => (content.length > 0 ? { type: 'paragraph', content } : { type: 'paragraph' });

class MarkdownReader {
  private readonly definitions = new Map<string, M.Definition>();

  constructor(
    private readonly source: string,
    root: M.Root,
  ) {
    const visit = (node: M.Nodes) => {
      // CommonMark: the first definition of a label wins.
      if (node.type === 'definition' && !this.definitions.has(node.identifier)) this.definitions.set(node.identifier, node);
      if ('children' in node) node.children.forEach(visit);
    };
    visit(root);
  }

  blocks(nodes: M.RootContent[]): EditorNode[] {
    return nodes.flatMap((node) => this.block(node));
  }

  /** Block children of a container the schema requires to hold at least one block. */
  private filled(nodes: M.RootContent[]): EditorNode[] {
    const content = this.blocks(nodes);
    return content.length > 0 ? content : [{ type: 'paragraph' }];
  }

  block(node: M.RootContent): EditorNode[] {
    switch (node.type) {
      case 'paragraph':
        return [paragraphOf(this.inlines(node.children, []))];
      case 'heading':
        return [{ type: 'heading', attrs: { level: node.depth }, ...contentOf(this.inlines(node.children, [])) }];
      case 'thematicBreak':
        return [{ type: 'horizontalRule' }];
      case 'blockquote':
        return [{ type: 'blockquote', content: this.filled(node.children) }];
      case 'list':
        return [this.list(node)];
      case 'code':
        return [{ type: 'codeBlock', attrs: { language: node.lang ?? null, meta: node.meta ?? null }, ...contentOf(textOf(node.value)) }];
      case 'table':
        return [this.table(node)];
      case 'html':
        return [{ type: 'rawBlock', ...contentOf(textOf(node.value)) }];
      case 'definition':
      case 'yaml':
        return [];
      default:
        // Footnote definitions (and anything else the editor has no block for) stay as written.
        return [{ type: 'rawBlock', ...contentOf(textOf(this.sourceOf(node))) }];
    }
  }

  private sourceOf(node: M.Nodes): string {
    const { start, end } = node.position ?? {};
    return start?.offset !== undefined && end?.offset !== undefined ? this.source.slice(start.offset, end.offset) : '';
  }

  private list(node: M.List): EditorNode {
    const tasks = node.children.some((item) => typeof item.checked === 'boolean');
    const items = node.children.map(
      (item): EditorNode => ({
        type: tasks ? 'taskItem' : 'listItem',
        attrs: { ...(tasks ? { checked: item.checked ?? null } : {}), spread: item.spread ?? false },
        content: this.filled(item.children),
      }),
    );
    const spread = node.spread ?? false;
    if (tasks) return { type: 'taskList', attrs: { spread }, content: items };
    if (node.ordered) return { type: 'orderedList', attrs: { start: node.start ?? 1, spread }, content: items };
    return { type: 'bulletList', attrs: { spread }, content: items };
  }

  private table(node: M.Table): EditorNode {
    const width = node.children[0]?.children.length ?? 0;
    const rows = node.children.map(
      (row, r): EditorNode => ({
        type: 'tableRow',
        content: Array.from({ length: width }, (_, c) => ({
          type: r === 0 ? 'tableHeader' : 'tableCell',
          attrs: { align: node.align?.[c] ?? null },
          content: [paragraphOf(this.inlines(row.children[c]?.children ?? [], []))],
        })),
      }),
    );
    return { type: 'table', content: rows };
  }

  inlines(nodes: M.PhrasingContent[], marks: EditorMark[]): EditorNode[] {
    return nodes.flatMap((node) => this.inline(node, marks));
  }

  private inline(node: M.PhrasingContent, marks: EditorMark[]): EditorNode[] {
    switch (node.type) {
      case 'text':
        return node.value ? [marked({ type: 'text', text: node.value }, marks)] : [];
      case 'strong':
        return this.inlines(node.children, withMark(marks, { type: 'bold' }));
      case 'emphasis':
        return this.inlines(node.children, withMark(marks, { type: 'italic' }));
      case 'delete':
        return this.inlines(node.children, withMark(marks, { type: 'strike' }));
      case 'inlineCode':
        return node.value ? [marked({ type: 'text', text: node.value }, withMark(marks, { type: 'code' }))] : [];
      case 'break':
        return [marked({ type: 'hardBreak' }, marks)];
      case 'link':
        return this.inlines(node.children, withMark(marks, linkMark(node.url, node.title)));
      case 'linkReference': {
        const definition = this.definitions.get(node.identifier);
        return this.inlines(node.children, definition ? withMark(marks, linkMark(definition.url, definition.title)) : marks);
      }
      case 'image':
        return [marked({ type: 'image', attrs: { src: node.url, alt: node.alt ?? null, title: node.title ?? null } }, marks)];
      case 'imageReference': {
        const definition = this.definitions.get(node.identifier);
        const image = { type: 'image', attrs: { src: definition?.url ?? '', alt: node.alt ?? null, title: definition?.title ?? null } };
        return [marked(image, marks)];
      }
      case 'html':
        return [marked({ type: 'rawInline', attrs: { markdown: node.value } }, marks)];
      default:
        // Footnote references (and any inline the editor has no node for) stay as written.
        return [marked({ type: 'rawInline', attrs: { markdown: this.sourceOf(node) } }, marks)];
    }
  }
}

const linkMark = (href: string, title: string | null | undefined): EditorMark => ({ type: 'link', attrs: { href, title: title ?? null } });
const textOf = (value: string): EditorNode[] => (value ? [{ type: 'text', text: value }] : []);
const contentOf = (content: EditorNode[]) => (content.length > 0 ? { content } : {});

// ---------------------------------------------------------------------------------------------
// Editor → Markdown
// ---------------------------------------------------------------------------------------------

/** The Markdown of an editor page: its front matter (fields written into it), then the document. */
export function editorToMarkdown(page: EditorPage): string {
  const frontMatter = frontMatterWithFields(page.frontMatter, page.fields);
  const kept = page.origin ? keepingUnchangedBlocks(page.doc, page.origin, frontMatter) : undefined;
  if (kept !== undefined) return kept;
  const children: M.RootContent[] = blocksToMdast(page.doc.content ?? [], 'top');
  const root: M.Root = { type: 'root', children: frontMatter === null ? children : [{ type: 'yaml', value: frontMatter }, ...children] };
  return write(root);
}

/** A top-level block's Markdown as the serializer writes it alone ('' for an empty paragraph). */
function blockKey(block: EditorNode): string {
  return markdownOfTree({ type: 'root', children: blocksToMdast([block], 'top') }).replace(/\n$/, '');
}

/**
 * The page with every top-level block that did not change written exactly as it was in the text
 * it was read from (with the text between two such neighbours: blank lines, link definitions),
 * and only the changed blocks serialized. So saving a page not written by the serializer (an
 * import, a Git sync, a hand-written file) changes only the lines of the blocks edited. Undefined
 * when the result would not read back as the document (a kept block's meaning depended on text
 * around it): the caller then serializes the whole page.
 */
function keepingUnchangedBlocks(doc: EditorNode, origin: PageOrigin, frontMatter: string | null): string | undefined {
  const blocks = (doc.content ?? []).filter((node) => !isEmptyParagraph(node));
  const keys = blocks.map(blockKey);
  const matches = matchBlocks(
    origin.blocks.map((block) => block.key),
    keys,
  );
  // Text outside blocks is link definitions and blank lines: what was between two blocks kept
  // together stays there, the page's head stays first, and every other definition goes last.
  const between = (i: number) => origin.source.slice(origin.blocks[i]!.end, origin.blocks[i + 1]?.start ?? origin.source.length);
  const usedBetween = new Set<number>();
  let body = '';
  keys.forEach((key, i) => {
    const kept = matches[i];
    const previous = matches[i - 1];
    if (i > 0 && kept !== undefined && previous !== undefined && kept === previous + 1) {
      body += between(previous);
      usedBetween.add(previous);
    } else if (i > 0) body += '\n\n';
    body += kept === undefined ? key : origin.source.slice(origin.blocks[kept]!.start, origin.blocks[kept]!.end);
  });
  const last = origin.blocks.length - 1;
  const tail = last >= 0 ? between(last).trimEnd() : '';
  usedBetween.add(last);
  const head = origin.source.slice(origin.bodyStart, origin.blocks[0]?.start ?? origin.bodyStart).replace(/^(\r?\n)+/, '');
  const rest = origin.blocks.map((_, i) => (usedBetween.has(i) ? '' : between(i).trim())).filter(Boolean);
  body = head + body + (rest.length > 0 ? `\n\n${rest.join('\n\n')}` : '') + tail;
  if (frontMatter === null && matches[0] === undefined && blocks[0]?.type === 'horizontalRule') body = body.replace(/^---/, '***');
  const markdown = (frontMatter === null ? '' : `${yamlBlock(frontMatter)}\n\n`) + (body ? `${body}\n` : '');
  const readBack = (markdownToEditor(markdown).doc.content ?? []).filter((node) => !isEmptyParagraph(node)).map(blockKey);
  return readBack.length === keys.length && readBack.every((key, i) => key === keys[i]) ? markdown : undefined;
}

/** For each of `next`, the index in `old` of the same block kept in order (a longest common subsequence), or undefined. */
function matchBlocks(old: string[], next: string[]): (number | undefined)[] {
  // Common head and tail first: an edit usually touches a few blocks in the middle of a page.
  const matches: (number | undefined)[] = new Array(next.length).fill(undefined);
  let head = 0;
  while (head < old.length && head < next.length && old[head] === next[head]) matches[head] = head++;
  let tail = 0;
  while (tail < old.length - head && tail < next.length - head && old[old.length - 1 - tail] === next[next.length - 1 - tail]) {
    matches[next.length - 1 - tail] = old.length - 1 - tail;
    tail++;
  }
  const a = old.slice(head, old.length - tail);
  const b = next.slice(head, next.length - tail);
  // Classic LCS table over the middle (small: the blocks between the first and last change; past
  // a million cells the middle is written anew rather than matched).
  if (a.length * b.length > 1_000_000) return matches;
  const table = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      table[i]![j] = a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i] === b[j]) matches[head + j++] = head + i++;
    else if (table[i + 1]![j]! >= table[i]![j + 1]!) i++;
    else j++;
  }
  return matches;
}

/**
 * The serializer with front matter. A divider on the first line of a page without front matter is
 * written `***`: the parser takes a first-line `---` for the start of front matter and, finding
 * no end, misreads what follows (a list becomes a paragraph).
 */
function write(root: M.Root): string {
  const markdown = markdownOfTree(root, { handlers: { yaml: writeYaml } });
  return root.children[0]?.type === 'thematicBreak' ? markdown.replace(/^---/, '***') : markdown;
}

const yamlBlock = (value: string) => (value ? `---\n${value}\n---` : '---\n---');
const writeYaml: Handle = (node: M.Yaml) => yamlBlock(node.value);

/**
 * Markdown as the server's pipeline writes it: parsed by the server's parser and serialized with
 * its settings. Every text the editor saves is already in this form.
 */
export function normalizeMarkdown(markdown: string): string {
  const source = markdown.charCodeAt(0) === 0xfeff ? markdown.slice(1) : markdown;
  return write(markdownTree(source));
}

type Container = 'top' | 'quote' | 'item';

const textContent = (node: EditorNode): string => node.text ?? (node.content ?? []).map(textContent).join('');
const isEmptyParagraph = (node: EditorNode) => node.type === 'paragraph' && (node.content ?? []).length === 0;

function blocksToMdast(nodes: EditorNode[], container: Container): M.BlockContent[] {
  // An empty paragraph has no Markdown: the blank lines it would add vanish on the next read.
  return nodes.filter((node) => !isEmptyParagraph(node)).flatMap((node) => blockToMdast(node, container));
}

function blockToMdast(node: EditorNode, container: Container): M.BlockContent[] {
  switch (node.type) {
    case 'paragraph': {
      const children = inlinesToMdast(node.content ?? []);
      return children.length > 0 ? [{ type: 'paragraph', children }] : [];
    }
    case 'heading': {
      const level = Number(node.attrs?.level ?? 1);
      const depth = (level >= 1 && level <= 6 ? level : 1) as M.Heading['depth'];
      return [{ type: 'heading', depth, children: inlinesToMdast(node.content ?? []) }];
    }
    case 'horizontalRule':
      return [{ type: 'thematicBreak' }];
    case 'blockquote': {
      const children = blocksToMdast(node.content ?? [], 'quote');
      if (children.some((child) => child.type === 'list')) adoptSpreadsAsRead({ type: 'blockquote', children });
      return [{ type: 'blockquote', children }];
    }
    case 'bulletList':
    case 'orderedList':
    case 'taskList':
      return listToMdast(node);
    case 'codeBlock': {
      const lang = stringAttr(node, 'language');
      const meta = lang ? stringAttr(node, 'meta') : null;
      return [{ type: 'code', lang, meta, value: textContent(node) }];
    }
    case 'table':
      return [tableToMdast(node)];
    case 'rawBlock':
      return [{ type: 'html', value: textContent(node) }];
    default:
      // A node from outside the schema (pasted content the schema let through): keep its text.
      return container === 'top' || textContent(node)
        ? [{ type: 'paragraph', children: [{ type: 'text', value: textContent(node) }] }]
        : [];
  }
}

const stringAttr = (node: EditorNode, name: string): string | null => {
  const value = node.attrs?.[name];
  return typeof value === 'string' && value !== '' ? value : null;
};

/** The list, without its empty items (Markdown reads an empty item back as text or as part of another). */
function listToMdast(node: EditorNode): M.List[] {
  const children = (node.content ?? []).flatMap((item): M.ListItem[] => {
    const blocks = blocksToMdast(item.content ?? [], 'item');
    const checked = node.type === 'taskList' && typeof item.attrs?.checked === 'boolean' ? item.attrs.checked : null;
    const listItem: M.ListItem = { type: 'listItem', spread: item.attrs?.spread === true, checked, children: blocks };
    if (!listItem.spread && blocks.length > 1 && !readsBackTight(listItem)) listItem.spread = true;
    return blocks.length > 0 ? [listItem] : [];
  });
  const spread = node.attrs?.spread === true;
  if (children.length === 0) return [];
  if (node.type !== 'orderedList') return [{ type: 'list', ordered: false, spread, children }];
  const start = Number(node.attrs?.start ?? 1);
  return [{ type: 'list', ordered: true, start: Number.isInteger(start) && start >= 0 ? start : 1, spread, children }];
}

/**
 * Whether a list item written tight (no blank lines between its blocks) reads back as the same
 * blocks, tight. It may not: the serializer must separate two paragraphs by a blank line (which
 * makes the item loose when read), a paragraph after a table or a lazy list line would continue
 * it. Tried rather than predicted, with the one parser and serializer.
 */
function readsBackTight(item: M.ListItem): boolean {
  const list: M.List = { type: 'list', ordered: false, spread: false, children: [item] };
  const read = markdownProcessor.parse(markdownOfTree({ type: 'root', children: [list] })) as M.Root;
  const readList = read.children[0];
  const readItem = readList?.type === 'list' && readList.children.length === 1 ? readList.children[0] : undefined;
  return read.children.length === 1 && readItem?.spread === false && blockShape(readItem.children) === blockShape(item.children);
}

/**
 * In a quote the parser reads some tight lists as loose (a list followed by another list or a
 * quote, a nested list followed by more of its item). Such lists are written as the parser
 * reads them, the form that then reads back as written.
 */
function adoptSpreadsAsRead(quote: M.Blockquote) {
  const read = (markdownProcessor.parse(markdownOfTree({ type: 'root', children: [quote] })) as M.Root).children[0];
  if (read?.type === 'blockquote' && blockShape(read.children) === blockShape(quote.children)) adoptSpreads(quote.children, read.children);
}

function adoptSpreads(written: M.Nodes[], read: M.Nodes[]) {
  written.forEach((node, i) => {
    const other = read[i];
    if ((node.type === 'list' && other?.type === 'list') || (node.type === 'listItem' && other?.type === 'listItem'))
      node.spread = other.spread ?? false;
    if ((node.type === 'list' || node.type === 'listItem' || node.type === 'blockquote') && other && 'children' in other)
      adoptSpreads(node.children, other.children);
  });
}

/** The block structure of some nodes (types of blocks and of their block children), for comparison. */
function blockShape(nodes: M.Nodes[]): string {
  return nodes
    .map((node) => {
      const inner =
        'children' in node && ['blockquote', 'list', 'listItem', 'table', 'tableRow'].includes(node.type)
          ? `(${blockShape(node.children)})`
          : '';
      return node.type + inner;
    })
    .join(',');
}

function tableToMdast(node: EditorNode): M.Table {
  const rows = (node.content ?? []).map((row) =>
    (row.content ?? []).flatMap((cell): M.TableCell[] => {
      const first = (cell.content ?? [])[0];
      const children = inlinesToMdast(
        trimInline(first?.type === 'paragraph' ? (first.content ?? []) : [{ type: 'text', text: textContent(cell) }]),
      );
      // Markdown tables have no merged cells: a cell spanning columns is followed by empty ones.
      const span = Math.max(1, Number(cell.attrs?.colspan ?? 1) || 1);
      return [
        { type: 'tableCell', children },
        ...Array.from({ length: span - 1 }, (): M.TableCell => ({ type: 'tableCell', children: [] })),
      ];
    }),
  );
  const header = node.content?.[0]?.content ?? [];
  const align = header.map((cell) => {
    const value = cell.attrs?.align;
    return value === 'left' || value === 'center' || value === 'right' ? value : null;
  });
  return { type: 'table', align, children: rows.map((cells): M.TableRow => ({ type: 'tableRow', children: cells })) };
}

/** Inline nodes without white space at their edges (a table cell's is not kept: the parser trims it). */
function trimInline(nodes: EditorNode[]): EditorNode[] {
  const out = nodes.map((node) => ({ ...node }));
  const trim = (end: boolean) => {
    for (;;) {
      const node = end ? out[out.length - 1] : out[0];
      if (node?.type !== 'text') return;
      node.text = (node.text ?? '').replace(end ? /\s+$/ : /^\s+/, '');
      if (node.text) return;
      if (end) out.pop();
      else out.shift();
    }
  };
  trim(false);
  trim(true);
  return out;
}

// Inline content: marks on a flat run of nodes → mdast's nested strong/emphasis/delete/link.

type Wrapper = M.Strong | M.Emphasis | M.Delete | M.Link;
type Leaf = M.Text | M.InlineCode | M.Break | M.Image | M.Html;

const sameMark = (a: EditorMark, b: EditorMark) =>
  a.type === b.type && (a.type !== 'link' || (a.attrs?.href === b.attrs?.href && (a.attrs?.title ?? null) === (b.attrs?.title ?? null)));
const wrapperMarks = (node: EditorNode) => (node.marks ?? []).filter((m) => m.type !== 'code' && EDITOR_MARKS.includes(m.type as never));

function wrapperOf(mark: EditorMark): Wrapper {
  switch (mark.type) {
    case 'bold':
      return { type: 'strong', children: [] };
    case 'italic':
      return { type: 'emphasis', children: [] };
    case 'strike':
      return { type: 'delete', children: [] };
    default: {
      const title = mark.attrs?.title;
      return { type: 'link', url: String(mark.attrs?.href ?? ''), title: typeof title === 'string' && title ? title : null, children: [] };
    }
  }
}

function leafOf(node: EditorNode): Leaf | undefined {
  switch (node.type) {
    case 'text':
      if (!node.text) return undefined;
      return (node.marks ?? []).some((m) => m.type === 'code')
        ? { type: 'inlineCode', value: node.text }
        : { type: 'text', value: node.text };
    case 'hardBreak':
      return { type: 'break' };
    case 'image': {
      const { src, alt, title } = node.attrs ?? {};
      return {
        type: 'image',
        url: String(src ?? ''),
        alt: typeof alt === 'string' ? alt : null,
        title: typeof title === 'string' && title ? title : null,
      };
    }
    case 'rawInline':
      return { type: 'html', value: String(node.attrs?.markdown ?? '') };
    default:
      return node.text ? { type: 'text', value: node.text } : undefined;
  }
}

/**
 * Nests marks as Markdown must: a mark still open from the previous node stays open, and of the
 * marks that start at a node, the one that runs longest opens first (outermost).
 */
function inlinesToMdast(nodes: EditorNode[]): M.PhrasingContent[] {
  const root: M.PhrasingContent[] = [];
  const open: { mark: EditorMark; node: Wrapper }[] = [];
  const children = () => (open.length > 0 ? open[open.length - 1]!.node.children : root) as M.PhrasingContent[];
  const items = nodes.map((node) => ({ leaf: leafOf(node), marks: wrapperMarks(node) })).filter((item) => item.leaf);
  // A line break needs text on both sides: at the start or end of a block Markdown has none.
  while (items[0]?.leaf?.type === 'break') items.shift();
  while (items[items.length - 1]?.leaf?.type === 'break') items.pop();
  items.forEach((item, i) => {
    const kept = open.findIndex((entry) => !item.marks.some((m) => sameMark(m, entry.mark)));
    if (kept >= 0) open.length = kept;
    const runLength = (mark: EditorMark) => {
      let n = i;
      while (n < items.length && items[n]!.marks.some((m) => sameMark(m, mark))) n++;
      return n - i;
    };
    const starting = item.marks.filter((m) => !open.some((entry) => sameMark(entry.mark, m))).sort((a, b) => runLength(b) - runLength(a));
    for (const mark of starting) {
      const wrapper = wrapperOf(mark);
      children().push(wrapper);
      open.push({ mark, node: wrapper });
    }
    children().push(item.leaf!);
  });
  return root;
}

// ---------------------------------------------------------------------------------------------
// Front matter fields
// ---------------------------------------------------------------------------------------------

/** The description and hidden fields of a front matter (none when it is absent or not a mapping). */
export function fieldsOf(frontMatter: string | null): PageFields {
  if (!frontMatter) return {};
  const document = parseDocument(frontMatter);
  if (document.errors.length > 0 || !isMap(document.contents)) return {};
  const data = document.toJS() as Record<string, unknown>;
  return {
    ...(typeof data.description === 'string' ? { description: data.description } : {}),
    ...(typeof data.hidden === 'boolean' ? { hidden: data.hidden } : {}),
  };
}

/**
 * The front matter with `fields` written into it: unchanged text when they are what it says,
 * otherwise the YAML with those keys set (or removed), every other key kept. Null when nothing is left.
 */
export function frontMatterWithFields(frontMatter: string | null, fields: PageFields): string | null {
  const current = fieldsOf(frontMatter);
  if (current.description === fields.description && current.hidden === fields.hidden) return frontMatter;
  const parsed = frontMatter ? parseDocument(frontMatter) : undefined;
  const document = parsed && parsed.errors.length === 0 && isMap(parsed.contents) ? parsed : parseDocument('{}');
  for (const key of ['description', 'hidden'] as const) {
    const value = fields[key];
    if (value === undefined || value === '') document.delete(key);
    else document.set(key, value);
  }
  if (isMap(document.contents) && document.contents.items.length === 0) return null;
  if (isMap(document.contents)) document.contents.flow = false;
  return document.toString().replace(/\n$/, '');
}
