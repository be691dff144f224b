import { readFile } from 'node:fs/promises';
import { settings } from '../../config.js';
import path from 'node:path';
import type { HttpRoute } from '../../http/routes.js';
import { errorResponse } from '../../http/respond.js';

/**
 * The app (`/app`): the single-page app built from web/ by `npm ci` (postinstall: codegen and vite
 * build into web/dist), served by this process. Assets have content-hashed names, so they are
 * cached for a year; every other path below /app answers index.html (the app's router picks the
 * screen), never cached, so a new build is picked up on the next visit. The Content-Security-Policy
 * allows this origin only: no script, style, font or request goes anywhere else.
 */
const DIST = settings().appDist ?? path.resolve(import.meta.dirname, '../../../web/dist');

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = { 'content-security-policy': CSP, 'x-content-type-options': 'nosniff', 'referrer-policy': 'same-origin' };

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
};

/** Files read once per process (the build does not change under a running server). */
const files = new Map<string, Promise<Buffer | null>>();
function distFile(relative: string): Promise<Buffer | null> {
  let file = files.get(relative);
  if (!file) {
    file = readFile(path.join(DIST, relative)).catch(() => null);
    files.set(relative, file);
  }
  return file;
}

async function serveIndex(): Promise<Response> {
  const html = await distFile('index.html');
  if (!html) {
    files.delete('index.html');
    return errorResponse(503, 'The app is not built: run `npm run build:web` (npm ci does it)');
  }
  return new Response(new Uint8Array(html), {
    headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', ...SECURITY_HEADERS },
  });
}

async function serveAsset(name: string): Promise<Response> {
  // Only the build's own file names (no path separators, no dot-files).
  if (!/^[\w-][\w.-]*$/.test(name)) return errorResponse(404, 'Not found');
  const body = await distFile(path.join('assets', name));
  const type = TYPES[path.extname(name)];
  if (!body || !type) return errorResponse(404, 'Not found');
  return new Response(new Uint8Array(body), {
    headers: { 'content-type': type, 'cache-control': 'public, max-age=31536000, immutable', ...SECURITY_HEADERS },
  });
}

// Static files from memory: not charged to an anonymous address's budget (a page load is a few of them).
export const appHttpRoutes: HttpRoute[] = [
  { method: 'GET', path: '/app/assets/:name', cost: 0, handle: ({ params }) => serveAsset(params.name!) },
  { method: 'GET', path: '/app', cost: 0, handle: serveIndex },
  { method: 'GET', path: '/app/*', cost: 0, handle: serveIndex },
];
