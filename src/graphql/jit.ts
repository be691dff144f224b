import { useGraphQlJit } from '@envelop/graphql-jit';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import {
  execute,
  getNullableType,
  getOperationAST,
  getVariableValues,
  isListType,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
} from 'graphql';
import { usesIncrementalDelivery } from './defer-stream.js';

/**
 * graphql-jit compiles an operation once (REST documents at first use, client queries per distinct
 * text through yoga's parse cache) and runs large results much faster than graphql-js: measured
 * (npm run bench, 2 cores) the nested site query twice as fast, but a single space 25% slower. So it
 * runs the operations that select a list, and graphql-js the others. Its
 * variable coercion words errors differently: when the variables do not coerce, graphql-js runs the
 * operation and reports them as clients (and the REST adapter, which names the field) expect.
 * graphql-jit cannot run `@defer`/`@stream` (it would answer everything at once, or fail): a document
 * that uses them runs on yoga's executor, which delivers it incrementally (defer-stream.ts).
 */
const selectsAList = new WeakMap<DocumentNode, boolean>();
export function jitPaysOff({ schema, document, operationName, variableValues }: ExecutionArgs): boolean {
  if (usesIncrementalDelivery(document)) return false;
  let lists = selectsAList.get(document);
  if (lists === undefined) {
    const typeInfo = new TypeInfo(schema);
    lists = false;
    visit(document, visitWithTypeInfo(typeInfo, { Field: () => void (lists ||= isListType(getNullableType(typeInfo.getType()))) }));
    selectsAList.set(document, lists);
  }
  if (!lists) return false;
  const operation = getOperationAST(document, operationName);
  // Subscriptions (src/live/) run on graphql-js: a small selection per event, where compiling pays nothing back.
  if (operation?.operation === 'subscription') return false;
  return !operation?.variableDefinitions?.length || !getVariableValues(schema, operation.variableDefinitions, variableValues ?? {}).errors;
}

/** The envelop plugin: graphql-jit for the operations where it pays off (see above). */
export const useJitForLists = () => useGraphQlJit({}, { enableIf: jitPaysOff });

const compiledDocuments = new WeakMap<DocumentNode, CompiledQuery>();

/**
 * Runs one of the server's own documents (the REST adapter's, parsed and validated at start) as the
 * envelop plugin would choose, without envelop around it: compiled once by graphql-jit where it pays
 * off, else graphql-js. Measured on GET /v1/spaces/{id}: envelop's hooks and the promise helpers
 * around them were ~6 % of the request's server CPU, and a fifth of what it allocates.
 */
export function executeServerDocument(args: ExecutionArgs): ExecutionResult | Promise<ExecutionResult> {
  if (!jitPaysOff(args)) return execute(args) as ExecutionResult | Promise<ExecutionResult>;
  let compiled = compiledDocuments.get(args.document);
  if (!compiled) {
    const result = compileQuery(args.schema, args.document, args.operationName ?? undefined);
    if (!isCompiledQuery(result)) return execute(args) as ExecutionResult | Promise<ExecutionResult>;
    compiledDocuments.set(args.document, (compiled = result));
  }
  return compiled.query(args.rootValue, args.contextValue, args.variableValues ?? {});
}
