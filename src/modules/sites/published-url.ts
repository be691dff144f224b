import { createHash } from 'node:crypto';
import { jwtVerify } from 'jose';
import type { Context } from '../../context.js';
import { issueSiteToken } from '../../auth/site-token.js';
import { badRequest, LecternError } from '../../errors.js';
import type { Site } from '../../generated/prisma/client.js';
import { builder } from '../../graphql/builder.js';
import { serverKeys } from '../../secrets.js';
import { isActiveShareKey, publishedUrl, siteSpacePath } from './links.js';
import { siteVisitorKeyOf, visitorFallbackUrl } from './publishing-auth.js';
import { findRedirect } from './redirect-service.js';
import { inAudience, resolveSegments, siteOfUrl, type Resolution, type SiteOfUrl } from './resolve.js';

/**
 * The official URL lookup (0.202.0 resolvePublishedContentByUrl, POST /urls/published; and its
 * deprecated GET form getPublishedContentByUrl, also in 0.146.0): a published URL → the official
 * `PublishedSiteContentLookup`, either what it shows (`PublishedSiteContent`: site, site section,
 * site space, space, revision, the URL's base paths and page path, canonical URL, an `apiToken`)
 * or where it redirects (`PublishedContentRedirect`).
 *
 * - URL forms and resolution: exactly `publishedContent(url:)`'s (resolve.ts `siteOfUrl` and
 *   `resolveSegments`): this server's `/public/<org>/sites/<site>/…`, a custom hostname, a proxy
 *   origin; `?share=<key>` for share-link sites (the key comes back as `shareKey`).
 * - Who gets an answer: the published site's audience (`inAudience`: members, anyone for public and
 *   unlisted sites, share-key holders); for a visitor-auth site also a visitor with a valid JWT
 *   signed with the site's key, given as `visitor.jwtToken` (POST), `visitorAuthToken` (GET) or the
 *   URL's `?jwt_token=` (the reader's sign-in link form). Anyone else, an unpublished site, a URL
 *   naming nothing: 404 "No content found for the URL" — as for a site that does not exist. With
 *   `redirectOnError`, a visitor-auth site refusing the visitor answers the redirect to its fallback
 *   (sign-in) URL instead (`target: application`), when the site has one.
 * - A path that shows no page follows the site's live redirects (`findRedirect`, as the reader):
 *   `target: content` within the site, `external` (with `site`) for an external destination.
 * - `apiToken`: a site token (src/auth/site-token.ts): one hour, reads that site's published
 *   content only. Never logged.
 * - `complete`: the URL named a page, or no site segment (section, variant) could come before one.
 * - `contextId`: for a visitor who brought a valid JWT, a digest of its claims (changes when they do).
 * - `changeRequest`: never set — Lectern publishes no change-request preview URLs.
 * - Unsigned claims (`visitor.unsignedClaims`) are accepted and do not change the answer (the lookup
 *   resolves as `publishedContent(url:)`: adaptive conditions are the reader's, per visitor).
 */

export interface LookupInput {
  url?: unknown;
  visitorAuthToken?: unknown;
  redirectOnError?: unknown;
  visitor?: unknown;
}

type Lookup = Record<string, unknown>;

const NOT_FOUND = () => new LecternError('NOT_FOUND', 'No content found for the URL');

function readInput(body: LookupInput) {
  if (body.url === undefined || body.url === null || body.url === '') throw badRequest('url', 'is required');
  if (typeof body.url !== 'string') throw badRequest('url', 'must be a string');
  if (body.url.length > 2048) throw badRequest('url', 'must be at most 2048 characters');
  if (body.redirectOnError != null && typeof body.redirectOnError !== 'boolean')
    throw badRequest('redirectOnError', 'must be true or false');
  if (body.visitorAuthToken != null && typeof body.visitorAuthToken !== 'string') throw badRequest('visitorAuthToken', 'must be a string');
  let jwt = (body.visitorAuthToken as string | undefined) || null;
  if (body.visitor != null) {
    if (typeof body.visitor !== 'object' || Array.isArray(body.visitor)) throw badRequest('visitor', 'must be an object');
    const v = body.visitor as Record<string, unknown>;
    if (v.type != null && v.type !== 'human' && v.type !== 'agent') throw badRequest('visitor.type', 'must be human or agent');
    if (v.jwtToken != null && typeof v.jwtToken !== 'string') throw badRequest('visitor.jwtToken', 'must be a string');
    if (v.unsignedClaims != null && (typeof v.unsignedClaims !== 'object' || Array.isArray(v.unsignedClaims)))
      throw badRequest('visitor.unsignedClaims', 'must be an object');
    jwt = (v.jwtToken as string | undefined) || jwt;
  }
  return { url: body.url, jwt, redirectOnError: body.redirectOnError === true };
}

/** The claims of a visitor JWT signed with the site's visitor key (HS256), or null. */
async function visitorClaims(ctx: Context, site: Site, token: string): Promise<Record<string, unknown> | null> {
  try {
    const key = new TextEncoder().encode(await siteVisitorKeyOf(ctx, site.id));
    return (await jwtVerify(token, key, { algorithms: ['HS256'] })).payload as Record<string, unknown>;
  } catch {
    return null;
  }
}

const encodePath = (segments: string[]) => (segments.length ? `/${segments.map(encodeURIComponent).join('/')}/` : '/');

async function content(
  ctx: Context,
  found: SiteOfUrl,
  res: Resolution,
  shareKey: string | null,
  claims: Record<string, unknown> | null,
): Promise<Lookup> {
  const { site } = found;
  const { view, reading } = res;
  const consumed = found.rest.slice(0, found.rest.length - reading.pagePath.length);
  const sectionDone = !view.sectioned || reading.sectionNamed || view.sections.length <= 1;
  const spaceDone = reading.siteSpaceNamed || view.spacesIn(res.section?.id ?? null).length <= 1;
  const keys = await serverKeys(ctx);
  return {
    site: site.id,
    ...(res.section ? { siteSection: res.section.id } : {}),
    siteSpace: res.siteSpace.id,
    space: res.space.id,
    revision: res.content.revision.id,
    pathname: reading.pagePath.join('/'),
    basePath: encodePath([...found.siteSegments, ...consumed]),
    siteBasePath: encodePath(found.siteSegments),
    apiToken: issueSiteToken(keys, { siteId: site.id, organizationId: site.organizationId, userId: ctx.caller.id }),
    organization: site.organizationId,
    ...(shareKey ? { shareKey } : {}),
    complete: reading.pagePath.length > 0 || (sectionDone && spaceDone),
    ...(claims ? { contextId: createHash('sha256').update(JSON.stringify(claims)).digest('base64url').slice(0, 22) } : {}),
    canonicalUrl: (await publishedUrl(ctx, site, [...siteSpacePath(view, res.siteSpace), res.page.path]))!,
  };
}

export async function lookupPublishedUrl(ctx: Context, body: LookupInput): Promise<Lookup> {
  const input = readInput(body);
  const found = await siteOfUrl(ctx, input.url);
  if (!found) throw NOT_FOUND();
  const { site } = found;
  const share = found.url.searchParams.get('share');
  const jwt = input.jwt ?? found.url.searchParams.get('jwt_token');
  const claims = jwt && site.published ? await visitorClaims(ctx, site, jwt) : null;
  let allowed = await inAudience(ctx, site, share);
  if (!allowed && site.published && site.visibility === 'visitor-auth') {
    allowed = claims !== null;
    if (!allowed && input.redirectOnError) {
      const fallback = await visitorFallbackUrl(ctx, site.id);
      if (fallback) return { target: 'application', redirect: fallback };
    }
  }
  if (!allowed) throw NOT_FOUND();
  const activeShare = site.visibility === 'share-link' && share && (await isActiveShareKey(ctx, site.id, share)) ? share : null;
  const res = await resolveSegments(ctx, site, found.rest);
  if (res) return content(ctx, found, res, activeShare, claims);
  const redirect = await findRedirect(ctx, site, `/${found.rest.join('/')}`);
  if (!redirect) throw NOT_FOUND();
  return redirect.redirect.destination.kind === 'external'
    ? { target: 'external', site: site.id, redirect: redirect.target }
    : { target: 'content', redirect: redirect.target };
}

const PublishedSiteContentType = builder.objectRef<Lookup>('PublishedSiteContent').implement({
  description: 'What a published URL shows, with a one-hour apiToken reading that site’s published content',
  isTypeOf: (v) => !('redirect' in (v as Lookup)),
  fields: (t) => {
    const str = (name: string, description?: string) =>
      t.string({ nullable: true, description, resolve: (v) => (v[name] as string | undefined) ?? null });
    return {
      site: str('site'),
      siteSection: str('siteSection'),
      siteSpace: str('siteSpace'),
      space: str('space'),
      revision: str('revision'),
      pathname: str('pathname', 'The page path within the site space'),
      basePath: str('basePath', 'The URL path up to the page path'),
      siteBasePath: str('siteBasePath'),
      apiToken: str('apiToken'),
      organization: str('organization'),
      shareKey: str('shareKey'),
      complete: t.boolean({ resolve: (v) => v.complete as boolean }),
      contextId: str('contextId', "A digest of a signed visitor's claims"),
      canonicalUrl: str('canonicalUrl'),
    };
  },
});

const RedirectTargetEnum = builder.enumType('PublishedContentRedirectTarget', {
  values: { content: { value: 'content' }, external: { value: 'external' }, application: { value: 'application' } } as const,
});

const PublishedContentRedirectType = builder.objectRef<Lookup>('PublishedContentRedirect').implement({
  description: 'Where a published URL redirects: content of the site, an external URL, or the sign-in (fallback) URL',
  isTypeOf: (v) => 'redirect' in (v as Lookup),
  fields: (t) => ({
    target: t.field({ type: RedirectTargetEnum, resolve: (v) => v.target as 'content' }),
    site: t.string({ nullable: true, resolve: (v) => (v.site as string | undefined) ?? null }),
    redirect: t.string({ resolve: (v) => v.redirect as string }),
  }),
});

const LookupUnion = builder.unionType('PublishedSiteContentLookup', {
  types: [PublishedSiteContentType, PublishedContentRedirectType],
  resolveType: (v) => ('redirect' in v ? PublishedContentRedirectType : PublishedSiteContentType),
});

const VisitorTypeEnum = builder.enumType('PublishedContentVisitorType', { values: ['human', 'agent'] as const });

const VisitorInput = builder.inputType('PublishedContentVisitorInput', {
  fields: (t) => ({
    type: t.field({ type: VisitorTypeEnum, required: false }),
    jwtToken: t.string({ required: false, description: "A JWT signed with the site's visitor key" }),
    unsignedClaims: t.field({
      type: 'JSON',
      required: false,
      description: 'Free-form: claims the visitor states about themselves, any JSON object (accepted, not used)',
    }),
  }),
});

const LookupInputType = builder.inputType('PublishedContentLookupInput', {
  fields: (t) => ({
    url: t.string({ required: false, description: 'Required: the published URL' }),
    visitor: t.field({ type: VisitorInput, required: false }),
    visitorAuthToken: t.string({ required: false }),
    redirectOnError: t.boolean({ required: false }),
  }),
});

builder.queryField('publishedContentLookup', (t) =>
  t.field({
    type: LookupUnion,
    description:
      'The official URL lookup (resolvePublishedContentByUrl): what a published URL shows — site, section, site space, space, revision, base paths, canonical URL and a one-hour apiToken reading that site’s content — or where it redirects',
    args: { input: t.arg({ type: LookupInputType, required: true }) },
    resolve: (_r, args, ctx) => lookupPublishedUrl(ctx, args.input as LookupInput),
  }),
);
