import { createHash } from 'node:crypto';
import { IsolatedTaskError, IsolateLimitError, runIsolated } from '../jobs/isolate.js';
import { MarkdownLimitError, markdownProblem } from './limits.js';
import { documentFromMarkdown, parseMarkdown } from './markdown.js';
import type { MarkdownDocument, ParsedMarkdown } from './types.js';

/**
 * Markdown parsing off the event loop for large bodies. micromark costs about 3 µs a character
 * (measured: 64 KB 0.1–0.4 s, 1 MB 1.5–3 s on 2 cores), so one editor writing or reading a big page
 * would hold every tenant's requests that long. Bodies up to OFFLOAD_CHARS (~50 ms at most) parse
 * inline, where a thread round trip would cost more than it saves; larger ones parse in a worker
 * thread with a time and memory limit. Documents of large bodies are kept by content hash (bodies
 * are content-addressed and immutable), so re-reading a big page does not parse it again.
 */
export const OFFLOAD_CHARS = 16_384;
const TASKS = new URL('./markdown-task.ts', import.meta.url);
const LIMITS = { timeoutMs: 30_000, memoryMb: 512 };

async function isolated<T>(exportName: 'parse' | 'documents', input: unknown): Promise<T> {
  try {
    return await runIsolated<T>(TASKS, exportName, input, LIMITS);
  } catch (error) {
    // The parser's own refusals keep their message (the writer's to fix); a limit is named too.
    if (error instanceof IsolatedTaskError && error.message.startsWith('markdown: ')) throw new MarkdownLimitError(error.message.replace(/^markdown: /, ''));
    if (error instanceof IsolateLimitError) throw new MarkdownLimitError(`${error.message} to parse: make the page smaller or split it`);
    throw error;
  }
}

/** The `fields` of parseMarkdown, in a worker thread when the body is large. */
export async function parseMarkdownOffLoop<K extends keyof ParsedMarkdown>(markdown: string, fields: K[]): Promise<Pick<ParsedMarkdown, K>> {
  if (markdown.length <= OFFLOAD_CHARS) return parseMarkdown(markdown);
  // The limits' linear pre-scan stays here (milliseconds): a refusal needs no thread.
  const problem = markdownProblem(markdown);
  if (problem) throw new MarkdownLimitError(problem);
  return isolated<Pick<ParsedMarkdown, K>>('parse', { markdown, fields });
}

// Documents of large bodies as JSON text, by the SHA-256 of their Markdown, least recently used
// dropped first. Kept as text, each read gets its own copy (links/refs.ts annotates documents in place).
const CACHE_CHARS = 32 * 1024 * 1024;
const cache = new Map<string, string>();
let cachedChars = 0;

function remember(key: string, json: string) {
  if (json.length > CACHE_CHARS / 4) return;
  cache.set(key, json);
  cachedChars += json.length;
  for (const [old, entry] of cache) {
    if (cachedChars <= CACHE_CHARS) break;
    cache.delete(old);
    cachedChars -= entry.length;
  }
}

/**
 * The rich-text documents of several bodies (documentFromMarkdown of each): inline when they are
 * small altogether, else in one worker call (a page read with its children may bring many bodies);
 * large ones are cached by their text.
 */
export async function documentsOf(bodies: Iterable<string>): Promise<Map<string, MarkdownDocument>> {
  const out = new Map<string, MarkdownDocument>();
  const pending = new Map<string, string | null>(); // markdown → cache key (large bodies only)
  const parseLater: { markdown: string; json: string }[] = [];
  let total = 0;
  for (const markdown of bodies) {
    if (pending.has(markdown) || parseLater.some((p) => p.markdown === markdown)) continue;
    const key = markdown.length > OFFLOAD_CHARS ? createHash('sha256').update(markdown).digest('base64') : null;
    const hit = key === null ? undefined : cache.get(key);
    if (key !== null && hit !== undefined) {
      cache.delete(key);
      cache.set(key, hit);
      parseLater.push({ markdown, json: hit });
      continue;
    }
    pending.set(markdown, key);
    total += markdown.length;
  }
  if (total <= OFFLOAD_CHARS) {
    for (const markdown of pending.keys()) out.set(markdown, documentFromMarkdown(markdown));
  } else {
    const texts = [...pending.keys()];
    const documents = await isolated<string[]>('documents', texts);
    texts.forEach((markdown, i) => {
      const key = pending.get(markdown);
      if (key) remember(key, documents[i]!);
      parseLater.push({ markdown, json: documents[i]! });
    });
  }
  // A large document's JSON takes tens of milliseconds to parse: one at a time, letting the event
  // loop answer others in between.
  for (const { markdown, json } of parseLater) {
    await new Promise((resolve) => setImmediate(resolve));
    out.set(markdown, JSON.parse(json) as MarkdownDocument);
  }
  return out;
}
