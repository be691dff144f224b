import { getOperationAST, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/** Told of each operation /graphql runs: its type, its name, and whether it came as a persisted query. */
export type OnOperation = (type: string, name: string | null | undefined, persisted: boolean) => void;

/** Tells `onOperation` of the operation `operationName` selects in `document`. */
export function tellOperation(
  onOperation: OnOperation,
  document: DocumentNode,
  operationName: string | null | undefined,
  persisted: boolean,
) {
  const operation = getOperationAST(document, operationName ?? undefined);
  onOperation(operation?.operation ?? 'unknown', operation?.name?.value ?? operationName, persisted);
}

/** The envelop plugin telling `onOperation` of each operation yoga runs (the direct lane tells it itself). */
export function useOperationCount(onOperation: OnOperation): Plugin {
  const persisted = new WeakSet<Request>();
  const count = ({ args }: { args: { document: DocumentNode; operationName?: string | null; contextValue: unknown } }) => {
    const request = (args.contextValue as { request?: Request }).request;
    tellOperation(onOperation, args.document, args.operationName, request ? persisted.has(request) : false);
  };
  return {
    onParams({ params, request }) {
      if (params.extensions?.persistedQuery) persisted.add(request);
    },
    onExecute: count,
    onSubscribe: count,
  };
}
