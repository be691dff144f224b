import { Kind, parse, type DocumentNode } from 'graphql';
import type { User } from '../../generated/prisma/client.js';

/** The operations a browser may run before anyone is signed in (Lectern's own sign-in fields). */
export const PUBLIC_FIELDS = new Set(['signInOptions', 'signIn', 'resetPassword', '__typename']);

/**
 * The context's caller while nobody is signed in: no row has its id, so no membership, grant or
 * ownership matches it. Only the public fields run with it (`onlyPublicOperations`), and a
 * sign-in replaces it with the signed-in person.
 */
export const ANONYMOUS_CALLER: User = {
  id: '',
  email: '',
  displayName: 'Anonymous',
  photoURL: null,
  emailVerified: false,
  createdAt: new Date(0),
};

/** The GraphQL parameters of a request (GET: the query string; POST: the JSON body). */
interface Parameters {
  query?: unknown;
  operationName?: unknown;
  extensions?: unknown;
  documentId?: unknown;
}

async function parametersOf(request: Request): Promise<Parameters | null> {
  if (request.method === 'GET') {
    const params = new URL(request.url).searchParams;
    let extensions: unknown = params.get('extensions') ?? undefined;
    try {
      if (typeof extensions === 'string') extensions = JSON.parse(extensions);
    } catch {
      extensions = undefined;
    }
    return {
      query: params.get('query') ?? undefined,
      operationName: params.get('operationName') ?? undefined,
      extensions,
      documentId: params.get('documentId') ?? undefined,
    };
  }
  try {
    const body = JSON.parse(await request.clone().text());
    return body && typeof body === 'object' && !Array.isArray(body) ? body : null;
  } catch {
    return null;
  }
}

/**
 * Whether an unauthenticated /graphql request asks only for public fields: every root field of
 * the operation it runs is one of PUBLIC_FIELDS (fragments at the root are not followed: refused).
 * A first-party persisted document (`documents`: src/graphql/caching.ts, by `documentId` or APQ
 * hash) is checked by its text; any other hash without its text is refused (nobody signed in
 * may look up or register documents: it sends the text).
 */
export async function onlyPublicOperations(request: Request, documents: ReadonlyMap<string, string> = new Map()): Promise<boolean> {
  const params = await parametersOf(request);
  if (!params) return false;
  let text = params.query;
  if (typeof text !== 'string') {
    const persisted = (params.extensions as { persistedQuery?: { sha256Hash?: unknown } } | undefined)?.persistedQuery?.sha256Hash;
    const hash =
      typeof params.documentId === 'string' ? params.documentId.replace(/^sha256:/, '') : typeof persisted === 'string' ? persisted : null;
    if (hash === null) return false;
    text = documents.get(hash);
    if (text === undefined) return false;
  }
  let document: DocumentNode;
  try {
    document = parse(text as string, { noLocation: true, maxTokens: 2000 });
  } catch {
    return false;
  }
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const name = typeof params.operationName === 'string' ? params.operationName : undefined;
  const operation = name ? operations.find((o) => o.name?.value === name) : operations.length === 1 ? operations[0] : undefined;
  if (!operation || operation.operation === 'subscription') return false;
  return operation.selectionSet.selections.every((s) => s.kind === Kind.FIELD && PUBLIC_FIELDS.has(s.name.value));
}
