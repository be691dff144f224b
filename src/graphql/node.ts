// Relay global object identification: a `Node` interface, a stable global id per object and the
// root `node(id:)` / `nodes(ids:)` fields. Modules register their types here (`registerNode`); this
// mechanism imports no module.
//
// Decisions (the issue and the Relay spec leave them open):
// - Every type's existing `id` stays what it is (the REST bodies are built from it), so the global
//   id is a separate field, `Node.globalId`. Relay clients key their store by it with a custom
//   `getDataID` (or by `__typename` + `id`, which is unique too).
// - A global id is base64url (no padding) of `<TypeName>:<key>:<key>…`, where the keys are the
//   arguments of the type's direct field (a site: its organization id and its id, as `site(organizationId:, id:)`).
//   A row that does not hold every such argument is named by the parent it does hold (a section by
//   its site, a reply by its comment; the rest is found from that parent, and an unknown parent
//   answers null like a refused one). A page is named by its revision (revisions are immutable, so
//   the id gives back the very page it was read as). It depends only on those keys, so it is stable
//   for the object's life. It is opaque: clients must not build or parse it.
// - `load` answers a batch with a constant number of statements: it reads rows through the
//   per-request loaders (test/graphql/node-ids.test.ts counts them for 2 and 20 ids of each type).
// - `node` resolves through the very function its direct field uses, so it sees exactly what that
//   field sees. What that field refuses (404, or 403 for an existing object) answers null: a
//   refusal does not tell an outsider whether the object exists.
// - A malformed id (not base64url, not canonical, unknown type, wrong number of keys, too long)
//   also answers null rather than an error: to a client it names no object, like a deleted one,
//   and one bad id in `nodes(ids:)` does not fail the others.
import { GraphQLError } from 'graphql';
import type { Context } from '../context.js';
import { badRequest, LecternError } from '../errors.js';
import { builder } from './builder.js';

interface NodeType<T> {
  /** The names of the direct field's arguments that find the object, in order (documentation and arity). */
  args: readonly string[];
  /** Those arguments' values for an object. */
  keys: (row: T) => string[];
  /** The object as its direct field resolves it (refusing with 403/404 what the caller may not see). */
  load: (ctx: Context, keys: string[]) => Promise<T | null>;
  /**
   * Starts, in the same tick, the reads every `load` of a `nodes(ids:)` batch will need later in
   * its chain. Without it a loader reached after different first reads (a collection's after its
   * member row, a space's after its space row) batches once or twice depending on which answer
   * arrives first: the statement count would depend on timing rather than on the request.
   */
  prime?: (ctx: Context, keys: string[][]) => void;
}

const registry = new Map<string, NodeType<any>>();
/** Which registered type each object `node` returned is (for the interface's resolveType). */
const typeOfObject = new WeakMap<object, string>();

/** Most ids in one `nodes(ids:)` call. */
export const MAX_NODE_IDS = 100;
/** Longer ids are not decoded (no key here is longer than 64 characters). */
const MAX_GLOBAL_ID_LENGTH = 400;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** A key as ids are spelled (printable ASCII; `:` separates keys): no NUL or other text reaches a lookup. */
const KEY = /^[\x21-\x39\x3b-\x7e]{1,128}$/;

export function encodeGlobalId(typeName: string, keys: string[]): string {
  return Buffer.from([typeName, ...keys].join(':'), 'utf8').toString('base64url');
}

/** The type name and keys of a global id, or null when it is not one (never throws). */
export function decodeGlobalId(id: string): { typeName: string; keys: string[] } | null {
  if (id.length === 0 || id.length > MAX_GLOBAL_ID_LENGTH || !BASE64URL.test(id)) return null;
  const text = Buffer.from(id, 'base64url').toString('utf8');
  // Only the canonical spelling is an id (Node's decoder skips stray bits and invalid UTF-8).
  if (Buffer.from(text, 'utf8').toString('base64url') !== id) return null;
  const [typeName, ...keys] = text.split(':');
  const type = typeName ? registry.get(typeName) : undefined;
  if (!type || keys.length !== type.args.length || !keys.every((k) => KEY.test(k))) return null;
  return { typeName: typeName!, keys };
}

export const NodeInterface = builder.interfaceRef<object>('Node').implement({
  description: 'An object with a global id, fetched again by `node(id:)` (Relay global object identification)',
  fields: (t) => ({
    globalId: t.id({
      description: 'A stable, opaque id unique across every type; `id` stays the id within the type (as REST shows it)',
      resolve: (row, _a, _ctx, info) => {
        const type = registry.get(info.parentType.name);
        if (!type) throw new GraphQLError(`${info.parentType.name} is not a registered node type`);
        return encodeGlobalId(info.parentType.name, type.keys(row));
      },
    }),
  }),
  resolveType: (row) => typeOfObject.get(row) ?? null,
});

/**
 * A module makes its object type a Node: `keys` are what its direct field is called with, `load`
 * is that field's resolver (the same permission checks, the same per-request loaders).
 */
export function registerNode<T extends object>(
  ref: { name: string; $inferType: T; addInterfaces: (interfaces: (typeof NodeInterface)[]) => void },
  type: NodeType<T>,
): void {
  if (registry.has(ref.name)) throw new Error(`${ref.name} is already a node type`);
  registry.set(ref.name, type);
  ref.addInterfaces([NodeInterface]);
}

const REFUSALS = new Set(['NOT_FOUND', 'FORBIDDEN']);

async function resolveNode(ctx: Context, id: string): Promise<object | null> {
  const decoded = decodeGlobalId(id);
  if (!decoded) return null;
  const { typeName, keys } = decoded;
  try {
    const row = await registry.get(typeName)!.load(ctx, keys);
    if (!row) return null;
    // The direct field may also find an object by another key (a change request by number):
    // only the object the id names is answered, so every object has one global id.
    if (encodeGlobalId(typeName, registry.get(typeName)!.keys(row)) !== id) return null;
    typeOfObject.set(row, typeName);
    return row;
  } catch (error) {
    // A refusal is null; anything else (the database down…) stays an error.
    if (error instanceof LecternError && REFUSALS.has(error.code)) return null;
    throw error;
  }
}

builder.queryFields((t) => ({
  node: t.field({
    type: NodeInterface,
    nullable: true,
    description: 'Any object by its global id (`globalId`); null when there is none the caller can see',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => resolveNode(ctx, String(id)),
  }),
  nodes: t.field({
    type: [NodeInterface],
    nullable: { list: false, items: true },
    description: `Objects by global id, in the order asked (null for each the caller cannot see); at most ${MAX_NODE_IDS} ids`,
    args: { ids: t.arg.idList({ required: true }) },
    complexity: (args) => ({ field: 1, multiplier: Math.min(Math.max(args.ids.length, 1), MAX_NODE_IDS) }),
    resolve: (_r, { ids }, ctx) => {
      if (ids.length > MAX_NODE_IDS) throw badRequest('ids', `at most ${MAX_NODE_IDS} ids`);
      const byType = new Map<string, string[][]>();
      for (const id of ids) {
        const decoded = decodeGlobalId(String(id));
        if (decoded) byType.set(decoded.typeName, [...(byType.get(decoded.typeName) ?? []), decoded.keys]);
      }
      for (const [typeName, keys] of byType) registry.get(typeName)!.prime?.(ctx, keys);
      // Resolved together, so the loaders behind the direct fields batch them into one statement per table.
      return Promise.all(ids.map((id) => resolveNode(ctx, String(id))));
    },
  }),
}));
