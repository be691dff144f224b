import { randomUUID } from 'node:crypto';
import { defaultFieldResolver, getNamedType, isObjectType, type GraphQLSchema } from 'graphql';
import type { Context } from '../../context.js';
import { accessRows } from '../../auth/access-rows.js';
import { hashSecret } from '../../secrets.js';
import type { Services } from '../../context.js';
import { noteWrite } from '../../write-epoch.js';

/**
 * The audit log's ONE recording place: every write of the API is a GraphQL mutation —
 * REST routes run their GraphQL document through the same envelop `execute` (src/rest/adapter.ts) —
 * so each field of the Mutation type is wrapped once, when the schema is built (`auditMutations`,
 * called by the module registry). A field that resolves (and does not answer `false`: a delete that
 * found nothing wrote nothing) appends one event; a refused or failed one appends none.
 *
 * Why wrap resolvers rather than an envelop plugin on execution results: the resolver sees the
 * coerced arguments and the whole returned row (its id, organization, title), where a plugin sees
 * only what the client selected (a REST delete selects a boolean).
 *
 * When: right after the field's resolver returned, i.e. after the write's own transaction
 * committed, as ONE INSERT on the pool. The services own their transactions (prisma.$transaction
 * inside domain functions); joining them from one outer place would mean running every mutation in
 * an interactive transaction that holds a connection across its permission reads. The cost of
 * after-commit: a process dying between the commit and the INSERT loses that one event. A failed
 * INSERT fails the request (an error, not a silent gap in the log).
 *
 * Writes outside mutations record themselves with the same table: tokens (src/auth/tokens.ts:
 * `createApiToken` from the CLI, `ssoSignIn` from a SAML sign-in, in the sign-in's transaction).
 *
 * What an event holds: the caller (id and display name), the id of the token used (never the
 * token: Session.tokenId), the action (the mutation's name), the target (the returned object's type
 * and id, else the most specific id among the arguments), the organization (the returned row's, the
 * arguments', or the target's row already loaded by the permission check), the client address, and
 * `{ before?, after }`: `after` the arguments other than ids (strings cut at 200 characters, lists at
 * 20 items, depth 3, about 4 KB; fields named like secrets, URL credentials and Lectern tokens
 * redacted), `before` the same fields of the space, collection, site or organization as it was
 * (for `update…` mutations: the row the permission check loads anyway, so it costs no statement).
 */

export interface AuditEventInput {
  organizationId: string | null;
  action: string;
  actorType?: 'user' | 'system';
  actorId: string;
  actorLabel?: string | null;
  tokenId?: string | null;
  /** rest | graphql | sso | cli | system (the official `source` is derived from it). */
  source: string;
  targetType: string;
  targetId: string;
  targetLabel?: string | null;
  clientAddress?: string | null;
  payload: { before?: Record<string, unknown>; after?: unknown; [k: string]: unknown };
}

/** Appends one event: one INSERT. */
export async function appendAuditEvent(services: Pick<Services, 'db'>, e: AuditEventInput): Promise<string> {
  const id = randomUUID();
  await services.db.pool.query(
    `INSERT INTO "AuditEvent" (id, "organizationId", action, "actorType", "actorId", "actorLabel", "tokenId", source, "targetType", "targetId", "targetLabel", "clientAddress", payload)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [
      id,
      e.organizationId,
      e.action,
      e.actorType ?? 'user',
      e.actorId,
      e.actorLabel ?? null,
      e.tokenId ?? null,
      e.source,
      e.targetType,
      e.targetId,
      e.targetLabel ?? null,
      e.clientAddress ?? null,
      JSON.stringify(e.payload),
    ],
  );
  return id;
}

// --- what an event says about a mutation -------------------------------------------------------

// OpenAPI is one word in the official objects (`openapi-spec`), as in ID_ARGS below.
const kebab = (name: string) =>
  name
    .replace(/OpenAPI/g, 'Openapi')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase();

/** The noun of a mutation's name: `updateSiteSection` → site-section; `addSectionToSiteSectionGroup` → site-section-group. */
function nounOf(field: string): string {
  const noun = field.replace(/^[a-z]+/, '');
  const last = noun.split(/(?:To|From|In)(?=[A-Z])/).at(-1) ?? noun;
  return kebab(last || field);
}

/** The most specific id among the arguments, in this order (the resource grants and invites change come before their subject). */
const ID_ARGS: [string, string][] = [
  ['replyId', 'comment-reply'],
  ['commentId', 'comment'],
  ['changeRequestId', 'change-request'],
  ['siteSpaceId', 'site-space'],
  ['translationId', 'translation'],
  ['providerId', 'saml-provider'],
  ['clusterId', 'issues-cluster'],
  ['slug', 'openapi-spec'],
  ['inviteId', 'invite'],
  ['spaceId', 'space'],
  ['collectionId', 'collection'],
  ['siteId', 'site'],
  ['teamId', 'team'],
  ['userId', 'user'],
  ['hostname', 'hostname'],
  ['organizationId', 'organization'],
];
const ID_ARG_NAMES = new Set(['id', ...ID_ARGS.map(([name]) => name)]);

/** An invite link's code is its secret: events name the link by its row id (the code's hash). */
const inviteRowId = (code: string) => (/^[0-9a-f]{64}$/.test(code) ? code : hashSecret(code));

function targetOf(field: string, returnType: string | null, args: Record<string, unknown>, result: unknown, callerId: string) {
  const row = result && typeof result === 'object' ? (result as Record<string, unknown>) : null;
  if (row && typeof row.id === 'string' && returnType && !/Result$/.test(returnType)) return { type: kebab(returnType), id: row.id };
  if (typeof args.id === 'string') return { type: nounOf(field), id: args.id };
  for (const [name, type] of ID_ARGS) {
    const value = args[name];
    if (typeof value === 'string') return { type, id: name === 'inviteId' ? inviteRowId(value) : value };
  }
  return { type: 'user', id: callerId };
}

type Loaded = { organizationId?: string; title?: string | null; displayName?: string | null } & Record<string, unknown>;

/** The row of a space, collection, site or organization target, through the request's loaders (cached by the permission check). */
function rowLoader(ctx: Context, type: string, id: string): Promise<Loaded | null> | null {
  const rows = accessRows(ctx);
  if (type === 'space') return rows.space.load(id) as Promise<Loaded | null>;
  if (type === 'collection') return rows.collection.load(id) as Promise<Loaded | null>;
  if (type === 'site') return rows.site.load(id) as Promise<Loaded | null>;
  if (type === 'organization') return rows.organization.load(id) as Promise<Loaded | null>;
  return null;
}

/** The content an `update…` mutation changes, known from its arguments before it runs. */
function changedContent(field: string, args: Record<string, unknown>): { type: string; id: string } | null {
  if (!/^update/.test(field) || !args.input || typeof args.input !== 'object') return null;
  const noun = nounOf(field);
  if (typeof args.id === 'string' && ['space', 'collection', 'site', 'organization'].includes(noun)) return { type: noun, id: args.id };
  return null;
}

const SECRET_KEY = /token|secret|password|passphrase|private|credential|apikey|api_key|cert/i;
const MAX_STRING = 200;
const MAX_ITEMS = 20;
const MAX_BYTES = 4096;

/** Strings that must never be stored: Lectern tokens, bearer headers, credentials in URLs. */
function scrubString(value: string): string {
  let s = value
    .replace(/lct_[A-Za-z0-9_-]+/g, '[redacted]')
    .replace(/(Bearer\s+)\S+/gi, '$1[redacted]')
    .replace(/(\/\/)[^/@\s:]+(:[^/@\s]*)?@/g, '$1[redacted]@');
  if (s.length > MAX_STRING) s = `${s.slice(0, MAX_STRING)}…`;
  return s;
}

/** A small, safe copy of a value for an event's payload. */
export function summarize(value: unknown, depth = 0): unknown {
  if (value === null || value === undefined) return value ?? null;
  if (typeof value === 'string') return scrubString(value);
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (value instanceof Date) return value.toISOString();
  if (depth >= 3) return '…';
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ITEMS).map((v) => summarize(v, depth + 1));
    return value.length > MAX_ITEMS ? [...items, `… ${value.length - MAX_ITEMS} more`] : items;
  }
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v === undefined) continue;
      out[k] = SECRET_KEY.test(k) ? '[redacted]' : summarize(v, depth + 1);
    }
    return out;
  }
  return String(value);
}

/** `after`: the arguments that are not ids (the input's fields when that is all), summarized and bounded. */
function afterOf(args: Record<string, unknown>): Record<string, unknown> | undefined {
  const rest = Object.fromEntries(Object.entries(args).filter(([k, v]) => !ID_ARG_NAMES.has(k) && v !== undefined));
  if (!Object.keys(rest).length) return undefined;
  const plain =
    Object.keys(rest).length === 1 && rest.input && typeof rest.input === 'object' && !Array.isArray(rest.input)
      ? (rest.input as Record<string, unknown>)
      : rest;
  const small = summarize(plain) as Record<string, unknown>;
  if (JSON.stringify(small).length <= MAX_BYTES) return small;
  return { truncated: true, fields: Object.keys(small).slice(0, 50) };
}

function beforeOf(row: Loaded | null, after: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!row || !after) return undefined;
  const keys = Object.keys(after).filter((k) => k in row);
  if (!keys.length) return undefined;
  return summarize(Object.fromEntries(keys.map((k) => [k, row[k]]))) as Record<string, unknown>;
}

/** Whether a request came through the REST adapter (its request is a /v1 URL) or to /graphql. */
function interfaceOf(ctx: Context): 'rest' | 'graphql' {
  const url = (ctx as Context & { request?: Request }).request?.url;
  try {
    return url && new URL(url).pathname.startsWith('/v1/') ? 'rest' : 'graphql';
  } catch {
    return 'graphql';
  }
}

async function recordMutation(
  ctx: Context,
  field: string,
  returnType: string | null,
  args: Record<string, unknown>,
  result: unknown,
  beforeRow: Promise<Loaded | null> | null,
) {
  const target = targetOf(field, returnType, args, result, ctx.caller.id);
  const row = result && typeof result === 'object' ? (result as Loaded) : null;
  const targetRow = await (rowLoader(ctx, target.type, target.id) ?? Promise.resolve(null)).catch(() => null);
  const organizationId =
    target.type === 'organization'
      ? target.id
      : ((typeof row?.organizationId === 'string' ? row.organizationId : null) ??
        (typeof args.organizationId === 'string' ? args.organizationId : null) ??
        targetRow?.organizationId ??
        (await orgOfArgs(ctx, args)));
  const after = afterOf(args);
  const before = beforeOf(beforeRow ? await beforeRow.catch(() => null) : null, after);
  const label = row?.title ?? row?.displayName ?? targetRow?.title ?? targetRow?.displayName ?? null;
  await appendAuditEvent(ctx, {
    organizationId: organizationId ?? null,
    action: field,
    actorId: ctx.caller.id,
    actorLabel: scrubString(ctx.caller.displayName),
    tokenId: ctx.session.tokenId ?? null,
    source: interfaceOf(ctx),
    targetType: target.type,
    targetId: target.id,
    targetLabel: typeof label === 'string' ? scrubString(label) : null,
    clientAddress: ctx.session.clientAddress ?? null,
    payload: { ...(before ? { before } : {}), ...(after ? { after } : {}) },
  });
}

/** The organization of the content an argument names (a comment's space, a grant's collection…), from the loaders. */
async function orgOfArgs(ctx: Context, args: Record<string, unknown>): Promise<string | null> {
  for (const [name, type] of [
    ['spaceId', 'space'],
    ['collectionId', 'collection'],
    ['siteId', 'site'],
  ] as const) {
    const id = args[name];
    if (typeof id !== 'string') continue;
    const row = await (rowLoader(ctx, type, id) ?? Promise.resolve(null)).catch(() => null);
    if (row?.organizationId) return row.organizationId;
  }
  return null;
}

/** Every mutation's name: the actions events can carry (besides the token ones). */
export let mutationActions: string[] = [];

/** Wraps every field of the Mutation type (once per schema): see the top of this file. */
export function auditMutations(schema: GraphQLSchema) {
  const mutation = schema.getMutationType();
  if (!mutation || (mutation as { __audited?: boolean }).__audited) return;
  (mutation as { __audited?: boolean }).__audited = true;
  mutationActions = Object.keys(mutation.getFields()).sort();
  for (const field of Object.values(mutation.getFields())) {
    const resolve = field.resolve ?? defaultFieldResolver;
    const named = getNamedType(field.type);
    const returnType = isObjectType(named) ? named.name : null;
    field.resolve = async (root, args, ctx: Context, info) => {
      const changed = changedContent(field.name, args);
      // Loaded with (in the same batch as) the permission check's own load of the row: the row before the write.
      const beforeRow = changed ? (rowLoader(ctx, changed.type, changed.id)?.catch(() => null) ?? null) : null;
      let result: unknown;
      try {
        result = await resolve(root, args, ctx, info);
      } finally {
        // Every mutation, done or failed, moves this process's write epoch (src/write-epoch.ts): caches of reads see it at once.
        noteWrite();
      }
      if (result !== false) await recordMutation(ctx, field.name, returnType, args, result, beforeRow);
      return result;
    };
  }
}
