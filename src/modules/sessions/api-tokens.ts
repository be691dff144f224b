import type { Context } from '../../context.js';
import { hashToken, newApiToken } from '../../auth/tokens.js';
import { badRequest, forbidden, notFound } from '../../errors.js';
import { newId } from '../../ids.js';

/** The caller's personal API tokens: the ApiToken rows without an SSO organization (those are sign-ins). */
const personal = (userId: string) => ({ userId, ssoOrganizationId: null });

export function viewerApiTokens(ctx: Context) {
  return ctx.prisma.apiToken.findMany({ where: personal(ctx.caller.id), orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], take: 500 });
}

/**
 * A personal API token for the caller, answered once (only its hash is kept); it works as a Bearer
 * token on /v1 and /graphql like one from the CLI. Not from a token scoped to a site or to an SSO
 * organization: such a token must not mint a broader one.
 */
export async function createApiToken(ctx: Context, label: string) {
  const trimmed = label.trim();
  if (!trimmed || trimmed.length > 100) throw badRequest('label', 'must be 1 to 100 characters');
  if (ctx.session.siteScope || ctx.session.ssoOrganizationId)
    throw forbidden('A token or session of single sign-on cannot create API tokens');
  const token = newApiToken();
  const apiToken = await ctx.prisma.apiToken.create({
    data: { id: newId(), userId: ctx.caller.id, hash: hashToken(token), label: trimmed },
  });
  return { token, apiToken };
}

/** Revokes (deletes) one of the caller's personal tokens: it stops working at once. */
export async function revokeApiToken(ctx: Context, id: string): Promise<boolean> {
  const { count } = await ctx.prisma.apiToken.deleteMany({ where: { id, ...personal(ctx.caller.id) } });
  if (!count) throw notFound('API token');
  return true;
}
