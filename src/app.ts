import { GraphQLError, NoSchemaIntrospectionCustomRule, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { processLog, requestIdOf, tagRequest } from './ops/log.js';
import { createYoga, type Plugin } from 'graphql-yoga';
import { landingPage, renderLecternGraphiQL } from './http/landing.js';
import type { User } from './generated/prisma/client.js';
import { bearerToken, hashToken } from './auth/tokens.js';
import {
  organizationIdOfPath,
  primeOrganizationAccess,
  primeSpaceAccess,
  spaceIdOfPath,
  type OrganizationAccess,
  type SpaceAccess,
} from './auth/access-rows.js';
import { type Context, createContext, type Services, type Session } from './context.js';
import { classifyDatabaseError, databaseFailureError } from './errors.js';
import { authenticate, authenticateSession, rateHeaders, type Authenticated } from './auth/authenticate.js';
import { clearedSessionCookie, cookieSecure, isNonSimpleRequest, sessionSecretOf } from './auth/session-cookie.js';
import { schema } from './graphql/schema.js';
import { executeWithoutEnvelop, useJitForLists } from './graphql/jit.js';
import { useDocumentLimits } from './graphql/armor.js';
import { operationRefusal, useComplexityLimits } from './graphql/complexity.js';
import { earlySpaceRead, type EarlySpaceRead } from './graphql/early-space.js';
import {
  createPersistedQueryStore,
  loadPersistedDocuments,
  useConditionalGet,
  usePersistedQueries,
  type PersistedDocuments,
} from './graphql/caching.js';
import { useIncrementalDelivery } from './graphql/defer-stream.js';
import { createRestAdapter, earlyStatements, prepareRoutes } from './rest/adapter.js';
import { beginEarlyRead, earlyReadOf, poolHasRoom, primeEarlyReads, type EarlyReads, type Statement } from './db/early-reads.js';
import { RecentTokens } from './auth/recent-tokens.js';
import { routes } from './rest/routes.js';
import type { Caller, HttpRoute } from './http/routes.js';
import { createRouter } from './http/router.js';
import { errorResponse, isResponse, json } from './http/respond.js';
import { httpRoutes, installModules } from './modules/index.js';
import { hostedReaderRoute, siteHostedAt } from './modules/reader/index.js';
import { ANONYMOUS_CALLER, onlyPublicOperations } from './modules/sessions/index.js';
import { BodyTooLarge, bodyRefusal, declaredTooLarge, readBody, readText, withBody } from './http/body.js';
import { isPreflight, preflight, withCors, type CorsPolicy } from './http/cors.js';
import { methodNotAllowed, refuseRequestLine } from './http/request-line.js';
import { staticPage } from './http/static-page.js';
import { AddressLimiter, addressKey } from './http/throttle.js';
import { createTenantGate } from './http/tenant-gate.js';
import { serverKeys } from './secrets.js';
import { SITE_TOKEN_PREFIX, siteTokenMayCall } from './auth/site-token.js';
import type { Limiter } from './ops/metrics.js';
import { directQuery, KnownDocuments, type QueryParams } from './graphql/direct-query.js';
import { tellOperation, useOperationCount, type OnOperation } from './graphql/operation-count.js';

/** Who sent a request, as far as the HTTP server knows (in-process calls: nothing). */
export interface Client {
  address?: string | null;
  /** The X-Forwarded-For header, used only when LECTERN_TRUST_PROXY=1. */
  forwardedFor?: string | null;
}

// The modules' routes, types, jobs and loaders handed to the mechanisms, as soon as the app is loaded.
installModules();

const disableIntrospection: Plugin = {
  onValidate: ({ addValidationRule }) => addValidationRule(NoSchemaIntrospectionCustomRule),
};

interface ServerContext {
  services: Services;
  caller: User;
  session: Session;
  /** The caller's tenant (src/auth/authenticate.ts): scopes persisted queries (src/graphql/caching.ts). */
  tenant?: string;
  /** Headers a resolver adds to the answer (a sign-in's Set-Cookie). */
  responseHeaders?: Headers;
  /** Rows the authentication statement read for the request (a `space(id:)` query's space, its riders). */
  spaceAccess?: SpaceAccess | null;
  /** Rows the authentication statement read for a `/v1/orgs/:id…` request: the organization, the caller's membership. */
  organizationAccess?: OrganizationAccess | null;
  earlyReads?: EarlyReads;
}

/**
 * Whether a request to /graphql only wants the GraphiQL page, which needs no token: a browser's
 * navigation (Accept: text/html, no Authorization — a navigation cannot send one), even with the
 * `?query=` GraphiQL keeps in the address (a reload showed a 401 JSON). GraphiQL's own fetches
 * do not accept text/html.
 */
const wantsGraphiQL = (request: Request) =>
  request.method === 'GET' &&
  (request.headers.get('accept') ?? '').includes('text/html') &&
  (!request.headers.has('authorization') || !['query', 'extensions'].some((name) => new URL(request.url).searchParams.has(name)));

type AppOptions = {
  /** Extra envelop plugins, for tests to observe yoga's phases (the direct /graphql lane runs none). */
  plugins?: Plugin[];
  /** Told of each /graphql operation (the metrics count them). */
  onOperation?: OnOperation;
  onRefusal?: (limiter: Limiter) => void;
  persistedDocuments?: PersistedDocuments;
};
type Yoga = ReturnType<typeof createYoga<ServerContext>>;

const originalOf = (error: unknown) => (error instanceof GraphQLError ? error.originalError : error);

/**
 * What the client is answered for a resolver's error that is ours to answer, or null for an
 * unexpected fault: our own errors and GraphQL's as they are; text PostgreSQL cannot store (NUL,
 * invalid UTF-8) is bad input; contention answers 409/429 with Retry-After, an unreachable
 * database 503.
 */
function ownAnswer(error: unknown): GraphQLError | null {
  const original = originalOf(error);
  if (error instanceof GraphQLError && (!original || original instanceof GraphQLError)) return error;
  if (BAD_TEXT.test(String((original as { message?: string })?.message ?? '')))
    return new GraphQLError('Input contains a NUL character or invalid Unicode', {
      extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
    });
  const failure = classifyDatabaseError(original);
  return failure ? databaseFailureError(failure) : null;
}
const BAD_TEXT = /invalid byte sequence|unsupported Unicode escape|22021|22P05/;
/** Faults already logged with their request's id (`useFaultLog`), not logged again when masked. */
const loggedFaults = new WeakSet<object>();

/**
 * Logs the faults of an execution with the id of its request, before they are masked (masking
 * cannot see the request). Incremental (`@defer`/`@stream`) results' faults are logged by
 * `maskResolverError` alone.
 */
type PrimedRows = Pick<ServerContext, 'spaceAccess' | 'organizationAccess' | 'earlyReads'>;
/** Hands the rows the authentication statement read for a request to the loaders of its context. */
const primeRows = (context: Context, rows: PrimedRows) => {
  primeSpaceAccess(context, rows.spaceAccess);
  primeOrganizationAccess(context, rows.organizationAccess);
  primeEarlyReads(context, rows.earlyReads);
};
/**
 * `primeRows` for /graphql: on the context execution sees (yoga merges the server context, with
 * `spaceAccess`, `organizationAccess` and `earlyReads`, into it). The REST adapter primes its own.
 */
const usePrimedRows = (): Plugin => ({
  onExecute: ({ args }) => primeRows(args.contextValue as unknown as Context & PrimedRows, args.contextValue as PrimedRows),
});

/** Logs an execution's unexpected faults with its request's id, once each. */
function logFaults(errors: readonly GraphQLError[], request: Request | undefined) {
  for (const error of errors) {
    const fault = originalOf(error);
    if (ownAnswer(error) || !fault || typeof fault !== 'object' || loggedFaults.has(fault)) continue;
    loggedFaults.add(fault);
    processLog().fault('unexpected error in a resolver', fault, { requestId: requestIdOf(request) });
  }
}

const useFaultLog = (): Plugin => ({
  onExecute: ({ args }) => ({
    onExecuteDone: ({ result }) => {
      if ('errors' in result && result.errors) logFaults(result.errors, (args.contextValue as Partial<Context>).request);
    },
  }),
  // Each event of a subscription is an execution of its own: its faults carry the subscribing request's id.
  onSubscribe: ({ args }) => ({
    onSubscribeResult: () => ({
      onNext: ({ result }) => {
        if (result.errors) logFaults(result.errors, (args.contextValue as Partial<Context>).request);
      },
    }),
  }),
});

/** The message of a masked fault (yoga's own default). */
const MASKED_MESSAGE = 'Unexpected error.';

/**
 * A resolver's error as the client sees it: our own errors (and GraphQL's validation errors) reach
 * the client; anything else is logged (unless `useFaultLog` did) and replaced by a generic
 * message, so no internal detail leaks.
 */
function maskResolverError(error: unknown, message: string) {
  const own = ownAnswer(error);
  if (own) return own;
  const original = originalOf(error);
  if (!(typeof original === 'object' && original && loggedFaults.has(original)))
    processLog().fault('unexpected error in a resolver', original);
  return new GraphQLError(message, { extensions: { code: 'INTERNAL', http: { status: 500 } } });
}

/** The GraphQL server: the one schema with its envelop plugins, GraphiQL and masked errors. */
function createGraphQLServer(services: Services, opts: AppOptions, persistedDocuments: PersistedDocuments) {
  return createYoga<ServerContext>({
    schema,
    graphqlEndpoint: '/graphql',
    context: ({ services, caller, session, responseHeaders, request }) =>
      createContext(services, caller, session, { responseHeaders, request }),
    renderGraphiQL: renderLecternGraphiQL,
    // Introspection can be turned off (production): a validation rule refuses __schema/__type.
    // `documentId`: how the client preset's persisted documents name theirs.
    extraParamNames: ['documentId'],
    plugins: [
      usePersistedQueries(createPersistedQueryStore(), persistedDocuments),
      useConditionalGet(),
      useDocumentLimits(),
      useComplexityLimits(),
      ...useIncrementalDelivery(),
      useJitForLists(),
      useFaultLog(),
      usePrimedRows(),
      ...(services.config.introspection ? [] : [disableIntrospection]),
      ...(opts.onOperation ? [useOperationCount(opts.onOperation)] : []),
      ...(opts.plugins ?? []),
    ],
    graphiql: {
      title: 'Lectern GraphiQL',
      // Headers (the token) are not kept in localStorage: src/http/landing.ts keeps the token in sessionStorage.
      shouldPersistHeaders: false,
      defaultQuery:
        '# Your token goes in Headers: {"Authorization": "Bearer <token>"}; then reload the schema (Shift+Ctrl+R)\n{ viewer { id displayName } }',
    },
    maskedErrors: { maskError: maskResolverError, errorMessage: MASKED_MESSAGE },
    // Every body is read (and cut off at its limit) by src/http/body.ts before yoga sees it: yoga's
    // own limit piped it once more through a TransformStream.
    maxRequestBodySize: false,
    logging: false,
    landingPage: false,
    // CORS is answered by src/http/cors.ts for /v1 and /graphql alike (yoga's default reflected any origin with credentials).
    cors: false,
  });
}

/**
 * Runs a document without envelop around it (the REST routes' documents, the direct /graphql
 * lane's queries), doing what yoga's envelop would add after the run: faults logged with the
 * request's id, errors masked as /graphql masks them.
 */
async function runWithoutEnvelop(args: ExecutionArgs, request: Request): Promise<ExecutionResult> {
  const result = await executeWithoutEnvelop(args);
  if (!result.errors?.length) return result;
  logFaults(result.errors, request);
  return { ...result, errors: result.errors.map((error) => maskResolverError(error, MASKED_MESSAGE)) };
}

/**
 * The REST adapter over the prepared routes. Each request runs its route's document, parsed and
 * validated at start, directly (`runWithoutEnvelop`): what yoga's envelop would add to it is
 * done here — the rows the authentication read primed, faults logged with the request's id, errors
 * masked as /graphql masks them. The complexity limits bound clients' documents, not the server's.
 */
function createRest(services: Services, prepared: ReturnType<typeof prepareRoutes>) {
  return createRestAdapter(
    schema,
    prepared,
    async (request, document, variableValues) => {
      // The router hands its handlers a proxy of the request: the request's id is tagged on it too.
      const requestId = (request as { requestId?: string }).requestId;
      if (requestId) tagRequest(request, requestId);
      const rows = request as unknown as Pick<ServerContext, 'caller' | 'session'> & PrimedRows;
      const contextValue = createContext(services, rows.caller, rows.session, { request });
      contextValue.serverDocument = true;
      primeRows(contextValue, rows);
      return runWithoutEnvelop({ schema, document, variableValues, contextValue }, request);
    },
    services.urls.api,
  );
}

// A refusal sent before the body was read closes the connection: the server stops receiving the
// rest instead of reading (and discarding) up to the whole body to keep the connection alive.
const unreadBody = (request: Request): Record<string, string> => (request.body ? { connection: 'close' } : {});

type Identified = Authenticated & { limits: Record<string, string> };

/**
 * Who may ask how much: the per-address throttles, the per-user budget, the per-organization gate
 * and the one authentication step, shared by /v1, /graphql and the declared routes.
 */
function createGuard(services: Services, onRefusal: AppOptions['onRefusal']) {
  const config = services.config;
  const recentTokens = new RecentTokens();
  // Per-address throttles (in process memory: see src/http/throttle.ts). LECTERN_RATE_LIMIT=0 turns
  // them off together with the per-user budget (the test harness does, for its thousands of calls).
  const throttled = config.rateLimit.limit > 0;
  const anonymous = new AddressLimiter(throttled ? config.addressLimits.anonymous : 0);
  const failures = new AddressLimiter(throttled ? config.addressLimits.authFailures : 0);
  // Per-organization fairness: at most tenantConcurrency requests of one organization at once (below
  // the pool size), up to 20 times as many waiting for at most 10 s, the rest refused with 429.
  const tenants = createTenantGate({ concurrency: config.tenantConcurrency, queue: 20 * config.tenantConcurrency, maxWaitMs: 10_000 });

  // Each 429 names its limiter to the metrics (src/ops/metrics.ts).
  const refused = (limiter: Limiter): null => (onRefusal?.(limiter), null);
  const tooMany = (retryAfter: number, message: string, request: Request, limiter: Limiter) =>
    refused(limiter) ??
    errorResponse(429, `${message}; retry after ${retryAfter} s`, { 'retry-after': String(retryAfter), ...unreadBody(request) });
  /** The 429 of a user over their budget. */
  const overBudget = (rate: NonNullable<Authenticated['rate']>, limits: Record<string, string>, request: Request) =>
    refused('user') ??
    errorResponse(
      429,
      `Rate limit of ${rate.limit} requests per ${config.rateLimit.windowSeconds} s exceeded; retry after ${rate.retryAfter} s`,
      {
        ...limits,
        ...unreadBody(request),
      },
    );
  /** Charges a request without a (valid) token to its address: null when within the budget, else the 429. */
  const chargeAddress = (request: Request, client: string, cost = 1): Response | null => {
    const taken = anonymous.take(client, cost);
    return taken.ok ? null : tooMany(taken.retryAfter, 'Too many requests without a token from this address', request, 'address');
  };

  /**
   * The one authentication step, for a request that sent a token: its caller (with the per-user
   * budget's headers), null for an invalid token (counted against the address), or the 429 when
   * the address sent too many invalid tokens or the user is over their budget.
   */
  async function identify(
    token: string,
    tokenHash: string,
    request: Request,
    client: string,
    rides: { spaceId?: string | null; organizationId?: string | null; rider?: Statement | null } = {},
  ): Promise<Identified | null | Response> {
    // An address that keeps sending invalid tokens is refused before its next token costs a query.
    const blocked = failures.peek(client);
    if (!blocked.ok) return tooMany(blocked.retryAfter, 'Too many failed authentications from this address', request, 'auth-failures');
    const now = Date.now();
    const siteKeys = token.startsWith(SITE_TOKEN_PREFIX) ? await serverKeys(services) : undefined;
    const authenticated = await authenticate(services.db, token, config.rateLimit, now, siteKeys, { ...rides, tokenHash });
    if (!authenticated) {
      recentTokens.forget(tokenHash);
      failures.take(client);
      return null;
    }
    recentTokens.note(tokenHash);
    const { rate } = authenticated;
    const limits = rateHeaders(rate);
    if (rate?.exceeded) return overBudget(rate, limits, request);
    return { ...authenticated, limits };
  }

  /** Serves an authenticated request in its organization's turn (src/http/tenant-gate.ts), with the budget's headers. */
  async function inTenantTurn(who: Identified, request: Request, serve: () => Promise<Response>): Promise<Response> {
    // Before the body is read: a waiting request holds no buffer.
    const admission = await tenants.enter(who.tenant);
    if (!admission.admitted) {
      const message = `Too many requests of your organization in progress (${admission.reason}); retry after ${admission.retryAfter} s`;
      return (
        refused('tenant') ??
        errorResponse(429, message, { ...who.limits, 'retry-after': String(admission.retryAfter), ...unreadBody(request) })
      );
    }
    let response: Response;
    try {
      response = await serve();
    } finally {
      admission.release();
    }
    for (const [name, value] of Object.entries(who.limits)) response.headers.set(name, value);
    return response;
  }

  /** Whether a GET may begin its first statement while its token is checked (src/db/early-reads.ts). */
  const mayReadEarly = (tokenHash: string, client: string) => recentTokens.has(tokenHash) && failures.peek(client).ok;

  return { refused, overBudget, chargeAddress, identify, inTenantTurn, mayReadEarly };
}

type Guard = ReturnType<typeof createGuard>;

/** What /v1 and /graphql are served with. */
interface ApiParts {
  services: Services;
  guard: Guard;
  yoga: Yoga;
  rest: ReturnType<typeof createRest>;
  graphiql: ReturnType<typeof staticPage>;
  earlyStatement: ReturnType<typeof earlyStatements>;
  persistedDocuments: PersistedDocuments;
  cors: CorsPolicy;
  /** The texts the direct /graphql lane has found valid (src/graphql/direct-query.ts). */
  knownDocuments: KnownDocuments;
  onOperation: OnOperation | undefined;
}

/** The 401 of /v1 (the error shape) or /graphql (GraphQL's errors list). */
function unauthenticatedResponse(request: Request, isRest: boolean): Response {
  const headers = { 'www-authenticate': 'Bearer', ...unreadBody(request) };
  const message = 'Authentication required: send Authorization: Bearer <token>';
  if (isRest) return errorResponse(401, message, headers);
  return json(401, { errors: [{ message, extensions: { code: 'UNAUTHENTICATED' } }] }, headers);
}

/** /v1 and /graphql: the token is read from the header first; the body only for a known user. */
async function api(parts: ApiParts, request: Request, client: string, isRest: boolean, address: string | null): Promise<Response> {
  const { config } = parts.services;
  if (isPreflight(request)) return preflight(parts.cors, request);
  if (!isRest && wantsGraphiQL(request)) {
    if (!config.graphiql) return errorResponse(404, 'GraphiQL is turned off on this server');
    return parts.guard.chargeAddress(request, client) ?? parts.graphiql.serve(request);
  }
  const token = bearerToken(request);
  // No token on /graphql: a browser (its session cookie, or nobody signed in yet).
  if (!token && !isRest) return browser(parts, request, client, address);
  // No token: answered at once, the body never read (an anonymous caller cannot make us buffer it).
  if (!token) return parts.guard.chargeAddress(request, client) ?? unauthenticatedResponse(request, isRest);
  // A declared body over the limit is refused before any work.
  if (declaredTooLarge(request, config.maxBodyBytes)) throw new BodyTooLarge(config.maxBodyBytes);
  return apiWithToken(parts, request, token, client, isRest, address);
}

/** The largest /graphql body read before its token is checked (a first-party query is well below). */
const EARLY_BODY_BYTES = 8 * 1024;

/** A JSON POST whose declared length is at most EARLY_BODY_BYTES. */
const smallJsonPost = (request: Request) => {
  const length = Number(request.headers.get('content-length') ?? Number.NaN);
  return (
    request.method === 'POST' &&
    length > 0 &&
    length <= EARLY_BODY_BYTES &&
    (request.headers.get('content-type') ?? '').includes('application/json')
  );
};

const jsonOf = (bytes: Uint8Array): unknown => {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return null; // yoga answers the malformed body as always
  }
};

/** /v1 or /graphql with a bearer token: authenticated, then served in the organization's turn. */
async function apiWithToken(
  parts: ApiParts,
  request: Request,
  token: string,
  client: string,
  isRest: boolean,
  address: string | null,
): Promise<Response> {
  const { services, guard } = parts;
  // Hashed once: the authentication and the recent tokens (below) key on the hash.
  const tokenHash = hashToken(token);
  // A space's access rows are read by the authentication statement itself (src/auth/authenticate.ts).
  // So are an organization's and the caller's membership for a /v1/orgs/:id… request.
  const pathname = isRest && !token.startsWith(SITE_TOKEN_PREFIX) ? new URL(request.url).pathname : null;
  const spaceId = pathname ? spaceIdOfPath(pathname) : null;
  const organizationId = pathname && !spaceId ? organizationIdOfPath(pathname) : null;
  // A GET whose first statement is known from the request alone begins it now, while the token is
  // checked (src/db/early-reads.ts): for a token this process authenticated lately, from an
  // address not refused for failed authentications, and when the pool has a connection to spare.
  // A statement that rides on the authentication statement is read by it: one round trip in all.
  const pool = services.db.pool;
  const early = spaceId ? parts.earlyStatement(request) : null;
  let rider = early?.rides ? early.statement : null;
  let earlyReads =
    early && !rider && guard.mayReadEarly(tokenHash, client) && poolHasRoom(pool) ? beginEarlyRead(pool, early.statement) : undefined;
  // A small /graphql body of a token this process knows is read now: a `space(id:)` query's space
  // (and its riders), or an `organization(id:)` query's organization and membership, is then read
  // by the authentication statement, as a /v1/spaces/:id or /v1/orgs/:id request's is.
  let earlyBody: Uint8Array | undefined;
  let graphqlSpace: EarlySpaceRead | null = null;
  let params: unknown;
  if (!isRest && smallJsonPost(request) && guard.mayReadEarly(tokenHash, client)) {
    const bytes = await readBody(request, EARLY_BODY_BYTES);
    earlyBody = bytes;
    params = jsonOf(bytes);
    graphqlSpace = earlySpaceRead(params);
    rider = graphqlSpace?.rider ?? null;
  }
  const who = await guard.identify(token, tokenHash, request, client, {
    spaceId: spaceId ?? graphqlSpace?.spaceId ?? null,
    organizationId: organizationId ?? graphqlSpace?.organizationId ?? null,
    rider,
  });
  if (isResponse(who)) return who;
  if (!who) return unauthenticatedResponse(request, isRest);
  // A site token (a published-URL lookup's apiToken) reads that site's published content only.
  if (who.session.siteScope && !siteTokenMayCall(request.method, new URL(request.url).pathname, isRest)) {
    return errorResponse(
      403,
      'This token only reads the published content of its site (GET of the site’s published profile and of its spaces’ content)',
      unreadBody(request),
    );
  }
  const { caller } = who;
  if (rider && who.riderRows) earlyReads = earlyReadOf(rider, who.riderRows);
  const session = { ...who.session, clientAddress: address };
  return guard.inTenantTurn(who, request, async () => {
    // Only now is the body read: streamed, and cut off with a 413 as soon as it passes the limit.
    if (request.body && !earlyBody) request = withBody(request, await readBody(request, services.config.maxBodyBytes));
    if (!isRest)
      return graphqlWith(
        parts,
        request,
        {
          caller,
          session,
          tenant: who.tenant,
          spaceAccess: who.spaceAccess ?? null,
          organizationAccess: who.organizationAccess ?? null,
          earlyReads,
        },
        {
          params,
          body: earlyBody,
        },
      );
    Object.assign(request, {
      caller,
      session,
      spaceAccess: who.spaceAccess ?? null,
      organizationAccess: who.organizationAccess ?? null,
      earlyReads,
      requestId: requestIdOf(request),
    });
    return parts.rest.fetch(request);
  });
}

/**
 * Runs /graphql with headers a resolver may add (Set-Cookie) copied onto the answer. `params`: the
 * body the app already parsed, for a plain query to run directly (src/graphql/direct-query.ts);
 * `body`: its bytes, which yoga reads again only when it answers instead (a request rebuilt around
 * them was ~1.5 % of a small query's CPU).
 */
async function graphqlWith(
  parts: ApiParts,
  request: Request,
  context: Omit<ServerContext, 'services' | 'responseHeaders'>,
  opts: { extra?: Headers; params?: unknown; body?: Uint8Array } = {},
): Promise<Response> {
  const responseHeaders = opts.extra ?? new Headers();
  const serverContext = { services: parts.services, ...context, responseHeaders };
  const direct =
    opts.params === undefined
      ? null
      : await directQuery(request, opts.params, {
          known: parts.knownDocuments,
          enveloped: () => parts.yoga.getEnveloped({ ...serverContext, request, params: opts.params } as never) as never,
          execute: (document, params) => runDirectQuery(parts, serverContext, request, document, params),
          fetchAPI: parts.yoga.fetchAPI,
        });
  const response = direct ?? (await parts.yoga.fetch(opts.body ? withBody(request, opts.body) : request, serverContext));
  for (const cookie of responseHeaders.getSetCookie()) response.headers.append('set-cookie', cookie);
  if (responseHeaders.getSetCookie().length) response.headers.set('cache-control', 'no-store');
  return response;
}

/**
 * A direct /graphql query run as yoga's envelop would run it, its plugins' work done here: the
 * complexity limits (a refusal is yoga's to answer: null), the operation told to the metrics, the
 * authentication's rows primed, graphql-jit where it pays off, faults logged and errors masked.
 */
async function runDirectQuery(
  parts: ApiParts,
  serverContext: ServerContext,
  request: Request,
  document: DocumentNode,
  params: QueryParams,
): Promise<ExecutionResult | null> {
  const { caller, session, responseHeaders } = serverContext;
  const contextValue = createContext(parts.services, caller, session, { responseHeaders, request });
  const args = { schema, document, contextValue, variableValues: params.variables, operationName: params.operationName };
  if (operationRefusal(args)) return null;
  primeRows(contextValue, serverContext);
  const result = await runWithoutEnvelop(args, request);
  // Told once it ran: a fault outside the resolvers throws, and yoga then runs (and counts) it.
  if (parts.onOperation) tellOperation(parts.onOperation, document, params.operationName, false);
  return result;
}

/**
 * /graphql without a token: the session cookie authenticates it, or nobody is signed in and only
 * the public operations (signing in) may run. CSRF: such a request must be non-simple (a JSON
 * POST, or the x-lectern-csrf header) — a cross-site form cannot send one, so it can neither use
 * the cookie nor sign a browser in to someone else's account. A simple one with the cookie: 403.
 */
async function browser(parts: ApiParts, request: Request, client: string, address: string | null): Promise<Response> {
  const { services, guard } = parts;
  const { config } = services;
  const secret = sessionSecretOf(request);
  if (!isNonSimpleRequest(request)) {
    if (secret)
      return errorResponse(
        403,
        'A request authenticated by the session cookie must be a POST with content-type application/json, or carry the header x-lectern-csrf: 1',
        unreadBody(request),
      );
    return guard.chargeAddress(request, client) ?? unauthenticatedResponse(request, false);
  }
  if (declaredTooLarge(request, config.maxBodyBytes)) throw new BodyTooLarge(config.maxBodyBytes);
  const who = secret
    ? await authenticateSession(services.db, secret, config.rateLimit, { idleSeconds: config.sessions.idleDays * 86_400 })
    : null;
  if (who) {
    const limits = rateHeaders(who.rate);
    if (who.rate?.exceeded) return guard.overBudget(who.rate, limits, request);
    const session = { ...who.session, clientAddress: address };
    return guard.inTenantTurn({ ...who, limits }, request, async () => {
      if (request.body) request = withBody(request, await readBody(request, config.maxBodyBytes));
      const response = await graphqlWith(parts, request, { caller: who.caller, session, tenant: who.tenant });
      // The answer depends on the cookie (a conditional GET's ETag must not be reused across people).
      response.headers.append('vary', 'Cookie');
      return response;
    });
  }
  return signedOut(parts, request, client, address, secret);
}

/** /graphql from a browser nobody is signed in on (an ended session's cookie is removed): public operations only, small bodies. */
async function signedOut(parts: ApiParts, request: Request, client: string, address: string | null, secret: string | null | undefined) {
  const { config } = parts.services;
  const charged = parts.guard.chargeAddress(request, client);
  if (charged) return charged;
  const sent = request; // the 401's headers describe the request as it arrived
  if (request.body) request = withBody(request, await readBody(request, Math.min(config.maxBodyBytes, 64 * 1024)));
  if (!(await onlyPublicOperations(request, parts.persistedDocuments))) return unauthenticatedResponse(sent, false);
  const headers = new Headers();
  if (secret) headers.append('set-cookie', clearedSessionCookie(cookieSecure(config, request)));
  const session = { ssoOrganizationId: null, anonymous: true, clientAddress: address };
  return graphqlWith(parts, request, { caller: ANONYMOUS_CALLER, session, tenant: `address:${client}` }, { extra: headers });
}

/** Health, and readiness (one query, so charged to the address like any token-less request). */
function probeRoutes(services: Services): HttpRoute[] {
  const { config } = services;
  return [
    { method: 'GET', path: '/', cost: 0, handle: () => landingPage({ publicUrl: config.publicUrl, graphiql: config.graphiql }) },
    { method: 'GET', path: '/healthz', cost: 0, handle: () => json(200, { status: 'ok' }) },
    {
      method: 'GET',
      path: '/readyz',
      handle: async () => {
        try {
          await services.db.pool.query('SELECT 1');
          return json(200, { status: 'ready' });
        } catch {
          return json(503, { status: 'database unavailable' });
        }
      },
    },
  ];
}

/** A route declared as data (src/http/routes.ts): its token-less cost or optional caller, its body, then its handler. */
const declaredRoute =
  (services: Services, guard: Guard) =>
  (route: HttpRoute) =>
  async (request: Request, params: Record<string, string>, client: string, address: string | null): Promise<Response> => {
    const serve = async (caller: Caller | null) => {
      const body = route.bodyLimit === undefined ? undefined : await readText(request, route.bodyLimit);
      const response = await route.handle({ services, request, params, caller, body, clientAddress: address });
      if (request.method !== 'HEAD' || !response.body) return response;
      void response.body.cancel().catch(() => {});
      return new Response(null, { status: response.status, statusText: response.statusText, headers: response.headers });
    };
    const token = route.optionalToken ? bearerToken(request) : null;
    const who = token ? await guard.identify(token, hashToken(token), request, client) : null;
    if (isResponse(who)) return who;
    if (who) return guard.inTenantTurn(who, request, () => serve({ user: who.caller, session: who.session }));
    return (route.cost === 0 ? null : guard.chargeAddress(request, client, route.cost)) ?? serve(null);
  };

/**
 * The one router: every path the server answers. /v1 is one entry because the REST adapter
 * (src/rest/adapter.ts) is reached only after authentication — without a valid token every /v1
 * path is a 401, so its paths tell an anonymous caller nothing — and keeps its own itty router
 * of GraphQL documents prepared at start-up. Token-less requests (the declared routes, 404s and
 * 405s) are charged to the client's address.
 */
function createAppRouter(parts: ApiParts, prepared: ReturnType<typeof prepareRoutes>, declared: ReturnType<typeof declaredRoute>) {
  const { cors, guard } = parts;
  const restPatterns = prepared.map((r) => ({ method: r.method, pattern: new RegExp(`^/v1${r.path.replace(/:[^/]+/g, '[^/]+')}/?$`) }));
  /** The Allow header of a 405 below /v1: the methods the path's routes answer (undefined: no route). */
  const restAllow = (pathname: string): string | undefined => {
    const methods = [...new Set(restPatterns.filter((r) => r.pattern.test(pathname)).map((r) => r.method))];
    return methods.length ? [...methods, 'OPTIONS'].join(', ') : undefined;
  };
  return createRouter<[client: string, address: string | null]>(
    [
      {
        method: 'ALL',
        path: '/graphql',
        allow: () => 'GET, POST, OPTIONS',
        handle: async (request, _params, client, address) => withCors(cors, request, await api(parts, request, client, false, address)),
      },
      {
        method: 'ALL',
        path: '/v1/*',
        allow: restAllow,
        handle: async (request, _params, client, address) => withCors(cors, request, await api(parts, request, client, true, address)),
      },
      ...[...probeRoutes(parts.services), ...httpRoutes].map((route) => ({
        method: route.method,
        path: route.path,
        handle: declared(route),
      })),
    ],
    (request, allow, client) =>
      guard.chargeAddress(request, client) ?? (allow ? methodNotAllowed(request.method, allow) : errorResponse(404, 'No such endpoint')),
  );
}

/** The answer to an error no handler answered: a body refusal, a gone client, a busy or absent database, else a logged 500. */
function failureResponse(error: unknown, request: Request, cors: CorsPolicy, guard: Guard): Response {
  // A body over its limit (or cut off) while it was being read: 413/400, not a fault.
  const refusal = bodyRefusal(error);
  if (refusal) return withCors(cors, request, refusal);
  // The client went away mid-request (its connection closed): nobody reads an answer, and it is not a fault.
  if (request.signal?.aborted) return new Response(null, { status: 499 });
  const failure = classifyDatabaseError(error);
  if (failure)
    return (
      (failure.status === 429 ? guard.refused('database-busy') : undefined) ??
      errorResponse(failure.status, failure.message, { 'retry-after': String(failure.retryAfter) })
    );
  // Never leak internals: log the detail, answer a generic 500.
  processLog().fault('unhandled error', error, { requestId: requestIdOf(request) });
  return errorResponse(500, 'Unexpected error');
}

/**
 * The whole HTTP application as one fetch handler over one router: /graphql (yoga), /v1 (the REST
 * adapter, which runs GraphQL operations in-process), /healthz, /readyz and the modules' routes
 * (downloads, SSO, OpenAPI texts).
 *
 * `opts.persistedDocuments`: the first-party documents accepted by hash (src/graphql/caching.ts);
 * by default the app's build manifests, read once here.
 */
export function createApp(services: Services, opts: AppOptions = {}) {
  const persistedDocuments = opts.persistedDocuments ?? loadPersistedDocuments();
  const yoga = createGraphQLServer(services, opts, persistedDocuments);
  const prepared = prepareRoutes(schema, routes);
  // Read the server key once now rather than in the first request that builds a file URL (a failed
  // read is retried by that request).
  serverKeys(services).catch(() => {});
  const config = services.config;
  const guard = createGuard(services, opts.onRefusal);
  const cors: CorsPolicy = { origins: config.corsOrigins };
  const graphiql = staticPage(() =>
    Promise.resolve(
      yoga.fetch(new Request('http://lectern.local/graphql', { headers: { accept: 'text/html' } }), { services } as ServerContext),
    ),
  );
  const parts: ApiParts = {
    services,
    guard,
    yoga,
    rest: createRest(services, prepared),
    graphiql,
    earlyStatement: earlyStatements(schema, prepared),
    persistedDocuments,
    cors,
    knownDocuments: new KnownDocuments(),
    onOperation: opts.onOperation,
  };
  const declared = declaredRoute(services, guard);
  const router = createAppRouter(parts, prepared, declared);
  const allowFor = router.allowFor;
  const hostedSite = declared(hostedReaderRoute);

  return {
    yoga,
    routes: prepared,
    allowFor,
    /** `client`: the HTTP server's view of the sender (src/server.ts); in-process calls pass none. */
    async fetch(request: Request, client: Client = {}): Promise<Response> {
      try {
        const forwarded = config.trustProxy ? client.forwardedFor?.split(',').at(-1)?.trim() : undefined;
        const key = addressKey(forwarded || client.address);
        const refusal = refuseRequestLine(request, allowFor);
        if (refusal) return refusal;
        // A site's custom hostname: the reader serves it at `/` (GET and HEAD; the API's paths keep working on every host).
        if (await siteHostedAt(services, request)) return await hostedSite(request, {}, key, forwarded || client.address || null);
        return await router.fetch(request, key, forwarded || client.address || null);
      } catch (error) {
        return failureResponse(error, request, cors, guard);
      }
    },
  };
}

export type App = ReturnType<typeof createApp>;
