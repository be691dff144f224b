/**
 * The API answers absolute `urls.app` (`https://host/app/s/SPACE/...`); the router works with the
 * path below /app. Anything not below this origin's /app is left as it is.
 */
export function appPath(url: string): string {
  try {
    const parsed = new URL(url, location.origin);
    if (parsed.origin === location.origin && (parsed.pathname === '/app' || parsed.pathname.startsWith('/app/'))) {
      return parsed.pathname.slice(4) + parsed.search + parsed.hash || '/';
    }
  } catch {
    // not a URL: used as written
  }
  return url;
}

/** Where a signed-out visitor is sent: the sign-in screen, then back to `next` (the app's path of the screen, sent as `/app/…`). */
export function signInPath(next: string): string {
  return `/sign-in?next=${encodeURIComponent(`/app${next}`)}`;
}

/** `next` from a query string, only when it is a path of the app (never another origin). */
export function safeNext(value: string | null): string {
  if (!value?.startsWith('/') || value.startsWith('//')) return '/';
  return value.startsWith('/app/') || value === '/app' ? value.slice(4) || '/' : value;
}
