import DataLoader from 'dataloader';
import type { Context } from '../context.js';
import { perRequest } from '../loaders.js';
import { forbidden, notFound } from '../errors.js';
import type { Collection, Member, Organization, Site, Space } from '../generated/prisma/client.js';
import { atLeast, higher, isRole, type RoleName } from './roles.js';
import { accessRows } from './access-rows.js';

/**
 * The one permission module. Every `permissions` object and every guard is computed here.
 *
 * - Organization: the caller's membership role (null = guest). Non-members cannot see it (404).
 * - Collection and space: an organization admin is admin everywhere. Otherwise the content's
 *   `defaultLevel` applies: a role given to every non-guest member, `inherit` (the parent
 *   collection's level, then the member's organization role), or null (no access by default).
 *   Guests get nothing by default. Public and unlisted spaces can be read by any signed-in caller.
 * - A caller who cannot even read a resource gets 404 (its existence is not revealed); one who can
 *   read but lacks the needed role gets 403.
 * - Single sign-on can set a membership aside for a request (`ssoBarrier` below).
 */

async function activeMembership(ctx: Context, organizationId: string): Promise<Member | null> {
  const member = await accessRows(ctx).callerMembership.load(organizationId);
  if (!member || member.disabled) return null;
  return (await ssoBarrier(ctx, organizationId, member)) ? null : member;
}

/**
 * Single sign-on (src/modules/sso) decides which memberships a request may use:
 * - a token issued by an organization's SAML sign-in reaches only that organization: anywhere else
 *   its holder counts as a non-member ('other-organization');
 * - in an organization with `sso: true`, a member who is not an admin counts as a non-member
 *   unless the token was issued by that organization's SAML sign-in ('sso-required'). Admins keep
 *   access with any token, so turning SSO on (or repairing a broken identity provider) cannot lock
 *   an organization out.
 */
export async function ssoBarrier(ctx: Context, organizationId: string, member: Pick<Member, 'role'>): Promise<'other-organization' | 'sso-required' | null> {
  const scope = ctx.session.ssoOrganizationId;
  if (scope !== null) return scope === organizationId ? null : 'other-organization';
  if (member.role === 'admin') return null;
  const org = await accessRows(ctx).organization.load(organizationId);
  return org?.sso ? 'sso-required' : null;
}

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
export async function orgRole(ctx: Context, organizationId: string): Promise<RoleName | null | undefined> {
  const member = await activeMembership(ctx, organizationId);
  return member ? (member.role as RoleName | null) : undefined;
}

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

async function inheritedLevel(ctx: Context, level: string | null, parentId: string | null, memberRole: RoleName): Promise<RoleName | null> {
  if (level === null) return null;
  if (isRole(level)) return level;
  if (!parentId) return memberRole;
  const parent = await accessRows(ctx).collection.load(parentId);
  if (!parent) return memberRole;
  return inheritedLevel(ctx, parent.defaultLevel, parent.parentId, memberRole);
}

export async function collectionRole(ctx: Context, collection: Collection): Promise<RoleName | null> {
  const role = await orgRole(ctx, collection.organizationId);
  if (role == null) return null;
  if (role === 'admin') return 'admin';
  return inheritedLevel(ctx, collection.defaultLevel, collection.parentId, role);
}

export async function spaceRole(ctx: Context, space: Space): Promise<RoleName | null> {
  return spaceRoleOfOrgRole(ctx, (await orgRole(ctx, space.organizationId)) ?? null, space);
}

/**
 * The role on a space of someone whose organization role is `role` (null: a guest or no member):
 * `spaceRole`'s rule, also used for a member other than the caller (their space permissions).
 */
export async function spaceRoleOfOrgRole(ctx: Context, role: RoleName | null, space: Space): Promise<RoleName | null> {
  const publicRead: RoleName | null = space.visibility === 'public' || space.visibility === 'unlisted' ? 'read' : null;
  if (role == null) return publicRead;
  if (role === 'admin') return 'admin';
  return higher(await inheritedLevel(ctx, space.defaultLevel, space.parentId, role), publicRead);
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
export async function requireSpace(ctx: Context, spaceId: string, min: RoleName = 'read', opts: { deleted?: boolean } = {}): Promise<Space> {
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
  if (action === 'write') await requireOrg(ctx, organizationId, SITE_WRITE_ROLE);
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
export function requireCommentAction(permissions: ReturnType<typeof commentPermissions>, action: 'edit' | 'reply' | 'delete', what = 'comment') {
  if (permissions[action]) return;
  const needs = { edit: `Only its author can edit this ${what}`, reply: 'You need the comment role on this space to do this', delete: `Only its author or a space admin can delete this ${what}` };
  throw forbidden(needs[action]);
}

/**
 * The SQL filter for the spaces and collections of an organization the caller can see, matching
 * `spaceRole`/`collectionRole` above: computed from the organization's collection tree (one query),
 * so lists filter and count in the database instead of checking rows one by one.
 */
export function visibleContentFilter(ctx: Context, organizationId: string) {
  return visibleFilters(ctx).load(organizationId);
}

// Computed once per organization per request, however many lists ask.
const visibleFilters = perRequest((ctx: Context) => new DataLoader((orgIds: readonly string[]) => Promise.all(orgIds.map((id) => computeVisibleFilter(ctx, id)))));

async function computeVisibleFilter(ctx: Context, organizationId: string) {
  return contentFilterOfOrgRole(ctx, organizationId, (await orgRole(ctx, organizationId)) ?? null);
}

/** `visibleContentFilter`'s rule for an organization role (null: a guest or no member), e.g. another member's. */
export async function contentFilterOfOrgRole(ctx: Context, organizationId: string, role: RoleName | null) {
  const publicSpace = { visibility: { in: ['public', 'unlisted'] } };
  if (role === 'admin') return { spaces: {}, collections: {} };
  if (role == null) return { spaces: publicSpace, collections: { id: { in: [] as string[] } } };
  const collections = await ctx.prisma.collection.findMany({ where: { organizationId } });
  for (const c of collections) accessRows(ctx).collection.prime(c.id, c);
  const visible: string[] = [];
  for (const c of collections) if (await inheritedLevel(ctx, c.defaultLevel, c.parentId, role)) visible.push(c.id);
  return {
    spaces: {
      OR: [
        publicSpace,
        { defaultLevel: { notIn: ['inherit'] } },
        { defaultLevel: 'inherit', parentId: null },
        { defaultLevel: 'inherit', parentId: { in: visible } },
      ],
    },
    collections: { id: { in: visible } },
  };
}
