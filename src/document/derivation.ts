import { MarkdownLimitError } from './limits.js';
import { parseMarkdown, sourceDocument } from './markdown.js';
import type { MarkdownDocument, ParsedMarkdown } from './types.js';

/**
 * Everything derived from one body's Markdown by one parse, as plain data (it crosses from a worker
 * thread by structured clone, and the derivation cache keeps it): the document as JSON text, so
 * each reader gets its own copy to annotate (links/refs.ts rewrites references in place) and the
 * cache knows its size; the other fields as parsed; or the parser's refusal.
 */
export interface DerivationRecord {
  /** The read document's JSON; empty when the parser refused the body. */
  document: string;
  parsed?: Omit<ParsedMarkdown, 'document'>;
  /** Why the parser refused the body (a `markdown: …` message); `limit`: size or nesting, whose document is still readable. */
  refusal?: { message: string; limit: boolean };
}

/** Parses `markdown` once into a record; errors other than the parser's refusals are bugs and thrown. */
export function deriveRecord(markdown: string): DerivationRecord {
  try {
    const { document, ...parsed } = parseMarkdown(markdown);
    return { document: JSON.stringify(document), parsed };
  } catch (error) {
    // A write refused is answered at once; a read of a body over the limits makes its document then (DerivedBody).
    if (error instanceof MarkdownLimitError) return { document: '', refusal: { message: error.message, limit: true } };
    if (error instanceof Error && error.message.startsWith('markdown: '))
      return { document: '', refusal: { message: error.message, limit: false } };
    throw error;
  }
}

/**
 * The record of a body whose front matter a parse stripped (`parsed.body`), when that body's own
 * parse would give the same document, sections, links and text without front matter: so a write
 * storing the stripped body parses once. Not when the stripped body could itself open with front
 * matter (`---`).
 */
export function strippedBodyRecord(markdown: string, record: DerivationRecord): { body: string; record: DerivationRecord } | undefined {
  const body = record.parsed?.body;
  if (body === undefined || body === markdown || body.startsWith('---')) return undefined;
  return { body, record: { document: record.document, parsed: { ...record.parsed!, frontMatter: {}, body } } };
}

/** Rough bytes a record holds (UTF-16 code units at two bytes: an upper bound for V8's strings). */
export function recordBytes(record: DerivationRecord, overLimits?: string): number {
  let chars = record.document.length + (record.refusal?.message.length ?? 0) + (overLimits?.length ?? 0);
  const parsed = record.parsed;
  if (parsed) {
    chars += parsed.body.length + parsed.text.length + JSON.stringify(parsed.frontMatter).length;
    for (const s of parsed.sections) chars += s.id.length + s.title.length + s.body.length + 16;
    for (const l of [...parsed.links, ...parsed.unsafeLinks]) chars += l.href.length + l.text.length + 16;
  }
  return 2 * chars + 256;
}

/**
 * What is derived from one body, computed once (see body-cache.ts). Fields other than `document()`
 * are shared by every reader and must not be changed; reading one of a body the parser refused
 * throws that refusal (a 400), as parsing it would.
 */
export class DerivedBody {
  constructor(
    /** SHA-256 of the Markdown (base64): bodies are immutable, so this names everything here. */
    readonly key: string,
    private readonly record: DerivationRecord,
    /** The Markdown of a body over the limits, whose document is its source (held only then). */
    private readonly overLimits?: string,
  ) {}

  /**
   * The rich-text document to read, a copy of its own. A body over the limits (stored before they
   * existed, or produced by a merge) reads as its source in one code block, made without parsing.
   */
  document(): MarkdownDocument {
    if (this.overLimits !== undefined) return sourceDocument(this.overLimits);
    if (!this.record.document) throw this.refusal();
    return JSON.parse(this.record.document) as MarkdownDocument;
  }

  /** Characters behind the document (callers pace the copying of large ones). */
  get documentChars(): number {
    return this.overLimits?.length ?? this.record.document.length;
  }

  get frontMatter() {
    return this.parsed.frontMatter;
  }
  /** The Markdown without its front matter. */
  get body() {
    return this.parsed.body;
  }
  get sections() {
    return this.parsed.sections;
  }
  get links() {
    return this.parsed.links;
  }
  get unsafeLinks() {
    return this.parsed.unsafeLinks;
  }
  get text() {
    return this.parsed.text;
  }

  private get parsed() {
    if (!this.record.parsed) throw this.refusal();
    return this.record.parsed;
  }

  private refusal() {
    return new MarkdownLimitError(this.record.refusal!.message.replace(/^markdown: /, ''));
  }
}
