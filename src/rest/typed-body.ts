import { coerceInputValue, GraphQLList, isInputObjectType, isInputType, isListType, isNonNullType, type GraphQLInputType } from 'graphql';
import { schema } from '../graphql/schema.js';

/**
 * A REST body value bound for a typed GraphQL input, given to the service as the service would
 * take it. GraphQL refuses a value its input type cannot hold (a number where a string goes, an
 * unknown key) with its own wording; the REST answer to such a body is the service's own 400, as it
 * was while these inputs were JSON. So, in a route's `variables`:
 * - the value passes the service's pure check: its checked form goes on (unknown keys the service
 *   drops are dropped here too, and the service checks it again, unchanged);
 * - it fails but the input type holds it: it goes on as it is, and the service refuses it at its
 *   own moment (after the permission checks and the fields it checks first);
 * - it fails and the input type cannot hold it: the service's 400 is answered here.
 */
export function restBodyValue(raw: unknown, typeName: string, check: (value: unknown) => unknown, opts: { list?: boolean } = {}): unknown {
  if (raw === undefined || raw === null) return raw;
  try {
    return check(raw);
  } catch (error) {
    if (fitsInput(raw, typeName, opts.list)) return raw;
    throw error;
  }
}

/**
 * Whether GraphQL takes `value` for the named input type (a list of it with `list`) as it is: a
 * value its coercion would change is not taken either (a lone value where a list goes becomes a
 * list of one, which the service would then accept).
 */
export function fitsInput(value: unknown, typeName: string, list = false): boolean {
  const named = schema.getType(typeName);
  if (!named || !isInputType(named)) throw new Error(`${typeName} is not an input type of the schema`);
  return fits(value, list ? new GraphQLList(named) : named);
}

function fits(value: unknown, type: GraphQLInputType): boolean {
  if (isNonNullType(type)) return value !== null && value !== undefined && fits(value, type.ofType);
  if (value === null || value === undefined) return true;
  if (isListType(type)) return Array.isArray(value) && value.every((item) => fits(item, type.ofType));
  if (isInputObjectType(type)) {
    if (typeof value !== 'object' || Array.isArray(value)) return false;
    const fields = type.getFields();
    const record = value as Record<string, unknown>;
    return (
      Object.keys(record).every((key) => key in fields) && Object.values(fields).every((field) => fits(record[field.name], field.type))
    );
  }
  let taken = true;
  coerceInputValue(value, type, () => {
    taken = false;
  });
  return taken;
}
