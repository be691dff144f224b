import { describe, expect, it } from 'vitest';
import { markdownTree } from '../../src/document/index.js';
import { setupHarness } from '../support/harness.js';
import { describeHealth, serveOnLoopback, whileProbing } from '../support/stall.js';

/**
 * The measure the "does not stall everyone" tests rely on (test/support/stall.ts) tells a free loop
 * from a blocked one whatever the machine's speed: work that waits leaves the loop free; work that
 * holds the loop for as long as the reference parse, three times over, blocks it.
 */
describe('the event-loop stall measure', () => {
  it('reports work that waits as free and work that holds the loop as blocked', async () => {
    const h = await setupHarness();
    const live = await serveOnLoopback(h.app);
    const waited = await whileProbing(live.url, () => new Promise((r) => setTimeout(r, 300)));
    expect(waited.health.free, describeHealth(waited.health)).toBe(true);
    expect(waited.health.count).toBeGreaterThan(0);
    expect(waited.health.failures).toBe(0);
    // Three times the reference's own work, in one piece on the loop.
    const paragraph = 'Lorem ipsum dolor sit amet, **consectetur** adipiscing elit, [sed do](https://example.com) `eiusmod` tempor.\n\n';
    const threeTimes = paragraph.repeat(Math.ceil((3 * 65_536) / paragraph.length));
    const blocked = await whileProbing(live.url, async () => void markdownTree(threeTimes));
    expect(blocked.health.free, describeHealth(blocked.health)).toBe(false);
    await live.close();
  });
});
