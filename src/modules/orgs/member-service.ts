import type { Context } from '../../context.js';
import { requireOrg } from '../../auth/permissions.js';
import type { RoleName } from '../../auth/roles.js';
import { conflict, forbidden, notFound } from '../../errors.js';
import type { Member, Prisma } from '../../generated/prisma/client.js';
import { paginate, type PageArgs } from '../../pagination.js';
import { accessRows } from '../../auth/access-rows.js';
import { memberOrderBy, memberSearchWhere, type MemberListArgs } from './member-lists.js';

export async function requireListMembers(ctx: Context, organizationId: string) {
  await requireOrg(ctx, organizationId);
  const me = await accessRows(ctx).callerMembership.load(organizationId);
  if (me?.role == null) throw forbidden('Guests cannot list the members of an organization');
}

/** `role` filters by role; 'guest' lists the members without one. `search`, `sort`, `order`: see member-lists.ts. */
export async function listMembers(
  ctx: Context,
  organizationId: string,
  args: PageArgs & MemberListArgs & { role?: RoleName | 'guest' | null },
) {
  await requireListMembers(ctx, organizationId);
  const where = {
    organizationId,
    ...(args.role ? { role: args.role === 'guest' ? null : args.role } : {}),
    ...memberSearchWhere(args.search),
  };
  return paginate(
    args,
    () => ctx.prisma.member.count({ where }),
    (w) => ctx.prisma.member.findMany({ where, orderBy: memberOrderBy(args), ...w }),
  );
}

export async function getMember(ctx: Context, organizationId: string, userId: string) {
  await requireListMembers(ctx, organizationId);
  const member = await ctx.prisma.member.findUnique({ where: { organizationId_userId: { organizationId, userId } } });
  if (!member) throw notFound('Member');
  return member;
}

/**
 * An organization keeps at least one active admin: the last one cannot be demoted or removed. A
 * disabled admin does not count, so demoting or removing one is always allowed.
 */
async function assertNotLastAdmin(ctx: Context, member: Member) {
  if (member.role !== 'admin' || member.disabled) return;
  const admins = await ctx.prisma.member.count({ where: { organizationId: member.organizationId, role: 'admin', disabled: false } });
  if (admins <= 1) throw conflict('The last admin of an organization cannot be demoted or removed');
}

/**
 * Serialises changes to an organization's admins: without it, two admins demoting (or removing)
 * each other at once would both see two admins and leave none.
 */
async function lockOrganization(tx: Prisma.TransactionClient, organizationId: string) {
  await tx.$queryRaw`SELECT 1 FROM "Organization" WHERE id = ${organizationId} FOR UPDATE`;
}

/**
 * `role`: a role, or null to make the member a guest. Absent (a PATCH with `{}`, which the official
 * body allows: no field is required) changes nothing and answers the member as it is.
 */
export async function updateMemberRole(ctx: Context, organizationId: string, userId: string, role: RoleName | null | undefined) {
  await requireOrg(ctx, organizationId, 'admin');
  if (role === undefined) {
    const member = await ctx.prisma.member.findUnique({ where: { organizationId_userId: { organizationId, userId } } });
    if (!member) throw notFound('Member');
    return member;
  }
  return ctx.prisma.$transaction(async (tx) => {
    await lockOrganization(tx, organizationId);
    const member = await tx.member.findUnique({ where: { organizationId_userId: { organizationId, userId } } });
    if (!member) throw notFound('Member');
    if (role !== 'admin') await assertNotLastAdmin({ ...ctx, prisma: tx as never }, member);
    return tx.member.update({ where: { organizationId_userId: { organizationId, userId } }, data: { role } });
  });
}

/** Removes a member (an admin may remove anyone, a member only themself); 404 when not a member. */
export async function removeMember(ctx: Context, organizationId: string, userId: string) {
  await requireOrg(ctx, organizationId, userId === ctx.caller.id ? 'member' : 'admin');
  return ctx.prisma.$transaction(async (tx) => {
    await lockOrganization(tx, organizationId);
    const member = await tx.member.findUnique({ where: { organizationId_userId: { organizationId, userId } } });
    if (!member) throw notFound('Member');
    await assertNotLastAdmin({ ...ctx, prisma: tx as never }, member);
    await tx.member.delete({ where: { organizationId_userId: { organizationId, userId } } });
    return true;
  });
}
