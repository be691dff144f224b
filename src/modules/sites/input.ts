import jsep from 'jsep';
import { slug } from 'github-slugger';
import { badRequest } from '../../errors.js';
import * as check from '../../validate.js';

/**
 * Input rules of the site domain (lengths from the official schema), each naming the field it
 * refuses so a 400 says what to fix.
 */

/**
 * A condition: an expression over the visitor's claims (e.g. `visitor.claims.unsigned.beta == true`),
 * parsed with jsep; one that does not parse, or that holds several expressions, is refused.
 * Undefined keeps the current condition, null (or an empty string) removes it.
 */
export function condition(field: string, value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  check.text(field, value, { max: 1024 });
  if (!value.trim()) return null;
  let parsed: jsep.Expression;
  try {
    parsed = jsep(value);
  } catch (error) {
    throw badRequest(field, `is not a valid expression (${(error as Error).message})`);
  }
  if (parsed.type === 'Compound') throw badRequest(field, 'must be a single expression');
  return value;
}

/** An icon name (official `Icon`: at most 50 characters); null removes it. */
export function icon(field: string, value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  if (!value.trim()) return null;
  return check.text(field, value, { max: 50 });
}

/** Paths of sections and site spaces: URL path segments (letters, digits, `-`, `_`, `.`), 1..100 characters. */
const PATH = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;
export function path(field: string, value: string | null | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value === null) throw badRequest(field, 'cannot be null');
  check.text(field, value, { min: 1, max: 100 });
  if (!PATH.test(value)) throw badRequest(field, 'must be URL path segments of letters, digits, "-", "_" or "." separated by "/"');
  return value;
}

/** A path derived from a title, made unique among `taken` (`guide`, `guide-2`, …). */
export function uniquePath(title: string, taken: Iterable<string>, fallback: string): string {
  const used = new Set(taken);
  const base = (
    slug(title)
      .replace(/[^A-Za-z0-9._-]/g, '')
      .replace(/^\.+/, '') || fallback
  ).slice(0, 90);
  if (!used.has(base)) return base;
  for (let i = 2; ; i++) if (!used.has(`${base}-${i}`)) return `${base}-${i}`;
}

/** A required title within bounds; null refused. */
export function title(field: string, value: string | null | undefined, limits: { min: number; max: number }): string | undefined {
  if (value === undefined) return undefined;
  if (value === null) throw badRequest(field, 'cannot be null');
  return check.text(field, value, limits);
}

/** Custom hostname (official `SiteHostname`: at least three labels, lower case). */
const HOSTNAME = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?[.]){2,}[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$/;
export function hostname(field: string, value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  check.text(field, value, { max: 512 });
  if (!HOSTNAME.test(value)) throw badRequest(field, 'must be a lower-case host name of three labels or more, e.g. docs.example.com');
  return value;
}

/** Proxy origin (official `SiteProxyOrigin`): a host and one or more path segments, e.g. `example.com/docs`. */
const PROXY = /^([\w-]+\.)*[\w-]+\.[a-zA-Z]{2,}(\/[\w-]+)+$/;
export function proxy(field: string, value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  check.text(field, value, { max: 512 });
  if (!PROXY.test(value)) throw badRequest(field, 'must be a host followed by one or more path segments, e.g. example.com/docs');
  return value;
}

/** Basename (official `SiteBasename`, 1..100): one URL path segment here, since it becomes one in the published URL. */
const BASENAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
export function basename(field: string, value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  check.text(field, value, { min: 1, max: 100 });
  if (!BASENAME.test(value)) throw badRequest(field, 'must be one URL path segment (letters, digits, "-", "_", ".")');
  return value;
}

/** A move's `position`: `{ before: { type, <key>: id } }` or `{ after: … }`; null when absent (move to the end). */
export interface Pointer {
  field: string;
  after: boolean;
  type: string;
  id: string;
}
type PointerInput = { type: string; [key: string]: unknown } | null | undefined;
export function pointer(
  position: { before?: PointerInput; after?: PointerInput } | null | undefined,
  types: string | readonly string[],
  key: string,
): Pointer | null {
  if (!position) return null;
  if (position.before && position.after) throw badRequest('position', 'give before or after, not both');
  const which = position.before ? 'before' : position.after ? 'after' : null;
  if (!which) return null;
  const target = position[which]!;
  const allowed = typeof types === 'string' ? [types] : types;
  if (!allowed.includes(target.type)) throw badRequest(`position.${which}.type`, `must be ${allowed.map((t) => `"${t}"`).join(' or ')}`);
  const id = target[key];
  if (typeof id !== 'string' || !id) throw badRequest(`position.${which}.${key}`, 'is required');
  return { field: `position.${which}.${key}`, after: which === 'after', type: target.type, id };
}
