import type { Context } from '../../context.js';
import { requireOrg } from '../../auth/permissions.js';
import type { RoleName } from '../../auth/roles.js';
import { badRequest, conflict, notFound } from '../../errors.js';
import { Prisma, type PrismaClient } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import { paginate, type PageArgs } from '../../pagination.js';
import * as check from '../../validate.js';
import { assertMayJoin } from './joining.js';
import { accessRows } from '../../auth/access-rows.js';

/** Creates an organization whose one admin is `ownerId` (the CLI, and createOrganization for the caller). */
export async function createOrganization(prisma: PrismaClient, input: { title: string; ownerId: string; emailDomains?: string[] }) {
  const title = check.text('title', input.title?.trim() ?? '', { min: 2, max: 255 });
  const emailDomains = [...new Set(check.domains('emailDomains', input.emailDomains ?? []))];
  return prisma.$transaction(async (tx) => {
    if (!(await tx.user.findUnique({ where: { id: input.ownerId } }))) throw notFound('User');
    const org = await tx.organization.create({ data: { id: newId(), title, emailDomains } });
    await tx.member.create({ data: { organizationId: org.id, userId: input.ownerId, role: 'admin' } });
    return org;
  });
}

export function listOrganizations(ctx: Context, args: PageArgs) {
  // A token from an organization's single sign-on reaches only that organization.
  const scope = ctx.session.ssoOrganizationId;
  const where = { members: { some: { userId: ctx.caller.id, disabled: false } }, ...(scope ? { id: scope } : {}) };
  return paginate(
    args,
    () => ctx.prisma.organization.count({ where }),
    (w) => ctx.prisma.organization.findMany({ where, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], ...w }),
  );
}

export interface UpdateOrganizationInput {
  title?: string | null;
  emailDomains?: string[] | null;
  hostname?: string | null;
  defaultRole?: RoleName | null;
  defaultContent?: unknown;
  logo?: string | null;
  sso?: boolean | null;
  ai?: boolean | null;
  inviteLinks?: boolean | null;
  mergeRules?: unknown;
}

/** An organization's default content checked (official OrganizationDefaultContent: a SitePointer); other keys are dropped. */
export function defaultContentOf(value: unknown): { type: 'site'; site: string } {
  const content = check.object('defaultContent', value);
  if (content.type !== 'site' || typeof content.site !== 'string' || !content.site) {
    throw badRequest('defaultContent', 'must be { type: "site", site: <site id> } or null');
  }
  return { type: 'site', site: content.site };
}

const HOSTNAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

/** Fields that may not be null in a patch (absent means unchanged). */
function required<T>(field: string, value: T | null | undefined): T | undefined {
  if (value === null) throw badRequest(field, 'cannot be null');
  return value;
}

export async function updateOrganization(ctx: Context, id: string, input: UpdateOrganizationInput) {
  await requireOrg(ctx, id, 'admin');
  const data: Prisma.OrganizationUpdateInput = {};
  const title = required('title', input.title);
  // Trimmed as on creation, so a blank title cannot pass the length check.
  if (title !== undefined) data.title = check.text('title', title.trim(), { min: 2, max: 255 });
  const emailDomains = required('emailDomains', input.emailDomains);
  if (emailDomains !== undefined) data.emailDomains = [...new Set(check.domains('emailDomains', emailDomains))];
  if (input.hostname !== undefined) {
    if (input.hostname !== null) {
      const hostname = check.text('hostname', input.hostname.toLowerCase(), { min: 3, max: 32 });
      if (!HOSTNAME.test(hostname)) throw badRequest('hostname', 'may hold only letters, digits and inner dashes');
      const holder = await ctx.prisma.organization.findUnique({ where: { hostname } });
      if (holder && holder.id !== id) throw conflict(`hostname: "${hostname}" is taken by another organization`);
      data.hostname = hostname;
    } else data.hostname = null;
  }
  if (input.defaultRole !== undefined) data.defaultRole = input.defaultRole;
  if (input.defaultContent !== undefined) {
    // A nullable JSON column is cleared with DbNull (a plain null, or `{ set: null }`, is not a clear).
    if (input.defaultContent === null) data.defaultContent = Prisma.DbNull;
    else data.defaultContent = defaultContentOf(input.defaultContent);
  }
  if (input.logo !== undefined) data.logo = input.logo === null ? null : check.url('logo', input.logo);
  for (const flag of ['sso', 'ai', 'inviteLinks'] as const) {
    const value = required(flag, input[flag]);
    if (value !== undefined) data[flag] = value;
  }
  if (input.mergeRules !== undefined) {
    data.mergeRules = check.mergeRules('mergeRules', input.mergeRules, { allowInherit: false }) as Prisma.InputJsonValue;
  }
  try {
    const org = await ctx.prisma.organization.update({ where: { id }, data });
    accessRows(ctx).organization.clear(id).prime(id, org);
    return org;
  } catch (error) {
    // Another organization took the hostname between the check above and this write.
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002' && typeof data.hostname === 'string') {
      throw conflict(`hostname: "${data.hostname}" is taken by another organization`);
    }
    throw error;
  }
}

/** Joins an organization whose allowed email domains include the caller's verified email's. */
export async function joinOrganization(ctx: Context, id: string) {
  const org = await accessRows(ctx).organization.load(id);
  if (!org) throw notFound('Organization');
  const existing = await ctx.prisma.member.findUnique({ where: { organizationId_userId: { organizationId: id, userId: ctx.caller.id } } });
  if (existing) return true;
  // Someone whose verified email domain the organization does not admit gets the answer of a
  // missing organization (404, as the official operation documents): a 403 would confirm to any
  // token holder that the id exists. Only those it admits learn more (e.g. that it requires SSO).
  const domain = ctx.caller.email.split('@')[1]?.toLowerCase();
  if (!ctx.caller.emailVerified || !domain || !org.emailDomains.includes(domain)) throw notFound('Organization');
  assertMayJoin(ctx, org);
  // skipDuplicates: a concurrent join by the same caller is not an error (join is idempotent).
  await ctx.prisma.member.createMany({
    data: [{ organizationId: id, userId: ctx.caller.id, role: org.defaultRole }],
    skipDuplicates: true,
  });
  accessRows(ctx).callerMembership.clear(id);
  return true;
}
