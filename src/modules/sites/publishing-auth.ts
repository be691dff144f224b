import { randomBytes } from 'node:crypto';
import type { Context } from '../../context.js';
import { requireSite } from '../../auth/permissions.js';
import { badRequest } from '../../errors.js';
import type { Site } from '../../generated/prisma/client.js';
import { builder } from '../../graphql/builder.js';
import { serverKeys, type ServerKeys } from '../../secrets.js';
import * as check from '../../validate.js';
import { SiteRef } from './refs.js';

/**
 * Publishing auth (official getSitePublishingAuthById, updateSitePublishingAuthById,
 * regenerateSitePublishingAuthById): the settings of a site's visitor authentication (the
 * `visitor-auth` visibility), above all the key that signs visitors' JWTs (HS256).
 *
 * - The key: a stored one (32 random bytes, base64url, sealed with the server key; made by
 *   `regenerate`), else — for every site until its key is first regenerated — the key derived
 *   from the server key and the site id (`derivedVisitorKey`, how the reader signed before keys
 *   were stored). So existing sites' tokens keep working without a migration, and a regenerated key
 *   replaces the derived one at once (tokens signed with the old key are refused from then on).
 * - Who: those who may change the site (the `create` role in the organization, or on the site):
 *   the key lets its holder admit any visitor. Other members get 403, outsiders the site's 404.
 * - `backend`: only `custom` (a backend of the site owner's signing the JWTs); `integration`
 *   needs a visitor-auth integration installed on the site, which Lectern has none of: a 400.
 * - `fallbackURL` (where a visitor without a valid token is sent; the reader redirects there with
 *   `?location=<the requested URL>`) and `logoutURL`: absolute http(s) URLs; null unsets them, an
 *   absent field leaves them unchanged.
 */

const SEAL_CONTEXT = 'site-visitor-key v1';

/** The key derived from the server key and the site id (no row stored). */
export function derivedVisitorKey(keys: ServerKeys, siteId: string): string {
  return keys.sign(['site-visitor-auth v1', siteId]);
}

async function stored(ctx: Pick<Context, 'prisma'>, siteId: string) {
  return ctx.prisma.sitePublishingAuth.findUnique({ where: { siteId } });
}

/** The key that signs the site's visitor JWTs (no permission check: for the reader's access decision). */
export async function siteVisitorKeyOf(ctx: Context, siteId: string): Promise<string> {
  const [row, keys] = await Promise.all([stored(ctx, siteId), serverKeys(ctx)]);
  return keys.open(`${SEAL_CONTEXT}\0${siteId}`, row?.keySealed) ?? derivedVisitorKey(keys, siteId);
}

/** Where a visitor without a valid token is sent (null: the reader's own sign-in notice). No permission check. */
export async function visitorFallbackUrl(ctx: Context, siteId: string): Promise<string | null> {
  return (await stored(ctx, siteId))?.fallbackURL ?? null;
}

export interface PublishingAuthJson {
  object: 'publishing-auth';
  backend: string;
  privateKey: string;
  fallbackURL?: string;
  logoutURL?: string;
}

async function answer(ctx: Context, site: Site): Promise<PublishingAuthJson> {
  const [row, privateKey] = await Promise.all([stored(ctx, site.id), siteVisitorKeyOf(ctx, site.id)]);
  return {
    object: 'publishing-auth',
    backend: row?.backend ?? 'custom',
    privateKey,
    ...(row?.fallbackURL ? { fallbackURL: row.fallbackURL } : {}),
    ...(row?.logoutURL ? { logoutURL: row.logoutURL } : {}),
  };
}

export async function getPublishingAuth(ctx: Context, organizationId: string, siteId: string): Promise<PublishingAuthJson> {
  return answer(ctx, await requireSite(ctx, organizationId, siteId, 'write'));
}

function optionalUrl(field: string, value: unknown): string | null | undefined {
  if (value === undefined || value === null) return value;
  if (typeof value !== 'string') throw badRequest(field, 'must be a URL or null');
  check.url(field, value);
  if (!/^https?:\/\//i.test(value)) throw badRequest(field, 'must be an http or https URL');
  return value;
}

export async function updatePublishingAuth(
  ctx: Context,
  organizationId: string,
  siteId: string,
  input: unknown,
): Promise<PublishingAuthJson> {
  const site = await requireSite(ctx, organizationId, siteId, 'write');
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw badRequest('body', 'must be an object');
  const body = input as Record<string, unknown>;
  for (const key of Object.keys(body))
    if (!['backend', 'fallbackURL', 'logoutURL'].includes(key)) throw badRequest(key, 'is not a publishing auth setting');
  if (body.backend === 'integration')
    throw badRequest('backend', 'no visitor authentication integration is installed on this site: only custom is available');
  if (body.backend !== 'custom') throw badRequest('backend', "must be 'custom' or 'integration'");
  const fallbackURL = optionalUrl('fallbackURL', body.fallbackURL);
  const logoutURL = optionalUrl('logoutURL', body.logoutURL);
  const changes = {
    backend: 'custom',
    ...(fallbackURL !== undefined ? { fallbackURL } : {}),
    ...(logoutURL !== undefined ? { logoutURL } : {}),
  };
  await ctx.prisma.sitePublishingAuth.upsert({ where: { siteId: site.id }, create: { siteId: site.id, ...changes }, update: changes });
  return answer(ctx, site);
}

export async function regeneratePublishingAuth(ctx: Context, organizationId: string, siteId: string): Promise<PublishingAuthJson> {
  const site = await requireSite(ctx, organizationId, siteId, 'write');
  const keys = await serverKeys(ctx);
  const keySealed = keys.seal(`${SEAL_CONTEXT}\0${site.id}`, randomBytes(32).toString('base64url'));
  await ctx.prisma.sitePublishingAuth.upsert({ where: { siteId: site.id }, create: { siteId: site.id, keySealed }, update: { keySealed } });
  return answer(ctx, site);
}

const PublishingAuthBackendEnum = builder.enumType('SitePublishingAuthBackend', {
  description: 'Who signs the visitor JWTs: a backend of the site owner (custom) or a visitor-auth integration',
  values: { custom: { value: 'custom' }, integration: { value: 'integration' } } as const,
});

const PublishingAuthType = builder.objectRef<PublishingAuthJson>('SitePublishingAuth').implement({
  description: "A site's visitor authentication settings and the key that signs visitors' JWTs (official SitePublishingAuth)",
  fields: (t) => ({
    object: t.exposeString('object'),
    backend: t.field({ type: PublishingAuthBackendEnum, resolve: (a) => a.backend as 'custom' }),
    privateKey: t.exposeString('privateKey', { description: 'The HS256 key (base64url) that signs visitor JWTs' }),
    fallbackURL: t.exposeString('fallbackURL', { nullable: true, description: 'Where a visitor without a valid token is sent' }),
    logoutURL: t.exposeString('logoutURL', { nullable: true }),
  }),
});

const PublishingAuthUpdateInput = builder.inputType('SitePublishingAuthUpdateInput', {
  description: 'Official SitePublishingAuthUpdate: an absent URL is left unchanged, null unsets it',
  fields: (t) => ({
    backend: t.field({ type: PublishingAuthBackendEnum, required: false }),
    fallbackURL: t.string({ required: false }),
    logoutURL: t.string({ required: false }),
  }),
});

builder.objectField(SiteRef, 'publishingAuth', (t) =>
  t.field({
    type: PublishingAuthType,
    description: "The site's visitor authentication settings and signing key; for those who may change the site",
    resolve: (site, _args, ctx) => getPublishingAuth(ctx, site.organizationId, site.id),
  }),
);

builder.mutationFields((t) => ({
  updateSitePublishingAuth: t.field({
    type: PublishingAuthType,
    description: 'Changes the visitor authentication settings (backend, fallbackURL, logoutURL; null unsets a URL)',
    args: {
      organizationId: t.arg.id({ required: true }),
      siteId: t.arg.id({ required: true }),
      input: t.arg({ type: PublishingAuthUpdateInput, required: true }),
    },
    resolve: (_r, args, ctx) => updatePublishingAuth(ctx, String(args.organizationId), String(args.siteId), args.input),
  }),
  regenerateSitePublishingAuth: t.field({
    type: PublishingAuthType,
    description: "Replaces the site's visitor JWT signing key with a new random one (tokens signed with the old key stop working)",
    args: { organizationId: t.arg.id({ required: true }), siteId: t.arg.id({ required: true }) },
    resolve: (_r, args, ctx) => regeneratePublishingAuth(ctx, String(args.organizationId), String(args.siteId)),
  }),
}));
