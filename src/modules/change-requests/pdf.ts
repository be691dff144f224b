import { createHash } from 'node:crypto';
import type { Content, ContentText, TableCell, TDocumentDefinitions } from 'pdfmake/interfaces';
import type {
  Blockquote,
  Code,
  Definition,
  FootnoteDefinition,
  Heading,
  List,
  Nodes,
  PhrasingContent,
  Root,
  RootContent,
  Table,
} from 'mdast';
import { htmlText, markdownTree, withoutTitleHeading } from '../../document/index.js';
import { IsolateLimitError, runIsolated } from '../../jobs/isolate.js';

/**
 * PDF renderer for change requests (and single pages): a cover line, then every page in order,
 * each with its title as a heading and its Markdown laid out as real (extractable) text.
 *
 * The Markdown tree (src/document's one parser) is mapped to a pdfmake document definition;
 * pdfmake (built on pdfkit) does the layout: line breaking, pagination, tables whose rows run
 * over pages with their header repeated, footers, bookmarks. It uses pdfkit's built-in standard
 * fonts (Helvetica, Courier), and may open no file and fetch no URL, so nothing is read or fetched
 * at run time. Standard fonts only cover WinAnsi (roughly Latin-1), so text is transliterated to
 * that character set first; anything else becomes '?'.
 *
 * What pdfmake costs against the hand-written pdfkit layout it replaced (580 lines, now 400): it
 * writes each word as its own text object, so a long export takes about 2.5 times the CPU and
 * about twice the bytes (146 pages: 8 s and 470 KB against 3.3 s and 270 KB). Rendering runs in
 * a worker thread under PDF_LIMITS (below) either way; an export of 4,800 paragraphs still renders
 * well inside them.
 */

export interface PdfPageInput {
  title: string;
  path: string;
  markdown: string;
  /** Nesting level in the space's page tree; 0 for top-level pages. */
  depth: number;
}

export interface PdfInput {
  title: string;
  subtitle?: string;
  pages: PdfPageInput[];
}

export interface PdfRenderOptions {
  /** Compress content streams (default true). Tests turn it off to read the text back. */
  compress?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Layout constants

const MARGIN = 56;
const BODY_SIZE = 10.5;
const CODE_SIZE = 9;
const SMALL_SIZE = 8.5;
const LINE_HEIGHT = 1.15;
const PARAGRAPH_GAP = 6;
const LIST_INDENT = 18;
const QUOTE_INDENT = 14;
const CELL_PAD = 4;
/** Width of the text column on A4 (595.28 pt wide). */
const CONTENT_WIDTH = 595.28 - 2 * MARGIN;
/** Runs of this many characters without a space may break anywhere (long URLs, hashes, base64). */
const LONG_WORD = 48;

const TEXT_COLOR = '#1a1a1a';
const MUTED_COLOR = '#666666';
const LINK_COLOR = '#1a4fb4';
const RULE_COLOR = '#cccccc';
const CODE_BG = '#f3f3f3';
const HEADER_BG = '#ececec';

const HEADING_SIZES: Record<number, number> = { 1: 18, 2: 15, 3: 13, 4: 12, 5: 11, 6: 10.5 };

function pageTitleSize(depth: number): number {
  if (depth <= 0) return 20;
  if (depth === 1) return 17;
  return 15;
}

/** pdfkit's standard fonts, by the names pdfkit knows them: built in, nothing to read. */
const FONTS = {
  Helvetica: { normal: 'Helvetica', bold: 'Helvetica-Bold', italics: 'Helvetica-Oblique', bolditalics: 'Helvetica-BoldOblique' },
  Courier: { normal: 'Courier', bold: 'Courier-Bold', italics: 'Courier-Oblique', bolditalics: 'Courier-BoldOblique' },
};
const STANDARD_FONT_NAMES = new Set(Object.values(FONTS).flatMap((faces) => Object.values(faces)));

/**
 * pdfmake, loaded on the first PDF: with pdfkit and fontkit it is ~17 MB of a server's memory
 * (measured), which servers that never export a PDF should not carry.
 */
let pdfmakeLoaded: Promise<typeof import('pdfmake')> | undefined;
function loadPdfmake() {
  pdfmakeLoaded ??= import('pdfmake').then((loaded) => {
    // A CommonJS module: its exports are the default export.
    const pdfmake = ((loaded as { default?: typeof import('pdfmake') }).default ?? loaded) as typeof import('pdfmake');
    pdfmake.setFonts(FONTS);
    // Documents hold no images or fonts of their own: no URL may be fetched and no file opened but
    // the standard fonts (which pdfkit has built in; the policy is asked for their names).
    pdfmake.setUrlAccessPolicy(() => false);
    pdfmake.setLocalAccessPolicy((path) => STANDARD_FONT_NAMES.has(path));
    return pdfmake;
  });
  return pdfmakeLoaded;
}

// ---------------------------------------------------------------------------------------------
// Text sanitising: the standard PDF fonts are WinAnsi-encoded.

/** Code points above 0xFF that WinAnsiEncoding covers (pdfkit maps them itself). */
const WIN_ANSI_EXTRA = new Set([
  0x0152, 0x0153, 0x0160, 0x0161, 0x0178, 0x017d, 0x017e, 0x0192, 0x02c6, 0x02dc, 0x2013, 0x2014, 0x2018, 0x2019, 0x201a, 0x201c, 0x201d,
  0x201e, 0x2020, 0x2021, 0x2022, 0x2026, 0x2030, 0x2039, 0x203a, 0x20ac, 0x2122,
]);

const REPLACEMENTS: Record<string, string> = {
  '\u2192': '->',
  '\u2190': '<-',
  '\u2194': '<->',
  '\u21d2': '=>',
  '\u21d0': '<=',
  '\u2264': '<=',
  '\u2265': '>=',
  '\u2260': '!=',
  '\u2212': '-',
  '\u2010': '-',
  '\u2011': '-',
  '\u2012': '-',
  '\u2015': '-',
  '\u2032': "'",
  '\u2033': '"',
  '\u2713': 'v',
  '\u2714': 'v',
  '\u2717': 'x',
  '\u2718': 'x',
  '\u25cf': '\u2022',
  '\u25e6': '\u2022',
  '\u2023': '\u2022',
  '\u2043': '-',
};

function encodable(code: number): boolean {
  return (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || WIN_ANSI_EXTRA.has(code);
}

/** Transliterates a string to characters the standard fonts can show. Keeps '\n'. */
export function toWinAnsi(input: string): string {
  let out = '';
  for (const ch of input) {
    const code = ch.codePointAt(0)!;
    if (ch === '\n') {
      out += ch;
    } else if (ch === '\t') {
      out += '    ';
    } else if (encodable(code)) {
      out += ch;
    } else if (code < 0x20 || (code >= 0x7f && code < 0xa0)) {
      // control characters: drop
    } else if ((code >= 0x2000 && code <= 0x200a) || code === 0x202f || code === 0x205f || code === 0x3000) {
      out += ' ';
    } else if ((code >= 0x200b && code <= 0x200f) || code === 0xfeff || code === 0x2060) {
      // zero-width characters: drop
    } else if (REPLACEMENTS[ch] !== undefined) {
      out += REPLACEMENTS[ch];
    } else {
      const stripped = ch.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
      out += stripped.length > 0 && [...stripped].every((c) => encodable(c.codePointAt(0)!)) ? stripped : '?';
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Inline content as pdfmake text runs

type Run = ContentText;

/** Plain text of a node (for labels). */
function plainText(node: Nodes): string {
  if ('value' in node && typeof node.value === 'string') {
    return node.type === 'html' ? htmlText(node.value) : node.value;
  }
  if (node.type === 'image' || node.type === 'imageReference') return node.alt ?? '';
  if (node.type === 'break') return '\n';
  if ('children' in node) return (node.children as Nodes[]).map(plainText).join('');
  return '';
}

class Definitions {
  private readonly urls = new Map<string, string>();

  constructor(root: Root) {
    const visit = (node: Nodes) => {
      if (node.type === 'definition') {
        const def = node as Definition;
        if (!this.urls.has(def.identifier)) this.urls.set(def.identifier, def.url);
      }
      if ('children' in node) for (const child of node.children as Nodes[]) visit(child);
    };
    visit(root);
  }

  get(identifier: string): string | undefined {
    return this.urls.get(identifier);
  }
}

interface RunStyle {
  bold?: boolean;
  italics?: boolean;
  mono?: boolean;
  strike?: boolean;
  link?: string;
  color?: string;
}

/**
 * One text run: transliterated, in Courier when monospace, and with any run of LONG_WORD or more
 * characters without a space allowed to break anywhere (pdfmake otherwise lets a word wider
 * than its column run off the page).
 */
function runs(text: string, style: RunStyle): Run[] {
  const value = toWinAnsi(text);
  if (!value) return [];
  const base: Omit<Run, 'text'> = {
    ...(style.bold ? { bold: true } : {}),
    ...(style.italics ? { italics: true } : {}),
    ...(style.mono ? { font: 'Courier' } : {}),
    ...(style.link ? { link: style.link, decoration: 'underline' as const } : style.strike ? { decoration: 'lineThrough' as const } : {}),
    ...(style.color ? { color: style.color } : {}),
  };
  return value
    .split(new RegExp(`(\\S{${LONG_WORD},})`))
    .filter((part) => part !== '')
    .map((part) =>
      part.length >= LONG_WORD && !/\s/.test(part) ? { ...base, text: part, wordBreak: 'break-all' as const } : { ...base, text: part },
    );
}

function inlineRuns(nodes: PhrasingContent[], style: RunStyle, defs: Definitions): Run[] {
  const out: Run[] = [];
  const linkRuns = (children: PhrasingContent[], url: string) => {
    const label = children.map(plainText).join('');
    out.push(...inlineRuns(children, { ...style, link: url, color: LINK_COLOR }, defs));
    if (url && label.trim() !== url && !(url.startsWith('mailto:') && label.trim() === url.slice(7))) {
      out.push(...runs(` (${url})`, { ...style, link: undefined, color: MUTED_COLOR }));
    }
  };
  for (const node of nodes) {
    switch (node.type) {
      case 'text':
        out.push(...runs(node.value, style));
        break;
      case 'strong':
        out.push(...inlineRuns(node.children, { ...style, bold: true }, defs));
        break;
      case 'emphasis':
        out.push(...inlineRuns(node.children, { ...style, italics: true }, defs));
        break;
      case 'delete':
        out.push(...inlineRuns(node.children, { ...style, strike: true }, defs));
        break;
      case 'inlineCode':
        out.push(...runs(node.value, { ...style, mono: true }));
        break;
      case 'break':
        out.push({ text: '\n' });
        break;
      case 'link':
        linkRuns(node.children, node.url);
        break;
      case 'linkReference': {
        const url = defs.get(node.identifier);
        if (url !== undefined) linkRuns(node.children, url);
        else out.push(...inlineRuns(node.children, style, defs));
        break;
      }
      case 'image':
      case 'imageReference': {
        const url = node.type === 'image' ? node.url : defs.get(node.identifier);
        const alt = node.alt ? `: ${node.alt}` : '';
        out.push(...runs(`[Image${alt}]${url ? ` (${url})` : ''}`, { ...style, italics: true, color: MUTED_COLOR }));
        break;
      }
      case 'html':
        out.push(...runs(htmlText(node.value), style));
        break;
      case 'footnoteReference':
        out.push(...runs(`[${node.label ?? node.identifier}]`, { ...style, color: MUTED_COLOR }));
        break;
      default:
        out.push(...runs(plainText(node as Nodes), style));
    }
  }
  return out;
}

/** A paragraph of runs with leading and trailing whitespace trimmed, or null when it has no text. */
function paragraph(input: Run[], extra: Omit<ContentText, 'text'> = {}): ContentText | null {
  const text = input.map((run) => ({ ...run, text: String(run.text) }));
  while (text.length > 0 && !text[0]!.text.trim()) text.shift();
  while (text.length > 0 && !text[text.length - 1]!.text.trim()) text.pop();
  if (text.length === 0) return null;
  text[0]!.text = text[0]!.text.replace(/^\s+/, '');
  text[text.length - 1]!.text = text[text.length - 1]!.text.replace(/\s+$/, '');
  return { ...extra, text };
}

const rule = (color = RULE_COLOR, width = CONTENT_WIDTH): Content => ({
  canvas: [{ type: 'line', x1: 0, y1: 0, x2: width, y2: 0, lineWidth: 0.75, lineColor: color }],
  margin: [0, 3, 0, 5],
});

// ---------------------------------------------------------------------------------------------
// Blocks

interface BlockContext {
  defs: Definitions;
  /** Paragraphs inside tight lists get less space after them. */
  tight: boolean;
  color?: string;
}

function blocks(nodes: RootContent[], ctx: BlockContext): Content[] {
  const out: Content[] = [];
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i]!;
    const content = block(node, ctx);
    if (content === null) continue;
    if (node.type === 'heading') {
      // Keep a heading on the page of what follows it (when that is a paragraph).
      const next = nodes[i + 1];
      const following = next?.type === 'paragraph' ? block(next, ctx) : null;
      if (following !== null) {
        out.push({ stack: [content, following], unbreakable: true });
        i++;
        continue;
      }
    }
    out.push(content);
  }
  return out;
}

function block(node: RootContent, ctx: BlockContext): Content | null {
  const colored = ctx.color ? { color: ctx.color } : {};
  switch (node.type) {
    case 'heading':
      return heading(node, ctx);
    case 'paragraph':
      return paragraph(inlineRuns(node.children, {}, ctx.defs), { ...colored, margin: [0, 0, 0, ctx.tight ? 2 : PARAGRAPH_GAP] });
    case 'list':
      return list(node, ctx);
    case 'code':
      return code(node);
    case 'blockquote':
      return blockquote(node, ctx);
    case 'table':
      return table(node, ctx);
    case 'thematicBreak':
      return { stack: [rule()], margin: [0, 0, 0, PARAGRAPH_GAP] };
    case 'html':
      return paragraph(runs(htmlText(node.value), {}), { ...colored, margin: [0, 0, 0, PARAGRAPH_GAP] });
    case 'footnoteDefinition':
      return footnote(node, ctx);
    case 'definition':
    case 'yaml':
      return null;
    default:
      // Anything else (extensions): children as blocks, or its text.
      if ('children' in node && Array.isArray(node.children)) return { stack: blocks(node.children as RootContent[], ctx) };
      return paragraph(runs(plainText(node as Nodes), {}), { ...colored, margin: [0, 0, 0, PARAGRAPH_GAP] });
  }
}

function heading(node: Heading, ctx: BlockContext): Content | null {
  const size = HEADING_SIZES[node.depth] ?? BODY_SIZE;
  return paragraph(inlineRuns(node.children, { bold: true }, ctx.defs), {
    fontSize: size,
    ...(ctx.color ? { color: ctx.color } : {}),
    margin: [0, size * 0.5, 0, PARAGRAPH_GAP * 0.75],
  });
}

/** Width of a list marker column: the widest marker (digits are about 0.56 em in Helvetica). */
function markerWidth(markers: string[]): number {
  return Math.max(LIST_INDENT, ...markers.map((m) => m.length * BODY_SIZE * 0.56 + 6));
}

function list(node: List, ctx: BlockContext): Content {
  const start = node.start ?? 1;
  const tight = node.spread !== true;
  const markers = node.children.map((item, index) => {
    const checkbox = item.checked === true ? '[x]' : item.checked === false ? '[ ]' : '';
    return node.ordered ? `${start + index}.${checkbox ? ` ${checkbox}` : ''}` : checkbox || '\u2022';
  });
  const width = markerWidth(markers);
  // The marker is text (not pdfmake's drawn bullets), so it is read and copied with the item.
  return {
    stack: node.children.map((item, index) => ({
      columns: [
        { width, text: markers[index]!, ...(ctx.color ? { color: ctx.color } : {}) },
        { width: '*', stack: blocks(item.children, { ...ctx, tight }) },
      ],
      columnGap: 0,
      margin: [0, 0, 0, tight ? 0 : 2],
    })),
    margin: [0, 0, 0, ctx.tight ? 0 : PARAGRAPH_GAP - 2],
  };
}

function code(node: Code): Content {
  // Keep indentation: leading spaces become no-break spaces (same width in Courier).
  const text = toWinAnsi(node.value)
    .split('\n')
    .map((line) => line.replace(/^ +/, (s) => '\u00a0'.repeat(s.length)))
    .join('\n');
  const body: Content = {
    table: {
      widths: ['*'],
      body: [
        [
          {
            text: runs(text || '\u00a0', { mono: true }),
            fillColor: CODE_BG,
            preserveLeadingSpaces: true,
            fontSize: CODE_SIZE,
            lineHeight: 1.1,
            color: TEXT_COLOR,
          },
        ],
      ],
    },
    layout: {
      hLineWidth: () => 0,
      vLineWidth: () => 0,
      paddingLeft: () => CELL_PAD,
      paddingRight: () => CELL_PAD,
      paddingTop: () => CELL_PAD,
      paddingBottom: () => CELL_PAD,
    },
  };
  const label: Content[] = node.lang
    ? [{ text: toWinAnsi(node.lang), fontSize: SMALL_SIZE, color: MUTED_COLOR, margin: [0, 0, 0, 2] }]
    : [];
  return { stack: [...label, body], margin: [0, 0, 0, PARAGRAPH_GAP] };
}

function blockquote(node: Blockquote, ctx: BlockContext): Content {
  return {
    table: { widths: ['*'], body: [[{ stack: blocks(node.children, { ...ctx, color: MUTED_COLOR }) }]] },
    // A bar on the left, nothing else.
    layout: {
      hLineWidth: () => 0,
      vLineWidth: (i) => (i === 0 ? 2.5 : 0),
      vLineColor: () => RULE_COLOR,
      paddingLeft: () => QUOTE_INDENT - 3,
      paddingRight: () => 0,
      paddingTop: () => 0,
      paddingBottom: () => 0,
    },
    margin: [3, 0, 0, PARAGRAPH_GAP],
  };
}

function footnote(node: FootnoteDefinition, ctx: BlockContext): Content {
  return {
    columns: [
      { width: 'auto', text: toWinAnsi(`[${node.label ?? node.identifier}]`), color: MUTED_COLOR },
      { width: '*', stack: blocks(node.children, { ...ctx, color: MUTED_COLOR }) },
    ],
    columnGap: 6,
  };
}

function table(node: Table, ctx: BlockContext): Content {
  const columns = Math.max(1, ...node.children.map((row) => row.children.length));
  const body: TableCell[][] = node.children.map((row, r) =>
    Array.from({ length: columns }, (_, c): TableCell => {
      const cell = row.children[c];
      const text = cell ? paragraph(inlineRuns(cell.children, {}, ctx.defs)) : null;
      return {
        text: text?.text ?? '',
        alignment: node.align?.[c] ?? 'left',
        ...(r === 0 ? { bold: true, fillColor: HEADER_BG } : {}),
      };
    }),
  );
  return {
    table: { headerRows: body.length > 1 ? 1 : 0, widths: Array.from({ length: columns }, () => '*'), body },
    layout: {
      hLineWidth: () => 0.5,
      vLineWidth: () => 0.5,
      hLineColor: () => RULE_COLOR,
      vLineColor: () => RULE_COLOR,
      paddingLeft: () => CELL_PAD,
      paddingRight: () => CELL_PAD,
      paddingTop: () => CELL_PAD,
      paddingBottom: () => CELL_PAD,
    },
    fontSize: BODY_SIZE - 1,
    ...(ctx.color ? { color: ctx.color } : {}),
    margin: [0, 0, 0, PARAGRAPH_GAP + 2],
  };
}

// ---------------------------------------------------------------------------------------------
// Document parts

function cover(title: string, subtitle: string | undefined): Content[] {
  return [
    { text: toWinAnsi(title || 'Untitled'), fontSize: 24, bold: true },
    ...(subtitle ? [{ text: toWinAnsi(subtitle), fontSize: 13, color: MUTED_COLOR, margin: [0, 2, 0, 0] } as Content] : []),
    { stack: [rule('#999999')], margin: [0, 4, 0, PARAGRAPH_GAP] },
  ];
}

function pageTitle(page: PdfPageInput, index: number, parentIndex: number | undefined): Content {
  const size = pageTitleSize(page.depth);
  const title = toWinAnsi(page.title || page.path || 'Untitled') || 'Untitled';
  return {
    stack: [
      ...(index > 0 ? [rule()] : []),
      {
        text: title,
        fontSize: size,
        bold: true,
        // Bookmarks nested like the page tree.
        id: `page-${index}`,
        outline: true,
        ...(parentIndex !== undefined ? { outlineParentId: `page-${parentIndex}` } : {}),
      },
      ...(page.path ? [{ text: toWinAnsi(page.path), fontSize: SMALL_SIZE, color: MUTED_COLOR, margin: [0, 1, 0, 0] } as Content] : []),
    ],
    // A page's title stays with the start of its body.
    unbreakable: true,
    margin: [0, index > 0 ? PARAGRAPH_GAP * 2 : 0, 0, PARAGRAPH_GAP * 1.5],
  };
}

/** The document definition pdfmake lays out. */
function documentDefinition(input: PdfInput, options: PdfRenderOptions): TDocumentDefinitions {
  const content: Content[] = cover(input.title, input.subtitle);
  const parents: number[] = [];
  input.pages.forEach((page, index) => {
    const depth = Math.max(0, Math.floor(page.depth) || 0);
    parents.length = Math.min(depth, parents.length);
    content.push(pageTitle(page, index, parents[parents.length - 1]));
    parents.push(index);
    // Bodies are stored without their front matter, so a leading `---` block left in one is
    // hidden here as it is in the page's document.
    const tree = markdownTree(page.markdown ?? '');
    // The page's title is its heading above: a leading `# Title` in the body is not printed twice.
    content.push(...blocks(withoutTitleHeading(tree.children, page.title), { defs: new Definitions(tree), tight: false }));
  });
  const footerTitle = toWinAnsi(input.title);
  return {
    pageSize: 'A4',
    pageMargins: MARGIN,
    compress: options.compress ?? true,
    displayTitle: true,
    info: {
      title: toWinAnsi(input.title),
      ...(input.subtitle ? { subject: toWinAnsi(input.subtitle) } : {}),
      creator: 'Lectern',
      producer: 'Lectern',
    },
    defaultStyle: { font: 'Helvetica', fontSize: BODY_SIZE, lineHeight: LINE_HEIGHT, color: TEXT_COLOR },
    content,
    footer: (currentPage, pageCount) => ({
      columns: [
        // One line: long titles are cut to what fits even in capitals (pdfmake has no ellipsis).
        { width: '75%', text: footerTitle.length > 64 ? `${footerTitle.slice(0, 63)}\u2026` : footerTitle, noWrap: true },
        { width: '*', text: `${currentPage} / ${pageCount}`, alignment: 'right' },
      ],
      fontSize: SMALL_SIZE,
      color: MUTED_COLOR,
      margin: [MARGIN, MARGIN / 2 - SMALL_SIZE / 2, MARGIN, 0],
    }),
  };
}

/** Renders a change request (or a single page) to a PDF. */
export async function renderPdf(input: PdfInput, options: PdfRenderOptions = {}): Promise<Buffer> {
  const pdfmake = await loadPdfmake();
  return pdfmake.createPdf(documentDefinition(input, options)).getBuffer();
}

// ---------------------------------------------------------------------------------------------
// Rendering off the event loop, once per content

/**
 * Exports are rendered in a worker thread (src/jobs/isolate.ts): a deep or long document took
 * seconds of layout on the event loop, for every GET and HEAD. Limits per rendering: 256 MB, 30 s.
 */
const TASK = new URL(import.meta.url);
export const PDF_LIMITS = { timeoutMs: 30_000, memoryMb: 256 };

/** The worker-thread task: plain data in, bytes out. */
export async function renderPdfTask(input: PdfInput): Promise<Uint8Array> {
  return renderPdf(input);
}

/**
 * Rendered exports, kept in this process until their export expires: an export's PDF depends only
 * on what `key` names (the export, its change request's revision — a revision never changes — and
 * the titles), so repeated GETs of an unchanged change request send the same bytes without
 * rendering again, and concurrent GETs share one rendering. In memory rather than in the database:
 * the bytes can always be rendered again, and another process renders its own once. At most
 * `CACHE_BYTES` in all (least recently used dropped first).
 */
const CACHE_BYTES = 64 * 1024 * 1024;
const cache = new Map<string, { pdf: Buffer; expiresAt: number }>();
let cached = 0;
const rendering = new Map<string, Promise<Buffer>>();

function remember(key: string, pdf: Buffer, expiresAt: number) {
  if (pdf.length > CACHE_BYTES / 4) return;
  cache.set(key, { pdf, expiresAt });
  cached += pdf.length;
  for (const [k, entry] of cache) {
    if (cached <= CACHE_BYTES && entry.expiresAt > Date.now()) break;
    cache.delete(k);
    cached -= entry.pdf.length;
  }
}

/** Rendering over its limits: what the reader of the export is told (the message of a 500 is not shown). */
export class PdfTooLarge extends Error {}

/**
 * The PDF for `key` (see above): from the cache, or rendered from `input()` in a worker thread when
 * `render` is true; `{ pdf: null }` (with the length when known) when only the headers are wanted.
 */
export async function cachedPdf(
  parts: string[],
  expiresAt: number,
  render: boolean,
  input: () => Promise<PdfInput>,
): Promise<{ pdf: Buffer | null; length: number | null }> {
  const key = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  const hit = cache.get(key);
  if (hit && hit.expiresAt > Date.now()) {
    // Most recently used last.
    cache.delete(key);
    cache.set(key, hit);
    return { pdf: render ? hit.pdf : null, length: hit.pdf.length };
  }
  if (!render) return { pdf: null, length: null };
  let pending = rendering.get(key);
  if (!pending) {
    pending = (async () => {
      try {
        const bytes = await runIsolated<Uint8Array>(TASK, 'renderPdfTask', await input(), PDF_LIMITS);
        const pdf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        remember(key, pdf, expiresAt);
        return pdf;
      } catch (error) {
        if (error instanceof IsolateLimitError)
          throw new PdfTooLarge(
            `Rendering this export ${error.message}: the change request is too large to render as one PDF; export its pages one at a time`,
          );
        throw error;
      } finally {
        rendering.delete(key);
      }
    })();
    rendering.set(key, pending);
  }
  const pdf = await pending;
  return { pdf, length: pdf.length };
}
