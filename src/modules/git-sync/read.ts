import { runIsolated } from '../../jobs/isolate.js';
import type { KnownIds, RepoFile, SpaceLayout } from './repository-layout.js';
import type { ReadResult } from './tasks.js';

// The layout both ways in a worker thread (tasks.ts), with its limits: for the sync's import and
// export, and for other modules (imports, exports of archives).
const TASKS = new URL('./tasks.ts', import.meta.url);
const ISOLATE = { timeoutMs: 120_000, memoryMb: 512 };

/**
 * A folder of files as pages and files, with each page's links as the content store indexes them.
 * Ids: those `known` gives their paths (a sync's earlier import), else fresh ones.
 */
export const readLayout = (files: RepoFile[], folder: string, known: KnownIds = {}) =>
  runIsolated<ReadResult>(TASKS, 'readTask', { files, folder, known }, ISOLATE);

/** A space's layout as the files of a repository folder. */
export const writeLayout = (layout: SpaceLayout, folder: string) =>
  runIsolated<RepoFile[]>(TASKS, 'writeTask', { layout, folder }, ISOLATE);
