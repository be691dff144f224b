import DataLoader from 'dataloader';
import type { Context } from '../context.js';
import { perRequest } from '../loaders.js';
import { forbidden, notFound } from '../errors.js';
import type { Collection, Member, Organization, Site, Space } from '../generated/prisma/client.js';
import { atLeast, higher, isRole, ROLES, type RoleName } from './roles.js';
import { accessRows, contentRoleKey, contentRoleRows, ROLE_ARRAY, type ContentRoleRow } from './access-rows.js';
import { batched } from '../loaders.js';
import { columnsOf, prepared, selectRows } from '../db/rows.js';

/**
 * The one permission module. Every `permissions` object and every guard is computed here.
 *
 * - Organization: the caller's membership role (null = guest). Non-members cannot see it (404).
 * - Collection and space: THE RULE. The effective role is the highest of
 *   1. the organization role when it is `admin` (admin everywhere);
 *   2. the default level, for members who are not guests: the content's `defaultLevel`, or when it
 *      is `inherit` its parent collection's, and so on up; the nearest explicit one decides (a role
 *      for every non-guest member, or null: no access by default); `inherit` all the way up is the
 *      member's organization role;
 *   3. grants: the member's own and each of their teams' roles on the space and on every collection
 *      above it (src/modules/permissions), guests included: a guest sees only what was granted;
 *   4. `read` on public and unlisted spaces, for any signed-in caller.
 *   A non-member (or a membership set aside by SSO, or disabled) has only 4. The default and grant
 *   parts are read in one statement per batch of resources (`contentRoleRows`: a recursive CTE up
 *   the collection chain joined with the grants); lists filter in the database (`visibleContentFilter`).
 * - Site: the highest of the organization role (non-guest members) and the member's and their
 *   teams' grants on the site; every member reads sites; changing one needs SITE_WRITE_ROLE.
 * - A caller who cannot even read a resource gets 404 (its existence is not revealed); one who can
 *   read but lacks the needed role gets 403.
 * - Single sign-on can set a membership aside for a request (`ssoBarrier` below).
 * - A site token (src/auth/site-token.ts, the session's `siteScope`) counts as no member anywhere
 *   and reads exactly the spaces its site publishes (while the site is published) and the site's
 *   published profile: `scopedSpaceIds`, `inSiteScope`.
 */

/**
 * What a rule below still needs read before it can answer: the `…Now` forms decide from the rows
 * this request has loaded so far (the loaders' `now`) and name what is missing; `answer` reads it
 * and asks again. One rule, answered synchronously when everything is loaded (a listed space's
 * permissions: no promise per item) and by reading otherwise.
 */
class Needs {
  constructor(readonly load: () => Promise<unknown>) {}
}

async function answer<T>(now: () => T | Needs): Promise<T> {
  for (;;) {
    const value = now();
    if (!(value instanceof Needs)) return value;
    await value.load();
  }
}

/** The caller's membership in an organization as single sign-on lets the request use it (null: none). */
function activeMembershipNow(ctx: Context, organizationId: string): Member | null | Needs {
  if (ctx.session.siteScope) return null;
  const memberships = accessRows(ctx).callerMembership;
  const member = memberships.now(organizationId);
  if (member === undefined) return new Needs(() => memberships.load(organizationId));
  if (!member || member.disabled) return null;
  const barrier = ssoBarrierNow(ctx, organizationId, member);
  return barrier instanceof Needs ? barrier : barrier ? null : member;
}

const activeMembership = (ctx: Context, organizationId: string) => answer(() => activeMembershipNow(ctx, organizationId));

type Barrier = 'other-organization' | 'sso-required' | null;

/**
 * Single sign-on (src/modules/sso) decides which memberships a request may use:
 * - a token issued by an organization's SAML sign-in reaches only that organization: anywhere else
 *   its holder counts as a non-member ('other-organization');
 * - in an organization with `sso: true`, a member who is not an admin counts as a non-member
 *   unless the token was issued by that organization's SAML sign-in ('sso-required'). Admins keep
 *   access with any token, so turning SSO on (or repairing a broken identity provider) cannot lock
 *   an organization out.
 */
function ssoBarrierNow(ctx: Context, organizationId: string, member: Pick<Member, 'role'>): Barrier | Needs {
  const scope = ctx.session.ssoOrganizationId;
  if (scope !== null) return scope === organizationId ? null : 'other-organization';
  if (member.role === 'admin') return null;
  const organizations = accessRows(ctx).organization;
  const org = organizations.now(organizationId);
  if (org === undefined) return new Needs(() => organizations.load(organizationId));
  return org?.sso ? 'sso-required' : null;
}

export const ssoBarrier = (ctx: Context, organizationId: string, member: Pick<Member, 'role'>): Promise<Barrier> =>
  answer(() => ssoBarrierNow(ctx, organizationId, member));

/** What a caller who cannot see a resource of an organization gets: 404, or 403 when only single sign-on stands in the way. */
async function hidden(ctx: Context, organizationId: string, what: string) {
  const member = await accessRows(ctx).callerMembership.load(organizationId);
  if (member && !member.disabled && (await ssoBarrier(ctx, organizationId, member)) === 'sso-required') {
    return forbidden(
      `This organization requires single sign-on: sign in through its identity provider (GET /v1/orgs/${organizationId}/sso lists the start URLs)`,
    );
  }
  return notFound(what);
}

/** The caller's role in an organization; undefined when not a member at all. */
function orgRoleNow(ctx: Context, organizationId: string): RoleName | null | undefined | Needs {
  const member = activeMembershipNow(ctx, organizationId);
  return member instanceof Needs ? member : member ? (member.role as RoleName | null) : undefined;
}

export const orgRole = (ctx: Context, organizationId: string): Promise<RoleName | null | undefined> =>
  answer(() => orgRoleNow(ctx, organizationId));

/**
 * Whether the caller may see a user (getUserById): themself, or a member (disabled ones too) of an
 * organization whose members the caller may list — an active, non-guest member there, past single
 * sign-on's barrier. Anyone else is a 404, so a user's existence does not leak across organizations.
 */
export async function canSeeUser(ctx: Context, userId: string): Promise<boolean> {
  if (userId === ctx.caller.id) return true;
  const shared = await ctx.prisma.member.findMany({
    where: { userId, organization: { members: { some: { userId: ctx.caller.id, disabled: false, role: { not: null } } } } },
    select: { organizationId: true },
  });
  const roles = await Promise.all(shared.map((m) => orgRole(ctx, m.organizationId)));
  return roles.some((role) => role != null);
}

/** What `contentRole` needs of a space or collection row (the id alone: the statement reads the rest). */
type ContentRef = string | { id: string; organizationId: string; parentId: string | null; defaultLevel: string | null };

/** THE RULE (see the top of this file) for a user whose organization role is `role` (undefined: no member). */
function contentRoleNow(
  ctx: Context,
  kind: 's' | 'c',
  ref: ContentRef,
  userId: string | null,
  role: RoleName | null | undefined,
): RoleName | null | Needs {
  if (role === undefined) return null;
  if (role === 'admin') return 'admin';
  // Already known from the organization's tree, read for a list in this request: no statement.
  const known = typeof ref === 'string' ? null : fromTree(ctx, kind, ref, userId ?? '');
  if (known) return higher(role == null ? null : defaultOf(known.level, role), known.grant);
  // Without a user, the default level alone (no grants: someone whose grants are not asked for),
  // which gives a guest nothing.
  if (userId === null && role === null) return null;
  const key = contentRoleKey(userId ?? '', kind, typeof ref === 'string' ? ref : ref.id);
  const rows = contentRoleRows(ctx);
  const row = rows.now(key);
  if (row === undefined) return new Needs(() => rows.load(key));
  const byDefault = role == null ? null : defaultOf(row.level, role);
  return userId === null ? byDefault : higher(byDefault, row.grant);
}

/**
 * Starts reading the caller's rule inputs for these spaces or collections now, in one batch with
 * whatever else is primed in this tick (`nodes(ids:)` primes every space and collection it was
 * asked for). The later `contentRole` of each finds them loaded. An admin needs none of them: the
 * one statement is then spent for nothing, the price of not knowing the organization yet.
 */
export function primeContentRoles(ctx: Context, kind: 's' | 'c', ids: readonly string[]): void {
  for (const id of ids)
    void contentRoleRows(ctx)
      .load(contentRoleKey(ctx.caller.id, kind, id))
      .catch(() => undefined);
}

/** THE RULE for any member of the organization (their role `role`; null: a guest), grants included. */
export const contentRoleOf = (ctx: Context, kind: 's' | 'c', id: string, userId: string, role: RoleName | null | undefined) =>
  answer(() => contentRoleNow(ctx, kind, id, userId, role));

/**
 * An organization's collection tree as `contentFilterOfOrgRole` read it for one user (this
 * request): each collection's resolved default level and the highest grant of the user and their
 * teams on it or above (a rank in ROLES, 1-based), and the user's grants on spaces. The rows the
 * rule needs for every space and collection of that organization, so the permissions of listed
 * items cost no statement of their own (the list's filter has read them already).
 */
interface OrgTree {
  collections: Map<string, { level: string | null; g: number | null }>;
  spaceGrants: Map<string, number>;
}
const orgTrees = perRequest((_ctx: Context) => new Map<string, OrgTree>());
const rankRole = (rank: number | null | undefined): RoleName | null => (rank ? (ROLES[rank - 1] ?? null) : null);
const levelOf = (level: string | null): ContentRoleRow['level'] =>
  level === null ? 'none' : level === 'inherit' || isRole(level) ? level : 'none';

/** THE RULE's inputs from a tree read in this request, or null when none was (or the row's parent is not in it). */
function fromTree(ctx: Context, kind: 's' | 'c', row: Exclude<ContentRef, string>, userId: string): ContentRoleRow | null {
  const tree = orgTrees(ctx).get(`${row.organizationId}\u0000${userId}`);
  if (!tree) return null;
  if (kind === 'c') {
    const c = tree.collections.get(row.id);
    return c ? { level: levelOf(c.level), grant: rankRole(c.g) } : null;
  }
  const parent = row.parentId === null ? null : tree.collections.get(row.parentId);
  if (parent === undefined) return null;
  const level = row.defaultLevel !== 'inherit' ? levelOf(row.defaultLevel) : parent ? levelOf(parent.level) : 'inherit';
  return { level, grant: higher(rankRole(tree.spaceGrants.get(row.id)), rankRole(parent?.g)) };
}

const defaultOf = (level: ContentRoleRow['level'], role: RoleName): RoleName | null =>
  level === 'inherit' ? role : level === 'none' ? null : level;

export const collectionRole = (ctx: Context, collection: Collection): Promise<RoleName | null> =>
  answer(() => {
    const role = orgRoleNow(ctx, collection.organizationId);
    return role instanceof Needs ? role : contentRoleNow(ctx, 'c', collection, ctx.caller.id, role);
  });

/**
 * A revision of a space the caller may read is readable too, except through a site token
 * (`siteScope`): that reads what the site publishes, each space's current revision, not the
 * space's history or its change requests' revisions (content removed before it was published
 * stays unpublished). A renderer that resolved a URL just before a merge meets a 404 for the
 * revision it was given, and resolves again.
 */
export async function requireRevisionReadable(ctx: Context, spaceId: string, revisionId: string): Promise<void> {
  if (!ctx.session.siteScope) return;
  const space = await accessRows(ctx).space.load(spaceId);
  if (!space || space.revisionId !== revisionId) throw notFound('Revision');
}

function spaceRoleNow(ctx: Context, space: Space): RoleName | null | Needs {
  const role = orgRoleNow(ctx, space.organizationId);
  return role instanceof Needs ? role : spaceRoleOfOrgRoleNow(ctx, role, space, ctx.caller.id);
}

export async function spaceRole(ctx: Context, space: Space): Promise<RoleName | null> {
  if (ctx.session.siteScope) return (await scopedSpaceIds(ctx)).has(space.id) ? 'read' : null;
  return answer(() => spaceRoleNow(ctx, space));
}

/**
 * The caller's permissions on a space: the value itself when this request has loaded every row the
 * rule needs (a listed space, a space read with its access rows), else a promise of it.
 */
export function callerSpacePermissions(
  ctx: Context,
  space: Space,
): ReturnType<typeof spacePermissions> | Promise<ReturnType<typeof spacePermissions>> {
  // A site token's role comes from its site's published spaces, read once per request by `spaceRole`.
  if (ctx.session.siteScope) return spaceRole(ctx, space).then(spacePermissions);
  const role = spaceRoleNow(ctx, space);
  return role instanceof Needs ? spaceRole(ctx, space).then(spacePermissions) : spacePermissions(role);
}

/**
 * The role on a space of the user `userId` whose organization role is `role` (null: a guest;
 * undefined: no member): `spaceRole`'s rule, also used for a member other than the caller (their
 * space permissions). Without `userId` grants are left out.
 */
function spaceRoleOfOrgRoleNow(
  ctx: Context,
  role: RoleName | null | undefined,
  space: Space,
  userId: string | null,
): RoleName | null | Needs {
  const publicRead: RoleName | null = space.visibility === 'public' || space.visibility === 'unlisted' ? 'read' : null;
  const content = contentRoleNow(ctx, 's', space, userId, role);
  return content instanceof Needs ? content : higher(content, publicRead);
}

export const spaceRoleOfOrgRole = (ctx: Context, role: RoleName | null | undefined, space: Space, userId: string | null = null) =>
  answer(() => spaceRoleOfOrgRoleNow(ctx, role, space, userId));

/** The caller's grants on sites (their own and their teams'), one statement per batch of sites. */
const siteGrants = perRequest((ctx: Context) =>
  batched<string, RoleName | null>(async (siteIds) => {
    const { rows } = await ctx.db.pool.query<{ id: string; role: string }>(
      `SELECT g."siteId" AS id, g.role::text AS role FROM "UserSitePermission" g WHERE g."siteId" = ANY($1::text[]) AND g."userId" = $2
       UNION ALL
       SELECT g."siteId", g.role::text FROM "TeamSitePermission" g JOIN "TeamMember" tm ON tm."teamId" = g."teamId" AND tm."userId" = $2
        WHERE g."siteId" = ANY($1::text[])`,
      [siteIds, ctx.caller.id],
    );
    const map = new Map<string, RoleName | null>();
    for (const r of rows) if (isRole(r.role)) map.set(r.id, higher(map.get(r.id) ?? null, r.role));
    return map;
  }, null),
);

/** The caller's role on a site: undefined for a non-member; null for a guest without a grant. */
export async function siteRole(ctx: Context, site: Pick<Site, 'id' | 'organizationId'>): Promise<RoleName | null | undefined> {
  const role = await orgRole(ctx, site.organizationId);
  if (role === undefined) return undefined;
  if (role === 'admin') return 'admin';
  return higher(role, await siteGrants(ctx).load(site.id));
}

/** Whether the caller may read a space (what `requireSpace(…, 'read')` lets through), without refusing. */
export async function canReadSpace(ctx: Context, space: Space): Promise<boolean> {
  return atLeast(await spaceRole(ctx, space), 'read');
}

/** The organization, if the caller is a member with at least `min` (any member, guests included, for 'member'). */
export async function requireOrg(ctx: Context, organizationId: string, min: RoleName | 'member' = 'member'): Promise<Organization> {
  const [org, member] = await Promise.all([accessRows(ctx).organization.load(organizationId), activeMembership(ctx, organizationId)]);
  if (!org) throw notFound('Organization');
  if (!member) throw await hidden(ctx, organizationId, 'Organization');
  if (min !== 'member' && !atLeast(member.role as RoleName | null, min)) {
    throw forbidden(`You need the ${min} role in this organization to do this`);
  }
  return org;
}

export async function requireCollection(ctx: Context, collectionId: string, min: RoleName = 'read'): Promise<Collection> {
  const collection = await accessRows(ctx).collection.load(collectionId);
  if (!collection) throw notFound('Collection');
  const role = await collectionRole(ctx, collection);
  if (!role) throw await hidden(ctx, collection.organizationId, 'Collection');
  if (!atLeast(role, min)) throw forbidden(`You need the ${min} role on this collection to do this`);
  return collection;
}

/** A space the caller can see (deleted ones only with `deleted: true`), with at least `min`. */
export async function requireSpace(
  ctx: Context,
  spaceId: string,
  min: RoleName = 'read',
  opts: { deleted?: boolean } = {},
): Promise<Space> {
  const space = await accessRows(ctx).space.load(spaceId);
  if (!space || (space.deletedAt && !opts.deleted) || (!space.deletedAt && opts.deleted)) throw notFound('Space');
  const role = await spaceRole(ctx, space);
  if (!role) throw await hidden(ctx, space.organizationId, 'Space');
  if (!atLeast(role, min)) throw forbidden(`You need the ${min} role on this space to do this`);
  return space;
}

/**
 * Sites (docs sites: settings, structure, share links, adaptive schema) belong to an organization.
 * Any member (guests included) reads them; changing them needs the organization role that creates
 * content, `create` (or `admin`). A site the caller cannot see — an outsider, or a site of another
 * organization than the path's — is a 404; a member without the role gets 403. The secret keys of
 * share links (in their `urls.published`) are shown only to those who may change the site.
 * A site's published profile has its own audience: `publishedSiteAudience`.
 */
export const SITE_WRITE_ROLE: RoleName = 'create';

export async function requireSite(ctx: Context, organizationId: string, siteId: string, action: 'read' | 'write' = 'read'): Promise<Site> {
  await requireOrg(ctx, organizationId);
  const site = await accessRows(ctx).site.load(siteId);
  if (!site || site.organizationId !== organizationId) throw notFound('Site');
  if (action === 'write' && !atLeast(await siteRole(ctx, site), SITE_WRITE_ROLE)) {
    throw forbidden(`You need the ${SITE_WRITE_ROLE} role in this organization or on this site to do this`);
  }
  return site;
}

/** Whether the caller may change an organization's sites (and so see share-link keys). */
export async function canWriteSites(ctx: Context, organizationId: string): Promise<boolean> {
  return atLeast(await orgRole(ctx, organizationId), SITE_WRITE_ROLE);
}

/**
 * A site's `permissions` for a caller with `role` in its organization (undefined: not a member),
 * matching `requireSite`: every member reads a site and its adaptive schema; every change to it
 * (content structure, settings, publishing, the adaptive schema) needs SITE_WRITE_ROLE.
 */
export function sitePermissions(role: RoleName | null | undefined) {
  const member = role !== undefined;
  const write = atLeast(role, SITE_WRITE_ROLE);
  return {
    view: member,
    access: member,
    edit: write,
    create: write,
    admin: write,
    installIntegration: role === 'admin',
    viewAdaptiveSchema: member,
    editAdaptiveSchema: write,
  };
}

/**
 * Who sees a site's published profile: nobody while it is unpublished; then, by its visibility,
 * `public` and `unlisted`: every signed-in caller; `share-link`: members of the organization, and
 * anyone presenting the key of one of the site's active share links; `visitor-auth`: members only
 * (this server issues no visitor tokens). Anyone else gets 404, as for a site that does not exist.
 */
export function publishedSiteAudience(site: Site, caller: { member: boolean; activeShareKey: boolean }): boolean {
  if (!site.published) return false;
  switch (site.visibility) {
    case 'public':
    case 'unlisted':
      return true;
    case 'share-link':
      return caller.member || caller.activeShareKey;
    default:
      return caller.member;
  }
}

/** The spaces a site token's site publishes (none once it is unpublished or gone): one statement per request. */
const scopedSpaces = perRequest((ctx: Context) => {
  let ids: Promise<Set<string>> | undefined;
  return () =>
    (ids ??= ctx.db.pool
      .query<{ spaceId: string }>(
        `SELECT ss."spaceId" FROM "SiteSpace" ss JOIN "Site" s ON s.id = ss."siteId" WHERE s.id = $1 AND s."organizationId" = $2 AND s.published`,
        [ctx.session.siteScope?.siteId ?? '', ctx.session.siteScope?.organizationId ?? ''],
      )
      .then(({ rows }) => new Set(rows.map((r) => r.spaceId))));
});
export const scopedSpaceIds = (ctx: Context) => scopedSpaces(ctx)();

/** Whether the request holds a site token of this site (it then reads the site's published profile, as its audience). */
export const inSiteScope = (ctx: Context, site: Pick<Site, 'id' | 'organizationId'>) =>
  ctx.session.siteScope?.siteId === site.id && ctx.session.siteScope.organizationId === site.organizationId;

/**
 * OpenAPI specs (src/modules/openapi) belong to an organization: every member (guests included)
 * reads them and their versions; creating, updating, deleting them and changing their visibility
 * needs the organization role that `createOpenAPISpec` reports, `create` (or `admin`).
 */
export const OPENAPI_WRITE_ROLE: RoleName = 'create';

export function openAPISpecPermissions(role: RoleName | null | undefined) {
  return { view: role !== undefined, edit: atLeast(role, OPENAPI_WRITE_ROLE) };
}

export function organizationPermissions(role: RoleName | null | undefined) {
  const member = role !== undefined;
  const nonGuest = role != null;
  const admin = role === 'admin';
  return {
    view: member,
    access: member,
    admin,
    ownTeam: admin,
    createContent: atLeast(role, 'create'),
    createOpenAPISpec: atLeast(role, OPENAPI_WRITE_ROLE),
    ingestConversations: admin,
    viewBilling: admin,
    listMembers: nonGuest,
    listTeams: nonGuest,
    listIntegrations: nonGuest,
    listInstallations: admin,
    installIntegration: admin,
  };
}

export function collectionPermissions(role: RoleName | null) {
  return {
    view: atLeast(role, 'read'),
    admin: atLeast(role, 'admin'),
    viewInviteLinks: atLeast(role, 'admin'),
    create: atLeast(role, 'create'),
  };
}

export function spacePermissions(role: RoleName | null) {
  return {
    view: atLeast(role, 'read'),
    access: atLeast(role, 'read'),
    admin: atLeast(role, 'admin'),
    viewInviteLinks: atLeast(role, 'admin'),
    edit: atLeast(role, 'edit'),
    triggerGitSync: atLeast(role, 'edit'),
    comment: atLeast(role, 'comment'),
    merge: atLeast(role, 'review'),
    review: atLeast(role, 'review'),
    installIntegration: atLeast(role, 'admin'),
  };
}

/**
 * A comment or comment reply, for a caller with `role` on its space: whoever reads the space sees
 * it; the `comment` role is needed to post, reply, react and resolve; authors edit their own (while
 * they keep the `comment` role); authors and space admins delete.
 */
export function commentPermissions(role: RoleName | null, isAuthor: boolean) {
  const canComment = atLeast(role, 'comment');
  return {
    view: atLeast(role, 'read'),
    edit: isAuthor && canComment,
    reply: canComment,
    delete: (isAuthor && canComment) || atLeast(role, 'admin'),
  };
}

/** Refuses (403) a comment action the caller's `commentPermissions` do not allow. */
export function requireCommentAction(
  permissions: ReturnType<typeof commentPermissions>,
  action: 'edit' | 'reply' | 'delete',
  what = 'comment',
) {
  if (permissions[action]) return;
  const needs = {
    edit: `Only its author can edit this ${what}`,
    reply: 'You need the comment role on this space to do this',
    delete: `Only its author or a space admin can delete this ${what}`,
  };
  throw forbidden(needs[action]);
}

/**
 * `visibleContentFilter`'s space filter as SQL for a space row `s` of the organization, with a
 * constant text (so a list's statement can be prepared): its four values, from `first` on, are
 * the filter's `spacesSql`. Modes: `all` (an admin), `public` (a non-member: public and unlisted
 * spaces), `guest` and `member` (the rule: public, then defaults for members only, then grants),
 * `ids` (a site token: exactly those spaces). The same rows as the Prisma filter (a test compares).
 */
export function visibleSpacesSql(first: number): string {
  const [mode, byDefault, byGrant, granted] = [0, 1, 2, 3].map((i) => `$${first + i}`);
  return `(${mode}::text = 'all'
    OR (${mode}::text <> 'ids' AND s.visibility IN ('public', 'unlisted'))
    OR (${mode}::text = 'member' AND (s."defaultLevel" <> 'inherit' OR (s."defaultLevel" = 'inherit' AND (s."parentId" IS NULL OR s."parentId" = ANY(${byDefault}::text[])))))
    OR (${mode}::text IN ('guest', 'member') AND s."parentId" = ANY(${byGrant}::text[]))
    OR (${mode}::text IN ('guest', 'member', 'ids') AND s.id = ANY(${granted}::text[])))`;
}
type SpacesMode = 'all' | 'public' | 'guest' | 'member' | 'ids';
const spacesSqlValues = (mode: SpacesMode, byDefault: string[] = [], byGrant: string[] = [], granted: string[] = []) => [
  mode,
  byDefault,
  byGrant,
  granted,
];

/**
 * The SQL filter for the spaces and collections of an organization the caller can see, matching
 * `spaceRole`/`collectionRole` above: computed from the organization's collection tree (one query),
 * so lists filter and count in the database instead of checking rows one by one.
 */
export function visibleContentFilter(ctx: Context, organizationId: string) {
  return visibleFilters(ctx).load(organizationId);
}

// Computed once per organization per request, however many lists ask.
const visibleFilters = perRequest(
  (ctx: Context) => new DataLoader((orgIds: readonly string[]) => Promise.all(orgIds.map((id) => computeVisibleFilter(ctx, id)))),
);

async function computeVisibleFilter(ctx: Context, organizationId: string) {
  if (ctx.session.siteScope) {
    const ids = [...(await scopedSpaceIds(ctx))];
    return { spaces: { id: { in: ids } }, collections: { id: { in: [] as string[] } }, spacesSql: spacesSqlValues('ids', [], [], ids) };
  }
  return contentFilterOfOrgRole(ctx, organizationId, await orgRole(ctx, organizationId), ctx.caller.id);
}

/**
 * An organization's collection tree for one user (see OrgTree): every list of spaces or
 * collections sends it, so it is prepared (its columns listed: see `columnsOf`).
 */
const ORG_TREE = prepared(
  `WITH RECURSIVE
    teams AS (SELECT "teamId" FROM "TeamMember" WHERE "userId" = $2 AND "organizationId" = $1),
    cg(id, r) AS (
      SELECT "collectionId", array_position(${ROLE_ARRAY}, role::text) FROM "UserCollectionPermission" WHERE "userId" = $2 AND "organizationId" = $1
      UNION ALL
      SELECT g."collectionId", array_position(${ROLE_ARRAY}, g.role::text) FROM "TeamCollectionPermission" g JOIN teams t ON t."teamId" = g."teamId"
    ),
    tree(id, level, g, depth) AS (
      SELECT c.id, c."defaultLevel", (SELECT max(r) FROM cg WHERE cg.id = c.id), 0
        FROM "Collection" c WHERE c."organizationId" = $1 AND c."parentId" IS NULL
      UNION ALL
      SELECT c.id, CASE WHEN c."defaultLevel" = 'inherit' THEN t.level ELSE c."defaultLevel" END,
             greatest(t.g, (SELECT max(r) FROM cg WHERE cg.id = c.id)), t.depth + 1
        FROM "Collection" c JOIN tree t ON c."parentId" = t.id WHERE t.depth < 64
    ),
    sg(id, r) AS (
      SELECT g."spaceId", array_position(${ROLE_ARRAY}, g.role::text) FROM "UserSpacePermission" g WHERE g."userId" = $2 AND g."organizationId" = $1
      UNION ALL
      SELECT g."spaceId", array_position(${ROLE_ARRAY}, g.role::text) FROM "TeamSpacePermission" g JOIN teams t ON t."teamId" = g."teamId"
    )
  SELECT (SELECT coalesce(json_agg(json_build_array(sg.id, sg.r)), '[]'::json) FROM sg) AS "__spaces",
         t.level AS "__level", t.g AS "__g", ${columnsOf('Collection', 'c')}
    FROM (SELECT 1) one LEFT JOIN (tree t JOIN "Collection" c ON c.id = t.id) ON true`,
);

/**
 * `visibleContentFilter`'s rule for a user with an organization role (null: a guest; undefined: no
 * member), e.g. another member's: one statement walks the organization's collection tree from the
 * top, carrying each collection's resolved default level and the highest grant of the user (and
 * their teams) on it or above; the spaces granted directly come with it.
 */
export async function contentFilterOfOrgRole(
  ctx: Context,
  organizationId: string,
  role: RoleName | null | undefined,
  userId: string | null = null,
) {
  const publicSpace = { visibility: { in: ['public', 'unlisted'] } };
  if (role === 'admin') return { spaces: {}, collections: {}, spacesSql: spacesSqlValues('all') };
  if (role === undefined) return { spaces: publicSpace, collections: { id: { in: [] as string[] } }, spacesSql: spacesSqlValues('public') };
  // The collections come whole (they prime the per-request collection rows, which the items of the
  // list and their parents need next), each with its resolved level and grant; the user's space
  // grants ride along on every row (and on the one row of an organization without collections).
  const rows = await selectRows<Collection & { __level: string | null; __g: number | null; __spaces: [string, number][] }>(
    ctx.db.pool,
    ORG_TREE,
    [organizationId, userId ?? ''],
  );
  const tree: OrgTree = { collections: new Map(), spaceGrants: new Map() };
  const byDefault: string[] = [];
  const byGrant: string[] = [];
  for (const [id, r] of rows[0]?.__spaces ?? []) tree.spaceGrants.set(id, Math.max(r, tree.spaceGrants.get(id) ?? 0));
  const grantedSpaces = [...tree.spaceGrants.keys()];
  for (const { __level: level, __g: g, __spaces: _, ...collection } of rows) {
    if (collection.id == null) continue;
    tree.collections.set(collection.id, { level, g });
    accessRows(ctx).collection.prime(collection.id, collection);
    if (g != null) byGrant.push(collection.id);
    else if (role != null && level !== null && (level === 'inherit' || isRole(level))) byDefault.push(collection.id);
  }
  orgTrees(ctx).set(`${organizationId}\u0000${userId ?? ''}`, tree);
  const defaults =
    role == null
      ? []
      : [
          { defaultLevel: { notIn: ['inherit'] } },
          { defaultLevel: 'inherit', parentId: null },
          { defaultLevel: 'inherit', parentId: { in: byDefault } },
        ];
  const grants = [
    ...(byGrant.length ? [{ parentId: { in: byGrant } }] : []),
    ...(grantedSpaces.length ? [{ id: { in: grantedSpaces } }] : []),
  ];
  return {
    spaces: { OR: [publicSpace, ...defaults, ...grants] },
    collections: { id: { in: [...byDefault, ...byGrant] } },
    spacesSql: spacesSqlValues(role == null ? 'guest' : 'member', byDefault, byGrant, grantedSpaces),
  };
}
