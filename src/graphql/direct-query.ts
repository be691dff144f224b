import { getOperationAST, type DocumentNode, type ExecutionResult } from 'graphql';
import { processRegularResult } from 'graphql-yoga';
import { usesIncrementalDelivery } from './defer-stream.js';

/**
 * A small read over /graphql, run without yoga: a token's JSON POST of a plain query (`query`,
 * `variables`, `operationName`, nothing else) whose body the app has already read and parsed
 * (src/app.ts). The first time a server sees a text, yoga's envelop parses it (its parse cache and
 * the document limits) and validates it (its rules: introspection may be off); a valid text is then
 * remembered, and each request for it runs its operation through `execute`, given by the app: the
 * same context, complexity limits, graphql-jit choice, fault log and masking as yoga's envelop
 * applies, without envelop's hooks around them. Yoga's own `processRegularResult` writes the answer.
 * What this skips is only what such a request does not need: parsing the body again, the parameter
 * hooks (persisted documents and APQ act on `extensions`/`documentId`, absent here; conditional GET
 * acts on GET) and the result processor's negotiation (see `MEDIA_TYPES`). Anything else — a syntax
 * or validation error, a mutation or subscription, `@defer`/`@stream`, an operation over the
 * complexity limits, another Accept, a fault — is answered by yoga as always (null here). Measured:
 * yoga's pipeline was a third of a `space(id:)` query's server CPU, envelop's hooks a further ~5 %
 * and a fifth of what it allocated.
 */

/** The media type yoga answers a regular result with, per Accept header: for others yoga negotiates. */
const MEDIA_TYPES = new Map<string | null, string>([
  [null, 'application/json'],
  ['*/*', 'application/json'],
  ['application/json', 'application/json'],
  ['application/graphql-response+json', 'application/graphql-response+json'],
]);

const PARAM_NAMES = new Set(['query', 'variables', 'operationName']);

export interface QueryParams {
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

/** What yoga's `getEnveloped` gives (its envelop for one request) that a first sight of a text uses. */
interface Enveloped {
  schema: unknown;
  parse(source: string): DocumentNode;
  validate(schema: unknown, document: DocumentNode): readonly unknown[];
}

/**
 * The texts one server has found valid, and their documents. Validation depends only on the
 * document, the schema and the server's rules, all fixed for a server (not for a process: tests run
 * servers with and without introspection side by side). Bounded as yoga's parse cache is: past
 * `MAX_KNOWN` texts the oldest is forgotten (and goes through yoga's parse and validation again).
 */
export class KnownDocuments {
  static readonly MAX_KNOWN = 1000;
  private readonly documents = new Map<string, DocumentNode>();

  get(text: string): DocumentNode | undefined {
    return this.documents.get(text);
  }

  add(text: string, document: DocumentNode) {
    if (this.documents.size >= KnownDocuments.MAX_KNOWN) this.documents.delete(this.documents.keys().next().value as string);
    this.documents.set(text, document);
  }
}

/** The app's side of the direct lane, for one request. */
export interface DirectLane {
  known: KnownDocuments;
  /** Yoga's envelop for this request: only a text not seen valid before needs it. */
  enveloped(): Enveloped;
  /** Runs a valid query; null: yoga must answer it (over the complexity limits). */
  execute(document: DocumentNode, params: QueryParams): Promise<ExecutionResult | null>;
  fetchAPI: Parameters<typeof processRegularResult>[1];
}

/** A text's document when it is valid on this server (remembered), else null. */
function validDocument(text: string, lane: DirectLane): DocumentNode | null {
  const known = lane.known.get(text);
  if (known) return known;
  const enveloped = lane.enveloped();
  let document: DocumentNode;
  try {
    document = enveloped.parse(text);
  } catch {
    return null;
  }
  if (enveloped.validate(enveloped.schema, document).length) return null;
  lane.known.add(text, document);
  return document;
}

/** The answer to `params` run directly, or null when yoga must answer it. */
export function directQuery(request: Request, params: unknown, lane: DirectLane): Promise<Response | null> | null {
  const mediaType = MEDIA_TYPES.get(request.headers.get('accept'));
  if (!mediaType || !isPlainQuery(params)) return null;
  const document = validDocument(params.query, lane);
  if (!document) return null;
  if (getOperationAST(document, params.operationName ?? undefined)?.operation !== 'query' || usesIncrementalDelivery(document)) return null;
  return (async () => {
    try {
      const result = await lane.execute(document, params);
      return result && (processRegularResult(result, lane.fetchAPI, mediaType) as Response);
    } catch {
      // A fault outside the resolvers: yoga answers it (and masks it) as it would have. A query changes nothing to run again.
      return null;
    }
  })();
}
