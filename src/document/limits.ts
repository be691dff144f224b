import { LecternError } from '../errors.js';

/**
 * Largest Markdown body accepted for a page (UTF-8 bytes). The seed names no page size; 1 MB
 * matches the largest file a write accepts (MAX_FILE_BYTES) and is far above real pages.
 */
export const MARKDOWN_MAX_BYTES = 1024 * 1024;

/**
 * Deepest nesting accepted: lists and quotes (block containers), and emphasis and link brackets
 * (inline), each at most this many levels, as rich-text documents (src/validate.ts). micromark's
 * work grows faster than linearly with nesting (a 300-level list took 5.5 s, 2,000 nested images
 * over a minute) and the tree walks recurse, so nesting is refused before parsing.
 */
export const MARKDOWN_MAX_DEPTH = 32;

/**
 * Most emphasis delimiter runs (`*`, `_`, `~`) and opening brackets in one paragraph. micromark
 * pairs them by walking back over the paragraph for each one, which grows with the square of
 * their number (16,000 `*b*` in one paragraph: 8 s); real paragraphs hold a few dozen.
 */
export const MARKDOWN_MAX_INLINE_MARKS = 500;

/** Markdown this module refuses to parse: a 400 wherever it surfaces, with a message for people. */
export class MarkdownLimitError extends LecternError {
  constructor(readonly problem: string) {
    super('BAD_REQUEST', `markdown: ${problem}`);
  }
}

const SPACE = 0x20;
const TAB = 0x09;
const isBlankLine = (line: string) => /^[ \t]*$/.test(line);
const isWhitespace = (c: string | undefined) =>
  c === undefined || c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v';
const ASCII_PUNCTUATION = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');
const isPunctuation = (c: string | undefined) => c !== undefined && (c < '\u0080' ? ASCII_PUNCTUATION.has(c) : /[\p{P}\p{S}]/u.test(c));

type Container = { kind: 'quote' } | { kind: 'item'; column: number };

/** A position in one line, in characters and in columns as CommonMark counts them (a tab advances to the next multiple of 4). */
class LineCursor {
  pos = 0;
  col = 0;
  constructor(readonly line: string) {}

  skipSpaces(upTo: number) {
    const line = this.line;
    while (this.pos < line.length && this.col < upTo) {
      const c = line.charCodeAt(this.pos);
      if (c === SPACE) this.col++;
      else if (c === TAB) this.col += 4 - (this.col % 4);
      else break;
      this.pos++;
    }
  }

  /** Steps over a marker of `width` characters. */
  skipMarker(width = 1) {
    this.pos += width;
    this.col += width;
  }

  skipOptionalSpace() {
    if (this.line[this.pos] === ' ' || this.line[this.pos] === '\t') this.skipSpaces(this.col + 1);
  }

  save(): [number, number] {
    return [this.pos, this.col];
  }

  restore([pos, col]: [number, number]) {
    this.pos = pos;
    this.col = col;
  }

  /** The width of the indentation at the cursor (up to 4), without moving it. */
  indent(): number {
    const saved = this.save();
    this.skipSpaces(this.col + 4);
    const width = this.col - saved[1];
    this.restore(saved);
    return width;
  }
}

/** How many of the open containers this line continues (`>` markers, list items' content column). */
function continuedContainers(cursor: LineCursor, stack: Container[], blank: boolean): number {
  let matched = 0;
  for (const container of stack) {
    const saved = cursor.save();
    if (container.kind === 'quote') {
      cursor.skipSpaces(cursor.col + 3);
      if (cursor.line[cursor.pos] !== '>') {
        cursor.restore(saved);
        break;
      }
      cursor.skipMarker();
      cursor.skipOptionalSpace();
    } else if (!blank) {
      cursor.skipSpaces(container.column);
      if (cursor.col < container.column) {
        cursor.restore(saved);
        break;
      }
    }
    matched++;
  }
  return matched;
}

/** Whether the line (inside fenced code, its containers continued) is the closing fence. */
function closesFence(cursor: LineCursor, fence: { char: string; length: number }): boolean {
  const start = cursor.col;
  cursor.skipSpaces(cursor.col + 3);
  const run = runAt(cursor.line, cursor.pos, fence.char);
  return cursor.col - start <= 3 && run >= fence.length && isBlankLine(cursor.line.slice(cursor.pos + run));
}

type Opened = { opened: Container[]; closes: boolean; tooDeep: boolean };

/**
 * The containers a (non-blank) line opens: `>` markers and list items, until indented code or
 * text; `closes` when it starts a block that ends unmatched containers (a thematic break).
 * `tooDeep` as soon as the depth would pass the limit (a line may hold thousands of markers).
 */
function openedContainers(cursor: LineCursor, matched: number, paragraph: boolean, last: number): Opened {
  const opened: Container[] = [];
  const line = cursor.line;
  for (;;) {
    const start = cursor.col;
    const saved = cursor.save();
    cursor.skipSpaces(cursor.col + 4);
    if (cursor.col - start >= 4) {
      cursor.restore(saved);
      break; // indented code or a continuation: opens nothing
    }
    if (line[cursor.pos] === '>') {
      if (matched + opened.length >= MARKDOWN_MAX_DEPTH) return { opened, closes: false, tooDeep: true };
      opened.push({ kind: 'quote' });
      cursor.skipMarker();
      cursor.skipOptionalSpace();
      continue;
    }
    if (isThematicBreak(line, cursor.pos)) return { opened, closes: true, tooDeep: false };
    const marker = listMarkerAt(line, cursor.pos);
    if (!marker) break;
    const empty = cursor.pos + marker.length > last;
    // An empty item, or an ordered one not starting at 1, cannot interrupt a paragraph.
    if (paragraph && opened.length === 0 && (empty || (marker.ordered && !marker.one))) break;
    if (matched + opened.length >= MARKDOWN_MAX_DEPTH) return { opened, closes: false, tooDeep: true };
    cursor.skipMarker(marker.length);
    const afterMarker = cursor.col;
    const afterSaved = cursor.save();
    cursor.skipSpaces(cursor.col + 5);
    if (empty || cursor.col - afterMarker >= 5) {
      // The item's content starts one column after the marker (the rest is code).
      cursor.restore(afterSaved);
      opened.push({ kind: 'item', column: afterMarker + 1 });
      if (!empty) cursor.skipSpaces(cursor.col + 1);
      break;
    }
    opened.push({ kind: 'item', column: cursor.col });
  }
  return { opened, closes: false, tooDeep: false };
}

/**
 * Why `markdown` would be refused (size, nesting), or null. One pass over the text, a few steps
 * per character, whatever its shape (5,000 levels are refused in milliseconds).
 *
 * It follows CommonMark's container rules closely enough to count what the parser would open:
 * `>` markers, list items (their content column, so indentation continues them), lazy paragraph
 * continuation, fenced and indented code (whose text opens nothing). Where it must guess, it
 * guesses deeper, never shallower: a page could be refused that the parser would nest a little
 * less, never accepted above the limit.
 */
export function markdownProblem(markdown: string): string | null {
  if (markdown.length > MARKDOWN_MAX_BYTES || Buffer.byteLength(markdown, 'utf8') > MARKDOWN_MAX_BYTES) {
    return `must be at most ${MARKDOWN_MAX_BYTES} bytes (1 MB) of Markdown`;
  }
  const lines = markdown.split(/\r\n|\r|\n/);
  const stack: Container[] = [];
  let fence: { depth: number; char: string; length: number } | null = null;
  let paragraph = false; // the previous line was paragraph text (a lazy continuation may follow)
  const inline = new InlineNesting();
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!;
    let last = line.length - 1; // the line's last non-blank character (-1: a blank line)
    while (last >= 0 && (line[last] === ' ' || line[last] === '\t')) last--;
    const blank = last < 0;
    const tooDeep = () => `is nested too deeply: lists and quotes go at most ${MARKDOWN_MAX_DEPTH} levels deep (line ${n + 1})`;
    const cursor = new LineCursor(line);
    // 1. Which open containers does this line continue?
    const matched = continuedContainers(cursor, stack, blank);
    // 2. Inside fenced code: text, until the closing fence or its container ends.
    if (fence) {
      if (matched >= fence.depth) {
        if (closesFence(cursor, fence)) fence = null;
        paragraph = false;
        continue;
      }
      fence = null;
    }
    // 3. New containers opened on this line.
    const {
      opened,
      closes,
      tooDeep: openedTooDeep,
    }: Opened = blank ? { opened: [], closes: false, tooDeep: false } : openedContainers(cursor, matched, paragraph, last);
    if (openedTooDeep) return tooDeep();
    if (opened.length > 0 || closes || blank || !paragraph) stack.length = matched;
    stack.push(...opened);
    if (stack.length > MARKDOWN_MAX_DEPTH) return tooDeep();
    if (opened.length > 0) inline.reset();
    // 4. What the rest of the line is.
    const indent = cursor.indent();
    if (blank) {
      paragraph = false;
      inline.reset();
      continue;
    }
    if (indent >= 4 && !paragraph) continue; // indented code
    cursor.skipSpaces(cursor.col + 3);
    const ch = line[cursor.pos];
    if ((ch === '`' || ch === '~') && runAt(line, cursor.pos, ch) >= 3) {
      fence = { depth: stack.length, char: ch, length: runAt(line, cursor.pos, ch) };
      paragraph = false;
      inline.reset();
      continue;
    }
    const deepest = inline.scan(line, cursor.pos);
    if (deepest > MARKDOWN_MAX_DEPTH)
      return `is nested too deeply: emphasis and links go at most ${MARKDOWN_MAX_DEPTH} levels deep (line ${n + 1})`;
    if (inline.marks > MARKDOWN_MAX_INLINE_MARKS)
      return `has too many emphasis marks and links in one paragraph: at most ${MARKDOWN_MAX_INLINE_MARKS} (line ${n + 1}); split it with a blank line`;
    paragraph = !closes;
  }
  return null;
}

function runAt(line: string, pos: number, ch: string): number {
  let end = pos;
  while (line[end] === ch) end++;
  return end - pos;
}

function isThematicBreak(line: string, pos: number): boolean {
  const ch = line[pos];
  if (ch !== '-' && ch !== '*' && ch !== '_') return false;
  let count = 0;
  for (let i = pos; i < line.length; i++) {
    if (line[i] === ch) count++;
    else if (line[i] !== ' ' && line[i] !== '\t') return false;
  }
  return count >= 3;
}

function listMarkerAt(line: string, pos: number): { length: number; ordered: boolean; one: boolean } | null {
  const ch = line[pos];
  const follows = (at: number) => at >= line.length || line[at] === ' ' || line[at] === '\t';
  if ((ch === '-' || ch === '+' || ch === '*') && follows(pos + 1)) return { length: 1, ordered: false, one: false };
  let end = pos;
  while (end - pos < 9 && line.charCodeAt(end) >= 48 && line.charCodeAt(end) <= 57) end++;
  if (end > pos && (line[end] === '.' || line[end] === ')') && follows(end + 1)) {
    return { length: end + 1 - pos, ordered: true, one: Number(line.slice(pos, end)) === 1 };
  }
  return null;
}

/**
 * Nesting of emphasis (`*`, `_`, `~`) and of brackets (links, images) within one paragraph, in
 * one pass. Openers are counted when seen; a closer lowers the count only where it surely closes
 * for CommonMark too: paired as CommonMark pairs (the nearest opener of the same character, rule
 * of three), and never inside what may be a code span, raw HTML, an autolink or a link
 * destination (their text hides closers). Wherever unsure, the count stays up: deeper, never
 * shallower than the parser's.
 */
class InlineNesting {
  private openers: { ch: string; levels: number; run: number; both: boolean }[] = [];
  private byChar = new Map<string, number[]>(); // indexes into `openers`, per delimiter
  private levels = 0;
  private brackets = 0;
  private code: number | null = null; // backtick run length of a possible open code span
  private html: string | null = null; // how a possible raw HTML / autolink ends
  private destination: { parens: number; quote: string | null } | null = null;
  private tainted = false; // from here on nothing lowers the counts in this paragraph
  /** Emphasis runs and opening brackets seen in this paragraph. */
  marks = 0;

  reset() {
    this.openers = [];
    this.byChar.clear();
    this.levels = 0;
    this.brackets = 0;
    this.code = null;
    this.html = null;
    this.destination = null;
    this.tainted = false;
    this.marks = 0;
  }

  private get hidden() {
    return this.tainted || this.code !== null || this.html !== null || this.destination !== null;
  }

  /** Scans a line's inline text from `pos`; returns the deepest nesting seen in this paragraph. */
  scan(line: string, pos: number): number {
    let deepest = Math.max(this.brackets, this.levels);
    for (let i = pos; i < line.length; ) {
      const ch = line[i]!;
      if (ch === '`') {
        const run = runAt(line, i, '`');
        if (this.html !== null || this.destination !== null) this.tainted = true;
        else if (this.code === null) this.code = run;
        else if (this.code === run) this.code = null;
        i += run;
        continue;
      }
      if (this.code !== null) {
        i++;
        continue;
      }
      if (this.html !== null) {
        if (line.startsWith(this.html, i)) {
          i += this.html.length;
          this.html = null;
          continue;
        }
      } else if (ch === '<' && /[A-Za-z/!?]/.test(line[i + 1] ?? '')) {
        this.html = line.startsWith('<!--', i) ? '-->' : line.startsWith('<?', i) ? '?>' : line.startsWith('<![CDATA[', i) ? ']]>' : '>';
        // Quoted attribute values may hold '>': while one is open, the tag goes on.
        i += 1;
        continue;
      }
      if (this.html === '>' && (ch === '"' || ch === "'")) {
        const close = line.indexOf(ch, i + 1);
        // An unclosed quote may go on to a later line: nothing lowers the counts from here.
        if (close < 0) this.tainted = true;
        i = close < 0 ? line.length : close + 1;
        continue;
      }
      if (ch === '\\' && this.html === null) {
        i += 2;
        continue;
      }
      if (this.destination !== null) {
        const d = this.destination;
        if (d.quote !== null) {
          if (ch === d.quote) d.quote = null;
        } else if (ch === '"' || ch === "'") d.quote = ch;
        else if (ch === '(') d.parens++;
        else if (ch === ')' && d.parens-- === 0) this.destination = null;
      }
      if (ch === '[') {
        this.marks++;
        this.brackets++;
        deepest = Math.max(deepest, this.brackets);
      } else if (ch === ']') {
        if (line[i + 1] === ':') this.tainted = true; // a definition: its destination and title follow
        if (!this.hidden && this.brackets > 0) {
          this.brackets--;
          if (line[i + 1] === '(') {
            this.destination = { parens: 0, quote: null };
            i += 2;
            continue;
          }
        }
      } else if (ch === '*' || ch === '_' || ch === '~') {
        const run = runAt(line, i, ch);
        this.marks++;
        const before = i > pos ? line[i - 1] : undefined;
        const after = line[i + run];
        const left = !isWhitespace(after) && (!isPunctuation(after) || isWhitespace(before) || isPunctuation(before));
        const right = !isWhitespace(before) && (!isPunctuation(before) || isWhitespace(after) || isPunctuation(after));
        const canOpen = ch === '_' ? left && (!right || isPunctuation(before)) : left;
        const canClose = ch === '_' ? right && (!left || isPunctuation(after)) : right;
        // GFM strikethrough pairs runs of the same length only, and no run longer than 2.
        const key = ch === '~' ? `~${run}` : ch;
        const levels = ch === '~' ? (run <= 2 ? 1 : 0) : run;
        const stack = this.byChar.get(key);
        const nearest = stack?.length ? this.openers[stack[stack.length - 1]!]! : undefined;
        const ruleOfThree =
          nearest !== undefined &&
          ch !== '~' &&
          (nearest.both || (canOpen && canClose)) &&
          (nearest.run + run) % 3 === 0 &&
          !(nearest.run % 3 === 0 && run % 3 === 0);
        if (levels > 0 && canClose && nearest && !ruleOfThree && !this.hidden) {
          const index = stack![stack!.length - 1]!;
          while (this.openers.length > index) {
            const o = this.openers.pop()!;
            this.levels -= o.levels;
            this.byChar.get(o.ch)!.pop();
          }
          deepest = Math.max(deepest, this.levels + nearest.levels);
        } else if (levels > 0 && canOpen) {
          if (!this.byChar.has(key)) this.byChar.set(key, []);
          this.byChar.get(key)!.push(this.openers.length);
          this.openers.push({ ch: key, levels, run, both: canOpen && canClose });
          this.levels += levels;
          deepest = Math.max(deepest, this.levels);
        }
        i += run;
        continue;
      }
      i++;
    }
    return deepest;
  }
}
