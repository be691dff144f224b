import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { batched, byId } from '../../src/loaders.js';

/**
 * The per-request loaders' synchronous view (src/loaders.ts `now`): field resolvers answer from it
 * without a promise, so it must never tell a value the loader would not give: not before the load
 * settles, not after a clear, not a value read before a clear that settles after it.
 */

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A loader whose every read answers `key@n`, n counting the reads: a stale value is told apart from a fresh one. */
function versionedLoader() {
  let reads = 0;
  const waiting: (() => void)[] = [];
  const loader = batched<string, string>(async (keys) => {
    reads += 1;
    const read = reads;
    // Each batch waits for the test to release it, so operations can come between a read and its answer.
    await new Promise<void>((resolve) => waiting.push(resolve));
    return new Map(keys.map((k) => [k, `${k}@${read}`]));
  }, 'none');
  /** Answers the oldest waiting read. */
  return { loader, release: () => waiting.shift()?.() };
}

describe('loaders: the settled values they tell synchronously', () => {
  it('tells nothing before a load settles, and its value after', async () => {
    const rows = byId(async (ids) => ids.filter((id) => id !== 'gone').map((id) => ({ id, title: id.toUpperCase() })));
    const loading = rows.load('a');
    expect(rows.now('a')).toBeUndefined();
    await loading;
    expect(rows.now('a')).toEqual({ id: 'a', title: 'A' });
    await rows.load('gone');
    expect(rows.now('gone')).toBeNull(); // known to be absent: null, not undefined
  });

  it('forgets a value on clear and clearAll, and tells a primed one', async () => {
    const { loader, release } = versionedLoader();
    const first = loader.load('k');
    await tick();
    release();
    expect(await first).toBe('k@1');
    expect(loader.now('k')).toBe('k@1');
    loader.clear('k');
    expect(loader.now('k')).toBeUndefined();
    loader.prime('k', 'primed');
    await tick();
    expect(loader.now('k')).toBe('primed');
    loader.clearAll();
    expect(loader.now('k')).toBeUndefined();
  });

  it('does not tell a value read before a clear that settles after it', async () => {
    const { loader, release } = versionedLoader();
    const stale = loader.load('k');
    await tick();
    loader.clear('k');
    release();
    expect(await stale).toBe('k@1');
    expect(loader.now('k')).toBeUndefined();
  });

  it('does not tell a failed load', async () => {
    const failing = batched<string, string>(async () => Promise.reject(new Error('down')), 'none');
    await expect(failing.load('k')).rejects.toThrow('down');
    expect(failing.now('k')).toBeUndefined();
  });

  it('over random loads, clears, primes and releases: what it tells is what a load answers now', async () => {
    const key = fc.constantFrom('a', 'b', 'c');
    const operation = fc.oneof(
      fc.record({ op: fc.constant('load' as const), key }),
      fc.record({ op: fc.constant('clear' as const), key }),
      fc.record({ op: fc.constant('clearAll' as const) }),
      fc.record({ op: fc.constant('prime' as const), key, value: fc.string({ maxLength: 3 }) }),
      fc.record({ op: fc.constant('release' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { maxLength: 30 }), async (operations) => {
        const { loader, release } = versionedLoader();
        const pending: Promise<unknown>[] = [];
        for (const o of operations) {
          if (o.op === 'load') pending.push(loader.load(o.key));
          else if (o.op === 'clear') loader.clear(o.key);
          else if (o.op === 'clearAll') loader.clearAll();
          else if (o.op === 'prime') loader.prime(o.key, o.value);
          else release();
          await tick();
          for (const k of ['a', 'b', 'c']) {
            const told = loader.now(k);
            // A told value is a settled cached promise's: asking the loader must answer it at once, not start a read.
            if (told !== undefined) expect(await Promise.race([loader.load(k), tick().then(() => 'a read started')])).toBe(told);
          }
        }
        // Let every read that is still waiting finish, so no promise outlives the case.
        for (let i = 0; i < operations.length + 1; i++) {
          release();
          await tick();
        }
        await Promise.allSettled(pending);
      }),
      { numRuns: 200 },
    );
  });
});
