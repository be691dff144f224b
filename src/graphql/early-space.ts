import { Kind, parse, type DocumentNode, type FieldNode, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { selects } from './selects.js';
import type { Statement } from '../db/early-reads.js';

/**
 * The space a GraphQL query reads through a root `space(id:)` field, told from its body before the
 * token is checked (src/app.ts), so that the authentication statement reads the space's access rows
 * too, as it does for `/v1/spaces/:id…` (src/auth/authenticate.ts), and a statement a module lets
 * ride on it for the fields selected on the space (src/db/early-reads.ts); without one, the
 * organization of a root `organization(id:)` field, with the caller's membership there. Nothing is
 * answered from them that the request would not have read itself after the access check.
 */
export interface EarlySpaceRead {
  spaceId: string | null;
  /** When no space is read: the organization a root `organization(id:)` field names. */
  organizationId: string | null;
  rider: Statement | null;
}

/** A module's statement for a space whose selection `selects` names a field of, or null. */
export type SpaceRider = (spaceId: string, selects: (field: string) => boolean) => Statement | null;

const riders: SpaceRider[] = [];

/** Adds a rider (src/modules/index.ts, at start-up). */
export function registerSpaceRider(rider: SpaceRider): void {
  riders.push(rider);
}

/** Parsed query texts (small first-party queries repeat): bounded, oldest out first. */
const parsed = new Map<string, DocumentNode | null>();
const PARSED_MAX = 200;

function documentOf(query: string): DocumentNode | null {
  let document = parsed.get(query);
  if (document === undefined) {
    try {
      document = parse(query, { maxTokens: 2_000 });
    } catch {
      document = null; // yoga answers the syntax error as always
    }
    if (parsed.size >= PARSED_MAX) parsed.delete(parsed.keys().next().value!);
    parsed.set(query, document);
  }
  return document;
}

/** The id a root field names with a string or a variable, or null. */
function idArgument(field: FieldNode, variables: unknown): string | null {
  const id = field.arguments?.find((a) => a.name.value === 'id')?.value;
  const value =
    id?.kind === Kind.STRING
      ? id.value
      : id?.kind === Kind.VARIABLE
        ? (variables as Record<string, unknown> | undefined)?.[id.name.value]
        : undefined;
  return typeof value === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(value) ? value : null;
}

/**
 * The early read of a `/graphql` body (`{ query, variables, operationName }`), or null: a root
 * `space(id:)` field's space, else a root `organization(id:)` field's organization, whose row and
 * the caller's membership the authentication statement then reads, as for `/v1/orgs/:id…`.
 */
export function earlySpaceRead(body: unknown): EarlySpaceRead | null {
  const { query, variables, operationName } = (body ?? {}) as { query?: unknown; variables?: unknown; operationName?: unknown };
  if (typeof query !== 'string') return null;
  const document = documentOf(query);
  if (!document) return null;
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const operation = typeof operationName === 'string' ? operations.find((o) => o.name?.value === operationName) : operations[0];
  if (operation?.operation !== 'query' || (operations.length > 1 && typeof operationName !== 'string')) return null;
  const root = (name: string) =>
    operation.selectionSet.selections.find((s): s is FieldNode => s.kind === Kind.FIELD && s.name.value === name && !!s.selectionSet);
  const field = root('space');
  const spaceId = field ? idArgument(field, variables) : null;
  if (!field || !spaceId) {
    const organization = root('organization');
    const organizationId = organization ? idArgument(organization, variables) : null;
    return organizationId ? { spaceId: null, organizationId, rider: null } : null;
  }
  const fragmentOf = (name: string) =>
    document.definitions.find((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === name);
  const selectionSet = field.selectionSet!;
  const rider = riders.map((ride) => ride(spaceId, (name) => selects(selectionSet, fragmentOf, name))).find(Boolean) ?? null;
  return { spaceId, organizationId: null, rider };
}
