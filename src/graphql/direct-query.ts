import { getOperationAST, type DocumentNode, type ExecutionResult } from 'graphql';
import { processRegularResult } from 'graphql-yoga';
import { usesIncrementalDelivery } from './defer-stream.js';

/**
 * A small read over /graphql, run without yoga's HTTP pipeline: a token's JSON POST of a plain
 * query (`query`, `variables`, `operationName`, nothing else) whose body the app has already read
 * and parsed (src/app.ts) goes through the same envelop as yoga's (the same parse and validation
 * caches, the same document limits, costs, masking and plugins), and its result is answered by
 * yoga's own `processRegularResult`. What it skips is only yoga's request handling, which such a
 * request does not need: parsing the body again, the parameter hooks (persisted documents and APQ
 * act on `extensions`/`documentId`, absent here; conditional GET acts on GET) and the result
 * processor's negotiation (see `MEDIA_TYPES`). Anything else — a syntax or validation error, a
 * mutation or subscription, `@defer`/`@stream`, another Accept, a fault — is answered by yoga as
 * always (null here): measured, yoga's pipeline was a third of a `space(id:)` query's server CPU.
 */

/** The media type yoga answers a regular result with, per Accept header: for others yoga negotiates. */
const MEDIA_TYPES = new Map<string | null, string>([
  [null, 'application/json'],
  ['*/*', 'application/json'],
  ['application/json', 'application/json'],
  ['application/graphql-response+json', 'application/graphql-response+json'],
]);

const PARAM_NAMES = new Set(['query', 'variables', 'operationName']);

interface QueryParams {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function isPlainQuery(params: unknown): params is QueryParams {
  if (!isPlainObject(params) || typeof params.query !== 'string') return false;
  for (const name in params) if (!PARAM_NAMES.has(name)) return false;
  const { variables, operationName } = params;
  return (variables == null || isPlainObject(variables)) && (operationName == null || typeof operationName === 'string');
}

/** What yoga's `getEnveloped` gives (its envelop for one request). */
interface Enveloped {
  schema: unknown;
  parse(source: string): DocumentNode;
  validate(schema: unknown, document: DocumentNode): readonly unknown[];
  contextFactory(): unknown;
  execute(args: Record<string, unknown>): unknown;
}

/**
 * The documents one server has found valid. Validation depends only on the document, the schema
 * and the server's rules, all fixed for a server (not for a process: tests run servers with and
 * without introspection side by side), and yoga's parse cache answers the same document for the
 * same text: a document seen valid is not validated again (its hooks were ~2 % of a small query).
 */
export type ValidDocuments = WeakSet<DocumentNode>;

/**
 * The answer to `params` run directly, or null when yoga must answer it. `enveloped` is made
 * with the context yoga's own handling would give (the server context, `request`, `params`).
 */
export function directQuery(
  request: Request,
  params: unknown,
  envelopedFor: (params: QueryParams) => Enveloped,
  fetchAPI: Parameters<typeof processRegularResult>[1],
  validDocuments: ValidDocuments,
): Promise<Response | null> | null {
  const mediaType = MEDIA_TYPES.get(request.headers.get('accept'));
  if (!mediaType || !isPlainQuery(params)) return null;
  const enveloped = envelopedFor(params);
  let document: DocumentNode;
  try {
    document = enveloped.parse(params.query);
  } catch {
    return null;
  }
  if (!validDocuments.has(document)) {
    if (enveloped.validate(enveloped.schema, document).length) return null;
    validDocuments.add(document);
  }
  const operationName = params.operationName ?? undefined;
  if (getOperationAST(document, operationName)?.operation !== 'query' || usesIncrementalDelivery(document)) return null;
  return (async () => {
    try {
      const contextValue = await enveloped.contextFactory();
      const result = await enveloped.execute({
        schema: enveloped.schema,
        document,
        contextValue,
        variableValues: params.variables,
        operationName,
      });
      return processRegularResult(result as ExecutionResult, fetchAPI, mediaType) as Response;
    } catch {
      // A fault outside the resolvers: yoga answers it (and masks it) as it would have. A query changes nothing to run again.
      return null;
    }
  })();
}
