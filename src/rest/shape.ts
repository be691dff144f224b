import {
  getNamedType,
  getNullableType,
  isEnumType,
  isCompositeType,
  isInputObjectType,
  isListType,
  Kind,
  typeFromAST,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { badRequest } from '../errors.js';

/**
 * How a GraphQL result becomes GitBook JSON, computed once per route document from the schema:
 * enum names become their REST strings (`share_link` → `share-link`), and null fields are left
 * out (GitBook omits absent optional fields) unless the field is marked `restKeepNull` (e.g.
 * `defaultLevel`, where null means "guest").
 */
export interface OutputPlan {
  [responseKey: string]: { restEnum?: Map<unknown, unknown>; keepNull: boolean; children?: OutputPlan };
}

export function outputPlan(schema: GraphQLSchema, document: DocumentNode): OutputPlan {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  const root = operation.operation === 'mutation' ? schema.getMutationType()! : schema.getQueryType()!;

  // A fragment on a type condition (`... on SiteSection`) is walked with that type, so the members
  // of unions and interfaces get their plan too (their fields merge by response key).
  const conditionType = (name: string | undefined, fallback: GraphQLCompositeType) =>
    name ? (schema.getType(name) as GraphQLCompositeType) : fallback;
  const walk = (parent: GraphQLCompositeType, selectionSet: SelectionSetNode, plan: OutputPlan = {}): OutputPlan => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value)!;
        walk(conditionType(fragment.typeCondition.name.value, parent), fragment.selectionSet, plan);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        walk(conditionType(selection.typeCondition?.name.value, parent), selection.selectionSet, plan);
      } else {
        const field = 'getFields' in parent ? parent.getFields()[selection.name.value] : undefined;
        if (!field) continue; // __typename
        const key = selection.alias?.value ?? selection.name.value;
        const named = getNamedType(field.type);
        const entry = (plan[key] ??= { keepNull: Boolean(field.extensions?.restKeepNull) });
        if (isEnumType(named)) entry.restEnum = new Map(named.getValues().map((v) => [v.name, v.value]));
        if (isCompositeType(named) && selection.selectionSet) entry.children = walk(named, selection.selectionSet, entry.children ?? {});
      }
    }
    return plan;
  };
  return walk(root, operation.selectionSet);
}

/**
 * The GitBook JSON of a result: a copy (the result is not changed), walked with `for…in` and the
 * plan's enum maps: it runs over every field of every answer (a page of 100 spaces: ~4,000).
 */
export function toRest(value: unknown, plan: OutputPlan): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = toRest(value[i], plan);
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const key in value) {
    const v = (value as Record<string, unknown>)[key];
    const entry = plan[key];
    if (v === null || v === undefined) {
      if (entry?.keepNull) out[key] = null;
    } else if (entry?.restEnum) {
      const names = entry.restEnum;
      out[key] = Array.isArray(v) ? v.map((x) => restEnumValue(names, x)) : restEnumValue(names, v);
    } else if (entry?.children) out[key] = toRest(v, entry.children);
    else out[key] = v;
  }
  return out;
}

/** An enum name's REST string (`share_link` → `share-link`); anything else as it is. */
const restEnumValue = (names: Map<unknown, unknown>, name: unknown) => {
  const value = names.get(name);
  return value === undefined ? name : value;
};

/** REST input carries enum REST strings (`share-link`); GraphQL variables need enum names. */
export function restInputToVariables(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown>) {
  const out: Record<string, unknown> = { ...variables };
  for (const { name, type } of variableTypes(schema, document)) {
    // Body fields are named as in the body (`editMode`), other variables by their own name.
    assertStorableStrings(out[name], name === 'input' ? '' : name);
    if (type && name in out) out[name] = convertInput(out[name], type, name === 'input' ? '' : name);
  }
  return out;
}

/** The operation's variables and their input types, once per document (route documents live as long as the process). */
const typesOfDocument = new WeakMap<DocumentNode, { name: string; type: GraphQLInputType | undefined }[]>();
function variableTypes(schema: GraphQLSchema, document: DocumentNode) {
  let types = typesOfDocument.get(document);
  if (!types) {
    const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
    types = (operation.variableDefinitions ?? []).map((def) => ({
      name: def.variable.name.value,
      type: typeFromAST(schema, def.type as never) as GraphQLInputType | undefined,
    }));
    typesOfDocument.set(document, types);
  }
  return types;
}

/** NUL and unpaired surrogates cannot be stored in PostgreSQL text: refused, naming the field. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Deepest JSON nesting a request body may have. Nothing the API takes comes near it (a rich-text
 * document of 32 node levels is ~70); deeper bodies would overflow the stack of the recursive
 * walks after this one (a 500), so they are refused here, naming the top-level field.
 */
export const MAX_BODY_DEPTH = 256;

export function assertStorableStrings(value: unknown, path: string): void {
  // An explicit stack, not recursion: this is the first walk over a body of any depth.
  const stack: [unknown, string, number][] = [[value, path, 0]];
  while (stack.length > 0) {
    const [v, at, depth] = stack.pop()!;
    if (typeof v === 'string') {
      if (UNSTORABLE.test(v)) throw badRequest(at || 'body', 'contains a NUL character or an unpaired surrogate');
      continue;
    }
    if (!v || typeof v !== 'object') continue;
    if (depth >= MAX_BODY_DEPTH)
      throw badRequest(at.match(/^[^.[]+/)?.[0] || path || 'body', `is nested too deeply (at most ${MAX_BODY_DEPTH} levels of JSON)`);
    const entries: [string, unknown][] = Array.isArray(v)
      ? v.map((x, i) => [`${at}[${i}]`, x])
      : Object.entries(v).map(([k, x]) => [at ? `${at}.${k}` : k, x]);
    // Reversed onto the stack, so the first bad field in document order is the one named.
    for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i]![1], entries[i]![0], depth + 1]);
  }
}

function convertInput(value: unknown, type: GraphQLInputType, path: string): unknown {
  if (value === null || value === undefined) return value;
  const inner = getNullableType(type);
  if (isListType(inner)) {
    return Array.isArray(value)
      ? value.map((v, i) => convertInput(v, inner.ofType, `${path}[${i}]`))
      : convertInput(value, inner.ofType, path);
  }
  if (isEnumType(inner)) {
    // Only REST strings are accepted here: a GraphQL enum name such as `pt_br` is not a REST value.
    const match = inner.getValues().find((v) => v.value === value);
    if (!match)
      throw badRequest(
        path || 'body',
        `${JSON.stringify(value)} is not one of ${inner
          .getValues()
          .map((v) => v.value)
          .join(', ')}`,
      );
    return match.name;
  }
  if (isInputObjectType(inner) && typeof value === 'object' && !Array.isArray(value)) {
    const fields = inner.getFields();
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, fields[k] ? convertInput(v, fields[k].type, path ? `${path}.${k}` : k) : v]),
    );
  }
  return value;
}
