import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { inflateSync } from 'node:zlib';
import { createServerAdapter } from '@whatwg-node/server';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createApp, type App } from '../../src/app.js';
import { createUrls } from '../../src/urls.js';
import type { Harness } from './harness.js';

/**
 * What the browser tests (test/reader/browser*.test.ts, `npm run test:browser`) share: the Debian
 * package's Chromium (driven by playwright-core; .ci/run installs it), the app on a real loopback
 * HTTP server, axe-core run in the page, and a PNG decoder to tell a screenshot is not blank.
 *
 * Without a Chromium: in CI (`CI` set) the tests fail; elsewhere they are skipped, saying so.
 */
const CANDIDATES = [
  process.env.CHROMIUM_PATH,
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/lib/chromium/chromium',
  '/snap/bin/chromium',
].filter((p): p is string => !!p);
export const chromiumPath = CANDIDATES.find((p) => existsSync(p));
export const MISSING_CHROMIUM = `no Chromium found (looked at ${CANDIDATES.join(', ')}): install the Debian package \`chromium\` (apt-get install -y chromium) or set CHROMIUM_PATH`;
/** Skip the file's tests (outside CI only) when there is no Chromium. */
export const skipBrowser = !chromiumPath && !process.env.CI;

export async function launchChromium(): Promise<Browser> {
  if (!chromiumPath) throw new Error(`CI: ${MISSING_CHROMIUM}`);
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
}

/** The app on 127.0.0.1 (an ephemeral port), its public URL that address: the page's links, files and assets point there. */
export async function serveApp(h: Harness): Promise<{ origin: string; app: App; close: () => Promise<void> }> {
  let app: App | undefined;
  const server: Server = createServer(createServerAdapter((request: Request) => app!.fetch(request)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  app = createApp({ db: h.db, config: { ...h.config, publicUrl: origin }, urls: createUrls(origin) });
  return { origin, app, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

let axeSource: string | undefined;
/**
 * axe-core's violations on the page as it is now. The reader's CSP allows only its own hashed
 * script, so a `<script>` tag with axe would be refused; `page.evaluate` runs through the DevTools
 * protocol, which the page's CSP does not govern (so the page's own CSP stays on for everything else).
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
  });
}

/** Whether a violation is one the app's journeys refuse (axe-core's serious and critical). */
export const isSerious = (v: AxeViolation) => v.impact === 'serious' || v.impact === 'critical';

/** The serious and critical violations found on the screens a journey visited, one readable line each. */
export const seriousViolations = (findings: { screen: string; violations: AxeViolation[] }[]): string[] =>
  findings.flatMap(({ screen, violations }) =>
    violations.filter(isSerious).map((v) => `${screen}: ${v.id} (${v.help}) at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
  );

/** Signs in through the app's sign-in screen at `origin`, and waits for the app's home. */
export async function signInThroughApp(page: Page, origin: string, email: string, password: string): Promise<void> {
  await page.goto(`${origin}/app/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname === '/app');
}

export interface PngSummary {
  width: number;
  height: number;
  /** How many different RGB colors the image holds. */
  colors: number;
  /** The most frequent color (`rgb(r, g, b)`) and the share of the pixels it covers (0–1). */
  dominant: { rgb: string; share: number };
}

/**
 * Decodes a PNG as Chromium's screenshots write it (8-bit RGB or RGBA, not interlaced): the
 * chunks, the inflated IDAT stream, each row un-filtered (None, Sub, Up, Average, Paeth). Enough to
 * count colors; anything else is refused.
 */
export function summarizePng(png: Buffer): PngSummary {
  if (png.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG');
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const [depth, colorType, , , interlace] = [data[8], data[9], data[10], data[11], data[12]];
      if (depth !== 8 || interlace !== 0 || (colorType !== 2 && colorType !== 6))
        throw new Error(`unsupported PNG: depth ${depth}, color type ${colorType}, interlace ${interlace}`);
      channels = colorType === 6 ? 4 : 3;
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  if (raw.length !== height * (stride + 1)) throw new Error(`PNG data is ${raw.length} bytes, expected ${height * (stride + 1)}`);
  let previous = Buffer.alloc(stride);
  const counts = new Map<number, number>();
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? line[i - channels]! : 0;
      const b = previous[i]!;
      const c = i >= channels ? previous[i - channels]! : 0;
      let add: number;
      if (filter === 0) add = 0;
      else if (filter === 1) add = a;
      else if (filter === 2) add = b;
      else if (filter === 3) add = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
        add = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      } else throw new Error(`PNG row ${y}: unknown filter ${filter}`);
      line[i] = (line[i]! + add) & 0xff;
    }
    for (let x = 0; x < stride; x += channels) {
      const rgb = (line[x]! << 16) | (line[x + 1]! << 8) | line[x + 2]!;
      counts.set(rgb, (counts.get(rgb) ?? 0) + 1);
    }
    previous = line;
  }
  let top = 0;
  let topCount = -1;
  for (const [rgb, n] of counts) if (n > topCount) [top, topCount] = [rgb, n];
  return {
    width,
    height,
    colors: counts.size,
    dominant: { rgb: `rgb(${top >> 16}, ${(top >> 8) & 0xff}, ${top & 0xff})`, share: topCount / (width * height) },
  };
}
