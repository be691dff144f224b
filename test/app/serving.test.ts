import { beforeAll, describe, expect, it } from 'vitest';
import { setupHarness, type Harness } from '../support/harness.js';

/**
 * The app's files at /app (src/modules/app), as `npm ci` built them into web/dist: index.html for
 * every path of the app (the app's router picks the screen), never cached; hashed assets cached
 * for a year; both under a Content-Security-Policy that allows this origin only; nothing outside
 * the build's assets folder is reachable.
 */
describe('the app served at /app', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await setupHarness();
  });

  const get = (path: string) => h.app.fetch(new Request(`http://lectern.test${path}`));

  it('answers index.html for every path below /app, not cached, with a CSP of this origin only', async () => {
    for (const path of ['/app', '/app/', '/app/s/SPACE/guides/deployment', '/app/sign-in?next=%2Fapp%2Fs%2FX']) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/unsafe-|https?:|\*/);
      expect(await res.text()).toContain('<div id="root">');
    }
  });

  it('serves the hashed assets index.html names, cached for a year; nothing else', async () => {
    const html = await (await get('/app/')).text();
    const scripts = [...html.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(scripts.some((s) => s.endsWith('.js'))).toBe(true);
    for (const asset of scripts) {
      const res = await get(asset);
      expect(res.status, asset).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('content-type')).toMatch(asset.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
    }
    expect((await get('/app/assets/missing-0000.js')).status).toBe(404);
    expect((await get('/app/assets/..%2F..%2Fpackage.json')).status).toBe(404);
    expect((await get('/app/assets/.hidden.js')).status).toBe(404);
  });

  it('answers HEAD like GET, without a body', async () => {
    const res = await h.app.fetch(new Request('http://lectern.test/app/s/X', { method: 'HEAD' }));
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
  });
});
