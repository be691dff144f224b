import { runIsolated } from '../../jobs/isolate.js';
import type { RepoFile, SpaceLayout } from './layout.js';
import type { ReadResult } from './tasks.js';

// The layout both ways in a worker thread, for other modules (imports, exports of archives): the
// same tasks the sync jobs run (tasks.ts), with the same limits.
const TASKS = new URL('./tasks.ts', import.meta.url);
const ISOLATE = { timeoutMs: 120_000, memoryMb: 512 };

/** A folder of files as pages and files (fresh ids), with each page's links as the content store indexes them. */
export const readLayout = (files: RepoFile[], folder: string) =>
  runIsolated<ReadResult>(TASKS, 'readTask', { files, folder, known: {} }, ISOLATE);

/** A space's layout as the files of a repository folder. */
export const writeLayout = (layout: SpaceLayout, folder: string) =>
  runIsolated<RepoFile[]>(TASKS, 'writeTask', { layout, folder }, ISOLATE);
