import { badRequest } from '../errors.js';
import type { LiveInputs } from '../http/conditional.js';
import type { Statement } from '../db/early-reads.js';

/** What a REST request offers to build GraphQL variables from. */
export interface RestRequest {
  params: Record<string, string>;
  /** Each query parameter's first value. */
  query: Record<string, string | undefined>;
  /** Every value of each query parameter (`authors=a&authors=b`), for array parameters: see `listParam`. */
  queryLists: Record<string, string[]>;
  body: Record<string, unknown>;
  /** The body when it is a JSON array (only for routes with `acceptsArrayBody`). */
  bodyList?: Record<string, unknown>[];
}

/**
 * A REST route is data: the GraphQL operation that serves it, how to build its variables, and how
 * its result becomes the GitBook JSON body. Documents are parsed and validated once at start-up.
 */
export interface RestRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** itty-router path below /v1, e.g. `/spaces/:spaceId`. */
  path: string;
  /** The official GitBook operationId (conformance tests validate against its response schema). */
  operationId: string;
  document: string;
  variables?: (req: RestRequest) => Record<string, unknown>;
  /** Picks the response body out of `data`; undefined answers with an empty body. */
  result: (data: any) => unknown;
  status?: number | ((data: any) => number);
  /** The body may be a JSON array of objects (given to `variables` as `bodyList`), as well as an object. */
  acceptsArrayBody?: boolean;
  /**
   * For a 201 whose answer has no `urls.location`: the created resource's path below /v1 (its
   * Location header). Default: the request's path followed by the answer's id.
   */
  location?: (payload: any, req: RestRequest) => string;
  /**
   * GET only: the answer depends on nothing but the route, its parameters and query and `live`, so
   * its ETag is known before the work and a matching If-None-Match is answered 304 without it
   * (src/http/conditional.ts). `check`: a cheap operation over the route's variables, run first
   * when a 304 is possible (or `live` needs its data): the permission check, its errors answered as
   * the route's own. `live`: what else the answer depends on (default: nothing, immutable).
   */
  conditional?: { check: string; liveNeedsCheck?: boolean; live?: (req: RestRequest, checked?: any) => LiveInputs };
  /**
   * GET only: the statement the operation sends first, from its variables alone, begun while the
   * token is checked (src/db/early-reads.ts); null when there is none. It must be exactly the
   * statement the service then sends: a different one is a wasted read, never a wrong answer.
   */
  early?: (variables: Record<string, unknown>) => Statement | null;
  /**
   * `early`'s statement has a fixed text and columns that survive JSON (text, int4, bool, jsonb): it
   * rides on the authentication statement of a `/v1/spaces/:id…` request (one round trip in all)
   * rather than being begun on a connection of its own (src/db/early-reads.ts).
   */
  earlyRides?: boolean;
  /** GET only, for live answers: an ETag of the answer's bytes and 304 on a match (saves bytes, not work), `private, no-cache`. */
  revalidate?: boolean;
}

/**
 * 205 when something was deleted; 204 when the caller still sees what the request is about but it
 * was already deleted (a soft-deleted space, a grant already removed). What the caller cannot see,
 * or what does not exist, never gets here: the service answers 404 (the same for both).
 */
export const deletedStatus = (deleted: boolean) => (deleted ? 205 : 204);

/** Query-string helpers: a bad value is a 400 that names the parameter. */
export function intParam(query: RestRequest['query'], name: string): number | undefined {
  const raw = query[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw badRequest(name, 'must be an integer');
  return value;
}

export function boolParam(query: RestRequest['query'], name: string): boolean | undefined {
  const raw = query[name];
  if (raw === undefined || raw === '') return undefined;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw badRequest(name, 'must be true or false');
}

/**
 * An array query parameter: repeated (`authors=a&authors=b`, as the official client sends it) or
 * with brackets (`authors[]=a`); empty values are ignored; undefined when absent.
 */
export function listParam(req: RestRequest, name: string): string[] | undefined {
  const values = [...(req.queryLists[name] ?? []), ...(req.queryLists[`${name}[]`] ?? [])].filter((v) => v !== '');
  return values.length ? values : undefined;
}

/** `page` and `limit` of every list route. */
export const listVariables = (req: RestRequest) => ({ page: req.query.page || undefined, limit: intParam(req.query, 'limit') });

/** `{ items, count, next? }` */
export const LIST_FIELDS = 'count next { page }';

/**
 * The common route shape "act on one object by id, answer the object": `mutation { field(id, input?) { ...Fragment } }`.
 * `fragment` is the fragment's text; its name is read from it.
 */
/** The name of the first fragment a document text defines (the one a route spreads). */
export const fragmentName = (fragment: string): string => fragment.match(/fragment\s+(\w+)/)![1]!;

export function objectMutationRoute(opts: {
  method: RestRoute['method'];
  path: string;
  operationId: string;
  field: string;
  idParam: string;
  fragment: string;
  /** The input type's name when the body is the mutation's `input`. */
  input?: string;
  status?: number;
}): RestRoute {
  const args = opts.input ? `($id: ID!, $input: ${opts.input}!)` : '($id: ID!)';
  const call = opts.input ? '(id: $id, input: $input)' : '(id: $id)';
  return {
    method: opts.method,
    path: opts.path,
    operationId: opts.operationId,
    document: `mutation ${opts.operationId}${args} { ${opts.field}${call} { ...${fragmentName(opts.fragment)} } } ${opts.fragment}`,
    variables: (req) => ({ id: req.params[opts.idParam], ...(opts.input ? { input: req.body } : {}) }),
    result: (data) => data[opts.field],
    status: opts.status,
  };
}
