import { createHash } from 'node:crypto';
import PDFDocument from 'pdfkit';
import type {
  Blockquote,
  Code,
  Definition,
  FootnoteDefinition,
  Heading,
  List,
  ListItem,
  Nodes,
  Paragraph,
  PhrasingContent,
  Root,
  RootContent,
  Table,
} from 'mdast';
import { htmlText, markdownTree } from '../../document/index.js';
import { IsolateLimitError, runIsolated } from '../../jobs/isolate.js';

/**
 * PDF renderer for change requests (and single pages): a cover line, then every page in order,
 * each with its title as a heading and its Markdown laid out as real (extractable) text.
 *
 * Uses pdfkit with its built-in standard fonts (Helvetica, Courier), so nothing is fetched at
 * run time. Standard fonts only cover WinAnsi (roughly Latin-1), so text is transliterated to
 * that character set first; anything else becomes '?'.
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
const LINE_GAP = 2;
const PARAGRAPH_GAP = 6;
const LIST_INDENT = 18;
const QUOTE_INDENT = 14;
const CELL_PAD = 4;

/** From the Helvetica AFM metrics (all four Helvetica faces share it). */
const HELVETICA_ASCENDER = 718;

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

// ---------------------------------------------------------------------------------------------
// Text sanitising: the standard PDF fonts are WinAnsi-encoded.

/** Code points above 0xFF that WinAnsiEncoding covers (pdfkit maps them itself). */
const WIN_ANSI_EXTRA = new Set([
  0x0152, 0x0153, 0x0160, 0x0161, 0x0178, 0x017d, 0x017e, 0x0192, 0x02c6, 0x02dc, 0x2013, 0x2014,
  0x2018, 0x2019, 0x201a, 0x201c, 0x201d, 0x201e, 0x2020, 0x2021, 0x2022, 0x2026, 0x2030, 0x2039,
  0x203a, 0x20ac, 0x2122,
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
// Inline content as styled runs

interface RunStyle {
  bold: boolean;
  italic: boolean;
  mono: boolean;
  underline: boolean;
  strike: boolean;
  link: string | null;
  color: string | null;
}

interface Run {
  text: string;
  style: RunStyle;
}

const PLAIN: RunStyle = {
  bold: false,
  italic: false,
  mono: false,
  underline: false,
  strike: false,
  link: null,
  color: null,
};

function sameStyle(a: RunStyle, b: RunStyle): boolean {
  return (
    a.bold === b.bold &&
    a.italic === b.italic &&
    a.mono === b.mono &&
    a.underline === b.underline &&
    a.strike === b.strike &&
    a.link === b.link &&
    a.color === b.color
  );
}

function fontFor(style: { bold: boolean; italic: boolean; mono: boolean }): string {
  if (style.mono) {
    if (style.bold && style.italic) return 'Courier-BoldOblique';
    if (style.bold) return 'Courier-Bold';
    if (style.italic) return 'Courier-Oblique';
    return 'Courier';
  }
  if (style.bold && style.italic) return 'Helvetica-BoldOblique';
  if (style.bold) return 'Helvetica-Bold';
  if (style.italic) return 'Helvetica-Oblique';
  return 'Helvetica';
}

/** Plain text of a node (for labels and table cells). */
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

function inlineRuns(nodes: PhrasingContent[], style: RunStyle, defs: Definitions): Run[] {
  const runs: Run[] = [];
  const linkRuns = (children: PhrasingContent[], url: string) => {
    const label = children.map(plainText).join('');
    runs.push(...inlineRuns(children, { ...style, underline: true, link: url, color: LINK_COLOR }, defs));
    if (url && label.trim() !== url && !(url.startsWith('mailto:') && label.trim() === url.slice(7))) {
      runs.push({ text: ` (${url})`, style: { ...style, underline: false, link: null, color: MUTED_COLOR } });
    }
  };
  for (const node of nodes) {
    switch (node.type) {
      case 'text':
        runs.push({ text: node.value, style });
        break;
      case 'strong':
        runs.push(...inlineRuns(node.children, { ...style, bold: true }, defs));
        break;
      case 'emphasis':
        runs.push(...inlineRuns(node.children, { ...style, italic: true }, defs));
        break;
      case 'delete':
        runs.push(...inlineRuns(node.children, { ...style, strike: true }, defs));
        break;
      case 'inlineCode':
        runs.push({ text: node.value, style: { ...style, mono: true } });
        break;
      case 'break':
        runs.push({ text: '\n', style });
        break;
      case 'link':
        linkRuns(node.children, node.url);
        break;
      case 'linkReference': {
        const url = defs.get(node.identifier);
        if (url !== undefined) linkRuns(node.children, url);
        else runs.push(...inlineRuns(node.children, style, defs));
        break;
      }
      case 'image':
      case 'imageReference': {
        const url = node.type === 'image' ? node.url : defs.get(node.identifier);
        const alt = node.alt ? `: ${node.alt}` : '';
        runs.push({
          text: `[Image${alt}]${url ? ` (${url})` : ''}`,
          style: { ...style, italic: true, color: MUTED_COLOR },
        });
        break;
      }
      case 'html': {
        const text = htmlText(node.value);
        if (text) runs.push({ text, style });
        break;
      }
      case 'footnoteReference':
        runs.push({ text: `[${node.label ?? node.identifier}]`, style: { ...style, color: MUTED_COLOR } });
        break;
      default: {
        const text = plainText(node as Nodes);
        if (text) runs.push({ text, style });
      }
    }
  }
  return runs;
}

// ---------------------------------------------------------------------------------------------
// Document layout

interface Box {
  /** Left edge of the text column. */
  x: number;
  width: number;
  color: string;
  /** Paragraphs inside tight lists get less space after them. */
  tight: boolean;
}

type Doc = PDFKit.PDFDocument;
type Outline = PDFKit.PDFOutline;

class Renderer {
  constructor(private readonly doc: Doc) {}

  get maxY(): number {
    return this.doc.page.height - this.doc.page.margins.bottom;
  }

  get contentWidth(): number {
    const { page } = this.doc;
    return page.width - page.margins.left - page.margins.right;
  }

  get left(): number {
    return this.doc.page.margins.left;
  }

  /** Starts a new page unless `height` points still fit on this one. */
  ensureSpace(height: number): void {
    if (this.doc.y + height > this.maxY && this.doc.y > this.doc.page.margins.top) {
      this.doc.addPage();
    }
  }

  gap(points: number): void {
    this.doc.y += points;
  }

  /** Writes styled runs as one wrapped paragraph (pdfkit "continued" text). */
  writeRuns(input: Run[], box: Box, size: number): void {
    const runs: Run[] = [];
    for (const run of input) {
      const text = toWinAnsi(run.text);
      if (!text) continue;
      const last = runs[runs.length - 1];
      if (last && sameStyle(last.style, run.style)) last.text += text;
      else runs.push({ text, style: run.style });
    }
    // Trim leading/trailing whitespace of the paragraph as a whole.
    while (runs.length > 0 && !runs[0]!.text.trim()) runs.shift();
    while (runs.length > 0 && !runs[runs.length - 1]!.text.trim()) runs.pop();
    if (runs.length === 0) return;
    runs[0]!.text = runs[0]!.text.replace(/^\s+/, '');
    const lastRun = runs[runs.length - 1]!;
    lastRun.text = lastRun.text.replace(/\s+$/, '');

    const { doc } = this;
    this.ensureSpace(size * 1.4);
    runs.forEach((run, i) => {
      const continued = i < runs.length - 1;
      doc
        .font(fontFor(run.style))
        .fontSize(size)
        .fillColor(run.style.color ?? box.color);
      // Every option is given explicitly: pdfkit carries unspecified options over between
      // continued calls (a link would otherwise spill into the following text).
      const options: PDFKit.Mixins.TextOptions = {
        width: box.width,
        lineGap: LINE_GAP,
        continued,
        underline: run.style.underline,
        strike: run.style.strike,
        link: run.style.link,
        // Courier's ascender is lower than Helvetica's: put every run on Helvetica's baseline.
        baseline: -(HELVETICA_ASCENDER / 1000) * size,
      };
      if (i === 0) doc.text(run.text, box.x, doc.y, options);
      else doc.text(run.text, options);
    });
    doc.x = box.x;
  }

  writePlain(text: string, box: Box, size: number, font = 'Helvetica', color = box.color): void {
    this.writeRuns(
      [{ text, style: { ...PLAIN, bold: font.includes('Bold'), italic: /Oblique/.test(font), mono: font.startsWith('Courier'), color } }],
      box,
      size,
    );
  }

  rule(box: Box, color = RULE_COLOR): void {
    const { doc } = this;
    this.ensureSpace(8);
    const y = doc.y + 3;
    doc.save().moveTo(box.x, y).lineTo(box.x + box.width, y).lineWidth(0.75).strokeColor(color).stroke().restore();
    doc.y = y + 5;
  }

  // --- blocks -------------------------------------------------------------------------------

  blocks(nodes: RootContent[], box: Box, defs: Definitions): void {
    for (const node of nodes) this.block(node, box, defs);
  }

  block(node: RootContent, box: Box, defs: Definitions): void {
    switch (node.type) {
      case 'heading':
        return this.heading(node, box, defs);
      case 'paragraph':
        return this.paragraph(node, box, defs);
      case 'list':
        return this.list(node, box, defs);
      case 'code':
        return this.code(node, box);
      case 'blockquote':
        return this.blockquote(node, box, defs);
      case 'table':
        return this.table(node, box, defs);
      case 'thematicBreak':
        this.rule(box);
        this.gap(PARAGRAPH_GAP);
        return;
      case 'html': {
        const text = htmlText(node.value).trim();
        if (text) {
          this.writePlain(text, box, BODY_SIZE, 'Helvetica', box.color);
          this.gap(PARAGRAPH_GAP);
        }
        return;
      }
      case 'footnoteDefinition':
        return this.footnote(node, box, defs);
      case 'definition':
      case 'yaml':
        return;
      default: {
        // Anything else (extensions): children as blocks, or its text.
        if ('children' in node && Array.isArray(node.children)) {
          this.blocks(node.children as RootContent[], box, defs);
        } else {
          const text = plainText(node as Nodes).trim();
          if (text) {
            this.writePlain(text, box, BODY_SIZE);
            this.gap(PARAGRAPH_GAP);
          }
        }
      }
    }
  }

  heading(node: Heading, box: Box, defs: Definitions): void {
    const size = HEADING_SIZES[node.depth] ?? BODY_SIZE;
    this.gap(size * 0.5);
    // Keep a heading together with at least two lines of what follows.
    this.ensureSpace(size * 1.4 + BODY_SIZE * 3);
    this.writeRuns(inlineRuns(node.children, { ...PLAIN, bold: true }, defs), box, size);
    this.gap(PARAGRAPH_GAP * 0.75);
  }

  paragraph(node: Paragraph, box: Box, defs: Definitions): void {
    this.writeRuns(inlineRuns(node.children, PLAIN, defs), box, BODY_SIZE);
    this.gap(box.tight ? LINE_GAP : PARAGRAPH_GAP);
  }

  list(node: List, box: Box, defs: Definitions): void {
    const start = node.start ?? 1;
    const tight = node.spread !== true;
    node.children.forEach((item: ListItem, index) => {
      const checkbox = item.checked === true ? '[x]' : item.checked === false ? '[ ]' : '';
      const marker = node.ordered ? `${start + index}.${checkbox ? ` ${checkbox}` : ''}` : checkbox || '\u2022';
      const { doc } = this;
      doc.font('Helvetica').fontSize(BODY_SIZE);
      const markerWidth = Math.max(LIST_INDENT, doc.widthOfString(marker) + 6);
      this.ensureSpace(BODY_SIZE * 1.6);
      const y = doc.y;
      doc.fillColor(box.color).text(marker, box.x, y, { lineBreak: false });
      doc.x = box.x;
      doc.y = y;
      const inner: Box = { ...box, x: box.x + markerWidth, width: box.width - markerWidth, tight };
      if (item.children.length === 0) {
        doc.y = y + doc.currentLineHeight(true) + LINE_GAP;
      } else {
        this.blocks(item.children, inner, defs);
      }
      if (!tight) this.gap(LINE_GAP);
    });
    if (!box.tight) this.gap(PARAGRAPH_GAP - LINE_GAP);
  }

  code(node: Code, box: Box): void {
    const { doc } = this;
    const lines = toWinAnsi(node.value).split('\n');
    const innerWidth = box.width - CELL_PAD * 2;
    if (node.lang) {
      this.ensureSpace(SMALL_SIZE * 1.4 + CODE_SIZE * 3);
      this.writePlain(node.lang, box, SMALL_SIZE, 'Helvetica', MUTED_COLOR);
    }
    doc.font('Courier').fontSize(CODE_SIZE);
    const usable = this.maxY - doc.page.margins.top;
    lines.forEach((raw, i) => {
      // Keep indentation: leading spaces become no-break spaces (same width in Courier).
      const line = raw.replace(/^ +/, (s) => '\u00a0'.repeat(s.length)) || '\u00a0';
      const top = i === 0 ? CELL_PAD : 0;
      const bottom = i === lines.length - 1 ? CELL_PAD : 0;
      const height = Math.min(doc.heightOfString(line, { width: innerWidth, lineGap: 1 }), usable - top - bottom);
      this.ensureSpace(top + height + bottom);
      const y = doc.y;
      doc.save().rect(box.x, y, box.width, top + height + bottom).fill(CODE_BG).restore();
      doc.font('Courier').fontSize(CODE_SIZE).fillColor(TEXT_COLOR);
      doc.text(line, box.x + CELL_PAD, y + top, {
        width: innerWidth,
        lineGap: 1,
        underline: false,
        strike: false,
        link: null,
      });
      doc.x = box.x;
      doc.y = Math.max(doc.y, y + top + height) + bottom;
    });
    this.gap(PARAGRAPH_GAP);
  }

  blockquote(node: Blockquote, box: Box, defs: Definitions): void {
    const { doc } = this;
    const startPage = doc.page;
    const startY = doc.y;
    const inner: Box = { ...box, x: box.x + QUOTE_INDENT, width: box.width - QUOTE_INDENT, color: MUTED_COLOR };
    this.blocks(node.children, inner, defs);
    const endY = doc.y - PARAGRAPH_GAP;
    const fromY = doc.page === startPage ? startY : doc.page.margins.top;
    if (endY > fromY) {
      const barX = box.x + 3;
      doc.save().moveTo(barX, fromY).lineTo(barX, endY).lineWidth(2.5).strokeColor(RULE_COLOR).stroke().restore();
    }
  }

  footnote(node: FootnoteDefinition, box: Box, defs: Definitions): void {
    const { doc } = this;
    const label = `[${node.label ?? node.identifier}]`;
    doc.font('Helvetica').fontSize(BODY_SIZE);
    const labelWidth = doc.widthOfString(label) + 6;
    this.ensureSpace(SMALL_SIZE * 1.6);
    const y = doc.y;
    doc.fillColor(MUTED_COLOR).text(label, box.x, y, { lineBreak: false });
    doc.x = box.x;
    doc.y = y;
    this.blocks(node.children, { ...box, x: box.x + labelWidth, width: box.width - labelWidth, color: MUTED_COLOR }, defs);
  }

  table(node: Table, box: Box, defs: Definitions): void {
    const { doc } = this;
    const rows = node.children.map((row) =>
      row.children.map((cell) => toWinAnsi(inlineRuns(cell.children, PLAIN, defs).map((r) => r.text).join('')).trim()),
    );
    const columns = Math.max(1, ...rows.map((r) => r.length));
    const colWidth = box.width / columns;
    const textWidth = Math.max(colWidth - CELL_PAD * 2, 1);
    const usable = this.maxY - doc.page.margins.top;
    const measure = (cells: string[], header: boolean) => {
      doc.font(header ? 'Helvetica-Bold' : 'Helvetica').fontSize(BODY_SIZE - 1);
      let height = 0;
      for (const cell of cells) height = Math.max(height, doc.heightOfString(cell || ' ', { width: textWidth, lineGap: 1 }));
      return height + CELL_PAD * 2;
    };
    const drawRow = (cells: string[], header: boolean, height: number) => {
      const y = doc.y;
      if (header) doc.save().rect(box.x, y, box.width, height).fill(HEADER_BG).restore();
      doc.save().rect(box.x, y, box.width, height).lineWidth(0.5).strokeColor(RULE_COLOR).stroke().restore();
      for (let c = 0; c < columns; c++) {
        const cx = box.x + c * colWidth;
        if (c > 0) {
          doc.save().moveTo(cx, y).lineTo(cx, y + height).lineWidth(0.5).strokeColor(RULE_COLOR).stroke().restore();
        }
        const text = cells[c] ?? '';
        if (!text) continue;
        const align = node.align?.[c] ?? 'left';
        doc.font(header ? 'Helvetica-Bold' : 'Helvetica').fontSize(BODY_SIZE - 1).fillColor(box.color);
        doc.text(text, cx + CELL_PAD, y + CELL_PAD, {
          width: textWidth,
          lineGap: 1,
          align,
          underline: false,
          strike: false,
          link: null,
        });
      }
      doc.x = box.x;
      doc.y = y + height;
    };

    const header = rows[0];
    const headerHeight = header ? measure(header, true) : 0;
    rows.forEach((cells, r) => {
      const isHeader = r === 0;
      const height = measure(cells, isHeader);
      if (height > usable - headerHeight) {
        // A row taller than a page: lay its cells out as labelled lines instead.
        cells.forEach((cell, c) => {
          const label = header && !isHeader ? `${header[c] ?? ''}: ` : '';
          this.writePlain(`${label}${cell}`, box, BODY_SIZE - 1);
        });
        this.gap(LINE_GAP);
        return;
      }
      const before = doc.page;
      this.ensureSpace(height);
      if (!isHeader && header && doc.page !== before) drawRow(header, true, headerHeight); // repeat header
      drawRow(cells, isHeader, height);
    });
    this.gap(PARAGRAPH_GAP + 2);
  }

  // --- document parts -----------------------------------------------------------------------

  cover(title: string, subtitle: string | undefined, box: Box): void {
    this.writePlain(title || 'Untitled', box, 24, 'Helvetica-Bold');
    if (subtitle) {
      this.gap(2);
      this.writePlain(subtitle, box, 13, 'Helvetica', MUTED_COLOR);
    }
    this.gap(4);
    this.rule(box, '#999999');
    this.gap(PARAGRAPH_GAP);
  }

  pageTitle(page: PdfPageInput, box: Box, first: boolean): void {
    const size = pageTitleSize(page.depth);
    if (!first) {
      this.gap(PARAGRAPH_GAP * 2);
      this.ensureSpace(size * 2 + BODY_SIZE * 4);
      this.rule(box);
      this.gap(PARAGRAPH_GAP);
    }
    this.ensureSpace(size * 2 + BODY_SIZE * 4);
    this.writePlain(page.title || page.path || 'Untitled', box, size, 'Helvetica-Bold');
    if (page.path) {
      this.gap(1);
      this.writePlain(page.path, box, SMALL_SIZE, 'Helvetica', MUTED_COLOR);
    }
    this.gap(PARAGRAPH_GAP * 1.5);
  }

  footers(title: string): void {
    const { doc } = this;
    const range = doc.bufferedPageRange();
    for (let i = range.start; i < range.start + range.count; i++) {
      doc.switchToPage(i);
      const { margins } = doc.page;
      const savedBottom = margins.bottom;
      margins.bottom = 0; // writing inside the margin must not trigger a page break
      const y = doc.page.height - savedBottom / 2 - SMALL_SIZE / 2;
      const width = this.contentWidth;
      doc.font('Helvetica').fontSize(SMALL_SIZE).fillColor(MUTED_COLOR);
      const footerTitle = toWinAnsi(title);
      doc.text(footerTitle, margins.left, y, { width: width * 0.75, height: SMALL_SIZE * 1.5, ellipsis: true });
      doc.text(`${i + 1 - range.start} / ${range.count}`, margins.left, y, { width, align: 'right', lineBreak: false });
      margins.bottom = savedBottom;
    }
  }
}

/** Renders a change request (or a single page) to a PDF. */
export async function renderPdf(input: PdfInput, options: PdfRenderOptions = {}): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    bufferPages: true,
    compress: options.compress ?? true,
    displayTitle: true,
    info: {
      Title: toWinAnsi(input.title),
      ...(input.subtitle ? { Subject: toWinAnsi(input.subtitle) } : {}),
      Creator: 'Lectern',
      Producer: 'Lectern',
    },
  });

  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  try {
    const renderer = new Renderer(doc);
    const box: Box = { x: renderer.left, width: renderer.contentWidth, color: TEXT_COLOR, tight: false };
    renderer.cover(input.title, input.subtitle, box);

    // Bookmarks nested like the page tree.
    const outlineStack: Outline[] = [];
    input.pages.forEach((page, index) => {
      const depth = Math.max(0, Math.floor(page.depth) || 0);
      renderer.pageTitle(page, box, index === 0);
      const parent = outlineStack[Math.min(depth, outlineStack.length) - 1] ?? doc.outline;
      const item = parent.addItem(toWinAnsi(page.title || page.path || 'Untitled'));
      outlineStack.length = Math.min(depth, outlineStack.length);
      outlineStack.push(item);

      // The application's one parser (src/document): bodies are stored without their front matter,
      // so a leading `---` block left in one is hidden here as it is in the page's document.
      const tree = markdownTree(page.markdown ?? '');
      renderer.blocks(tree.children, box, new Definitions(tree));
    });

    renderer.footers(input.title);
  } catch (err) {
    doc.end();
    await done.catch(() => undefined);
    throw err;
  }
  doc.end();
  return done;
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
        if (error instanceof IsolateLimitError) throw new PdfTooLarge(`Rendering this export ${error.message}: the change request is too large to render as one PDF; export its pages one at a time`);
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
