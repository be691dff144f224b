import { parse, type OperationDefinitionNode } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.js';
import { restRoutes } from '../../src/modules/index.js';
import { hashSecret } from '../../src/secrets.js';
import { setupHarness, type Harness, type World } from '../support/harness.js';

/**
 * The audit walk: it walks the route table and fails for a write route that records nothing, so a
 * new write cannot escape the audit log. Two parts:
 * 1. Every REST write route runs a GraphQL mutation, and every such mutation field is a field of the
 *    audited Mutation type (the one recording place wraps them all: src/modules/audit/record.ts). A
 *    write route that ran anything else would record nothing: it fails here unless it is a known
 *    read served by POST.
 * 2. A table of write routes across the modules, called for real: each success appends exactly one
 *    event with the right action and target; the same write refused (a reader) appends none.
 */
let h: Harness;
let w: World;
const ids: Record<string, string> = {};

beforeAll(async () => {
  // The harness builds the app, which installs the modules (and wraps the Mutation type).
  h = await setupHarness();
  w = await h.world('Walked Org');
});

/** Reads served by POST (a body too large for a query string): they write nothing. */
const READS_BY_POST = new Set([
  'getComputedRevision',
  'getComputedDocument',
  'searchSiteContent',
  'aggregateSiteEvents',
  'resolvePublishedContentByUrl',
]);

const mutationFields = (document: string) =>
  parse(document)
    .definitions.filter((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition' && d.operation === 'mutation')
    .flatMap((op) => op.selectionSet.selections.flatMap((s) => (s.kind === 'Field' ? [s.name.value] : [])));

describe('every REST write route runs an audited mutation', () => {
  it('walks the route table', async () => {
    const mutation = schema.getMutationType()!;
    expect((mutation as { __audited?: boolean }).__audited).toBe(true);
    const fields = mutation.getFields();
    const writes = restRoutes.filter((r) => r.method !== 'GET');
    const unrecorded: string[] = [];
    let walked = 0;
    for (const route of writes) {
      const names = mutationFields(route.document);
      if (names.length === 0) {
        if (!READS_BY_POST.has(route.operationId)) unrecorded.push(`${route.method} ${route.path} (${route.operationId}) runs no mutation`);
        continue;
      }
      for (const name of names) {
        walked++;
        if (!fields[name]) unrecorded.push(`${route.method} ${route.path}: ${name} is not a Mutation field`);
      }
    }
    expect(unrecorded).toEqual([]);
    expect(walked).toBeGreaterThan(100);
  });
});

// ---------------------------------------------------------------------------------------------
interface Row {
  action: string;
  method: string;
  path: () => string;
  body?: () => unknown;
  status: number;
  /** The event's target: its type and id (`created`: the id the answer gives). */
  target: [string, string | ((body: any) => string)];
  /** Kept for later rows. */
  save?: (body: any) => void;
  /** Who is refused (default: the organization's reader). */
  refused?: () => string;
}

const created = (body: any) => body.id as string;

const ROWS: Row[] = [
  {
    action: 'createSpace',
    method: 'POST',
    path: () => `/v1/orgs/${w.orgId}/spaces`,
    body: () => ({ title: 'Walked' }),
    status: 201,
    target: ['space', created],
    save: (b) => (ids.space = b.id),
  },
  {
    action: 'updateSpace',
    method: 'PATCH',
    path: () => `/v1/spaces/${ids.space}`,
    body: () => ({ title: 'Walked on' }),
    status: 200,
    target: ['space', () => ids.space!],
  },
  {
    action: 'createCollection',
    method: 'POST',
    path: () => `/v1/orgs/${w.orgId}/collections`,
    body: () => ({ title: 'Shelf' }),
    status: 201,
    target: ['collection', created],
    save: (b) => (ids.collection = b.id),
  },
  {
    action: 'updateCollection',
    method: 'PATCH',
    path: () => `/v1/collections/${ids.collection}`,
    body: () => ({ description: 'Books' }),
    status: 200,
    target: ['collection', () => ids.collection!],
  },
  {
    action: 'createChangeRequest',
    method: 'POST',
    path: () => `/v1/spaces/${ids.space}/change-requests`,
    body: () => ({ subject: 'Edits' }),
    status: 201,
    target: ['change-request', created],
    save: (b) => (ids.cr = b.id),
  },
  {
    action: 'mergeChangeRequest',
    method: 'POST',
    path: () => `/v1/spaces/${ids.space}/change-requests/${ids.cr}/merge`,
    status: 200,
    target: ['change-request', () => ids.cr!],
  },
  {
    action: 'postComment',
    method: 'POST',
    path: () => `/v1/spaces/${ids.space}/comments`,
    body: () => ({ body: { markdown: 'Nice' } }),
    status: 200,
    target: ['comment', created],
    save: (b) => (ids.comment = b.id),
    refused: () => w.guest.token,
  },
  {
    action: 'updateComment',
    method: 'PUT',
    path: () => `/v1/spaces/${ids.space}/comments/${ids.comment}`,
    body: () => ({ body: { markdown: 'Nicer' } }),
    status: 200,
    target: ['comment', () => ids.comment!],
  },
  {
    action: 'deleteComment',
    method: 'DELETE',
    path: () => `/v1/spaces/${ids.space}/comments/${ids.comment}`,
    status: 204,
    target: ['comment', () => ids.comment!],
  },
  {
    action: 'createSite',
    method: 'POST',
    path: () => `/v1/orgs/${w.orgId}/sites`,
    body: () => ({ title: 'Portal' }),
    status: 201,
    target: ['site', created],
    save: (b) => (ids.site = b.id),
  },
  {
    action: 'updateSite',
    method: 'PATCH',
    path: () => `/v1/orgs/${w.orgId}/sites/${ids.site}`,
    body: () => ({ title: 'Portal 2' }),
    status: 200,
    target: ['site', () => ids.site!],
  },
  {
    action: 'addSiteSpace',
    method: 'POST',
    path: () => `/v1/orgs/${w.orgId}/sites/${ids.site}/site-spaces`,
    body: () => ({ spaceId: ids.space }),
    status: 201,
    target: ['site-space', created],
  },
  {
    action: 'updateUserPermissionInSpace',
    method: 'PATCH',
    path: () => `/v1/spaces/${ids.space}/permissions/users/${w.guest.id}`,
    body: () => ({ role: 'edit' }),
    status: 204,
    target: ['space', () => ids.space!],
  },
  {
    action: 'removeUserFromSpace',
    method: 'DELETE',
    path: () => `/v1/spaces/${ids.space}/permissions/users/${w.guest.id}`,
    status: 205,
    target: ['space', () => ids.space!],
  },
  {
    action: 'inviteToCollection',
    method: 'POST',
    path: () => `/v1/collections/${ids.collection}/permissions`,
    body: () => ({ role: 'read', emails: ['walker@example.com'] }),
    status: 204,
    target: ['collection', () => ids.collection!],
  },
  {
    action: 'updateUserPermissionInSite',
    method: 'PATCH',
    path: () => `/v1/orgs/${w.orgId}/sites/${ids.site}/permissions/users/${w.guest.id}`,
    body: () => ({ role: 'read' }),
    status: 204,
    target: ['site', () => ids.site!],
  },
  // An invite link's code is its secret: its events name it by the row id (the code's hash).
  {
    action: 'createInviteLink',
    method: 'POST',
    path: () => `/v1/orgs/${w.orgId}/link-invites`,
    body: () => ({ role: 'read' }),
    status: 201,
    target: ['invite-link', (b) => hashSecret(b.id)],
  },
  {
    action: 'createTeam',
    method: 'PUT',
    path: () => `/v1/orgs/${w.orgId}/teams`,
    body: () => ({ title: 'Walkers' }),
    status: 201,
    target: ['team', created],
    save: (b) => (ids.team = b.id),
  },
  {
    action: 'setTeamMember',
    method: 'PUT',
    path: () => `/v1/orgs/${w.orgId}/teams/${ids.team}/members/${w.reader.id}`,
    body: () => ({}),
    status: 204,
    target: ['team', () => ids.team!],
  },
  {
    action: 'createOpenAPISpec',
    method: 'POST',
    path: () => `/v1/orgs/${w.orgId}/openapi`,
    body: () => ({ slug: 'walk', source: { text: 'openapi: 3.0.0\ninfo: { title: Walk, version: "1" }\npaths: {}\n' } }),
    status: 201,
    target: ['openapi-spec', created],
  },
  {
    action: 'updateSpaceGitSync',
    method: 'PATCH',
    path: () => `/v1/spaces/${ids.space}/git`,
    body: () => ({ pollSeconds: 0 }),
    status: 200,
    target: ['space', () => ids.space!],
  },
  { action: 'deleteSpace', method: 'DELETE', path: () => `/v1/spaces/${ids.space}`, status: 205, target: ['space', () => ids.space!] },
];

describe('a write appends exactly one event; a refused one none', () => {
  const eventIds = async () => new Set((await h.db.prisma.auditEvent.findMany({ select: { id: true } })).map((e) => e.id));

  it.each(ROWS.map((r) => [r.action, r] as const))('%s', async (_name, row) => {
    if (row.action === 'updateSpaceGitSync')
      await h.db.prisma.gitSyncConnection.create({ data: { spaceId: ids.space!, url: 'https://git.example.invalid/walk.git' } });
    const body = row.body?.();
    const before = await eventIds();
    const refused = await h.call(row.method, row.path(), { token: row.refused?.() ?? w.reader.token, body });
    expect(refused.status, `${row.action} refused: ${JSON.stringify(refused.body)}`).toBeGreaterThanOrEqual(400);
    expect((await eventIds()).size).toBe(before.size);

    const res = await h.call(row.method, row.path(), { token: w.owner.token, body });
    expect(res.status, `${row.action}: ${JSON.stringify(res.body)}`).toBe(row.status);
    row.save?.(res.body);
    const events = (await h.db.prisma.auditEvent.findMany()).filter((e) => !before.has(e.id));
    expect(events).toHaveLength(1);
    const [type, id] = row.target;
    expect(events[0]).toMatchObject({
      action: row.action,
      actorId: w.owner.id,
      organizationId: w.orgId,
      source: 'rest',
      targetType: type,
      targetId: typeof id === 'function' ? id(res.body) : id,
    });
  });
});
