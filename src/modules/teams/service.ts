import type { Context } from '../../context.js';
import { orgRole, requireOrg } from '../../auth/permissions.js';
import { badRequest, forbidden, notFound } from '../../errors.js';
import type { Prisma, Team } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import { paginate, type PageArgs } from '../../pagination.js';
import * as check from '../../validate.js';
import { teamLoaders, type TeamRole } from './loaders.js';

/**
 * Teams of an organization.
 * - Every member who is not a guest sees the organization's teams and their members; a guest sees
 *   only the teams they belong to.
 * - A team is managed (renamed, members added, removed, roles changed) by the organization's admins
 *   and by the team's owners. Creating and deleting teams is for organization admins.
 * - A team member is always a member of the organization (leaving it removes them from its teams).
 * - Anyone may leave a team they are in.
 */
export const TEAM_ROLES = ['owner', 'member'] as const;

export async function teamPermissions(ctx: Context, team: Team) {
  const role = await orgRole(ctx, team.organizationId);
  if (role === undefined) return { view: false, admin: false };
  const teamRole = await teamLoaders(ctx).callerTeamRole.load(team.id);
  return { view: role != null || teamRole != null, admin: role === 'admin' || teamRole === 'owner' };
}

/** A team of the organization the caller can see (404 otherwise), managed by them when `manage`. */
export async function requireTeam(ctx: Context, organizationId: string, teamId: string, need: 'view' | 'manage' = 'view') {
  await requireOrg(ctx, organizationId);
  const team = await teamLoaders(ctx).team.load(teamId);
  if (!team || team.organizationId !== organizationId) throw notFound('Team');
  const permissions = await teamPermissions(ctx, team);
  if (!permissions.view) throw notFound('Team');
  if (need === 'manage' && !permissions.admin) throw forbidden('Only the organization’s admins and the team’s owners can manage this team');
  return team;
}

const teamTitle = (field: string, title: string | null | undefined) => {
  if (title == null) throw badRequest(field, 'is required');
  return check.text(field, title.trim(), { min: 1, max: 64 });
};

export async function listTeams(ctx: Context, organizationId: string, args: PageArgs & { owner?: string | null; title?: string | null }) {
  await requireOrg(ctx, organizationId);
  const role = await orgRole(ctx, organizationId);
  const where: Prisma.TeamWhereInput = { organizationId };
  // Guests see only their own teams.
  if (role == null) where.members = { some: { userId: ctx.caller.id } };
  // Prisma passes `contains` to ILIKE as is: escape LIKE's wildcards so they match themselves.
  if (args.title) where.title = { contains: args.title.replace(/[\\%_]/g, '\\$&'), mode: 'insensitive' };
  if (args.owner) {
    // Only the teams that member can manage: all of them for an active admin, else those they own.
    const owner = await ctx.prisma.member.findUnique({ where: { organizationId_userId: { organizationId, userId: args.owner } } });
    if (!owner || owner.disabled) where.id = { in: [] };
    else if (owner.role !== 'admin') where.AND = [{ members: { some: { userId: owner.userId, role: 'owner' } } }];
  }
  return paginate(
    args,
    () => ctx.prisma.team.count({ where }),
    (w) => ctx.prisma.team.findMany({ where, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], ...w }),
  );
}

export async function getTeam(ctx: Context, organizationId: string, teamId: string) {
  return requireTeam(ctx, organizationId, teamId);
}

export async function createTeam(ctx: Context, organizationId: string, input: { title?: string | null; members?: string[] | null }) {
  await requireOrg(ctx, organizationId, 'admin');
  const title = teamTitle('title', input.title);
  const listed = input.members ?? [];
  return ctx.prisma.$transaction(async (tx) => {
    const found = new Set(
      (await tx.member.findMany({ where: { organizationId, userId: { in: listed } }, select: { userId: true } })).map((m) => m.userId),
    );
    listed.forEach((id, i) => {
      if (!found.has(id)) throw badRequest(`members[${i}]`, `"${id}" is not a member of this organization`);
    });
    const team = await tx.team.create({ data: { id: newId(), organizationId, title } });
    const members = [...found];
    if (members.length)
      await tx.teamMember.createMany({ data: members.map((userId) => ({ teamId: team.id, organizationId, userId, role: 'member' })) });
    return team;
  });
}

export async function updateTeam(ctx: Context, organizationId: string, teamId: string, input: { title?: string | null }) {
  await requireTeam(ctx, organizationId, teamId, 'manage');
  const title = teamTitle('title', input.title);
  const team = await ctx.prisma.team.update({ where: { id: teamId }, data: { title } });
  teamLoaders(ctx).team.clear(teamId).prime(teamId, team);
  return team;
}

/** Deletes a team (organization admins); 404 when there is none the caller sees. */
export async function deleteTeam(ctx: Context, organizationId: string, teamId: string) {
  await requireTeam(ctx, organizationId, teamId);
  await requireOrg(ctx, organizationId, 'admin');
  const { count } = await ctx.prisma.team.deleteMany({ where: { id: teamId, organizationId } });
  if (!count) throw notFound('Team');
  return true;
}

export function listTeamMembers(ctx: Context, organizationId: string, teamId: string, args: PageArgs) {
  const where = { teamId };
  return requireTeam(ctx, organizationId, teamId).then(() =>
    paginate(
      args,
      () => ctx.prisma.teamMember.count({ where }),
      (w) => ctx.prisma.teamMember.findMany({ where, include: { member: true }, orderBy: [{ createdAt: 'asc' }, { userId: 'asc' }], ...w }),
    ),
  );
}

const isTeamRole = (v: unknown): v is TeamRole => TEAM_ROLES.includes(v as TeamRole);

/** `memberships` checked (official: a map from user id to { role }); other keys of an entry are ignored. */
export function membershipRoles(value: unknown): Map<string, TeamRole> {
  const roles = new Map<string, TeamRole>();
  for (const [userId, entry] of Object.entries(check.object('memberships', value))) {
    const role = check.object(`memberships.${userId}`, entry).role;
    if (!isTeamRole(role)) throw badRequest(`memberships.${userId}.role`, 'must be owner or member');
    roles.set(userId, role);
  }
  return roles;
}

export interface UpdateTeamMembersInput {
  add?: string[] | null;
  remove?: string[] | null;
  /** user id → { role } */
  memberships?: unknown;
}

/**
 * Adds, removes and changes the roles of team members in one transaction. `add` and `remove` name
 * users by id or email; `memberships` gives roles by user id (adding the user when not in the
 * team yet). A user both added (or given a role) and removed is removed. Added users are `member`s
 * unless `memberships` says otherwise; an existing member keeps their role unless it says otherwise.
 */
export async function updateTeamMembers(ctx: Context, organizationId: string, teamId: string, input: UpdateTeamMembersInput) {
  await requireTeam(ctx, organizationId, teamId, 'manage');
  const add = input.add ?? [];
  const remove = input.remove ?? [];
  const roles = input.memberships != null ? membershipRoles(input.memberships) : new Map<string, TeamRole>();

  await ctx.prisma.$transaction(async (tx) => {
    // Members of the organization named by id or email, in one query. Names are looked up among the
    // organization's members only: "no such user" and "a user of no concern to this organization"
    // get the same answer, so a team manager cannot probe which emails have an account.
    const named = [...add, ...remove];
    const emails = named.filter((n) => n.includes('@')).map((n) => n.trim().toLowerCase());
    const members = await tx.member.findMany({
      where: { organizationId, OR: [{ userId: { in: named } }, { user: { email: { in: emails } } }] },
      select: { userId: true, user: { select: { email: true } } },
    });
    const byName = new Map<string, string>();
    for (const m of members) byName.set(m.userId, m.userId).set(m.user.email, m.userId);
    const resolve = (field: string) => (name: string, i: number) => {
      const id = byName.get(name) ?? byName.get(name.trim().toLowerCase());
      if (!id) throw badRequest(`${field}[${i}]`, `"${name}" is not a member of this organization`);
      return id;
    };
    const added = add.map(resolve('add'));
    const removed = new Set(remove.map(resolve('remove')));

    const wanted = new Map<string, TeamRole | undefined>();
    for (const id of added) if (!removed.has(id)) wanted.set(id, roles.get(id));
    for (const [id, role] of roles) if (!removed.has(id)) wanted.set(id, role);
    const wantedIds = [...wanted.keys()];
    const inOrg = new Set(
      (await tx.member.findMany({ where: { organizationId, userId: { in: wantedIds } }, select: { userId: true } })).map((m) => m.userId),
    );
    added.forEach((id, i) => {
      if (wanted.has(id) && !inOrg.has(id)) throw badRequest(`add[${i}]`, `"${add[i]}" is not a member of this organization`);
    });
    for (const id of roles.keys()) {
      if (wanted.has(id) && !inOrg.has(id)) throw badRequest(`memberships.${id}`, 'is not a member of this organization');
    }

    if (removed.size) await tx.teamMember.deleteMany({ where: { teamId, userId: { in: [...removed] } } });
    const existing = new Map(
      (await tx.teamMember.findMany({ where: { teamId, userId: { in: wantedIds } } })).map((m) => [m.userId, m.role as TeamRole]),
    );
    const create = wantedIds.filter((id) => !existing.has(id));
    if (create.length) {
      await tx.teamMember.createMany({
        data: create.map((userId) => ({ teamId, organizationId, userId, role: wanted.get(userId) ?? 'member' })),
      });
    }
    for (const role of TEAM_ROLES) {
      const change = wantedIds.filter((id) => existing.has(id) && wanted.get(id) === role && existing.get(id) !== role);
      if (change.length) await tx.teamMember.updateMany({ where: { teamId, userId: { in: change } }, data: { role } });
    }
  });
  return true;
}

/** Adds a member of the organization to the team, or changes their role (`role` absent: `member` for a new one, unchanged otherwise). */
export async function setTeamMember(ctx: Context, organizationId: string, teamId: string, userId: string, role?: TeamRole | null) {
  await requireTeam(ctx, organizationId, teamId, 'manage');
  if (role === null) throw badRequest('role', 'must be owner or member');
  const member = await ctx.prisma.member.findUnique({ where: { organizationId_userId: { organizationId, userId } } });
  if (!member) throw notFound('Member');
  await ctx.prisma.teamMember.upsert({
    where: { teamId_userId: { teamId, userId } },
    create: { teamId, organizationId, userId, role: role ?? 'member' },
    update: role ? { role } : {},
  });
  return true;
}

/**
 * Removes a user from the team (a team manager, or the user leaving); false when a member of the
 * organization was not in it (already out), 404 when the user is no member of it.
 */
export async function removeTeamMember(ctx: Context, organizationId: string, teamId: string, userId: string) {
  await requireTeam(ctx, organizationId, teamId, userId === ctx.caller.id ? 'view' : 'manage');
  const { count } = await ctx.prisma.teamMember.deleteMany({ where: { teamId, userId } });
  if (count > 0) return true;
  if (!(await ctx.prisma.member.findUnique({ where: { organizationId_userId: { organizationId, userId } } }))) throw notFound('Member');
  return false;
}
