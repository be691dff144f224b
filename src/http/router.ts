import { Router, type IRequest } from 'itty-router';
import type { RouteMethod } from './routes.js';

/** A handler on the router: the request, its decoded path parameters, and what the app passes along. */
export type RouteHandler<A extends unknown[]> = (
  request: Request,
  params: Record<string, string>,
  ...args: A
) => Promise<Response> | Response;

export interface RouterEntry<A extends unknown[]> {
  /** `ALL`: every method reaches the handler, which answers a wrong one itself (/v1, /graphql). */
  method: RouteMethod | 'ALL';
  /** An itty-router pattern. */
  path: string;
  handle: RouteHandler<A>;
  /** For an `ALL` entry: the Allow header of a 405 on `pathname`, or undefined for the default. */
  allow?: (pathname: string) => string | undefined;
}

/** What answers a request no entry takes: `allow` is set when the path has routes for other methods (a 405), null when it has none (a 404). */
export type Unrouted<A extends unknown[]> = (request: Request, allow: string | null, ...args: A) => Promise<Response> | Response;

const DEFAULT_ALLOW = 'GET, HEAD';

/**
 * The app's one router (itty-router): every path the server answers is an entry, matched in order.
 * A GET entry answers HEAD too. A request whose path has entries for other methods only is a 405
 * with their Allow header; a path with none, a 404 (both decided by `unrouted`).
 */
export function createRouter<A extends unknown[]>(entries: RouterEntry<A>[], unrouted: Unrouted<A>) {
  const itty = Router<IRequest, A>();
  const call =
    (handle: RouteHandler<A>) =>
    (request: IRequest, ...args: A) =>
      // The path was checked to decode before routing (src/http/request-line.ts).
      handle(
        request as unknown as Request,
        Object.fromEntries(Object.entries(request.params).map(([k, v]) => [k, decodeURIComponent(v)])),
        ...args,
      );
  // Each entry with the pattern itty-router compiled for it (the Allow header is read from them).
  const compiled = entries.map((entry) => {
    itty[entry.method.toLowerCase() as 'all'](entry.path, call(entry.handle));
    const pattern = itty.routes.at(-1)![1];
    if (entry.method === 'GET') itty.head(entry.path, call(entry.handle));
    return { entry, pattern };
  });

  /** The methods `pathname`'s entries answer, as an Allow header; null for a path no entry takes. */
  function allowed(pathname: string): string | null {
    const matching = compiled.filter(({ pattern }) => pattern.test(pathname)).map(({ entry }) => entry);
    const all = matching.find((entry) => entry.method === 'ALL');
    if (all) return all.allow?.(pathname) ?? null;
    if (!matching.length) return null;
    return [...new Set(matching.flatMap((entry) => (entry.method === 'GET' ? ['GET', 'HEAD'] : [entry.method])))].join(', ');
  }

  return {
    async fetch(request: Request, ...args: A): Promise<Response> {
      const response: Response | undefined = await itty.fetch(request, ...args);
      return response ?? unrouted(request, allowed(new URL(request.url).pathname), ...args);
    },
    allowFor: (pathname: string) => allowed(pathname) ?? DEFAULT_ALLOW,
  };
}
