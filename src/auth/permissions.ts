import DataLoader from 'dataloader';
import type { Context } from '../context.js';
import { perRequest } from '../loaders.js';
import { forbidden, notFound } from '../errors.js';
import type { Collection, Member, Organization, Space } from '../generated/prisma/client.js';
import { atLeast, higher, isRole, type RoleName } from './roles.js';

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
 */

async function activeMembership(ctx: Context, organizationId: string): Promise<Member | null> {
  const member = await ctx.loaders.callerMembership.load(organizationId);
  return member && !member.disabled ? member : null;
}

/** The caller's role in an organization; undefined when not a member at all. */
export async function orgRole(ctx: Context, organizationId: string): Promise<RoleName | null | undefined> {
  const member = await activeMembership(ctx, organizationId);
  return member ? (member.role as RoleName | null) : undefined;
}

async function inheritedLevel(ctx: Context, level: string | null, parentId: string | null, memberRole: RoleName): Promise<RoleName | null> {
  if (level === null) return null;
  if (isRole(level)) return level;
  if (!parentId) return memberRole;
  const parent = await ctx.loaders.collection.load(parentId);
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
  const role = await orgRole(ctx, space.organizationId);
  const publicRead: RoleName | null = space.visibility === 'public' || space.visibility === 'unlisted' ? 'read' : null;
  if (role == null) return publicRead;
  if (role === 'admin') return 'admin';
  return higher(await inheritedLevel(ctx, space.defaultLevel, space.parentId, role), publicRead);
}

/** The organization, if the caller is a member with at least `min` (any member, guests included, for 'member'). */
export async function requireOrg(ctx: Context, organizationId: string, min: RoleName | 'member' = 'member'): Promise<Organization> {
  const [org, member] = await Promise.all([ctx.loaders.organization.load(organizationId), activeMembership(ctx, organizationId)]);
  if (!org || !member) throw notFound('Organization');
  if (min !== 'member' && !atLeast(member.role as RoleName | null, min)) {
    throw forbidden(`You need the ${min} role in this organization to do this`);
  }
  return org;
}

export async function requireCollection(ctx: Context, collectionId: string, min: RoleName = 'read'): Promise<Collection> {
  const collection = await ctx.loaders.collection.load(collectionId);
  if (!collection) throw notFound('Collection');
  const role = await collectionRole(ctx, collection);
  if (!role) throw notFound('Collection');
  if (!atLeast(role, min)) throw forbidden(`You need the ${min} role on this collection to do this`);
  return collection;
}

/** A space the caller can see (deleted ones only with `deleted: true`), with at least `min`. */
export async function requireSpace(ctx: Context, spaceId: string, min: RoleName = 'read', opts: { deleted?: boolean } = {}): Promise<Space> {
  const space = await ctx.loaders.space.load(spaceId);
  if (!space || (space.deletedAt && !opts.deleted) || (!space.deletedAt && opts.deleted)) throw notFound('Space');
  const role = await spaceRole(ctx, space);
  if (!role) throw notFound('Space');
  if (!atLeast(role, min)) throw forbidden(`You need the ${min} role on this space to do this`);
  return space;
}

export function organizationPermissions(role: RoleName | null | undefined) {
  const member = role !== undefined;
  const nonGuest = role != null;
  const admin = role === 'admin';
  return {
    view: member,
    admin,
    ownTeam: admin,
    createContent: atLeast(role, 'create'),
    createOpenAPISpec: atLeast(role, 'create'),
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
  const role = await orgRole(ctx, organizationId);
  const publicSpace = { visibility: { in: ['public', 'unlisted'] } };
  if (role === 'admin') return { spaces: {}, collections: {} };
  if (role == null) return { spaces: publicSpace, collections: { id: { in: [] as string[] } } };
  const collections = await ctx.prisma.collection.findMany({ where: { organizationId } });
  for (const c of collections) ctx.loaders.collection.prime(c.id, c);
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
