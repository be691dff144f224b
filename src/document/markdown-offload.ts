import { IsolatedTaskError, IsolateLimitError, runIsolated } from '../jobs/isolate.js';
import type { DerivationRecord } from './derivation.js';
import { MarkdownLimitError } from './limits.js';
import { countWorkerParses } from './processor.js';

/**
 * Markdown parsing off the event loop for large bodies. micromark costs about 3 µs a character
 * (measured: 64 KB 0.1–0.4 s, 1 MB 1.5–3 s on 2 cores), so one editor writing or reading a big page
 * would hold every tenant's requests that long. Bodies up to OFFLOAD_CHARS (~50 ms at most) parse
 * inline, where a thread round trip would cost more than it saves; larger ones (or many bodies
 * together) parse in a worker thread with a time and memory limit. What they yield is kept by the
 * derivation cache (body-cache.ts), which decides what to parse here.
 */
export const OFFLOAD_CHARS = 16_384;
const TASKS = new URL('./markdown-task.ts', import.meta.url);
const LIMITS = { timeoutMs: 30_000, memoryMb: 512 };

/** Derivation records of `bodies`, parsed in one worker call. */
export async function deriveOffLoop(bodies: string[]): Promise<DerivationRecord[]> {
  countWorkerParses(bodies.length);
  try {
    return await runIsolated<DerivationRecord[]>(TASKS, 'derive', bodies, LIMITS);
  } catch (error) {
    // The parser's own refusals keep their message (the writer's to fix); a limit is named too.
    if (error instanceof IsolatedTaskError && error.message.startsWith('markdown: '))
      throw new MarkdownLimitError(error.message.replace(/^markdown: /, ''));
    if (error instanceof IsolateLimitError) throw new MarkdownLimitError(`${error.message} to parse: make the page smaller or split it`);
    throw error;
  }
}
