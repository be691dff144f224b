import { createClient as createSseClient } from 'graphql-sse';
import { Client, cacheExchange, fetchExchange, subscriptionExchange, type CombinedError } from 'urql';

/**
 * The app's one GraphQL client: every read and write goes to Lectern's /graphql, nothing else.
 * Requests are POSTs with `content-type: application/json` (a non-simple request, which the
 * server's CSRF rule asks of cookie-authenticated calls) carrying the session cookie
 * (same-origin). Subscriptions travel over SSE, yoga's "distinct connections" mode of graphql-sse
 * (one POST with `accept: text/event-stream` per subscription), with the same cookie.
 */
const sse = createSseClient({
  url: '/graphql',
  credentials: 'same-origin',
  headers: { 'x-lectern-csrf': '1' },
});

export const client = new Client({
  url: '/graphql',
  preferGetMethod: false,
  // Lists of many kinds change under the app's feet (other people's edits): ask again on each visit.
  requestPolicy: 'cache-and-network',
  fetchOptions: () => ({ credentials: 'same-origin', headers: { 'x-lectern-csrf': '1' } }),
  exchanges: [
    cacheExchange,
    fetchExchange,
    subscriptionExchange({
      forwardSubscription(request) {
        const input = { ...request, query: request.query || '' };
        return {
          subscribe(sink) {
            const unsubscribe = sse.subscribe(input, sink as never);
            return { unsubscribe };
          },
        };
      },
    }),
  ],
});

/** Whether an error means "no one is signed in" (the caller is sent to sign in). */
export function isUnauthenticated(error: CombinedError | undefined): boolean {
  if (!error) return false;
  if (error.graphQLErrors.some((e) => e.extensions?.code === 'UNAUTHENTICATED')) return true;
  return (error.response as Response | undefined)?.status === 401;
}

/** The message to show for an error (the server's own, never a stack). */
export function errorMessage(error: CombinedError | undefined): string | null {
  if (!error) return null;
  return error.graphQLErrors[0]?.message ?? (error.networkError ? 'The server could not be reached' : error.message);
}
