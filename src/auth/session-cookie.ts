import { randomBytes } from 'node:crypto';
import type { Config } from '../config.js';

/**
 * The browser session cookie (people signed in to the app). Its value is a random secret (192
 * bits); the database keeps only its SHA-256 (table Session, `hashToken`). HttpOnly (no script
 * reads it), SameSite=Lax (not sent on cross-site subrequests), Secure when the server is reached
 * over HTTPS.
 */
export const SESSION_COOKIE = 'lectern_session';

/** A new session secret (the cookie's value). */
export const newSessionSecret = () => `lcs_${randomBytes(24).toString('base64url')}`;

/** The session secret the request's Cookie header carries, or null. Never logged. */
export function sessionSecretOf(request: Request): string | null {
  const header = request.headers.get('cookie');
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return /^lcs_[A-Za-z0-9_-]{16,64}$/.test(value) ? value : null;
    }
  }
  return null;
}

/**
 * Whether the cookie must carry Secure: the public URL is https, or the request came through a
 * trusted reverse proxy (LECTERN_TRUST_PROXY=1) that says it was https. An untrusted
 * X-Forwarded-Proto is ignored: any client can send it.
 */
export function cookieSecure(config: Pick<Config, 'publicUrl' | 'trustProxy'>, request: Request): boolean {
  if (config.publicUrl.startsWith('https:')) return true;
  return config.trustProxy && request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase() === 'https';
}

/** The Set-Cookie value that stores `secret` for `maxAgeSeconds` (the session's absolute limit). */
export function sessionCookie(secret: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${secret}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}${secure ? '; Secure' : ''}`;
}

/** The Set-Cookie value that removes the cookie. */
export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure ? '; Secure' : ''}`;
}

/**
 * CSRF: a request authenticated by the cookie alone must be one a cross-site form or image cannot
 * send without a CORS preflight — a JSON POST, or any method with the `x-lectern-csrf` header.
 * (The same rule as yoga's csrfPrevention, with Lectern's own header name.)
 */
export function isNonSimpleRequest(request: Request): boolean {
  if (request.headers.has('x-lectern-csrf')) return true;
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  return request.method === 'POST' && (type === 'application/json' || type === 'application/graphql-response+json');
}
