/**
 * Where a sign-in may send the browser back to: a path of the app (`/app` or below it) on this
 * server, never another origin (`//evil.example`, `/\evil.example`) or another part of the server.
 * Accepts a path or an absolute URL on the public origin; anything else gives `/app`.
 */
export function safeNext(value: string | null | undefined, publicUrl: string): string {
  if (!value) return '/app';
  let url: URL;
  try {
    url = new URL(value, publicUrl);
  } catch {
    return '/app';
  }
  if (url.origin !== new URL(publicUrl).origin) return '/app';
  if (value.startsWith('/') && (value.startsWith('//') || value.includes('\\'))) return '/app';
  if (url.pathname !== '/app' && !url.pathname.startsWith('/app/')) return '/app';
  return `${url.pathname}${url.search}${url.hash}`;
}
