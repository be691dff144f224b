import { beforeAll, describe, expect, it } from 'vitest';
import { restRoutes } from '../../src/modules/index.js';
import type { RestRoute } from '../../src/rest/route.js';
import { newId } from '../../src/ids.js';
import { setupHarness, type Harness, type TestUser, type World } from '../support/harness.js';

/**
 * Every DELETE route of the REST table, by one rule (src/auth/permissions.ts, and the services):
 * - what the caller cannot see, or what does not exist: 404, and the 404 for "exists in another
 *   organization" is the very answer for "never existed" (no existence oracle); nothing changes;
 * - what the caller can see but may not delete: 403, nothing changes;
 * - a deletion: 205 (comments: 204, as the seed says);
 * - the same DELETE again: 204 where the caller still sees the thing it was about (a soft-deleted
 *   space; a relation — grant, team or reviewer request, override, connection — whose resource and
 *   subject both remain), else 404.
 * The GraphQL mutation behind each route answers NOT_FOUND where REST answers 404.
 */
let h: Harness;
let w: World;
/** An admin of another organization: "outside the organization" at its strongest. */
let stranger: TestUser & { orgId: string };

beforeAll(async () => {
  h = await setupHarness();
  w = await h.world('Deletes');
  stranger = await h.owner('Elsewhere');
});

// ---------------------------------------------------------------------------------------------
// Fixtures: each makes one thing to delete, in w's organization.

async function ok(method: string, path: string, body: unknown, token = w.owner.token) {
  const r = await h.call(method, `/v1${path}`, { token, body });
  expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
  return r.body;
}
const space = () => ok('POST', `/orgs/${w.orgId}/spaces`, { title: 'Docs' });
const site = () => ok('POST', `/orgs/${w.orgId}/sites`, { title: 'Site' });
const changeRequest = async () => {
  const s = await space();
  return { space: s, cr: await ok('POST', `/spaces/${s.id}/change-requests`, { subject: 'Edits' }) };
};
const comment = (base: string) => ok('POST', `${base}/comments`, { body: { markdown: 'Note' } });
const reply = (base: string, commentId: string) => ok('POST', `${base}/comments/${commentId}/replies`, { body: { markdown: 'Answer' } });
const team = async () => (await h.db.prisma.team.create({ data: { id: newId(), organizationId: w.orgId, title: `Team ${newId(4)}` } })).id;
const member = async (role: string | null = 'read') => {
  const u = await h.user();
  await h.addMember(w.orgId, u.id, role);
  return u;
};
const p = () => h.db.prisma;

interface Made {
  /** The route's path parameters. */
  params: Record<string, string>;
  /** Whether the thing the DELETE is about is still there. */
  exists: () => Promise<boolean>;
}

interface DeleteCase {
  make: () => Promise<Made>;
  /** Who deletes it (default: the organization's admin). */
  actor?: () => TestUser;
  /** A member who sees it but may not delete it (403). */
  refused?: () => TestUser;
  /** The answer to a deletion (default 205). */
  deleted?: 204 | 205;
  /** The answer to the same DELETE again. */
  again: 204 | 404;
  /** The answer when the last parameter names nothing (default 404). */
  missing?: 204 | 404;
}

const CASES: Record<string, DeleteCase> = {
  removeMemberFromOrganizationById: {
    make: async () => {
      const u = await member();
      return {
        params: { organizationId: w.orgId, userId: u.id },
        exists: async () =>
          !!(await p().member.findUnique({ where: { organizationId_userId: { organizationId: w.orgId, userId: u.id } } })),
      };
    },
    refused: () => w.reader,
    again: 404,
  },
  deleteSpaceById: {
    make: async () => {
      const s = await space();
      return {
        params: { spaceId: s.id },
        exists: async () => (await p().space.findUniqueOrThrow({ where: { id: s.id } })).deletedAt === null,
      };
    },
    refused: () => w.reader,
    // Soft-deleted: its admin still sees it (restorable), so deleting it again is "already deleted".
    again: 204,
  },
  deleteCollectionById: {
    make: async () => {
      const c = await ok('POST', `/orgs/${w.orgId}/collections`, { title: 'Guides' });
      return { params: { collectionId: c.id }, exists: async () => !!(await p().collection.findUnique({ where: { id: c.id } })) };
    },
    refused: () => w.reader,
    again: 404,
  },
  deleteCommentInSpace: {
    make: async () => {
      const s = await space();
      const c = await comment(`/spaces/${s.id}`);
      return { params: { spaceId: s.id, commentId: c.id }, exists: async () => !!(await p().comment.findUnique({ where: { id: c.id } })) };
    },
    refused: () => w.reader,
    // The seed: 204 for a deletion, also when the comment (of a space the caller sees) did not exist.
    deleted: 204,
    again: 204,
    missing: 204,
  },
  deleteCommentReplyInSpace: {
    make: async () => {
      const s = await space();
      const c = await comment(`/spaces/${s.id}`);
      const r = await reply(`/spaces/${s.id}`, c.id);
      return {
        params: { spaceId: s.id, commentId: c.id, commentReplyId: r.id },
        exists: async () => !!(await p().commentReply.findUnique({ where: { id: r.id } })),
      };
    },
    refused: () => w.reader,
    again: 404,
  },
  deleteCommentInChangeRequest: {
    make: async () => {
      const { space: s, cr } = await changeRequest();
      const c = await comment(`/spaces/${s.id}/change-requests/${cr.id}`);
      return {
        params: { spaceId: s.id, changeRequestId: cr.id, commentId: c.id },
        exists: async () => !!(await p().comment.findUnique({ where: { id: c.id } })),
      };
    },
    refused: () => w.reader,
    deleted: 204,
    again: 204,
    missing: 204,
  },
  deleteCommentReplyInChangeRequest: {
    make: async () => {
      const { space: s, cr } = await changeRequest();
      const base = `/spaces/${s.id}/change-requests/${cr.id}`;
      const c = await comment(base);
      const r = await reply(base, c.id);
      return {
        params: { spaceId: s.id, changeRequestId: cr.id, commentId: c.id, commentReplyId: r.id },
        exists: async () => !!(await p().commentReply.findUnique({ where: { id: r.id } })),
      };
    },
    refused: () => w.reader,
    again: 404,
  },
  removeRequestedReviewerFromChangeRequest: {
    make: async () => {
      const { space: s, cr } = await changeRequest();
      const row = await p().changeRequest.findFirstOrThrow({ where: { spaceId: s.id } });
      await p().requestedReviewer.create({
        data: { changeRequestId: row.id, userId: w.creator.id, requestedById: w.owner.id, revisionId: row.revisionId },
      });
      return {
        params: { spaceId: s.id, changeRequestId: cr.id, userId: w.creator.id },
        exists: async () =>
          !!(await p().requestedReviewer.findUnique({
            where: { changeRequestId_userId: { changeRequestId: row.id, userId: w.creator.id } },
          })),
      };
    },
    refused: () => w.reader,
    again: 204,
  },
  removeTeamFromOrganizationById: {
    make: async () => {
      const id = await team();
      return { params: { organizationId: w.orgId, teamId: id }, exists: async () => !!(await p().team.findUnique({ where: { id } })) };
    },
    refused: () => w.reader,
    again: 404,
  },
  deleteMemberFromOrganizationTeamById: {
    make: async () => {
      const id = await team();
      const u = await member();
      await p().teamMember.create({ data: { teamId: id, organizationId: w.orgId, userId: u.id } });
      return {
        params: { organizationId: w.orgId, teamId: id, userId: u.id },
        exists: async () => !!(await p().teamMember.findFirst({ where: { teamId: id, userId: u.id } })),
      };
    },
    refused: () => w.reader,
    again: 204,
  },
  deleteOrganizationInviteById: {
    make: async () => {
      const invite = await ok('POST', `/orgs/${w.orgId}/link-invites`, { role: 'read' });
      const count = await p().inviteLink.count({ where: { organizationId: w.orgId } });
      return {
        params: { organizationId: w.orgId, inviteId: invite.id },
        exists: async () => (await p().inviteLink.count({ where: { organizationId: w.orgId } })) === count,
      };
    },
    refused: () => w.reader,
    again: 404,
  },
  'lectern:declineOrganizationInvitation': (() => {
    let invitee: TestUser;
    return {
      make: async () => {
        invitee = await h.user('Invitee');
        await p().organizationInvitation.create({ data: { id: newId(), organizationId: w.orgId, userId: invitee.id, role: 'read' } });
        return {
          params: { organizationId: w.orgId },
          exists: async () => !!(await p().organizationInvitation.findFirst({ where: { organizationId: w.orgId, userId: invitee.id } })),
        };
      },
      actor: () => invitee,
      again: 404,
    };
  })(),
  ...grantCases('Space', async () => (await space()).id, 'spaceId', 'userSpacePermission', 'teamSpacePermission'),
  ...grantCases(
    'Collection',
    async () => (await ok('POST', `/orgs/${w.orgId}/collections`, { title: 'Shared' })).id,
    'collectionId',
    'userCollectionPermission',
    'teamCollectionPermission',
  ),
  ...grantCases('Site', async () => (await site()).id, 'siteId', 'userSitePermission', 'teamSitePermission'),
  deleteOrganizationSAMLProvider: {
    make: async () => {
      const { id } = await p().samlProvider.create({
        data: {
          id: newId(),
          organizationId: w.orgId,
          label: 'IdP',
          entityID: 'https://idp.example.com',
          certificate: 'MIIC',
          ssoURL: 'https://idp.example.com/sso',
        },
      });
      return {
        params: { organizationId: w.orgId, samlProviderId: id },
        exists: async () => !!(await p().samlProvider.findUnique({ where: { id } })),
      };
    },
    refused: () => w.reader,
    again: 404,
  },
  deleteSiteById: {
    make: async () => {
      const s = await site();
      return {
        params: { organizationId: w.orgId, siteId: s.id },
        exists: async () => !!(await p().site.findUnique({ where: { id: s.id } })),
      };
    },
    refused: () => w.reader,
    again: 404,
  },
  deleteSiteSectionById: siteChild(
    'siteSectionId',
    async (siteId) => (await ok('POST', `/orgs/${w.orgId}/sites/${siteId}/sections`, { spaceId: (await space()).id })).id,
    (id) => p().siteSection.count({ where: { id } }),
  ),
  deleteSiteSectionGroupById: siteChild(
    'siteSectionGroupId',
    async (siteId) => (await ok('POST', `/orgs/${w.orgId}/sites/${siteId}/section-groups`, { title: 'Group' })).id,
    (id) => p().siteSectionGroup.count({ where: { id } }),
  ),
  deleteSiteExternalLinkById: siteChild(
    'siteExternalLinkId',
    async (siteId) => {
      // External links live among sections: the site needs one first.
      await ok('POST', `/orgs/${w.orgId}/sites/${siteId}/sections`, { spaceId: (await space()).id });
      return (await ok('POST', `/orgs/${w.orgId}/sites/${siteId}/external-links`, { title: 'Status', url: 'https://status.example.com/' }))
        .id;
    },
    (id) => p().siteExternalLink.count({ where: { id } }),
  ),
  deleteSiteSpaceById: siteChild(
    'siteSpaceId',
    async (siteId) => (await ok('POST', `/orgs/${w.orgId}/sites/${siteId}/site-spaces`, { spaceId: (await space()).id })).id,
    (id) => p().siteSpace.count({ where: { id } }),
  ),
  deleteSiteShareLinkById: siteChild(
    'shareLinkId',
    async (siteId) => (await ok('POST', `/orgs/${w.orgId}/sites/${siteId}/share-links`, { name: 'Partner' })).id,
    (id) => p().siteShareLink.count({ where: { id } }),
  ),
  deleteSiteRedirectById: siteChild(
    'siteRedirectId',
    async (siteId) =>
      (
        await p().siteRedirect.create({
          data: {
            id: newId(),
            siteId,
            source: `/old-${newId(4).toLowerCase()}`,
            destination: { kind: 'url', url: 'https://example.com/' },
          },
        })
      ).id,
    (id) => p().siteRedirect.count({ where: { id } }),
  ),
  removeSectionFromGroup: {
    make: async () => {
      const s = await site();
      const base = `/orgs/${w.orgId}/sites/${s.id}`;
      const section = await ok('POST', `${base}/sections`, { spaceId: (await space()).id });
      const group = await ok('POST', `${base}/section-groups`, { title: 'Group' });
      await ok('POST', `${base}/section-groups/${group.id}/sections`, { sectionId: section.id });
      return {
        params: { organizationId: w.orgId, siteId: s.id, siteSectionGroupId: group.id, siteSectionId: section.id },
        exists: async () => (await p().siteSection.findUniqueOrThrow({ where: { id: section.id } })).sectionGroupId === group.id,
      };
    },
    refused: () => w.reader,
    // The section and the group remain: the section is already out of the group.
    again: 204,
  },
  removeCustomHostname: {
    make: async () => {
      const s = await site();
      const hostname = `docs-${newId(6).toLowerCase()}.example.com`;
      await p().hostnameClaim.create({ data: { siteId: s.id, hostname, token: newId() } });
      return { params: { hostname }, exists: async () => !!(await p().hostnameClaim.findUnique({ where: { siteId: s.id } })) };
    },
    refused: () => w.reader,
    again: 404,
  },
  deleteSiteSpaceCustomizationById: {
    make: async () => {
      const s = await site();
      const ss = await ok('POST', `/orgs/${w.orgId}/sites/${s.id}/site-spaces`, { spaceId: (await space()).id });
      await p().siteSpaceCustomization.create({ data: { siteSpaceId: ss.id, override: {} } });
      return {
        params: { organizationId: w.orgId, siteId: s.id, siteSpaceId: ss.id },
        exists: async () => !!(await p().siteSpaceCustomization.findUnique({ where: { siteSpaceId: ss.id } })),
      };
    },
    refused: () => w.reader,
    // The site space remains, without an override of its own.
    again: 204,
  },
  deleteOpenAPISpecBySlug: {
    make: async () => {
      const slug = `api-${newId(6).toLowerCase()}`;
      await p().openAPISpec.create({ data: { id: newId(), organizationId: w.orgId, slug } });
      return {
        params: { organizationId: w.orgId, specSlug: slug },
        exists: async () => !!(await p().openAPISpec.findFirst({ where: { organizationId: w.orgId, slug } })),
      };
    },
    refused: () => w.reader,
    again: 404,
  },
  deleteTranslation: {
    make: async () => {
      const s = await space();
      const { id } = await p().translation.create({
        data: { id: newId(), organizationId: w.orgId, sourceSpaceId: s.id, sourceLanguage: 'en', language: 'fr' },
      });
      return {
        params: { organizationId: w.orgId, translationId: id },
        exists: async () => !!(await p().translation.findUnique({ where: { id } })),
      };
    },
    refused: () => w.reader,
    again: 404,
  },
  'lectern:disconnectSpaceGitSync': {
    make: async () => {
      const s = await space();
      await p().gitSyncConnection.create({ data: { spaceId: s.id, url: 'https://git.example.com/docs.git' } });
      return { params: { spaceId: s.id }, exists: async () => !!(await p().gitSyncConnection.findUnique({ where: { spaceId: s.id } })) };
    },
    refused: () => w.reader,
    // The space remains, no longer connected.
    again: 204,
  },
};

/** A thing inside a site, deleted by its id (the last parameter). */
function siteChild(idParam: string, create: (siteId: string) => Promise<string>, count: (id: string) => Promise<number>): DeleteCase {
  return {
    make: async () => {
      const s = await site();
      const id = await create(s.id);
      return { params: { organizationId: w.orgId, siteId: s.id, [idParam]: id }, exists: async () => (await count(id)) === 1 };
    },
    refused: () => w.reader,
    again: 404,
  };
}

/** removeUserFrom<Kind> and removeTeamFrom<Kind>: a grant of a member or team of the organization that stays. */
function grantCases(
  kind: 'Space' | 'Collection' | 'Site',
  create: () => Promise<string>,
  param: string,
  userTable: string,
  teamTable: string,
): Record<string, DeleteCase> {
  const resourceParams = (id: string): Record<string, string> =>
    kind === 'Site' ? { organizationId: w.orgId, siteId: id } : { [param]: id };
  const table = (name: string) => (p() as any)[name];
  return {
    [`removeUserFrom${kind}`]: {
      make: async () => {
        const id = await create();
        const u = await member(null);
        await table(userTable).create({ data: { [param]: id, organizationId: w.orgId, userId: u.id, role: 'edit' } });
        return {
          params: { ...resourceParams(id), userId: u.id },
          exists: async () => (await table(userTable).count({ where: { [param]: id, userId: u.id } })) === 1,
        };
      },
      refused: () => w.reader,
      again: 204,
    },
    [`removeTeamFrom${kind}`]: {
      make: async () => {
        const id = await create();
        const t = await team();
        await table(teamTable).create({ data: { [param]: id, teamId: t, role: 'edit' } });
        return {
          params: { ...resourceParams(id), teamId: t },
          exists: async () => (await table(teamTable).count({ where: { [param]: id, teamId: t } })) === 1,
        };
      },
      refused: () => w.reader,
      again: 204,
    },
  };
}

// ---------------------------------------------------------------------------------------------

const DELETE_ROUTES = restRoutes.filter((r) => r.method === 'DELETE');
const pathOf = (route: RestRoute, params: Record<string, string>) =>
  `/v1${route.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name]!))}`;
const lastParam = (route: RestRoute) => [...route.path.matchAll(/:(\w+)/g)].at(-1)![1]!;
const missingValue = (name: string) => (name === 'hostname' ? `missing-${newId(6).toLowerCase()}.example.com` : newId());

/** The route's GraphQL operation, as the REST adapter runs it, straight on /graphql. */
async function viaGraphQL(route: RestRoute, params: Record<string, string>, token: string) {
  const variables = route.variables?.({ params, query: {}, queryLists: {}, body: {} }) ?? {};
  return (await h.graphql(token, route.document, variables)).body;
}

const notFoundBody = { error: { code: 404, message: expect.stringMatching(/not found$/) } };

it('every DELETE route of the REST table has its case here', () => {
  expect(DELETE_ROUTES.map((r) => r.operationId).sort()).toEqual(Object.keys(CASES).sort());
});

describe.each(DELETE_ROUTES.map((route) => [route.operationId, route] as const))('%s', (operationId, route) => {
  const c = CASES[operationId]!;
  const actor = () => c.actor?.() ?? w.owner;

  it('an outsider gets the 404 of an id that never existed, and nothing changes', async () => {
    const made = await c.make();
    const missing = { ...made.params, [lastParam(route)]: missingValue(lastParam(route)) };
    const seen = await h.call('DELETE', pathOf(route, made.params), { token: stranger.token });
    const never = await h.call('DELETE', pathOf(route, missing), { token: stranger.token });
    expect(seen.status).toBe(404);
    expect(seen.body).toEqual(notFoundBody);
    expect(seen.body).toEqual(never.body);
    expect(await made.exists()).toBe(true);
    const gql = await viaGraphQL(route, made.params, stranger.token);
    expect(gql.errors?.map((e: any) => e.extensions?.code)).toEqual(['NOT_FOUND']);
    expect(gql.errors[0].message).toBe(seen.body.error.message);
    expect(await made.exists()).toBe(true);
  });

  it(`an id that names nothing: ${c.missing ?? 404}`, async () => {
    const made = await c.make();
    const missing = { ...made.params, [lastParam(route)]: missingValue(lastParam(route)) };
    const res = await h.call('DELETE', pathOf(route, missing), { token: actor().token });
    expect(res.status).toBe(c.missing ?? 404);
    if (c.missing === 204) expect(res.body).toBeUndefined();
    else expect(res.body).toEqual(notFoundBody);
    expect(await made.exists()).toBe(true);
  });

  it.runIf(c.refused)('a member who sees it but may not delete it: 403, and nothing changes', async () => {
    const made = await c.make();
    const res = await h.call('DELETE', pathOf(route, made.params), { token: c.refused!().token });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: { code: 403, message: expect.any(String) } });
    expect(await made.exists()).toBe(true);
  });

  it(`deleting: ${c.deleted ?? 205} and gone; again: ${c.again}; GraphQL agrees`, async () => {
    const made = await c.make();
    // Official operations are checked against their documented answers; Lectern's own are not in those descriptions.
    const send = operationId.startsWith('lectern:')
      ? h.call
      : (m: string, path: string, o: { token: string }) => h.rest(operationId, m, path, o);
    const first = await send('DELETE', pathOf(route, made.params), { token: actor().token });
    expect(first.status).toBe(c.deleted ?? 205);
    expect(first.body).toBeUndefined();
    expect(await made.exists()).toBe(false);
    const again = await h.call('DELETE', pathOf(route, made.params), { token: actor().token });
    expect(again.status).toBe(c.again);
    if (c.again === 404) expect(again.body).toEqual(notFoundBody);
    else expect(again.body).toBeUndefined();
    const gql = await viaGraphQL(route, made.params, actor().token);
    if (c.again === 404) expect(gql.errors?.map((e: any) => e.extensions?.code)).toEqual(['NOT_FOUND']);
    else {
      expect(gql.errors).toBeUndefined();
      expect(Object.values(gql.data)).toEqual([false]);
    }
  });
});
