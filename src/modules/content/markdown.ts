import { createHash } from 'node:crypto';
import GithubSlugger, { slug as githubSlug } from 'github-slugger';
import type * as M from 'mdast';
import { toString as mdastToString } from 'mdast-util-to-string';
import remarkFrontmatter from 'remark-frontmatter';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { parseDocument } from 'yaml';

/**
 * Markdown → GitBook rich-text document (`JSONDocument` of the official API), plus what search
 * and link indexing need (front matter, sections, links, plain text).
 *
 * Parsing is done by micromark/mdast (unified + remark-parse, with GFM and YAML front matter);
 * the mdast tree is then mapped onto GitBook's Slate-like document model. Everything here is
 * pure and deterministic: the same markdown always gives byte-identical JSON (block keys are
 * hashes of the node's position in the produced tree), so documents are content-addressable.
 */

/** `data.schemaVersion` of the documents produced here. */
export const DOCUMENT_SCHEMA_VERSION = 1;

// ---------------------------------------------------------------------------------------------
// Document types (the subset of GitBook's JSONDocument this module produces).
// ---------------------------------------------------------------------------------------------

type Empty = Record<string, never>;

export type DocumentMarkType = 'bold' | 'italic' | 'strikethrough' | 'code' | 'superscript';

export interface DocumentMark {
  object: 'mark';
  type: DocumentMarkType;
  data: Empty;
}

export interface DocumentLeaf {
  object: 'leaf';
  text: string;
  marks: DocumentMark[];
}

export interface DocumentText {
  object: 'text';
  key: string;
  leaves: DocumentLeaf[];
}

export interface ContentRefURL {
  kind: 'url';
  url: string;
}

export interface DocumentInlineImage {
  object: 'inline';
  type: 'inline-image';
  key: string;
  isVoid: true;
  data: { ref: ContentRefURL; alt?: string; caption?: string };
}

export interface DocumentInlineLink {
  object: 'inline';
  type: 'link';
  key: string;
  isVoid: false;
  data: { ref: ContentRefURL };
  nodes: (DocumentText | DocumentInlineImage)[];
}

export type DocumentInline = DocumentInlineLink | DocumentInlineImage;

export interface DocumentBlockParagraph {
  object: 'block';
  type: 'paragraph';
  key: string;
  isVoid: false;
  data: Empty;
  nodes: (DocumentText | DocumentInline)[];
}

export interface DocumentBlockHeading {
  object: 'block';
  type: 'heading-1' | 'heading-2' | 'heading-3';
  key: string;
  isVoid: false;
  data: Empty;
  /** `meta.id`: the heading's anchor (github-slugger style, unique within the page). */
  meta: { id: string };
  nodes: (DocumentText | DocumentInline)[];
}

export interface DocumentBlockListUnordered {
  object: 'block';
  type: 'list-unordered';
  key: string;
  isVoid: false;
  data: Empty;
  nodes: DocumentBlockListItem[];
}

export interface DocumentBlockListOrdered {
  object: 'block';
  type: 'list-ordered';
  key: string;
  isVoid: false;
  data: { start?: number };
  nodes: DocumentBlockListItem[];
}

export interface DocumentBlockListTasks {
  object: 'block';
  type: 'list-tasks';
  key: string;
  isVoid: false;
  data: Empty;
  nodes: DocumentBlockListItem[];
}

export interface DocumentBlockDivider {
  object: 'block';
  type: 'divider';
  key: string;
  isVoid: true;
  data: Empty;
}

export type DocumentBlockEssential =
  | DocumentBlockParagraph
  | DocumentBlockHeading
  | DocumentBlockListOrdered
  | DocumentBlockListUnordered
  | DocumentBlockListTasks
  | DocumentBlockDivider;

export interface DocumentBlockListItem {
  object: 'block';
  type: 'list-item';
  key: string;
  isVoid: false;
  data: { checked?: boolean };
  nodes: (DocumentBlockEssential | DocumentBlockCode | DocumentBlockQuote | DocumentBlockTable)[];
}

export interface DocumentBlockQuote {
  object: 'block';
  type: 'blockquote';
  key: string;
  isVoid: false;
  data: Empty;
  nodes: (DocumentBlockEssential | DocumentBlockQuote)[];
}

export interface DocumentBlockCodeLine {
  object: 'block';
  type: 'code-line';
  key: string;
  isVoid: false;
  data: Empty;
  nodes: DocumentText[];
}

export interface DocumentBlockCode {
  object: 'block';
  type: 'code';
  key: string;
  isVoid: false;
  data: { syntax?: string };
  nodes: DocumentBlockCodeLine[];
}

export interface DocumentFragment {
  object: 'fragment';
  key: string;
  fragment: string;
  nodes: DocumentBlockParagraph[];
}

export interface DocumentBlockImage {
  object: 'block';
  type: 'image';
  key: string;
  isVoid: true;
  data: { ref: ContentRefURL; alt?: string };
  /** The image title, if any, as a `caption` fragment. */
  fragments: (DocumentFragment & { fragment: 'caption' })[];
}

export interface DocumentBlockImages {
  object: 'block';
  type: 'images';
  key: string;
  isVoid: false;
  data: Empty;
  nodes: DocumentBlockImage[];
}

export interface DocumentTableDefinitionText {
  id: string;
  title: string;
  type: 'text';
  textAlignment: 'left' | 'center' | 'right';
}

export interface DocumentTableRecord {
  orderIndex: string;
  /** column id → name of the fragment holding the cell's content */
  values: Record<string, string>;
}

/** A GFM table: GitBook's grid table; each cell's content is a fragment named in the record. */
export interface DocumentBlockTable {
  object: 'block';
  type: 'table';
  key: string;
  isVoid: true;
  data: {
    view: { type: 'grid'; columns: string[]; hideHeader: boolean };
    records: Record<string, DocumentTableRecord>;
    definition: Record<string, DocumentTableDefinitionText>;
  };
  fragments: DocumentFragment[];
}

export type DocumentBlockTopLevel =
  | DocumentBlockEssential
  | DocumentBlockQuote
  | DocumentBlockImages
  | DocumentBlockCode
  | DocumentBlockTable;

export type DocumentBlock = DocumentBlockTopLevel | DocumentBlockListItem | DocumentBlockCodeLine | DocumentBlockImage;

export interface MarkdownDocument {
  object: 'document';
  data: { schemaVersion: number };
  nodes: DocumentBlockTopLevel[];
}

export interface MarkdownSection {
  /** '' for the text before the first heading, else the heading's anchor. */
  id: string;
  /** '' for the text before the first heading, else the heading's plain text. */
  title: string;
  /** Plain text (no markdown syntax) up to the next heading. */
  body: string;
}

export interface MarkdownLink {
  href: string;
  text: string;
}

export interface ParsedMarkdown {
  frontMatter: Record<string, unknown>;
  /** The markdown without its front matter. */
  body: string;
  document: MarkdownDocument;
  sections: MarkdownSection[];
  /** Every link and image target, in document order (reference-style ones resolved). */
  links: MarkdownLink[];
  /** All plain text of the body. */
  text: string;
}

// ---------------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------------

const processor = unified().use(remarkParse).use(remarkFrontmatter, ['yaml']).use(remarkGfm).freeze();

export function parseMarkdown(markdown: string): ParsedMarkdown {
  const source = markdown.charCodeAt(0) === 0xfeff ? markdown.slice(1) : markdown;
  const root = processor.parse(source) as M.Root;

  let frontMatter: Record<string, unknown> = {};
  let body = source;
  const first = root.children[0];
  if (first?.type === 'yaml') {
    frontMatter = parseFrontMatter(first.value);
    body = stripLeadingLineEndings(source.slice(first.position?.end.offset ?? 0));
  }

  const definitions = collectDefinitions(root);
  const converter = new Converter(definitions);
  const nodes = converter.blocks(root.children, 'top') as DocumentBlockTopLevel[];
  const document: MarkdownDocument = { object: 'document', data: { schemaVersion: DOCUMENT_SCHEMA_VERSION }, nodes };
  finalize(document);

  return {
    frontMatter,
    body,
    document,
    sections: sectionsOf(document),
    links: linksOf(root, definitions),
    text: joinBlocks(document.nodes.map(blockText)),
  };
}

export function documentFromMarkdown(markdown: string): MarkdownDocument {
  return parseMarkdown(markdown).document;
}

/**
 * A URL-friendly slug: lower case, accents stripped, words joined by '-'. Apostrophes vanish
 * ("What's new" → "whats-new"); any other character that is not a letter or digit separates
 * words. Never empty: 'untitled' when nothing is left.
 */
export function slugify(title: string): string {
  const words = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .normalize('NFC')
    .toLowerCase()
    .replace(/['’ʼ`]/g, '')
    .split(/[^\p{L}\p{M}\p{N}]+/u)
    .filter((w) => w.length > 0);
  return words.length > 0 ? words.join('-') : 'untitled';
}

// ---------------------------------------------------------------------------------------------
// Front matter
// ---------------------------------------------------------------------------------------------

function parseFrontMatter(value: string): Record<string, unknown> {
  const doc = parseDocument(value, { prettyErrors: true });
  if (doc.errors.length > 0) {
    throw new Error(`markdown: invalid front matter (YAML): ${doc.errors[0]!.message}`);
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    throw new Error(`markdown: invalid front matter (YAML): ${(err as Error).message}`);
  }
  if (data === null || data === undefined) return {};
  if (typeof data !== 'object' || Array.isArray(data)) {
    const got = Array.isArray(data) ? 'a list' : `a ${typeof data}`;
    throw new Error(`markdown: invalid front matter: expected a mapping of keys to values, got ${got}`);
  }
  return data as Record<string, unknown>;
}

function stripLeadingLineEndings(text: string): string {
  let i = 0;
  while (i < text.length && (text[i] === '\n' || text[i] === '\r')) i++;
  return text.slice(i);
}

// ---------------------------------------------------------------------------------------------
// mdast → document
// ---------------------------------------------------------------------------------------------

/** Where blocks go: the schema allows different children in each container. */
type Context = 'top' | 'item' | 'quote';

/** A run of text with marks, or an inline node, before grouping into text nodes. */
type Piece = { leaf: DocumentLeaf } | { inline: DocumentInline };

const MARK_ORDER: DocumentMarkType[] = ['bold', 'italic', 'strikethrough', 'code', 'superscript'];

function collectDefinitions(root: M.Root): Map<string, M.Definition> {
  const defs = new Map<string, M.Definition>();
  walk(root, (node) => {
    // CommonMark: the first definition of a label wins.
    if (node.type === 'definition' && !defs.has(node.identifier)) defs.set(node.identifier, node);
  });
  return defs;
}

function walk(node: M.Nodes, visit: (node: M.Nodes) => void) {
  visit(node);
  if ('children' in node) for (const child of node.children) walk(child, visit);
}

const block = <T extends { type: string }>(node: T) => ({ object: 'block' as const, key: '', ...node });
const textNode = (leaves: DocumentLeaf[]): DocumentText => ({ object: 'text', key: '', leaves });
const leaf = (text: string, marks: DocumentMarkType[] = []): DocumentLeaf => ({
  object: 'leaf',
  text,
  marks: marks.map((type) => ({ object: 'mark', type, data: {} })),
});
const urlRef = (url: string): ContentRefURL => ({ kind: 'url', url });

function paragraph(pieces: Piece[]): DocumentBlockParagraph {
  return block({ type: 'paragraph' as const, isVoid: false as const, data: {}, nodes: normalizeInlines(pieces) });
}

class Converter {
  constructor(private readonly definitions: Map<string, M.Definition>) {}

  blocks(children: M.RootContent[], ctx: Context): DocumentBlock[] {
    return children.flatMap((child) => this.block(child, ctx));
  }

  block(node: M.RootContent, ctx: Context): DocumentBlock[] {
    switch (node.type) {
      case 'paragraph':
        return [this.paragraph(node, ctx)];
      case 'heading': {
        const type = node.depth === 1 ? 'heading-1' : node.depth === 2 ? 'heading-2' : 'heading-3';
        const heading: DocumentBlockHeading = block({
          type,
          isVoid: false as const,
          data: {},
          meta: { id: '' },
          nodes: normalizeInlines(this.inlines(node.children, [])),
        });
        return [heading];
      }
      case 'thematicBreak':
        return [block({ type: 'divider' as const, isVoid: true as const, data: {} })];
      case 'blockquote': {
        const nodes = this.blocks(node.children, 'quote') as DocumentBlockQuote['nodes'];
        return [block({ type: 'blockquote' as const, isVoid: false as const, data: {}, nodes: nonEmpty(nodes) })];
      }
      case 'list':
        return [this.list(node)];
      case 'code':
        return [this.code(node, ctx)];
      case 'table':
        return this.table(node, ctx);
      case 'html':
        return isHtmlComment(node.value) ? [] : [paragraph([{ leaf: leaf(node.value) }])];
      case 'footnoteDefinition': {
        const label: Piece[] = [{ leaf: leaf(node.label ?? node.identifier, ['superscript']) }, { leaf: leaf(' ') }];
        const first = node.children[0];
        if (first?.type === 'paragraph') {
          const rest = this.blocks(node.children.slice(1), ctx);
          return [paragraph([...label, ...this.inlines(first.children, [])]), ...rest];
        }
        return [paragraph(label.slice(0, 1)), ...this.blocks(node.children, ctx)];
      }
      case 'definition':
      case 'yaml':
        return [];
      default:
        // Phrasing content never appears directly in a block container of a parsed tree; list
        // items, rows and cells are handled by their parents. Keep any text rather than lose it.
        return 'children' in node || 'value' in node ? [paragraph([{ leaf: leaf(mdastToString(node)) }])] : [];
    }
  }

  /** A paragraph made only of images becomes an `images` block where the schema allows one. */
  paragraph(node: M.Paragraph, ctx: Context): DocumentBlock {
    if (ctx === 'top') {
      const images: DocumentBlockImage[] = [];
      let onlyImages = true;
      for (const child of node.children) {
        if (child.type === 'text' && child.value.trim() === '') continue;
        if (child.type === 'break') continue;
        const image = child.type === 'image' ? child : child.type === 'imageReference' ? this.resolveImage(child) : undefined;
        if (!image) {
          onlyImages = false;
          break;
        }
        images.push(
          block({
            type: 'image' as const,
            isVoid: true as const,
            data: { ref: urlRef(image.url), ...(image.alt ? { alt: image.alt } : {}) },
            fragments: image.title
              ? [{ object: 'fragment' as const, key: '', fragment: 'caption' as const, nodes: [paragraph([{ leaf: leaf(image.title) }])] }]
              : [],
          }),
        );
      }
      if (onlyImages && images.length > 0) {
        return block({ type: 'images' as const, isVoid: false as const, data: {}, nodes: images });
      }
    }
    return paragraph(this.inlines(node.children, []));
  }

  list(node: M.List): DocumentBlock {
    const tasks = node.children.some((item) => typeof item.checked === 'boolean');
    const items: DocumentBlockListItem[] = node.children.map((item) => {
      const nodes = this.blocks(item.children, 'item') as DocumentBlockListItem['nodes'];
      return block({
        type: 'list-item' as const,
        isVoid: false as const,
        data: tasks && typeof item.checked === 'boolean' ? { checked: item.checked } : {},
        nodes: nonEmpty(nodes),
      });
    });
    if (tasks) return block({ type: 'list-tasks' as const, isVoid: false as const, data: {}, nodes: items });
    if (node.ordered) {
      const data = typeof node.start === 'number' && node.start !== 1 ? { start: node.start } : {};
      return block({ type: 'list-ordered' as const, isVoid: false as const, data, nodes: items });
    }
    return block({ type: 'list-unordered' as const, isVoid: false as const, data: {}, nodes: items });
  }

  code(node: M.Code, ctx: Context): DocumentBlock {
    const lines = node.value.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
    if (ctx === 'quote') {
      // A blockquote may not hold a code block: keep the code as code-marked text.
      return paragraph([{ leaf: leaf(lines.join('\n'), ['code']) }]);
    }
    return block({
      type: 'code' as const,
      isVoid: false as const,
      data: node.lang ? { syntax: node.lang } : {},
      nodes: lines.map((line) =>
        block({ type: 'code-line' as const, isVoid: false as const, data: {}, nodes: [textNode([leaf(line)])] }),
      ),
    });
  }

  table(node: M.Table, ctx: Context): DocumentBlock[] {
    const [header, ...rows] = node.children;
    if (!header) return [];
    if (ctx === 'quote') {
      // A blockquote may not hold a table: one paragraph per row, cells separated by ' | '.
      return node.children.map((row) =>
        paragraph(row.children.flatMap((cell, i) => [...(i > 0 ? [{ leaf: leaf(' | ') }] : []), ...this.inlines(cell.children, [])])),
      );
    }
    const width = header.children.length;
    const columns = header.children.map((_, i) => `c${i + 1}`);
    const definition: Record<string, DocumentTableDefinitionText> = {};
    header.children.forEach((cell, i) => {
      const id = columns[i]!;
      definition[id] = { id, title: mdastToString(cell).trim(), type: 'text', textAlignment: node.align?.[i] ?? 'left' };
    });
    const records: Record<string, DocumentTableRecord> = {};
    const fragments: DocumentFragment[] = [];
    const pad = String(rows.length).length;
    rows.forEach((row, r) => {
      const id = `r${r + 1}`;
      const values: Record<string, string> = {};
      row.children.slice(0, width).forEach((cell, c) => {
        const name = `${id}${columns[c]}`;
        values[columns[c]!] = name;
        fragments.push({ object: 'fragment', key: '', fragment: name, nodes: [paragraph(this.inlines(cell.children, []))] });
      });
      records[id] = { orderIndex: String(r).padStart(pad, '0'), values };
    });
    return [
      block({
        type: 'table' as const,
        isVoid: true as const,
        data: { view: { type: 'grid' as const, columns, hideHeader: false }, records, definition },
        fragments,
      }),
    ];
  }

  inlines(children: M.PhrasingContent[], marks: DocumentMarkType[]): Piece[] {
    return children.flatMap((child) => this.inline(child, marks));
  }

  inline(node: M.PhrasingContent, marks: DocumentMarkType[]): Piece[] {
    switch (node.type) {
      case 'text':
        // A soft line break is a space; only hard breaks are kept as '\n'.
        return [{ leaf: leaf(node.value.split('\n').join(' '), marks) }];
      case 'break':
        return [{ leaf: leaf('\n', marks) }];
      case 'strong':
        return this.inlines(node.children, withMark(marks, 'bold'));
      case 'emphasis':
        return this.inlines(node.children, withMark(marks, 'italic'));
      case 'delete':
        return this.inlines(node.children, withMark(marks, 'strikethrough'));
      case 'inlineCode':
        return [{ leaf: leaf(node.value, withMark(marks, 'code')) }];
      case 'html':
        return isHtmlComment(node.value) ? [] : [{ leaf: leaf(node.value, marks) }];
      case 'footnoteReference':
        return [{ leaf: leaf(node.label ?? node.identifier, withMark(marks, 'superscript')) }];
      case 'link':
        return [{ inline: this.link(node.url, node.children, marks) }];
      case 'linkReference': {
        const def = this.definitions.get(node.identifier);
        if (!def) return this.inlines(node.children, marks);
        return [{ inline: this.link(def.url, node.children, marks) }];
      }
      case 'image':
        return [{ inline: inlineImage(node) }];
      case 'imageReference': {
        const image = this.resolveImage(node);
        return image ? [{ inline: inlineImage(image) }] : [{ leaf: leaf(node.alt ?? '', marks) }];
      }
      default:
        return [{ leaf: leaf(mdastToString(node), marks) }];
    }
  }

  link(url: string, children: M.PhrasingContent[], marks: DocumentMarkType[]): DocumentInlineLink {
    // A link holds text and inline images only (markdown links cannot nest).
    const pieces = this.inlines(children, marks).map((piece): Piece =>
      'inline' in piece && piece.inline.type === 'link' ? { leaf: leaf(inlineText(piece.inline), marks) } : piece,
    );
    return {
      object: 'inline',
      type: 'link',
      key: '',
      isVoid: false,
      data: { ref: urlRef(url) },
      nodes: normalizeInlines(pieces) as DocumentInlineLink['nodes'],
    };
  }

  resolveImage(node: M.ImageReference): { url: string; alt?: string | null; title?: string | null } | undefined {
    const def = this.definitions.get(node.identifier);
    return def ? { url: def.url, alt: node.alt, title: def.title } : undefined;
  }
}

function inlineImage(image: { url: string; alt?: string | null; title?: string | null }): DocumentInlineImage {
  return {
    object: 'inline',
    type: 'inline-image',
    key: '',
    isVoid: true,
    data: { ref: urlRef(image.url), ...(image.alt ? { alt: image.alt } : {}), ...(image.title ? { caption: image.title } : {}) },
  };
}

function withMark(marks: DocumentMarkType[], mark: DocumentMarkType): DocumentMarkType[] {
  return marks.includes(mark) ? marks : MARK_ORDER.filter((m) => m === mark || marks.includes(m));
}

function isHtmlComment(value: string) {
  return value.trimStart().startsWith('<!--');
}

/** A container the schema expects to have content gets an empty paragraph rather than no nodes. */
function nonEmpty<T extends DocumentBlock>(nodes: T[]): T[] {
  return nodes.length > 0 ? nodes : [paragraph([]) as DocumentBlock as T];
}

const sameMarks = (a: DocumentLeaf, b: DocumentLeaf) =>
  a.marks.length === b.marks.length && a.marks.every((m, i) => m.type === b.marks[i]!.type);

/**
 * Slate's normal form: consecutive leaves grouped into one text node (adjacent leaves with the
 * same marks merged, empty ones dropped), and a text node before, between and after inlines.
 */
function normalizeInlines(pieces: Piece[]): (DocumentText | DocumentInline)[] {
  const out: (DocumentText | DocumentInline)[] = [];
  let leaves: DocumentLeaf[] = [];
  const flush = () => {
    out.push(textNode(leaves.length > 0 ? leaves : [leaf('')]));
    leaves = [];
  };
  for (const piece of pieces) {
    if ('inline' in piece) {
      flush();
      out.push(piece.inline);
      continue;
    }
    if (piece.leaf.text === '') continue;
    const last = leaves[leaves.length - 1];
    if (last && sameMarks(last, piece.leaf)) last.text += piece.leaf.text;
    else leaves.push(piece.leaf);
  }
  flush();
  return out;
}

// ---------------------------------------------------------------------------------------------
// Keys and heading anchors
// ---------------------------------------------------------------------------------------------

type KeyedNode = DocumentBlock | DocumentInline | DocumentText | DocumentFragment;

/**
 * Walks the produced tree in document order and assigns each block, inline, text node and
 * fragment a key derived from its path in the tree, and each heading its unique anchor.
 */
function finalize(document: MarkdownDocument) {
  const used = new Set<string>();
  const slugger = new GithubSlugger();
  const keyFor = (path: string) => {
    let key = createHash('sha256').update(path).digest('hex').slice(0, 12);
    for (let n = 1; used.has(key); n++) key = createHash('sha256').update(`${path}#${n}`).digest('hex').slice(0, 12);
    used.add(key);
    return key;
  };
  const visit = (node: KeyedNode, path: string) => {
    node.key = keyFor(path);
    if (node.object === 'block' && (node.type === 'heading-1' || node.type === 'heading-2' || node.type === 'heading-3')) {
      const title = inlineText(node).trim();
      node.meta.id = githubSlug(title) === '' ? slugger.slug('section') : slugger.slug(title);
    }
    if ('nodes' in node) node.nodes.forEach((child: KeyedNode, i: number) => visit(child, `${path}.${i}`));
    if ('fragments' in node) node.fragments.forEach((child: KeyedNode, i: number) => visit(child, `${path}.f${i}`));
  };
  document.nodes.forEach((node, i) => visit(node, String(i)));
}

// ---------------------------------------------------------------------------------------------
// Plain text, sections, links
// ---------------------------------------------------------------------------------------------

function inlineText(node: { nodes: (DocumentText | DocumentInline)[] }): string {
  return node.nodes
    .map((child) => {
      if (child.object === 'text') return child.leaves.map((l) => l.text).join('');
      if (child.type === 'inline-image') return child.data.alt ?? '';
      return inlineText(child);
    })
    .join('');
}

const joinBlocks = (texts: string[]) => texts.filter((t) => t !== '').join('\n');

function blockText(node: DocumentBlock | DocumentFragment): string {
  if (node.object === 'fragment') return joinBlocks(node.nodes.map(blockText));
  switch (node.type) {
    case 'paragraph':
    case 'heading-1':
    case 'heading-2':
    case 'heading-3':
    case 'code-line':
      return inlineText(node);
    case 'code':
      return node.nodes.map(blockText).join('\n');
    case 'divider':
      return '';
    case 'image':
      return node.data.alt ?? '';
    case 'table': {
      const { view, records, definition } = node.data;
      const fragments = new Map(node.fragments.map((f) => [f.fragment, f]));
      const header = view.columns.map((c) => definition[c]?.title ?? '').join('\t');
      const rows = Object.values(records)
        .sort((a, b) => (a.orderIndex < b.orderIndex ? -1 : a.orderIndex > b.orderIndex ? 1 : 0))
        .map((record) =>
          view.columns
            .map((c) => {
              const name = record.values[c];
              const fragment = name === undefined ? undefined : fragments.get(name);
              return fragment ? blockText(fragment).split('\n').join(' ') : '';
            })
            .join('\t')
            .trimEnd(),
        );
      return joinBlocks([header.trim() === '' ? '' : header, ...rows]);
    }
    default:
      return joinBlocks((node.nodes as DocumentBlock[]).map(blockText));
  }
}

function sectionsOf(document: MarkdownDocument): MarkdownSection[] {
  const sections: { id: string; title: string; parts: string[] }[] = [{ id: '', title: '', parts: [] }];
  for (const node of document.nodes) {
    if (node.type === 'heading-1' || node.type === 'heading-2' || node.type === 'heading-3') {
      sections.push({ id: node.meta.id, title: inlineText(node).trim(), parts: [] });
    } else {
      sections[sections.length - 1]!.parts.push(blockText(node));
    }
  }
  const result = sections.map(({ id, title, parts }) => ({ id, title, body: joinBlocks(parts) }));
  // The text before the first heading is a section only when there is some.
  return result[0]!.body === '' ? result.slice(1) : result;
}

function linksOf(root: M.Root, definitions: Map<string, M.Definition>): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  walk(root, (node) => {
    switch (node.type) {
      case 'link':
        links.push({ href: node.url, text: mdastToString(node) });
        break;
      case 'image':
        links.push({ href: node.url, text: node.alt ?? '' });
        break;
      case 'linkReference': {
        const def = definitions.get(node.identifier);
        if (def) links.push({ href: def.url, text: mdastToString(node) });
        break;
      }
      case 'imageReference': {
        const def = definitions.get(node.identifier);
        if (def) links.push({ href: def.url, text: node.alt ?? '' });
        break;
      }
    }
  });
  return links;
}

/** Plain text of a rich-text document (translation instructions, merge-rule checks). */
export function documentText(doc: unknown): string {
  const out: string[] = [];
  const walk = (node: unknown) => {
    if (!node || typeof node !== 'object') return;
    const n = node as { object?: string; leaves?: { text?: unknown }[]; nodes?: unknown[]; fragments?: unknown[] };
    if (n.object === 'text') out.push((n.leaves ?? []).map((l) => (typeof l.text === 'string' ? l.text : '')).join(''));
    for (const child of n.nodes ?? []) walk(child);
    for (const fragment of n.fragments ?? []) walk(fragment);
    if (n.object === 'block') out.push('\n');
  };
  walk(doc);
  return out.join('').replace(/\n{2,}/g, '\n').trim();
}
