import { complexityFromQuery } from '@pothos/plugin-complexity';
import { GraphQLError, Kind, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode, type TypeNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../context.js';

/**
 * Limits on a GraphQL operation's shape, checked before anything is resolved (the fields' costs:
 * src/graphql/builder.ts). A page of 1000 spaces with every field costs about 60,000; two levels
 * of full pages cannot pass.
 */
export const COMPLEXITY_LIMITS = { complexity: 200_000, depth: 12, breadth: 400 };

type Complexity = { complexity: number; depth: number; breadth: number };

/**
 * An operation's cost depends on its text and on the values of its Int and list variables alone
 * (the fields' costs read page sizes and list lengths: `limit`, `ids`), so it is computed once per
 * document and such values, not on every request: `space(id: $id)` is costed once whatever the id.
 * Documents are the parsed ones yoga keeps in its cache (the same object for the same text).
 */
const costs = new WeakMap<DocumentNode, Map<string, Complexity | null>>();
const COSTS_PER_DOCUMENT = 100;

const costsVariable = (type: TypeNode): boolean => {
  const inner = type.kind === Kind.NON_NULL_TYPE ? type.type : type;
  return inner.kind === Kind.LIST_TYPE || (inner.kind === Kind.NAMED_TYPE && ['Int', 'Boolean'].includes(inner.name.value));
};

/** The operation a request runs (by name, or the only one), or null when there is none such. */
function operationOf(document: DocumentNode, name: string | null | undefined): OperationDefinitionNode | null {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  return (name ? operations.find((o) => o.name?.value === name) : operations.length === 1 ? operations[0] : undefined) ?? null;
}

/** The cost of one operation of `document` (null: its variables do not coerce; execution answers that). */
function costOf(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, variables: Record<string, unknown>) {
  const key = JSON.stringify([
    operation.name?.value ?? null,
    ...(operation.variableDefinitions ?? []).filter((d) => costsVariable(d.type)).map((d) => variables[d.variable.name.value] ?? null),
  ]);
  let known = costs.get(document);
  if (!known) costs.set(document, (known = new Map()));
  if (known.has(key)) return known.get(key)!;
  const alone: DocumentNode = {
    ...document,
    definitions: document.definitions.filter((d) => d.kind !== Kind.OPERATION_DEFINITION || d === operation),
  };
  let cost: Complexity | null;
  try {
    cost = complexityFromQuery(alone, { schema, variables });
  } catch {
    cost = null;
  }
  if (known.size >= COSTS_PER_DOCUMENT) known.delete(known.keys().next().value!);
  known.set(key, cost);
  return cost;
}

/** The refusal of an operation over a limit, naming it; null within the limits. */
export function complexityRefusal(cost: Complexity): GraphQLError | null {
  const over = (['depth', 'breadth', 'complexity'] as const).find((kind) => cost[kind] > COMPLEXITY_LIMITS[kind]);
  if (!over) return null;
  return new GraphQLError(`Query ${over} ${cost[over]} exceeds the limit of ${COMPLEXITY_LIMITS[over]}`, {
    extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
  });
}

/** The refusal of an operation over the limits, or null (also used by the direct /graphql lane, src/graphql/direct-query.ts). */
export const operationRefusal = (args: {
  schema: GraphQLSchema;
  document: DocumentNode;
  operationName?: string | null;
  variableValues?: Record<string, unknown> | null;
  contextValue: unknown;
}) => {
  // A REST route's document is the server's own, its lists bounded by the route's page sizes.
  if ((args.contextValue as Partial<Context>).serverDocument) return null;
  const cost = operationCost(args.schema, args.document, args.operationName, args.variableValues ?? {});
  return cost ? complexityRefusal(cost) : null;
};

/** The cost of the operation a request runs: remembered for its document and cost-bearing variables. */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown>,
): Complexity | null {
  const operation = operationOf(document, operationName);
  return operation && costOf(schema, document, operation, variables);
}

/** Refuses an operation over the limits before anything of it runs (queries, mutations and subscriptions). */
export const useComplexityLimits = (): Plugin => ({
  onExecute({ args, setResultAndStopExecution }) {
    const refusal = operationRefusal(args);
    if (refusal) setResultAndStopExecution({ errors: [refusal] });
  },
  onSubscribe({ args, setResultAndStopExecution }) {
    const refusal = operationRefusal(args);
    if (refusal) setResultAndStopExecution({ errors: [refusal] });
  },
});
