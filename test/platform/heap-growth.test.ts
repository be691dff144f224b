import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../src/config.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * A process that keeps a ~60 MB live set turning over and makes short-lived garbage beside it
 * (what a server answering large nested reads does), under the given heap growth policy
 * (src/ops/heap.ts, as `lectern serve` applies it); prints the largest heap it reserved, in MiB.
 */
const CHURN = `
import { applyHeapGrowth } from './src/ops/heap.ts';
applyHeapGrowth(Number(process.argv.at(-1)));
const live = [];
let peak = 0;
for (let round = 0; round < 150; round++) {
  live.push(Array.from({ length: 20_000 }, (_, i) => ({ i, s: 'x' + i })));
  if (live.length > 40) live.shift();
  for (let k = 0; k < 20; k++) JSON.stringify(Array.from({ length: 5_000 }, (_, i) => ({ i })));
  peak = Math.max(peak, process.memoryUsage().heapTotal);
}
console.log(Math.round(peak / 1048576));
`;
const peakHeap = async (percent: number) =>
  Number(
    (await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHURN, String(percent)], { cwd: ROOT })).stdout.trim(),
  );

describe('the heap growth policy of a serving process', () => {
  it('defaults to 20 %, takes LECTERN_HEAP_GROWTH_PERCENT (0: V8 decides) and refuses anything else', () => {
    expect(readConfig({}).heapGrowthPercent).toBe(20);
    expect(readConfig({ LECTERN_HEAP_GROWTH_PERCENT: '0' }).heapGrowthPercent).toBe(0);
    expect(readConfig({ LECTERN_HEAP_GROWTH_PERCENT: '50' }).heapGrowthPercent).toBe(50);
    for (const bad of ['-1', '2.5', 'lots', '1001'])
      expect(() => readConfig({ LECTERN_HEAP_GROWTH_PERCENT: bad })).toThrow(/LECTERN_HEAP_GROWTH_PERCENT must be a whole number/);
  });

  it('set while the process runs, it holds the heap well below what V8 reserves on its own', async () => {
    const [own, policy] = await Promise.all([peakHeap(0), peakHeap(readConfig({}).heapGrowthPercent)]);
    console.log(`largest heap reserved for a ~60 MB live set: ${own} MiB by V8's own factor, ${policy} MiB at 20 %`);
    expect(own).toBeGreaterThan(0);
    expect(policy).toBeLessThan(own * 0.75);
  });
});
