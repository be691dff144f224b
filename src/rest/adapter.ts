import { AutoRouter, type IRequest } from 'itty-router';
import { processLog, requestIdOf } from '../ops/log.js';
import { parse, validate, type DocumentNode, type GraphQLError, type GraphQLSchema } from 'graphql';
import { ERROR_STATUS, statusOfCode } from '../errors.js';
import type { RestRequest, RestRoute } from './route.js';
import type { EarlyStatement } from '../db/early-reads.js';
import { outputPlan, restInputToVariables, toRest, type OutputPlan } from './shape.js';
import { officialOperationAt } from './unserved.js';
import { plainResponse, errorResponse, isResponse, json } from '../http/respond.js';
import { conditionalTag, IMMUTABLE, noneMatch, notModified, revalidated, validatorHeaders, withValidators } from '../http/conditional.js';

/** Runs a parsed operation through yoga's envelop (auth context, masking and limits apply). */
export type Execute = (
  request: Request,
  document: DocumentNode,
  variables: Record<string, unknown>,
) => Promise<{ data?: any; errors?: readonly GraphQLError[] }>;

export interface PreparedRoute extends RestRoute {
  parsed: DocumentNode;
  plan: OutputPlan;
  /** The conditional read's check operation (RestRoute.conditional). */
  checkParsed?: DocumentNode;
}

/** Parses and validates every route's document once; throws listing every invalid one. */
export function prepareRoutes(schema: GraphQLSchema, routes: RestRoute[]): PreparedRoute[] {
  const problems: string[] = [];
  const prepared = routes.map((route) => {
    const parsed = parse(route.document);
    for (const error of validate(schema, parsed)) problems.push(`${route.method} ${route.path}: ${error.message}`);
    const checkParsed = route.conditional ? parse(route.conditional.check) : undefined;
    if (checkParsed)
      for (const error of validate(schema, checkParsed)) problems.push(`${route.method} ${route.path} (check): ${error.message}`);
    return { ...route, parsed, plan: outputPlan(schema, parsed), ...(checkParsed ? { checkParsed } : {}) };
  });
  if (problems.length) throw new Error(`Invalid REST route documents:\n${problems.join('\n')}`);
  return prepared;
}

/**
 * The statement a GET request will send first, told from its path and query alone (the routes with
 * `early`), or null: for src/app.ts to begin while the token is checked. Bad input is null (the
 * route answers its 400 after authentication, as always).
 */
export function earlyStatements(schema: GraphQLSchema, routes: PreparedRoute[]): (request: Request) => EarlyStatement | null {
  const early = routes
    .filter((route) => route.early && route.method === 'GET')
    .map((route) => {
      const names: string[] = [];
      const pattern = new RegExp(`^/v1${route.path.replace(/:(\w+)/g, (_, name: string) => (names.push(name), '([^/]+)'))}/?$`);
      return { route, pattern, names };
    });
  return (request) => {
    if (request.method !== 'GET' || !early.length) return null;
    const url = new URL(request.url);
    for (const { route, pattern, names } of early) {
      const match = pattern.exec(url.pathname);
      if (!match) continue;
      try {
        const req: RestRequest = {
          params: Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1]!)])),
          query: Object.fromEntries([...url.searchParams.keys()].map((key) => [key, url.searchParams.get(key)!])),
          queryLists: Object.fromEntries([...url.searchParams.keys()].map((key) => [key, url.searchParams.getAll(key)])),
          body: {},
        };
        const statement = route.early!(restInputToVariables(schema, route.parsed, route.variables?.(req) ?? {}));
        return statement ? { statement, rides: route.earlyRides === true } : null;
      } catch {
        return null;
      }
    }
    return null;
  };
}

/** GraphQL errors → the REST error: our coded errors keep their status; input coercion is a 400. */
function restError(errors: readonly GraphQLError[], request: Request): Response {
  const coded = errors.find((e) => statusOfCode(e.extensions?.code));
  if (coded) {
    const response = errorResponse(statusOfCode(coded.extensions.code)!, coded.message);
    // An error may carry headers for the client (Retry-After on a 409/429/503 from contention).
    const headers = (coded.extensions.http as { headers?: Record<string, string> } | undefined)?.headers ?? {};
    for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
    return response;
  }
  const input = errors.find((e) => /^(Variable "\$|Field ")/.test(e.message));
  if (input) return errorResponse(ERROR_STATUS.BAD_REQUEST, describeInputError(input.message));
  // The detail goes to the server log, never to the client.
  processLog().fault('REST operation failed', errors.map((e) => e.originalError?.stack ?? e.message).join('\n'), {
    requestId: requestIdOf(request),
  });
  return errorResponse(ERROR_STATUS.INTERNAL, 'Unexpected error');
}

/** Rewrites GraphQL's variable errors to name the REST field (`editMode: …` rather than `$input.editMode`). */
function describeInputError(message: string): string {
  const atField = message.match(/^Variable "\$(\w+)" got invalid value .*? at "([^"]+)"; (.*)$/s);
  if (atField)
    return unknownField(atField[2]!.replace(/^input\./, ''), atField[3]!) ?? `${atField[2]!.replace(/^input\./, '')}: ${atField[3]}`;
  const whole = message.match(/^Variable "\$(\w+)" (?:got invalid value [^;]*; )?(.*)$/s);
  if (whole)
    return unknownField(whole[1] === 'input' ? '' : whole[1]!, whole[2]!) ?? `${whole[1] === 'input' ? 'body' : whole[1]}: ${whole[2]}`;
  return message;
}

/** A field the input type does not define is named itself (`changes[0].markdown`), not its parent. */
function unknownField(path: string, detail: string): string | undefined {
  const unknown = detail.match(/^Field "(\w+)" is not defined by type "\w+"\.\s*(.*)$/s);
  if (!unknown) return undefined;
  return `${path ? `${path}.` : ''}${unknown[1]}: is not a known field${unknown[2] ? ` (${unknown[2]})` : ''}`;
}

/** The JSON body: an object, or (routes with `acceptsArrayBody`) an array of objects. */
async function readBody(request: Request, acceptsArray = false): Promise<Record<string, unknown> | Record<string, unknown>[] | Response> {
  // Already read into memory, within the limit, by src/app.ts (src/http/body.ts) before routing.
  const text = await request.text();
  if (!text.trim()) return {};
  try {
    const body = JSON.parse(text) as unknown;
    if (acceptsArray && Array.isArray(body)) {
      const bad = body.findIndex((item) => typeof item !== 'object' || item === null || Array.isArray(item));
      return bad < 0 ? (body as Record<string, unknown>[]) : errorResponse(400, `body[${bad}]: must be a JSON object`);
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return errorResponse(400, `body: must be a JSON object${acceptsArray ? ' or an array of objects' : ''}`);
    return body as Record<string, unknown>;
  } catch {
    return errorResponse(400, 'body: malformed JSON');
  }
}

/** Where a created resource lives (the official spec's Location header on 201s). */
function locationOf(route: PreparedRoute, payload: unknown, req: RestRequest, request: Request, apiUrl: (path: string) => string): string {
  const answer = payload as { id?: string; urls?: { location?: string } };
  if (answer.urls?.location) return answer.urls.location;
  if (route.location) return apiUrl(route.location(payload, req));
  return apiUrl(`${new URL(request.url).pathname.replace(/^\/v1/, '')}/${answer.id}`);
}

/** The /v1 REST surface: an itty router whose handlers build variables and execute the route's operation. */
export function createRestAdapter(schema: GraphQLSchema, routes: PreparedRoute[], execute: Execute, apiUrl: (path: string) => string) {
  const router = AutoRouter({
    base: '/v1',
    // AutoRouter calls `missing` with the (absent) response first, then the request (its typing says otherwise).
    missing: (_response: unknown, request: IRequest) => {
      // An official GitBook operation Lectern does not serve (billing, marketplace, ads, hosted AI…)
      // is named, so a client can tell it from a mistyped path.
      const { pathname } = new URL(request.url);
      const operationId = officialOperationAt(request.method, pathname.replace(/^\/v1/, ''));
      if (operationId)
        return errorResponse(
          501,
          `${operationId} (${request.method} ${pathname}) is a GitBook API operation this Lectern server does not serve`,
        );
      return errorResponse(404, 'No such endpoint');
    },
    catch: () => errorResponse(500, 'Unexpected error'),
    format: (response: unknown) => response as Response,
  });

  for (const route of routes) {
    router[route.method.toLowerCase() as 'get'](route.path, async (request: IRequest) => {
      const body =
        route.method === 'GET' || route.method === 'DELETE' ? {} : await readBody(request as unknown as Request, route.acceptsArrayBody);
      if (isResponse(body)) return body;
      const restRequest: RestRequest = {
        params: Object.fromEntries(Object.entries(request.params).map(([k, v]) => [k, decodeURIComponent(v)])),
        query: Object.fromEntries(Object.entries(request.query).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v])),
        queryLists: Object.fromEntries(
          Object.entries(request.query).map(([k, v]) => [
            k,
            (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string'),
          ]),
        ),
        body: Array.isArray(body) ? {} : body,
        ...(Array.isArray(body) ? { bodyList: body } : {}),
      };
      let variables: Record<string, unknown>;
      try {
        variables = restInputToVariables(schema, route.parsed, route.variables?.(restRequest) ?? {});
      } catch (error) {
        const status = statusOfCode((error as GraphQLError).extensions?.code);
        if (status) return errorResponse(status, (error as Error).message);
        throw error;
      }
      // Conditional GET (src/http/conditional.ts): the tag is known before the work; after the check, a match is a 304.
      let validators: Record<string, string> | undefined;
      if (route.conditional && route.checkParsed && route.method === 'GET') {
        const ifNoneMatch = (request as unknown as Request).headers.get('if-none-match');
        let checked: unknown;
        if (ifNoneMatch || route.conditional.liveNeedsCheck) {
          const check = await execute(request as unknown as Request, route.checkParsed, variables);
          if (check.errors?.length) return restError(check.errors, request as unknown as Request);
          checked = check.data;
        }
        const live = route.conditional.live?.(restRequest, checked) ?? { inputs: null, freshness: IMMUTABLE };
        const etag = conditionalTag({
          publicUrl: apiUrl(''),
          method: route.method,
          route: route.path,
          params: restRequest.params,
          query: restRequest.queryLists,
          inputs: live.inputs,
        });
        validators = validatorHeaders(etag, live.freshness);
        if (checked !== undefined && noneMatch(ifNoneMatch, etag)) return notModified(validators);
      }
      const result = await execute(request as unknown as Request, route.parsed, variables);
      if (result.errors?.length) return restError(result.errors, request as unknown as Request);
      const status = typeof route.status === 'function' ? route.status(result.data) : (route.status ?? 200);
      const payload = route.result(toRest(result.data, route.plan));
      if (payload === undefined) return plainResponse(null, { status });
      const answer = json(
        status,
        payload,
        status === 201 ? { location: locationOf(route, payload, restRequest, request as unknown as Request, apiUrl) } : {},
      );
      if (route.revalidate && route.method === 'GET') return revalidated(request as unknown as Request, answer, 'private');
      return validators ? withValidators(answer, validators) : answer;
    });
  }
  return router;
}
