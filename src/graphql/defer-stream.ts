import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { BREAK, GraphQLError, Kind, visit, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * `@defer` and `@stream` on /graphql (incremental delivery), for front-ends that want the first
 * screen first: `... @defer { slowPart }` answers the rest before `slowPart`, and
 * `list @stream(initialCount: 2)` answers two items, then the others as they are ready.
 *
 * The directives come from @graphql-yoga/plugin-defer-stream (it adds them to the schema the
 * server runs and its validation rules: not on root fields of mutations/subscriptions, `@stream`
 * only on lists, labels unique) and yoga's executor runs them. A client asks for the parts with
 * `Accept: multipart/mixed` (the incremental-delivery-over-HTTP format) or `text/event-stream`;
 * the assembled answer is the one the same query without the directives gives. Everything else
 * is unchanged: the document limits (armor.ts) bound the document before it runs, and every part
 * is computed with the caller's permissions. graphql-jit cannot run the directives (jit.ts skips
 * such documents), and conditional GET (caching.ts) leaves these streamed answers unbuffered.
 *
 * The REST adapter's documents use neither directive: REST answers stay single JSON bodies.
 */
export const useIncrementalDelivery = (): Plugin[] => [useDeferStream() as Plugin, refuseNegativeInitialCount];

/**
 * `@stream(initialCount: -1)` (literal or variable) is bad input, a 400 naming the argument: the
 * executor's own check throws a plain error, which would be answered as an unexpected 500.
 */
const refuseNegativeInitialCount: Plugin = {
  onExecute({ args, setResultAndStopExecution }) {
    if (!usesIncrementalDelivery(args.document)) return;
    let negative = false;
    visit(args.document, {
      Directive(node) {
        if (node.name.value !== 'stream') return undefined;
        const value = node.arguments?.find((a) => a.name.value === 'initialCount')?.value;
        const count =
          value?.kind === Kind.INT ? Number(value.value) : value?.kind === Kind.VARIABLE ? args.variableValues?.[value.name.value] : 0;
        if (typeof count === 'number' && count < 0) {
          negative = true;
          return BREAK;
        }
        return undefined;
      },
    });
    if (negative)
      setResultAndStopExecution({
        errors: [
          new GraphQLError('@stream initialCount: must be 0 or more', { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } }),
        ],
      });
  },
};

const incremental = new WeakMap<DocumentNode, boolean>();

/** Whether a document uses `@defer` or `@stream` anywhere (cached per parsed document). */
export function usesIncrementalDelivery(document: DocumentNode): boolean {
  let uses = incremental.get(document);
  if (uses === undefined) {
    uses = false;
    visit(document, {
      Directive(node) {
        if (node.name.value !== 'defer' && node.name.value !== 'stream') return undefined;
        uses = true;
        return BREAK;
      },
    });
    incremental.set(document, uses);
  }
  return uses;
}
