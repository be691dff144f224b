import { GraphQLError, NoSchemaIntrospectionCustomRule } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import type { User } from './generated/prisma/client.js';
import { bearerToken } from './auth/tokens.js';
import { createContext, type Services, type Session } from './context.js';
import { errorBody, isDatabaseUnavailable } from './errors.js';
import { authenticate, rateHeaders } from './auth/authenticate.js';
import { schema } from './graphql/schema.js';
import { useJitForLists } from './graphql/jit.js';
import { createRestAdapter, errorResponse, json, prepareRoutes } from './rest/adapter.js';
import { routes } from './rest/routes.js';
import { serveDownload } from './downloads.js';
import { serveSso } from './modules/sso/http.js';
import { serveOpenAPIText } from './modules/openapi/http.js';

const disableIntrospection: Plugin = {
  onValidate: ({ addValidationRule }) => addValidationRule(NoSchemaIntrospectionCustomRule),
};

interface ServerContext {
  services: Services;
  caller: User;
  session: Session;
}

/** Whether a request to /graphql only wants the GraphiQL page (no operation), which needs no token. */
const wantsGraphiQL = (request: Request) =>
  request.method === 'GET' && (request.headers.get('accept') ?? '').includes('text/html') && !new URL(request.url).searchParams.has('query');

/**
 * The whole HTTP application as one fetch handler: /graphql (yoga), /v1 (the REST adapter, which
 * runs GraphQL operations in-process), the token-less downloads (/files, /exports), /healthz and /readyz.
 */
export function createApp(services: Services, opts: { plugins?: Plugin[] } = {}) {
  const yoga = createYoga<ServerContext>({
    schema,
    graphqlEndpoint: '/graphql',
    context: ({ services, caller, session }) => createContext(services, caller, session),
    renderGraphiQL,
    // Introspection can be turned off (production): a validation rule refuses __schema/__type.
    // `opts.plugins`: extra envelop plugins (tests observe the phases with them).
    plugins: [useJitForLists(), ...(services.config.introspection ? [] : [disableIntrospection]), ...(opts.plugins ?? [])],
    graphiql: { title: 'Lectern GraphiQL', defaultQuery: '# Add your token in Headers: {"Authorization": "Bearer <token>"}\n{ viewer { id displayName } }' },
    maskedErrors: {
      // Our own errors (and GraphQL's validation errors) reach the client; anything else is logged
      // here and replaced by a generic message, so no internal detail leaks.
      maskError(error, message) {
        const original = error instanceof GraphQLError ? error.originalError : error;
        if (error instanceof GraphQLError && (!original || original instanceof GraphQLError)) return error;
        // Text PostgreSQL cannot store (NUL, invalid UTF-8) is bad input, not a failure.
        if (/invalid byte sequence|unsupported Unicode escape|22021|22P05/.test(String((original as { message?: string })?.message ?? ''))) {
          return new GraphQLError('Input contains a NUL character or invalid Unicode', { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } });
        }
        if (isDatabaseUnavailable(original)) return new GraphQLError('The database is unavailable; retry shortly', { extensions: { code: 'UNAVAILABLE', http: { status: 503 } } });
        console.error('unexpected error in a resolver:', original instanceof Error ? original.stack : original);
        return new GraphQLError(message, { extensions: { code: 'INTERNAL', http: { status: 500 } } });
      },
    },
    logging: false,
    landingPage: false,
  });

  const prepared = prepareRoutes(schema, routes);
  const rest = createRestAdapter(schema, prepared, async (request, document, variableValues) => {
    const { contextFactory, execute, schema: envelopedSchema } = yoga.getEnveloped({ request, services, caller: (request as any).caller, session: (request as any).session } as never);
    const contextValue = await contextFactory();
    return execute({ schema: envelopedSchema, document, variableValues, contextValue }) as never;
  }, services.urls.api);

  async function handle(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === '/healthz') return json(200, { status: 'ok' });
    if (pathname === '/readyz') {
      try {
        await services.db.pool.query('SELECT 1');
        return json(200, { status: 'ready' });
      } catch {
        return json(503, { status: 'database unavailable' });
      }
    }
    if (pathname.startsWith('/exports/') || pathname.startsWith('/files/')) return serveDownload(services, request, pathname);
    if (pathname.startsWith('/sso/')) return serveSso(services, request, pathname);
    if (pathname.startsWith('/openapi/')) return serveOpenAPIText(services, request, pathname);
    const isRest = pathname === '/v1' || pathname.startsWith('/v1/');
    const isGraphQL = pathname === '/graphql';
    if (!isRest && !isGraphQL) return errorResponse(404, 'No such endpoint');
    if (isGraphQL && wantsGraphiQL(request)) {
      if (!services.config.graphiql) return errorResponse(404, 'GraphiQL is turned off on this server');
      return yoga.fetch(request, { services } as ServerContext);
    }

    // A body over the limit is refused before anything reads it (413).
    const declared = Number(request.headers.get('content-length') ?? 0);
    if (declared > services.config.maxBodyBytes) return errorResponse(413, `body: larger than ${services.config.maxBodyBytes} bytes`);
    if (request.body && !request.headers.get('content-length')) {
      const bytes = await request.arrayBuffer();
      if (bytes.byteLength > services.config.maxBodyBytes) return errorResponse(413, `body: larger than ${services.config.maxBodyBytes} bytes`);
      request = new Request(request.url, { method: request.method, headers: request.headers, body: bytes });
    }

    const token = bearerToken(request);
    const authenticated = token ? await authenticate(services.db, token, services.config.rateLimit) : null;
    if (!authenticated) {
      const headers = { 'www-authenticate': 'Bearer' };
      if (isRest) return json(401, errorBody(401, 'Authentication required: send Authorization: Bearer <token>'), headers);
      return json(401, { errors: [{ message: 'Authentication required: send Authorization: Bearer <token>', extensions: { code: 'UNAUTHENTICATED' } }] }, headers);
    }
    const { caller, session, rate } = authenticated;
    const limits = rateHeaders(rate);
    if (rate?.exceeded) return json(429, errorBody(429, `Rate limit of ${rate.limit} requests per ${services.config.rateLimit.windowSeconds} s exceeded; retry after ${limits['retry-after']} s`), limits);
    let response: Response;
    if (isGraphQL) response = await yoga.fetch(request, { services, caller, session });
    else {
      Object.assign(request, { caller, session });
      response = await rest.fetch(request);
    }
    for (const [name, value] of Object.entries(limits)) response.headers.set(name, value);
    return response;
  }

  return {
    yoga,
    routes: prepared,
    async fetch(request: Request): Promise<Response> {
      try {
        return await handle(request);
      } catch (error) {
        // The client went away mid-request (its connection closed): nobody reads an answer, and it is not a fault.
        if (request.signal?.aborted) return new Response(null, { status: 499 });
        if (isDatabaseUnavailable(error)) return errorResponse(503, 'The database is unavailable; retry shortly');
        // Never leak internals: log the detail, answer a generic 500.
        console.error('unhandled error', error instanceof Error ? error.stack : error);
        return errorResponse(500, 'Unexpected error');
      }
    },
  };
}

export type App = ReturnType<typeof createApp>;
