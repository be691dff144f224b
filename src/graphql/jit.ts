import { makeExecute, type Plugin } from 'graphql-yoga';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import {
  execute,
  getNullableType,
  getOperationAST,
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
 * runs the operations that select a list, and graphql-js the others. graphql-jit cannot run
 * `@defer`/`@stream` (it would answer everything at once, or fail): a document that uses them runs on
 * yoga's executor, which delivers it incrementally (defer-stream.ts).
 */
const selectsAList = new WeakMap<DocumentNode, boolean>();
export function jitPaysOff({ schema, document, operationName }: Pick<ExecutionArgs, 'schema' | 'document' | 'operationName'>): boolean {
  if (usesIncrementalDelivery(document)) return false;
  let lists = selectsAList.get(document);
  if (lists === undefined) {
    const typeInfo = new TypeInfo(schema);
    lists = false;
    visit(document, visitWithTypeInfo(typeInfo, { Field: () => void (lists ||= isListType(getNullableType(typeInfo.getType()))) }));
    selectsAList.set(document, lists);
  }
  // Subscriptions (src/live/) run on graphql-js: a small selection per event, where compiling pays nothing back.
  return lists && getOperationAST(document, operationName)?.operation !== 'subscription';
}

/**
 * Each operation of a document compiled once; null: graphql-jit could not compile it (graphql-js
 * runs it). Keyed by the operation's name too: a document of several operations (one text, so one
 * parsed document in yoga's cache) compiles into one query per operation.
 */
const compiledDocuments = new WeakMap<DocumentNode, Map<string, CompiledQuery | null>>();
function compiledOf({ schema, document, operationName }: ExecutionArgs): CompiledQuery | null {
  let operations = compiledDocuments.get(document);
  if (!operations) compiledDocuments.set(document, (operations = new Map()));
  let compiled = operations.get(operationName ?? '');
  if (compiled === undefined) {
    const result = compileQuery(schema, document, operationName ?? undefined);
    compiled = isCompiledQuery(result) ? result : null;
    operations.set(operationName ?? '', compiled);
  }
  return compiled;
}

type Executed = ExecutionResult | Promise<ExecutionResult>;
const isPromise = (value: unknown): value is Promise<unknown> => typeof (value as Promise<unknown>)?.then === 'function';

/**
 * graphql-js's `execute`, its request errors (variables that do not coerce: errors without `data`)
 * marked 400 as the executor yoga's envelop runs marks them: /graphql answers them alike on every
 * lane (the REST adapter answers by the errors' codes, not this).
 */
function executeOnGraphqlJs(args: ExecutionArgs): Executed {
  const result = execute(args) as Executed;
  if (!isPromise(result) && !('data' in result))
    for (const error of result.errors ?? [])
      Object.defineProperty(error, 'extensions', {
        value: { ...error.extensions, http: { ...(error.extensions?.http as object | undefined), status: 400 } },
      });
  return result;
}

/**
 * Runs an operation with graphql-jit. Variables that do not coerce are answered by graphql-js, whose
 * messages clients (and the REST adapter, which names the field) expect: graphql-jit coerces them
 * before any resolver runs and answers their errors alone, without `data`, so nothing runs twice.
 * (Coercing them beforehand, to choose, cost ~1 % of a small read on every request.)
 */
function executeWithJit(args: ExecutionArgs): Executed {
  const compiled = compiledOf(args);
  if (!compiled) return executeOnGraphqlJs(args);
  const result = compiled.query(args.rootValue, args.contextValue, args.variableValues ?? {}) as Executed;
  if (!isPromise(result) && !('data' in result)) return executeOnGraphqlJs(args);
  return result;
}

/** The envelop plugin: graphql-jit for the operations where it pays off (see above). */
export const useJitForLists = (): Plugin => {
  const executeFn = makeExecute(executeWithJit as never);
  return {
    onExecute({ args, setExecuteFn }) {
      if (jitPaysOff(args)) setExecuteFn(executeFn);
    },
  };
};

/**
 * Runs a document as the envelop plugin would choose, without envelop around it: the REST routes'
 * documents (the server's own, parsed and validated at start) and the direct /graphql lane's
 * queries (src/graphql/direct-query.ts). Measured on GET /v1/spaces/{id}: envelop's hooks and the
 * promise helpers around them were ~6 % of the request's server CPU, and a fifth of what it allocates.
 */
export function executeWithoutEnvelop(args: ExecutionArgs): Executed {
  return jitPaysOff(args) ? executeWithJit(args) : executeOnGraphqlJs(args);
}
