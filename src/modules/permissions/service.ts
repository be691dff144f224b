import type { Context } from '../../context.js';
import { requireCollection, requireSite, requireSpace, spaceRoleOfOrgRole, contentRoleOf } from '../../auth/permissions.js';
import { atLeast, higher, isRole, type RoleName } from '../../auth/roles.js';
import { badRequest, notFound } from '../../errors.js';
import type { Prisma, Team, User } from '../../generated/prisma/client.js';
import { paginate, paginateArray, type PageArgs } from '../../pagination.js';
import { newId } from '../../ids.js';

/**
 * Grants: a role given to one user or one team on a space, a collection or a site. They
 * are one source of the effective role (THE RULE, src/auth/permissions.ts); a collection's grants
 * reach everything below it.
 * - Reading grants (lists and the aggregate) needs `read` on the resource; changing them needs
 *   `admin` on the space or collection, and the site write role on a site. Whoever cannot see the
 *   resource gets 404.
 * - A user must be a member of the resource's organization (a guest, at least), a team one of its
 *   teams: anything else is a 404 (a user of another organization and no user at all alike). A
 *   user's grants go when they leave the organization; a team's with the team.
 * - Setting a grant replaces it; `role: null` on a space or collection (the official
 *   MemberRoleOrGuest) removes it. Removing answers whether there was one (205, else 204).
 */
export type GrantKind = 'space' | 'collection' | 'site';
export type Subject = 'user' | 'team';

export interface Resource {
  kind: GrantKind;
  id: string;
  /** Sites only: the organization of the path. */
  organizationId?: string;
}

/** The resource, checked for the caller: `manage` needs admin (sites: the write role). */
async function resolve(ctx: Context, r: Resource, manage: boolean): Promise<{ id: string; organizationId: string; title?: string }> {
  if (r.kind === 'space') return requireSpace(ctx, r.id, manage ? 'admin' : 'read');
  if (r.kind === 'collection') return requireCollection(ctx, r.id, manage ? 'admin' : 'read');
  return requireSite(ctx, r.organizationId!, r.id, manage ? 'write' : 'read');
}

const userTable = { space: 'userSpacePermission', collection: 'userCollectionPermission', site: 'userSitePermission' } as const;
const teamTable = { space: 'teamSpacePermission', collection: 'teamCollectionPermission', site: 'teamSitePermission' } as const;
const column = { space: 'spaceId', collection: 'collectionId', site: 'siteId' } as const;

// The six grant tables have the same shape; Prisma's delegates differ only in their names.
const users = (db: Context['prisma'] | Prisma.TransactionClient, kind: GrantKind) => (db as any)[userTable[kind]];
const teams = (db: Context['prisma'] | Prisma.TransactionClient, kind: GrantKind) => (db as any)[teamTable[kind]];

export async function listUserGrants(
  ctx: Context,
  r: Resource,
  args: PageArgs,
): Promise<{ items: { permission: RoleName; user: User }[]; count: number; next?: { page: string } | null }> {
  const res = await resolve(ctx, r, false);
  const where = { [column[r.kind]]: res.id };
  return paginate(
    args,
    () => users(ctx.prisma, r.kind).count({ where }),
    async (w) =>
      (
        await users(ctx.prisma, r.kind).findMany({
          where,
          include: { member: { include: { user: true } } },
          orderBy: [{ createdAt: 'asc' }, { userId: 'asc' }],
          ...w,
        })
      ).map((g: any) => ({ permission: g.role, user: g.member.user })),
  );
}

export async function listTeamGrants(
  ctx: Context,
  r: Resource,
  args: PageArgs,
): Promise<{ items: { permission: RoleName; team: Team }[]; count: number; next?: { page: string } | null }> {
  const res = await resolve(ctx, r, false);
  const where = { [column[r.kind]]: res.id };
  return paginate(
    args,
    () => teams(ctx.prisma, r.kind).count({ where }),
    async (w) =>
      (
        await teams(ctx.prisma, r.kind).findMany({
          where,
          include: { team: true },
          orderBy: [{ createdAt: 'asc' }, { teamId: 'asc' }],
          ...w,
        })
      ).map((g: any) => ({ permission: g.role, team: g.team })),
  );
}

/** The role of a grant update: a role, or (spaces and collections) null to remove it. */
function grantRole(kind: GrantKind, input: { role?: unknown } | null | undefined, field = 'role'): RoleName | null {
  if (!input || !('role' in input) || input.role === undefined) throw badRequest(field, 'is required');
  if (input.role === null && kind !== 'site') return null;
  if (!isRole(input.role)) throw badRequest(field, 'must be a role (admin, create, review, edit, comment, read)');
  return input.role;
}

async function memberOf(ctx: Context, organizationId: string, userId: string, field?: string) {
  const member = await ctx.prisma.member.findUnique({ where: { organizationId_userId: { organizationId, userId } } });
  if (!member) throw field ? badRequest(field, `${userId} is not a member of the organization`) : notFound('User');
  return member;
}

async function teamOf(ctx: Context, organizationId: string, teamId: string, field?: string) {
  const team = await ctx.prisma.team.findFirst({ where: { id: teamId, organizationId } });
  if (!team) throw field ? badRequest(field, `${teamId} is not a team of the organization`) : notFound('Team');
  return team;
}

/** Sets (or, with a null role, removes) a user's or a team's grant: what REST answers 204 to. */
export async function setGrant(
  ctx: Context,
  r: Resource,
  subject: Subject,
  subjectId: string,
  input: { role?: unknown } | null | undefined,
) {
  const res = await resolve(ctx, r, true);
  const role = grantRole(r.kind, input);
  if (subject === 'user') await memberOf(ctx, res.organizationId, subjectId);
  else await teamOf(ctx, res.organizationId, subjectId);
  if (role === null) {
    await deleteGrant(ctx, r.kind, res.id, subject, subjectId);
    return true;
  }
  await writeGrant(ctx.prisma, r.kind, res, subject, subjectId, role);
  return true;
}

/** Writes a grant (replacing the role), inside the caller's transaction when given one. */
export async function writeGrant(
  db: Context['prisma'] | Prisma.TransactionClient,
  kind: GrantKind,
  res: { id: string; organizationId: string },
  subject: Subject,
  subjectId: string,
  role: RoleName,
  opts: { raiseOnly?: boolean } = {},
) {
  const col = column[kind];
  if (subject === 'user') {
    const key = { [`${col}_userId`]: { [col]: res.id, userId: subjectId } };
    if (opts.raiseOnly) {
      const existing = await users(db, kind).findUnique({ where: key });
      if (existing && higher(existing.role, role) === existing.role) return;
    }
    await users(db, kind).upsert({
      where: key,
      create: { [col]: res.id, organizationId: res.organizationId, userId: subjectId, role },
      update: { role },
    });
  } else {
    const key = { [`teamId_${col}`]: { teamId: subjectId, [col]: res.id } };
    await teams(db, kind).upsert({ where: key, create: { teamId: subjectId, [col]: res.id, role }, update: { role } });
  }
}

/**
 * Removes a user's or a team's grant: true when there was one; false when the member or team of the
 * organization had none (already removed); 404 for a user or team the organization does not have,
 * as for a resource the caller cannot see.
 */
export async function removeGrant(ctx: Context, r: Resource, subject: Subject, subjectId: string): Promise<boolean> {
  const res = await resolve(ctx, r, true);
  if (subject === 'user') await memberOf(ctx, res.organizationId, subjectId);
  else await teamOf(ctx, res.organizationId, subjectId);
  return deleteGrant(ctx, r.kind, res.id, subject, subjectId);
}

async function deleteGrant(ctx: Context, kind: GrantKind, resourceId: string, subject: Subject, subjectId: string) {
  const where = { [column[kind]]: resourceId, [subject === 'user' ? 'userId' : 'teamId']: subjectId };
  const { count } = await (subject === 'user' ? users : teams)(ctx.prisma, kind).deleteMany({ where });
  return count > 0;
}

export interface InviteInput {
  role?: unknown;
  users?: unknown;
  teams?: unknown;
  /** Lectern addition (not in the official InviteUsersAndTeams): people invited by email. */
  emails?: unknown;
}

const MAX_INVITES = 100;

function idList(field: string, value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length === 0) throw badRequest(field, 'must be a non-empty list of ids');
  if (value.length > MAX_INVITES) throw badRequest(field, `may list at most ${MAX_INVITES} ids`);
  return value.map((v, i) => {
    if (typeof v !== 'string' || !v) throw badRequest(`${field}[${i}]`, 'must be an id');
    return v;
  });
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The `emails` of an invite (Lectern addition), trimmed, lower-cased and without repeats. */
function emailList(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length === 0) throw badRequest('emails', 'must be a non-empty list of email addresses');
  if (value.length > MAX_INVITES) throw badRequest('emails', `may list at most ${MAX_INVITES} emails`);
  const emails = value.map((v, i) => {
    if (typeof v !== 'string' || !EMAIL.test(v.trim())) throw badRequest(`emails[${i}]`, 'must be an email address');
    return v.trim().toLowerCase();
  });
  return [...new Set(emails)];
}

/** A grant an invitation carries until its account accepts (`OrganizationInvitation.grants`). */
export interface PendingGrant {
  kind: GrantKind;
  id: string;
  role: RoleName;
}

/**
 * inviteToSpace / inviteToCollection / inviteToSite: gives `role` to each listed user (a member of
 * the organization: guests become guests with that grant) and team, in one transaction; nothing
 * is changed when one entry is refused. Existing grants are replaced by the new role.
 *
 * `emails` (Lectern addition to the official InviteUsersAndTeams; nothing is mailed) invites people
 * who may not be members yet, as the organization's inviteUsers does:
 * - an email of a member: the grant at once, as for `users`;
 * - an email of an account that is not a member: an invitation to the organization (a guest; an
 *   invitation already pending keeps its role) carrying the grant, applied when the account
 *   accepts, signed in as itself (invites/account-invitations.ts): nobody joins an organization, or
 *   consents to its single sign-on, for someone else;
 * - an email without an account: the account (unverified), a guest membership and the grant at
 *   once (nobody else owns that account).
 * The answer is the same whichever case an email was, so it tells nothing about other accounts.
 * Whoever administers the content may do this (as they may make an invite link to it); what
 * they give is a guest's membership with a grant on that content only.
 */
export async function inviteToResource(ctx: Context, r: Resource, input: InviteInput) {
  const res = await resolve(ctx, r, true);
  if (!input || input.role === undefined) throw badRequest('role', 'is required');
  if (!isRole(input.role)) throw badRequest('role', 'must be a role (admin, create, review, edit, comment, read)');
  const role = input.role;
  const userIds = idList('users', input.users);
  const teamIds = idList('teams', input.teams);
  const emails = emailList(input.emails);
  if (!userIds.length && !teamIds.length && !emails.length) throw badRequest('users', 'list users, teams or emails to invite');
  for (const [i, id] of userIds.entries()) await memberOf(ctx, res.organizationId, id, `users[${i}]`);
  for (const [i, id] of teamIds.entries()) await teamOf(ctx, res.organizationId, id, `teams[${i}]`);
  await ctx.prisma.$transaction(async (tx) => {
    for (const id of new Set(userIds)) await writeGrant(tx, r.kind, res, 'user', id, role);
    for (const id of new Set(teamIds)) await writeGrant(tx, r.kind, res, 'team', id, role);
    if (emails.length) await inviteEmails(tx, r.kind, res, role, emails, ctx.caller.id);
  });
  return true;
}

async function inviteEmails(
  tx: Prisma.TransactionClient,
  kind: GrantKind,
  res: { id: string; organizationId: string },
  role: RoleName,
  emails: string[],
  invitedById: string,
) {
  const { organizationId } = res;
  const found = await tx.user.findMany({ where: { email: { in: emails } }, select: { id: true, email: true } });
  const byEmail = new Map(found.map((u) => [u.email, u.id]));
  const created = emails
    .filter((e) => !byEmail.has(e))
    .map((email) => ({ id: newId(), email, displayName: email.split('@')[0]!, emailVerified: false }));
  if (created.length) {
    await tx.user.createMany({ data: created });
    // A new account has no other owner: a guest at once (consenting to the organization's SSO, as inviteUsers' new accounts).
    await tx.member.createMany({ data: created.map((u) => ({ organizationId, userId: u.id, role: null, ssoConsentAt: new Date() })) });
  }
  const existing = found.map((u) => u.id);
  const members = new Set(
    (await tx.member.findMany({ where: { organizationId, userId: { in: existing } }, select: { userId: true } })).map((m) => m.userId),
  );
  for (const userId of [...created.map((u) => u.id), ...existing.filter((id) => members.has(id))])
    await writeGrant(tx, kind, res, 'user', userId, role);
  for (const userId of existing.filter((id) => !members.has(id))) {
    const key = { organizationId_userId: { organizationId, userId } };
    const pending = await tx.organizationInvitation.findUnique({ where: key, select: { grants: true } });
    const grants = [
      ...((pending?.grants ?? []) as unknown as PendingGrant[]).filter((g) => !(g.kind === kind && g.id === res.id)),
      { kind, id: res.id, role },
    ];
    await tx.organizationInvitation.upsert({
      where: key,
      create: { id: newId(), organizationId, userId, role: null, invitedById, grants: grants as unknown as Prisma.InputJsonValue },
      update: { grants: grants as unknown as Prisma.InputJsonValue },
    });
  }
}

/**
 * Everyone who has access to a space or collection, with their effective role (THE RULE): every
 * active member of the organization whose role there is at least `read`, computed for all of
 * them in one statement; optionally only those with exactly `role`. Ordered by join date, then id.
 */
export async function aggregate(ctx: Context, r: Resource, args: PageArgs & { role?: string | null }) {
  const res = await resolve(ctx, r, false);
  if (args.role != null && !isRole(args.role)) throw badRequest('role', 'must be a role');
  const members = await ctx.prisma.member.findMany({
    where: { organizationId: res.organizationId, disabled: false },
    include: { user: true },
    orderBy: [{ joinedAt: 'asc' }, { userId: 'asc' }],
  });
  const space = r.kind === 'space' ? await requireSpace(ctx, r.id) : null;
  const roles = await Promise.all(
    members.map((m) =>
      space
        ? spaceRoleOfOrgRole(ctx, m.role as RoleName | null, space, m.userId)
        : contentRoleOf(ctx, 'c', res.id, m.userId, m.role as RoleName | null),
    ),
  );
  const all = members
    .map((m, i) => ({ permission: roles[i]!, user: m.user }))
    .filter((x) => atLeast(x.permission, 'read') && (args.role == null || x.permission === args.role));
  return paginateArray(args, all);
}

/**
 * Everyone who has access to a site (every active member reads it), with their role there and
 * where it comes from: the organization role, or the user's or one of their teams' site grants
 * when higher. Guests without a grant read it with no role (null). Filters: role (or `guest`),
 * search (name or email), team. The origin is always the organization pointer (0.146.0, which this
 * operation also answers, knows no site origin); when a site grant decides, it carries 0.202.0's
 * site-origin fields too: `site`, `reason` (member | team) and `team`.
 */
export async function siteAggregate(
  ctx: Context,
  r: Resource,
  args: PageArgs & { role?: string | null; search?: string | null; team?: string | null; order?: string | null; sort?: string | null },
) {
  const res = await resolve(ctx, r, false);
  if (args.role != null && args.role !== 'guest' && !isRole(args.role)) throw badRequest('role', 'must be a role or guest');
  if (args.sort != null && !['joinedAt', 'lastSeenAt', 'name'].includes(args.sort))
    throw badRequest('sort', 'must be joinedAt, lastSeenAt or name');
  if (args.order != null && !['asc', 'desc'].includes(args.order)) throw badRequest('order', 'must be asc or desc');
  const search = args.search?.trim();
  const members = await ctx.prisma.member.findMany({
    where: {
      organizationId: res.organizationId,
      ...(search
        ? {
            user: {
              OR: [{ displayName: { contains: search, mode: 'insensitive' } }, { email: { contains: search, mode: 'insensitive' } }],
            },
          }
        : {}),
      ...(args.team ? { teams: { some: { teamId: args.team } } } : {}),
    },
    include: {
      user: true,
      siteGrants: { where: { siteId: res.id } },
      teams: { include: { team: { include: { sites: { where: { siteId: res.id } } } } } },
    },
  });
  const order = args.order === 'asc' ? 1 : -1;
  const key = (m: (typeof members)[number]) =>
    args.sort === 'name' ? m.user.displayName : args.sort === 'lastSeenAt' ? (m.lastSeenAt?.getTime() ?? 0) : m.joinedAt.getTime();
  members.sort((a, b) => (key(a) < key(b) ? -order : key(a) > key(b) ? order : a.userId < b.userId ? -1 : 1));
  const items = members.map((m) => {
    const orgRoleOf = m.role as RoleName | null;
    let permission: RoleName | null = orgRoleOf;
    let origin: Record<string, string> = { type: 'organization', organization: res.organizationId };
    const own = m.siteGrants[0]?.role as RoleName | undefined;
    if (own && orgRoleOf !== 'admin' && higher(permission, own) !== permission) {
      permission = own;
      origin = { ...origin, site: res.id, reason: 'member' };
    }
    for (const tm of m.teams) {
      const g = tm.team.sites[0]?.role as RoleName | undefined;
      if (g && orgRoleOf !== 'admin' && higher(permission, g) !== permission) {
        permission = g;
        origin = { ...origin, site: res.id, reason: 'team', team: tm.teamId };
      }
    }
    return { permission, user: m.user, origin, disabled: m.disabled, lastSeenAt: m.lastSeenAt };
  });
  const filtered = items.filter((x) => args.role == null || (args.role === 'guest' ? x.permission === null : x.permission === args.role));
  return paginateArray(args, filtered);
}
