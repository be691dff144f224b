import { describe, expect, it } from 'vitest';
import { setupHarness } from '../support/harness.js';
import { serveOnLoopback, whileProbing, STALL_RETRY } from '../support/stall.js';

describe('the /healthz stall probe', () => {
  it('reports a quiet loop as quick and a blocked one as blocked', STALL_RETRY, async () => {
    const h = await setupHarness();
    const live = await serveOnLoopback(h.app);
    const ok = await whileProbing(live.url, async () => new Promise((r) => setTimeout(r, 300)));
    expect(ok.health.max).toBeLessThan(100);
    expect(ok.health.count).toBeGreaterThan(5);
    const blocked = await whileProbing(live.url, async () => { const t = Date.now(); while (Date.now() - t < 300); });
    expect(blocked.health.max).toBeGreaterThan(250);
    await live.close();
  });
});
