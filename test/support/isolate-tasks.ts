/** Tasks for test/jobs/heavy-work.test.ts: run through src/jobs/isolate.ts in a worker thread. */
export function echo(input: { value: string }): { value: string; typescript: true } {
  return { value: input.value, typescript: true };
}

/** Never finishes: a synchronous loop only terminate() can stop. */
export function spin(): never {
  for (;;) {
    // busy
  }
}

/** Keeps allocating until the heap limit stops it. */
export function hog(): number {
  const kept: string[][] = [];
  for (;;) kept.push(Array.from({ length: 100_000 }, (_, i) => `item ${i} of ${kept.length}`));
}

export function fails(): never {
  throw new TypeError('task failed on purpose');
}

/** The worker thread's id: the same across calls when the thread is reused. */
export async function whichThread(): Promise<number> {
  const { threadId } = await import('node:worker_threads');
  return threadId;
}
