import { X509Certificate } from 'node:crypto';
import type { Context } from '../../context.js';
import { requireOrg, ssoBarrier } from '../../auth/permissions.js';
import type { RoleName } from '../../auth/roles.js';
import { badRequest, notFound } from '../../errors.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import { paginate, type PageArgs } from '../../pagination.js';
import * as check from '../../validate.js';
import { accessRows } from '../../auth/access-rows.js';

/**
 * SAML providers of an organization: managed and read by its admins. The list of sign-in start
 * URLs (`GET /orgs/{id}/sso`) is open to every member, also those whose token single sign-on
 * holds back (they need it to sign in).
 */

export interface SamlProviderInput {
  label?: string | null;
  entityID?: string | null;
  certificate?: string | null;
  ssoURL?: string | null;
  defaultTeam?: string | null;
  defaultRole?: RoleName | null;
}

const PEM = /^-----BEGIN CERTIFICATE-----\r?\n[A-Za-z0-9+/=\r\n]+-----END CERTIFICATE-----$/;

/** A PEM X.509 certificate (one), as node:crypto reads it; stored trimmed. */
export function pemCertificate(field: string, value: string): string {
  check.text(field, value, { max: 10000 });
  const pem = value.trim();
  if (!PEM.test(pem)) {
    throw badRequest(field, 'must be one PEM X.509 certificate (-----BEGIN CERTIFICATE----- … -----END CERTIFICATE-----)');
  }
  try {
    new X509Certificate(pem);
  } catch {
    throw badRequest(field, 'is not a valid X.509 certificate (its PEM content cannot be read)');
  }
  return pem;
}

function notNull<T>(field: string, value: T | null | undefined): T | undefined {
  if (value === null) throw badRequest(field, 'cannot be null');
  return value;
}

/** Checks the fields present in `input`; `create` requires those a provider cannot work without. */
async function providerData(ctx: Context, organizationId: string, input: SamlProviderInput, create: boolean) {
  const data: Partial<Prisma.SamlProviderUncheckedCreateInput> = {};
  // The official response requires ssoURL, entityID and certificate: a provider is complete from the start.
  for (const field of ['label', 'entityID', 'certificate', 'ssoURL'] as const) {
    if (create && input[field] == null) throw badRequest(field, 'is required');
  }
  const label = notNull('label', input.label);
  if (label !== undefined) data.label = check.text('label', label.trim(), { min: 1, max: 30 });
  const entityID = notNull('entityID', input.entityID);
  if (entityID !== undefined) data.entityID = check.text('entityID', entityID.trim(), { min: 1, max: 1024 });
  const certificate = notNull('certificate', input.certificate);
  if (certificate !== undefined) data.certificate = pemCertificate('certificate', certificate);
  const ssoURL = notNull('ssoURL', input.ssoURL);
  if (ssoURL !== undefined) data.ssoURL = check.url('ssoURL', ssoURL.trim());
  if (input.defaultTeam !== undefined) {
    if (input.defaultTeam !== null) {
      const team = await ctx.prisma.team.findFirst({ where: { id: input.defaultTeam, organizationId } });
      if (!team) throw badRequest('defaultTeam', `"${input.defaultTeam}" is not a team of this organization`);
    }
    data.defaultTeamId = input.defaultTeam;
  }
  if (input.defaultRole !== undefined) data.defaultRole = input.defaultRole;
  return data;
}

export async function listSamlProviders(ctx: Context, organizationId: string, args: PageArgs) {
  await requireOrg(ctx, organizationId, 'admin');
  const where = { organizationId };
  return paginate(
    args,
    () => ctx.prisma.samlProvider.count({ where }),
    (w) => ctx.prisma.samlProvider.findMany({ where, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], ...w }),
  );
}

export async function getSamlProvider(ctx: Context, organizationId: string, providerId: string) {
  await requireOrg(ctx, organizationId, 'admin');
  const provider = await ctx.prisma.samlProvider.findFirst({ where: { id: providerId, organizationId } });
  if (!provider) throw notFound('SAML provider');
  return provider;
}

/** `defaultRole` absent: the organization's default role (what people joining by email domain get). */
export async function createSamlProvider(ctx: Context, organizationId: string, input: SamlProviderInput) {
  const org = await requireOrg(ctx, organizationId, 'admin');
  const data = await providerData(ctx, organizationId, input, true);
  return ctx.prisma.samlProvider.create({
    data: {
      ...(data as Prisma.SamlProviderUncheckedCreateInput),
      id: newId(),
      organizationId,
      defaultRole: input.defaultRole !== undefined ? input.defaultRole : org.defaultRole,
    },
  });
}

export async function updateSamlProvider(ctx: Context, organizationId: string, providerId: string, input: SamlProviderInput) {
  await getSamlProvider(ctx, organizationId, providerId);
  const data = await providerData(ctx, organizationId, input, false);
  return ctx.prisma.samlProvider.update({ where: { id: providerId }, data });
}

export async function deleteSamlProvider(ctx: Context, organizationId: string, providerId: string) {
  await requireOrg(ctx, organizationId, 'admin');
  const { count } = await ctx.prisma.samlProvider.deleteMany({ where: { id: providerId, organizationId } });
  if (!count) throw notFound('SAML provider');
  return true;
}

/**
 * Where the organization's members sign in: every active member may ask, including one whose
 * current token single sign-on holds back; a token of another organization's SSO may not.
 */
export async function listSsoLogins(ctx: Context, organizationId: string) {
  const [org, member] = await Promise.all([
    accessRows(ctx).organization.load(organizationId),
    accessRows(ctx).callerMembership.load(organizationId),
  ]);
  if (!org || !member || member.disabled || (await ssoBarrier(ctx, organizationId, member)) === 'other-organization') {
    throw notFound('Organization');
  }
  const providers = await ctx.prisma.samlProvider.findMany({ where: { organizationId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  return providers.map((p) => ({ id: p.id, label: p.label, startURL: ctx.urls.samlService(p.id).startURL }));
}
