import { createHash } from 'node:crypto';
import { DerivedBody, deriveRecord, recordBytes, strippedBodyRecord, type DerivationRecord } from './derivation.js';
import { markdownProblem } from './limits.js';
import { deriveOffLoop, OFFLOAD_CHARS } from './markdown-offload.js';
import type { MarkdownDocument, ParsedMarkdown } from './types.js';

/**
 * The derivation cache: what is derived from a page body (document, sections, links, text, front
 * matter) is computed by one parse per distinct body per process, and every reader and writer
 * goes through here. Bodies are content-addressed and immutable, so entries never go stale; they
 * are keyed by the SHA-256 of the Markdown itself (not the store's body hash: a read may evaluate
 * variables into the text, a write has no hash yet) and dropped least recently used first when
 * the cache holds more than its bytes. A body being parsed is parsed once however many requests
 * ask for it meanwhile.
 */
export class DerivationCache {
  private readonly entries = new Map<string, DerivedBody & { bytes: number }>();
  private readonly parsing = new Map<string, Promise<DerivedBody>>();
  private heldBytes = 0;

  constructor(readonly maxBytes: number) {}

  get bytes() {
    return this.heldBytes;
  }
  get size() {
    return this.entries.size;
  }

  clear() {
    this.entries.clear();
    this.heldBytes = 0;
  }

  /** The derivations of one body, parsed here on a miss (for sync callers and small bodies). */
  derived(markdown: string): DerivedBody {
    const key = keyOf(markdown);
    return this.hit(key) ?? this.store(markdown, key, deriveRecord(markdown));
  }

  /**
   * The derivations of several bodies (a page read with its children brings many): the missing
   * ones parse inline when they are small altogether, else in one worker call.
   */
  async derivedAll(bodies: Iterable<string>): Promise<Map<string, DerivedBody>> {
    const out = new Map<string, DerivedBody>();
    const waits: Promise<void>[] = [];
    const missing = new Map<string, string>(); // markdown → key
    const overLimits = new Set<string>();
    let chars = 0;
    for (const markdown of bodies) {
      if (out.has(markdown) || missing.has(markdown)) continue;
      const key = keyOf(markdown);
      const hit = this.hit(key);
      const pending = hit ? undefined : this.parsing.get(key);
      if (hit) out.set(markdown, hit);
      else if (pending) waits.push(pending.then((d) => void out.set(markdown, d)));
      else {
        missing.set(markdown, key);
        // A large body over the limits is refused by a linear pre-scan here: no thread to start.
        if (markdown.length > OFFLOAD_CHARS && markdownProblem(markdown)) overLimits.add(markdown);
        else chars += markdown.length;
      }
    }
    if (missing.size) {
      const texts = [...missing.keys()];
      const work = (async () => {
        const offLoop = chars > OFFLOAD_CHARS ? texts.filter((markdown) => !overLimits.has(markdown)) : [];
        const records = offLoop.length ? await deriveOffLoop(offLoop) : [];
        const parsed = new Map(offLoop.map((markdown, i) => [markdown, records[i]!]));
        return texts.map((markdown) => this.store(markdown, missing.get(markdown)!, parsed.get(markdown) ?? deriveRecord(markdown)));
      })();
      texts.forEach((markdown, i) => {
        const key = missing.get(markdown)!;
        const one = work.then((derived) => derived[i]!);
        this.parsing.set(key, one);
        void one.then(
          () => this.parsing.delete(key),
          () => this.parsing.delete(key),
        );
      });
      (await work).forEach((derived, i) => out.set(texts[i]!, derived));
    }
    await Promise.all(waits);
    return out;
  }

  private hit(key: string): DerivedBody | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  private store(markdown: string, key: string, record: DerivationRecord): DerivedBody {
    const derived = this.remember(key, record, record.refusal?.limit ? markdown : undefined);
    // A write stores the body without its front matter: its derivations are this parse's.
    const stripped = strippedBodyRecord(markdown, record);
    if (stripped) {
      const strippedKey = keyOf(stripped.body);
      if (!this.entries.has(strippedKey)) this.remember(strippedKey, stripped.record);
    }
    return derived;
  }

  private remember(key: string, record: DerivationRecord, overLimits?: string): DerivedBody {
    const entry = Object.assign(new DerivedBody(key, record, overLimits), { bytes: recordBytes(record, overLimits) });
    // One body bigger than a quarter of the cache would evict most of it: it is derived, not kept.
    if (entry.bytes > this.maxBytes / 4) return entry;
    const old = this.entries.get(key);
    if (old) this.heldBytes -= old.bytes;
    this.entries.set(key, entry);
    this.heldBytes += entry.bytes;
    for (const [oldKey, oldEntry] of this.entries) {
      if (this.heldBytes <= this.maxBytes) break;
      this.entries.delete(oldKey);
      this.heldBytes -= oldEntry.bytes;
    }
    return entry;
  }
}

const keyOf = (markdown: string) => createHash('sha256').update(markdown).digest('base64');

/**
 * The process's cache. 64 MiB holds the derivations of roughly 500–1,000 pages of 10–20 KB (a
 * document's JSON is several times its Markdown): a working set of pages being read and edited.
 */
export const bodyCache = new DerivationCache(64 * 1024 * 1024);

/** What is derived from one body (parsed inline on a miss). */
export const derivedBody = (markdown: string) => bodyCache.derived(markdown);

/** What is derived from several bodies; large ones parse off the event loop on a miss. */
export const derivedBodies = (bodies: Iterable<string>) => bodyCache.derivedAll(bodies);

/** The `fields` of parseMarkdown, through the cache (a large body parses off the event loop). Throws its refusal as parsing would. */
export async function parseMarkdownOffLoop<K extends keyof ParsedMarkdown>(
  markdown: string,
  fields: K[],
): Promise<Pick<ParsedMarkdown, K>> {
  const derived = (await derivedBodies([markdown])).get(markdown)!;
  return Object.fromEntries(
    fields.map((field) => [field, field === 'document' ? derived.document() : derived[field as Exclude<K, 'document'>]]),
  ) as Pick<ParsedMarkdown, K>;
}

/** The read documents of several bodies (documentFromMarkdown of each), through the cache. */
export async function documentsOf(bodies: Iterable<string>): Promise<Map<string, MarkdownDocument>> {
  const out = new Map<string, MarkdownDocument>();
  for (const [markdown, derived] of await derivedBodies(bodies)) {
    // A large document's JSON takes milliseconds to parse: one at a time, letting the event loop answer others in between.
    if (derived.documentChars > OFFLOAD_CHARS * 4) await new Promise((resolve) => setImmediate(resolve));
    out.set(markdown, derived.document());
  }
  return out;
}
