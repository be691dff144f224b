/**
 * What of a Markdown page gets translated, and how the translation goes back in without touching
 * anything else. The page is parsed with the same Markdown parser as the content store
 * (src/document/processor.ts: remark-parse with GFM and YAML front matter); only the `text` nodes of the tree are translated,
 * and each is written back over its own source range, so everything else stays byte for byte:
 * front matter, code blocks and inline code, HTML, link and image URLs, link definitions,
 * reference labels, autolinks and bare URLs, tables, lists and every other piece of syntax.
 *
 * - A text node is translated as one string: its soft line breaks become spaces (a soft break
 *   renders as a space), so a sentence broken over lines is translated whole; the node is then
 *   written back on one line, which keeps list items and block quotes intact.
 * - Liquid-style tags and variable expressions (`{% … %}`, `{{ … }}`) and URLs inside text stay as
 *   they are; leading and trailing spaces are kept; text without any letter is not sent.
 * - The translation is escaped for Markdown (`*`, `_`, `` ` ``, `[`, `]`, `<`, `\`, `|` in tables, a
 *   leading `#`, `>`, `-`, `+` or `1.` at the start of a block), so translated text cannot turn
 *   into markup.
 * - Not translated: image alt texts, and the text of links whose label is their URL.
 */
import type * as M from 'mdast';
import { markdownTree } from '../../document/index.js';
import { wordCount } from '../conversations/index.js';

type Piece = { translate: true; lead: string; core: string; trail: string } | { translate: false; text: string };

interface Segment {
  start: number;
  end: number;
  pieces: Piece[];
  inTable: boolean;
  atBlockStart: boolean;
}

const PROTECTED = /\{%[\s\S]*?%\}|\{\{[\s\S]*?\}\}|https?:\/\/[^\s)>\]]+|www\.[^\s)>\]]+/g;
const HAS_LETTER = /\p{L}/u;
const SKIPPED = new Set([
  'code',
  'inlineCode',
  'html',
  'yaml',
  'toml',
  'math',
  'inlineMath',
  'definition',
  'image',
  'imageReference',
  'footnoteReference',
]);

function piecesOf(value: string): Piece[] {
  const pieces: Piece[] = [];
  const add = (text: string) => {
    if (!text) return;
    const match = /^(\s*)([\s\S]*?)(\s*)$/.exec(text)!;
    if (HAS_LETTER.test(match[2]!)) pieces.push({ translate: true, lead: match[1]!, core: match[2]!, trail: match[3]! });
    else pieces.push({ translate: false, text });
  };
  let last = 0;
  for (const m of value.matchAll(PROTECTED)) {
    add(value.slice(last, m.index));
    pieces.push({ translate: false, text: m[0] });
    last = m.index! + m[0].length;
  }
  add(value.slice(last));
  return pieces;
}

/** The translatable parts of a Markdown text. */
export class TranslatableMarkdown {
  private readonly segments: Segment[] = [];

  constructor(readonly source: string) {
    const root = markdownTree(source);
    const walk = (node: M.Nodes, inTable: boolean) => {
      if (SKIPPED.has(node.type)) return;
      if (node.type === 'link') {
        // Autolinks (<https://…>) and bare URLs have the URL as their text.
        const raw = source.slice(node.position?.start.offset ?? 0, node.position?.end.offset ?? 0);
        if (!raw.startsWith('[')) return;
      }
      if (node.type === 'linkReference' && node.referenceType !== 'full') return; // its text is the reference label
      if (node.type === 'text') {
        const start = node.position?.start.offset;
        const end = node.position?.end.offset;
        if (start === undefined || end === undefined) return;
        const pieces = piecesOf(node.value.replace(/[ \t]*\r?\n[ \t]*/g, ' '));
        if (!pieces.some((p) => p.translate)) return;
        const lineStart = source.lastIndexOf('\n', start - 1) + 1;
        this.segments.push({ start, end, pieces, inTable, atBlockStart: /^[\s>*+\-\d.)]*$/.test(source.slice(lineStart, start)) });
        return;
      }
      if ('children' in node) for (const child of node.children as M.Nodes[]) walk(child, inTable || node.type === 'table');
    };
    walk(root, false);
  }

  /** The strings to translate, in document order. */
  get texts(): string[] {
    return this.segments.flatMap((s) => s.pieces.flatMap((p) => (p.translate ? [p.core] : [])));
  }

  get words(): number {
    return this.texts.reduce((n, t) => n + wordCount(t), 0);
  }

  /** The Markdown with `translated` (one per `texts` entry, same order) in place of the texts. */
  apply(translated: string[]): string {
    if (translated.length !== this.texts.length) throw new Error('translation: one translated string per text is needed');
    let next = 0;
    const replacements = this.segments.map((segment) => {
      let out = '';
      for (const piece of segment.pieces) {
        if (!piece.translate) out += piece.text;
        else out += piece.lead + escapeMarkdown(translated[next++]!.replace(/\s*\r?\n\s*/g, ' ').trim(), segment.inTable) + piece.trail;
      }
      if (segment.atBlockStart) out = escapeBlockStart(out);
      return { start: segment.start, end: segment.end, text: out };
    });
    let result = this.source;
    for (const r of replacements.sort((a, b) => b.start - a.start)) result = result.slice(0, r.start) + r.text + result.slice(r.end);
    return result;
  }
}

function escapeMarkdown(text: string, inTable: boolean): string {
  let out = text.replace(/([\\`*_[\]<~])/g, '\\$1').replace(/&(?=#?[a-z0-9]+;)/gi, '\\&');
  if (inTable) out = out.replace(/\|/g, '\\|');
  return out;
}

function escapeBlockStart(text: string): string {
  return text.replace(/^(\s*)([#>+=-]|\d+(?=[.)]))/, (_m, space: string, mark: string) =>
    /^\d+$/.test(mark) ? `${space}${mark}\\` : `${space}\\${mark}`,
  );
}
