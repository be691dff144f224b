import { createHash } from 'node:crypto';
import GithubSlugger, { slug as githubSlug } from 'github-slugger';
import type * as M from 'mdast';
import { toString as mdastToString } from 'mdast-util-to-string';
import { parseDocument } from 'yaml';
import { MARKDOWN_MAX_DEPTH, MarkdownLimitError, markdownProblem } from './limits.js';
import { markdownTree } from './processor.js';
import { blockText, inlineText, joinBlocks, sectionsOf } from './text.js';
import {
  DOCUMENT_SCHEMA_VERSION,
  type ContentRefURL,
  type DocumentBlock,
  type DocumentBlockHeading,
  type DocumentBlockImage,
  type DocumentBlockListItem,
  type DocumentBlockParagraph,
  type DocumentBlockQuote,
  type DocumentBlockTopLevel,
  type DocumentFragment,
  type DocumentInline,
  type DocumentInlineImage,
  type DocumentInlineLink,
  type DocumentLeaf,
  type DocumentMarkType,
  type DocumentTableDefinitionText,
  type DocumentTableRecord,
  type DocumentText,
  type MarkdownDocument,
  type MarkdownLink,
  type ParsedMarkdown,
} from './types.js';

/**
 * Markdown → GitBook rich-text document (`JSONDocument` of the official API), plus what search
 * and link indexing need (front matter, sections, links, plain text).
 *
 * Parsing is done by micromark/mdast (processor.ts: unified + remark-parse, GFM, YAML front matter);
 * the mdast tree is then mapped onto GitBook's Slate-like document model. Everything here is
 * pure and deterministic: the same markdown always gives byte-identical JSON (block keys are
 * hashes of the node's position in the produced tree), so documents are content-addressable.
 */

// ---------------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------------

/**
 * Parses Markdown. Refuses (MarkdownLimitError, a 400) what is too big or nested too deeply,
 * before the parser runs; a stack overflow anywhere in here is the same refusal, never an
 * internal message.
 */
export function parseMarkdown(markdown: string): ParsedMarkdown {
  const problem = markdownProblem(markdown);
  if (problem) throw new MarkdownLimitError(problem);
  try {
    return parseChecked(markdown);
  } catch (error) {
    if (error instanceof RangeError) throw new MarkdownLimitError(`is nested too deeply (at most ${MARKDOWN_MAX_DEPTH} levels)`);
    throw error;
  }
}

function parseChecked(markdown: string): ParsedMarkdown {
  const source = markdown.charCodeAt(0) === 0xfeff ? markdown.slice(1) : markdown;
  const root = markdownTree(source);

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
  const document: MarkdownDocument = {
    object: 'document',
    data: { schemaVersion: DOCUMENT_SCHEMA_VERSION, ...(converter.rawHtml ? { rawHtml: 'text' as const } : {}) },
    nodes,
  };
  finalize(document);
  const allLinks = linksOf(root, definitions);

  return {
    frontMatter,
    body,
    document,
    sections: sectionsOf(document),
    links: allLinks.filter((l) => !unsafeUrl(l.href, l.image)).map(({ href, text }) => ({ href, text })),
    text: joinBlocks(document.nodes.map(blockText)),
    unsafeLinks: allLinks.filter((l) => unsafeUrl(l.href, l.image)).map(({ href, text }) => ({ href, text })),
  };
}

/**
 * The rich-text document of a body being read. Markdown stored before the limits existed (or
 * produced by a merge) may exceed them: rather than fail every read, or spend seconds on each,
 * the document is then the Markdown source in one code block, so its text is still all there.
 */
export function documentFromMarkdown(markdown: string): MarkdownDocument {
  try {
    return parseMarkdown(markdown).document;
  } catch (error) {
    if (!(error instanceof MarkdownLimitError)) throw error;
    return sourceDocument(markdown);
  }
}

/** The document of a body over the limits: its Markdown source in one code block (no parsing). */
export function sourceDocument(markdown: string): MarkdownDocument {
  const lines = markdown.split(/\r\n|\r|\n/);
  const code = block({
    type: 'code' as const,
    isVoid: false as const,
    data: { syntax: 'markdown' },
    nodes: lines.map((line) => block({ type: 'code-line' as const, isVoid: false as const, data: {}, nodes: [textNode([leaf(line)])] })),
  });
  const document: MarkdownDocument = { object: 'document', data: { schemaVersion: DOCUMENT_SCHEMA_VERSION }, nodes: [code] };
  finalize(document);
  return document;
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
  /** Whether raw HTML was met (and kept as text). */
  rawHtml = false;
  constructor(private readonly definitions: Map<string, M.Definition>) {}

  private html(value: string): boolean {
    if (isHtmlComment(value)) return false;
    this.rawHtml = true;
    return true;
  }

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
        return this.html(node.value) ? [paragraph([{ leaf: leaf(node.value) }])] : [];
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
        if (!image || unsafeUrl(image.url, true)) {
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
      nodes: lines.map((line) => block({ type: 'code-line' as const, isVoid: false as const, data: {}, nodes: [textNode([leaf(line)])] })),
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
        return this.html(node.value) ? [{ leaf: leaf(node.value, marks) }] : [];
      case 'footnoteReference':
        return [{ leaf: leaf(node.label ?? node.identifier, withMark(marks, 'superscript')) }];
      // A link or image with a target no renderer may follow keeps its text only (see unsafeUrl).
      case 'link':
        if (unsafeUrl(node.url)) return this.inlines(node.children, marks);
        return [{ inline: this.link(node.url, node.children, marks) }];
      case 'linkReference': {
        const def = this.definitions.get(node.identifier);
        if (!def || unsafeUrl(def.url)) return this.inlines(node.children, marks);
        return [{ inline: this.link(def.url, node.children, marks) }];
      }
      case 'image':
        if (unsafeUrl(node.url, true)) return [{ leaf: leaf(node.alt ?? '', marks) }];
        return [{ inline: inlineImage(node) }];
      case 'imageReference': {
        const image = this.resolveImage(node);
        return image && !unsafeUrl(image.url, true) ? [{ inline: inlineImage(image) }] : [{ leaf: leaf(node.alt ?? '', marks) }];
      }
      default:
        return [{ leaf: leaf(mdastToString(node), marks) }];
    }
  }

  link(url: string, children: M.PhrasingContent[], marks: DocumentMarkType[]): DocumentInlineLink {
    // A link holds text and inline images only (markdown links cannot nest).
    const pieces = this.inlines(children, marks).map(
      (piece): Piece => ('inline' in piece && piece.inline.type === 'link' ? { leaf: leaf(inlineText(piece.inline), marks) } : piece),
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

/**
 * Whether a link or image target uses a scheme that runs code or carries a document when
 * followed: javascript:, vbscript:, data:. Read as browsers read a URL's scheme: leading control
 * characters and spaces dropped, tabs and newlines removed anywhere, case ignored. An image may
 * be a raster data: image (png, jpeg, gif, webp, avif): pasted screenshots are common in imported
 * pages and an <img> cannot run them; SVG can hold script, so it is not among them.
 */
export function unsafeUrl(url: string, image = false): boolean {
  const scheme = url
    .replace(/^[\u0000-\u0020]+/, '')
    .replace(/[\t\n\r]/g, '')
    .slice(0, 40)
    .toLowerCase();
  if (scheme.startsWith('javascript:') || scheme.startsWith('vbscript:')) return true;
  if (scheme.startsWith('data:')) return !(image && /^data:image\/(png|jpeg|gif|webp|avif)[;,]/.test(scheme));
  return false;
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
// Links
// ---------------------------------------------------------------------------------------------

function linksOf(root: M.Root, definitions: Map<string, M.Definition>): (MarkdownLink & { image: boolean })[] {
  const links: (MarkdownLink & { image: boolean })[] = [];
  walk(root, (node) => {
    switch (node.type) {
      case 'link':
        links.push({ href: node.url, text: mdastToString(node), image: false });
        break;
      case 'image':
        links.push({ href: node.url, text: node.alt ?? '', image: true });
        break;
      case 'linkReference': {
        const def = definitions.get(node.identifier);
        if (def) links.push({ href: def.url, text: mdastToString(node), image: false });
        break;
      }
      case 'imageReference': {
        const def = definitions.get(node.identifier);
        if (def) links.push({ href: def.url, text: node.alt ?? '', image: true });
        break;
      }
    }
  });
  return links;
}
