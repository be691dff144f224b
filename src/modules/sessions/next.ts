/**
 * A path of the app (`/app` or below it) on this server's public origin, from a path or an
 * absolute URL; null for anything else (another origin, `//evil.example`, `/\evil.example`, another
 * part of the server).
 */
export function appPathOf(value: string | null | undefined, publicUrl: string): string | null {
  if (!value) return null;
  if (value.startsWith('/') && (value.startsWith('//') || value.includes('\\'))) return null;
  let url: URL;
  try {
    url = new URL(value, publicUrl);
  } catch {
    return null;
  }
  if (url.origin !== new URL(publicUrl).origin) return null;
  if (url.pathname !== '/app' && !url.pathname.startsWith('/app/')) return null;
  return `${url.pathname}${url.search}${url.hash}`;
}

/** Where a sign-in sends the browser back to: `next` when it is a path of the app, else `/app`. */
export const safeNext = (value: string | null | undefined, publicUrl: string): string => appPathOf(value, publicUrl) ?? '/app';
