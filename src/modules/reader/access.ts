import { jwtVerify } from 'jose';
import type { Context } from '../../context.js';
import { orgRole } from '../../auth/permissions.js';
import type { Site } from '../../generated/prisma/client.js';
import type { ServerKeys } from '../../secrets.js';
import { derivedVisitorKey, isActiveShareKey, siteVisitorKeyOf } from '../sites/index.js';
import type { Claims, Visitor } from './conditions.js';

/**
 * Who may read a published site, and what the visitor brings (adaptive content):
 *
 * - `public` and `unlisted`: anyone, without a token.
 * - `share-link`: members of the organization (a Bearer token, for API clients), or whoever
 *   presents the key of an active share link as `?share=KEY`; the key is then kept in a cookie
 *   (HttpOnly, SameSite=Lax, its Path the site's URL) and the address bar loses it (a redirect).
 * - `visitor-auth`: members, or a visitor with a JWT (HS256) signed with the site's visitor-auth key,
 *   brought as `?jwt_token=…` (then kept in a cookie the same way). An invalid or expired token is
 *   refused (401) and its cookie cleared.
 * - Anything else (a private site) and an unpublished site: members only / nobody — a 404, exactly
 *   as for a site that does not exist.
 *
 * Visitor claims: the verified JWT's claims (on any site: a public site with adaptive content may
 * be given signed claims too) and the unsigned claims under `visitor.claims.unsigned`, brought as
 * `?visitor.<name>=<value>` query parameters (kept in a cookie, like GitBook's public visitor
 * claims). Unsigned values are `true`/`false`, numbers or strings, at most 32 of them.
 */

export const COOKIE = { share: 'lectern_share', visitor: 'lectern_visitor', unsigned: 'lectern_claims' } as const;
const MAX_UNSIGNED = 32;
const COOKIE_MAX_AGE = 60 * 60 * 24 * 30;
/** JWT registered claims: not the visitor's own attributes. */
const REGISTERED = new Set(['exp', 'iat', 'nbf', 'jti', 'aud', 'iss']);

/**
 * The key a site signs visitor JWTs with (HS256) until its publishing-auth key is regenerated: derived
 * from the server's signing key and the site's id (the sites module's publishing auth; the stored key,
 * when there is one, wins: `siteVisitorKeyOf`).
 */
export function siteVisitorKey(keys: ServerKeys, siteId: string): string {
  return derivedVisitorKey(keys, siteId);
}

export function parseCookies(header: string | null): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i <= 0) continue;
    const name = part.slice(0, i).trim();
    try {
      if (!out.has(name)) out.set(name, decodeURIComponent(part.slice(i + 1).trim()));
    } catch {
      // a malformed value is no value
    }
  }
  return out;
}

export function cookie(name: string, value: string | null, path: string, secure: boolean): string {
  const attrs = [
    `${name}=${value === null ? '' : encodeURIComponent(value)}`,
    `Path=${path}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(secure ? ['Secure'] : []),
  ];
  attrs.push(value === null ? 'Max-Age=0' : `Max-Age=${COOKIE_MAX_AGE}`);
  return attrs.join('; ');
}

function unsignedValue(raw: string): unknown {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (/^-?\d+(\.\d+)?$/.test(raw) && raw.length < 16) return Number(raw);
  return raw.slice(0, 256);
}

export type Access =
  | {
      ok: true;
      visitor: Visitor;
      member: boolean;
      setCookies: string[] /** the URL without the consumed query parameters, when some were */;
      cleanUrl: string | null;
      audience: string;
    }
  | { ok: false; status: 401 | 404; setCookies: string[]; message: string };

/**
 * Decides whether the request may read `site` (published, checked by the caller) and with what
 * claims. `cookiePath`: the site's path on this server, where its cookies live.
 */
export async function decideAccess(
  ctx: Context,
  site: Site,
  request: Request,
  hasCaller: boolean,
  cookiePath: string,
  secure: boolean,
): Promise<Access> {
  const url = new URL(request.url);
  const cookies = parseCookies(request.headers.get('cookie'));
  const setCookies: string[] = [];
  const consumed: string[] = [];
  const member = hasCaller && (await orgRole(ctx, site.organizationId)) !== undefined;

  // Share links.
  let shareOk = false;
  if (site.visibility === 'share-link' && !member) {
    const fromQuery = url.searchParams.get('share');
    const key = fromQuery ?? cookies.get(COOKIE.share);
    if (key && (await isActiveShareKey(ctx, site.id, key))) {
      shareOk = true;
      if (fromQuery) {
        consumed.push('share');
        setCookies.push(cookie(COOKIE.share, key, cookiePath, secure));
      }
    } else if (!fromQuery && key) {
      setCookies.push(cookie(COOKIE.share, null, cookiePath, secure)); // a revoked link's cookie
    }
  }

  // Signed claims (visitor-auth, or adaptive content on any site).
  let claims: Claims = {};
  let signed = false;
  const tokenFromQuery = url.searchParams.get('jwt_token');
  const token = tokenFromQuery ?? cookies.get(COOKIE.visitor);
  if (token) {
    const key = new TextEncoder().encode(await siteVisitorKeyOf(ctx, site.id));
    try {
      const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'] });
      claims = Object.fromEntries(Object.entries(payload).filter(([name]) => !REGISTERED.has(name)));
      signed = true;
      if (tokenFromQuery) {
        consumed.push('jwt_token');
        setCookies.push(cookie(COOKIE.visitor, token, cookiePath, secure));
      }
    } catch {
      setCookies.push(cookie(COOKIE.visitor, null, cookiePath, secure));
      // A token that was presented and does not verify is refused, on any site.
      return { ok: false, status: 401, setCookies, message: 'The visitor token is invalid or has expired.' };
    }
  }

  // Unsigned claims.
  let unsigned: Record<string, unknown> = {};
  try {
    const kept = JSON.parse(cookies.get(COOKIE.unsigned) ?? '{}');
    if (kept && typeof kept === 'object' && !Array.isArray(kept)) unsigned = kept as Record<string, unknown>;
  } catch {
    unsigned = {};
  }
  const fromQuery = [...url.searchParams.keys()].filter((k) => /^visitor\.[A-Za-z_$][A-Za-z0-9_$]*$/.test(k));
  if (fromQuery.length) {
    for (const k of fromQuery) unsigned[k.slice('visitor.'.length)] = unsignedValue(url.searchParams.get(k) ?? '');
    unsigned = Object.fromEntries(Object.entries(unsigned).slice(-MAX_UNSIGNED));
    consumed.push(...fromQuery);
    setCookies.push(cookie(COOKIE.unsigned, JSON.stringify(unsigned), cookiePath, secure));
  }

  const allowed =
    site.visibility === 'public' ||
    site.visibility === 'unlisted' ||
    member ||
    (site.visibility === 'share-link' && shareOk) ||
    (site.visibility === 'visitor-auth' && signed);
  if (!allowed) {
    if (site.visibility === 'visitor-auth')
      return {
        ok: false,
        status: 401,
        setCookies,
        message: 'This site is only for authenticated visitors: open it through the link your sign-in gave you.',
      };
    return { ok: false, status: 404, setCookies, message: 'There is no such page.' };
  }
  let cleanUrl: string | null = null;
  if (consumed.length) {
    const clean = new URL(url);
    for (const k of consumed) clean.searchParams.delete(k);
    cleanUrl = `${clean.pathname}${clean.search}`;
  }
  const audience = member
    ? 'member'
    : site.visibility === 'public' || site.visibility === 'unlisted'
      ? signed || Object.keys(unsigned).length
        ? 'visitor'
        : 'anyone'
      : 'visitor';
  return { ok: true, visitor: { claims: { ...claims, unsigned } }, member, setCookies, cleanUrl, audience };
}
