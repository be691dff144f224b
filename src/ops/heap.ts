import v8 from 'node:v8';

/**
 * How far V8 lets the heap grow past what survived the last full collection before it collects
 * again, for a serving process (`lectern serve`, and bench/server.ts, which serves as it does).
 *
 * Why: left to itself, V8 sizes the next heap limit by a dynamic factor of up to 4× on a machine
 * with memory to spare, so a server answering large nested reads (the one-site GraphQL query:
 * ~10 MB of short-lived objects per request, a few requests at once) kept ~600 MB resident for a
 * live heap of ~100 MB. A fixed factor of 1.2 holds it near 290 MB for a quarter less throughput
 * (bench/front-end.ts, figures in bench/results.md). `--heap-growing-percent` is read at each
 * full collection, so setting it once the process runs is enough (no node flag in `npm start`).
 * 0 leaves V8's own dynamic factor (LECTERN_HEAP_GROWTH_PERCENT=0): for a host where throughput
 * matters more than memory.
 */
export function applyHeapGrowth(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}
