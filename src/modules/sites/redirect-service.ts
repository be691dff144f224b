import type { Context } from '../../context.js';
import { requireSite } from '../../auth/permissions.js';
import { accessRows } from '../../auth/access-rows.js';
import { badRequest, conflict, notFound } from '../../errors.js';
import type { Prisma, Site, SiteRedirect } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import { paginate, type PageArgs } from '../../pagination.js';
import { findPage, viewOf } from '../content/index.js';
import { checkOfficial } from './customization-validate.js';
import { acceptShareKey, publishedUrl, sectionPath, siteSpacePath } from './links.js';
import { siteView } from './structure.js';
import { isObject } from '../../validate.js';

/**
 * Site redirects (official createSiteRedirect, bulkUpsertSiteRedirects, listSiteRedirects,
 * updateSiteRedirectById, deleteSiteRedirectById, getSiteRedirectBySource).
 *
 * - A source is a path below the site's published URL (official SiteRedirectSourcePath); one ending
 *   in `*` (`/old/*`, `/old*`) matches every path starting with what comes before the `*`. A site
 *   has at most one live and one draft redirect per source: another is a 409.
 * - Destinations: a section, a site space or a page of a site space of this site (checked: 400 naming
 *   the id otherwise), or an external http(s) URL. The input-only `path` destination (a space and a
 *   page path in it) is resolved when written and stored as the site page it names.
 * - Lookup (`getSiteRedirectBySource`, and `findRedirect` for the reader): live redirects only; an
 *   exact source first, then the wildcard source with the longest prefix. `captureWildcard` appends
 *   what the `*` matched to the destination URL.
 * - Writes need the site write role, reads any member (as every site route).
 */

type Destination =
  | { kind: 'site-section'; siteSectionId: string }
  | { kind: 'site-space'; siteSpaceId: string }
  | { kind: 'site-page'; siteSpaceId: string; pageId: string }
  | { kind: 'external'; url: string };
type InputDestination = Destination | { kind: 'path'; spaceId: string; path: string };

export interface RedirectJson {
  object: 'site-redirect';
  id: string;
  source: string;
  draft: boolean;
  captureWildcard: boolean;
  permanent: boolean;
  destination: Destination;
  createdAt: Date;
  updatedAt?: Date;
}

export const redirectJson = (r: SiteRedirect): RedirectJson => ({
  object: 'site-redirect',
  id: r.id,
  source: r.source,
  draft: r.draft,
  captureWildcard: r.captureWildcard,
  permanent: r.permanent,
  destination: r.destination as Destination,
  createdAt: r.createdAt,
  ...(r.updatedAt ? { updatedAt: r.updatedAt } : {}),
});

// Its fields are checked one by one by the caller (checkOfficial first), hence `any`.
const bodyObject = (body: unknown): Record<string, any> => {
  if (!isObject(body)) throw badRequest('body', 'must be a JSON object');
  return body;
};

/** Checks a destination against the site (its sections, site spaces, pages); a `path` one becomes the site page it names. */
async function siteDestination(ctx: Context, site: Site, d: InputDestination, field: string): Promise<Destination> {
  const view = await siteView(ctx, site);
  switch (d.kind) {
    case 'external':
      return { kind: 'external', url: d.url };
    case 'site-section':
      if (!view.section(d.siteSectionId)) throw badRequest(`${field}.siteSectionId`, 'is not a section of this site');
      return { kind: 'site-section', siteSectionId: d.siteSectionId };
    case 'site-space':
      if (!view.siteSpaces.some((s) => s.id === d.siteSpaceId))
        throw badRequest(`${field}.siteSpaceId`, 'is not a site space of this site');
      return { kind: 'site-space', siteSpaceId: d.siteSpaceId };
    case 'site-page': {
      const siteSpace = view.siteSpaces.find((s) => s.id === d.siteSpaceId);
      if (!siteSpace) throw badRequest(`${field}.siteSpaceId`, 'is not a site space of this site');
      if (!(await pageOfSpace(ctx, siteSpace.spaceId, { id: d.pageId })))
        throw badRequest(`${field}.pageId`, 'is not a page of that site space');
      return { kind: 'site-page', siteSpaceId: d.siteSpaceId, pageId: d.pageId };
    }
    case 'path': {
      const siteSpace = view.siteSpaces.find((s) => s.spaceId === d.spaceId);
      if (!siteSpace) throw badRequest(`${field}.spaceId`, 'is not a space of this site');
      const page = await pageOfSpace(ctx, d.spaceId, { path: d.path.replace(/^\/+|\/+$/g, '') });
      if (!page) throw badRequest(`${field}.path`, 'is not the path of a page of that space');
      return { kind: 'site-page', siteSpaceId: siteSpace.id, pageId: page.json.id };
    }
  }
}

/** A page of a space's main content (the site shows it: no space permission asked of the caller). */
async function pageOfSpace(ctx: Context, spaceId: string, by: { id?: string; path?: string }) {
  const space = await ctx.prisma.space.findUnique({ where: { id: spaceId } });
  if (!space || space.deletedAt) return null;
  return findPage(ctx, await viewOf(ctx, space, space.revisionId), by);
}

async function unique<T>(source: string, draft: boolean, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if ((error as { code?: string }).code === 'P2002')
      throw conflict(`The site already has a ${draft ? 'draft' : 'live'} redirect from ${source}`);
    throw error;
  }
}

export async function listRedirects(
  ctx: Context,
  site: Site,
  args: PageArgs & { search?: string | null; draft?: boolean | null; orderBy?: string | null },
) {
  await requireSite(ctx, site.organizationId, site.id);
  const orderBy = args.orderBy ?? 'createdAt';
  if (!['createdAt', 'updatedAt', 'source'].includes(orderBy)) throw badRequest('orderBy', 'must be one of createdAt, updatedAt, source');
  const where: Prisma.SiteRedirectWhereInput = {
    siteId: site.id,
    draft: args.draft ?? false,
    ...(args.search ? { source: { contains: args.search, mode: 'insensitive' } } : {}),
  };
  // updatedAt: the most recently updated first, those never updated by their creation date (one
  // ordering over both needs SQL's COALESCE: the window is read by id after it).
  const order: Prisma.SiteRedirectOrderByWithRelationInput[] =
    orderBy === 'source' ? [{ source: 'asc' }, { id: 'asc' }] : [{ createdAt: 'desc' }, { id: 'asc' }];
  return paginate(
    args,
    () => ctx.prisma.siteRedirect.count({ where }),
    async ({ skip, take }) => {
      if (orderBy !== 'updatedAt') return (await ctx.prisma.siteRedirect.findMany({ where, orderBy: order, skip, take })).map(redirectJson);
      const ids = await ctx.prisma.$queryRaw<{ id: string }[]>`
        SELECT id FROM "SiteRedirect" WHERE "siteId" = ${site.id} AND draft = ${where.draft as boolean}
          AND (${args.search ?? null}::text IS NULL OR source ILIKE '%' || ${args.search ?? null}::text || '%')
        ORDER BY COALESCE("updatedAt", "createdAt") DESC, id LIMIT ${take} OFFSET ${skip}`;
      const rows = new Map((await ctx.prisma.siteRedirect.findMany({ where: { id: { in: ids.map((r) => r.id) } } })).map((r) => [r.id, r]));
      return ids.map((r) => redirectJson(rows.get(r.id)!));
    },
  );
}

export async function createRedirect(ctx: Context, organizationId: string, siteId: string, body: unknown) {
  const site = await requireSite(ctx, organizationId, siteId, 'write');
  const input = bodyObject(body);
  checkOfficial('createSiteRedirect', input);
  const destination = await siteDestination(ctx, site, input.destination, 'destination');
  const draft = input.draft ?? false;
  const row = await unique(input.source, draft, () =>
    ctx.prisma.siteRedirect.create({
      data: {
        id: newId(),
        siteId,
        source: input.source,
        draft,
        captureWildcard: input.captureWildcard ?? false,
        permanent: input.permanent ?? false,
        destination,
      },
    }),
  );
  return redirectJson(row);
}

async function redirectOf(ctx: Context, siteId: string, id: string) {
  const row = await ctx.prisma.siteRedirect.findFirst({ where: { id, siteId } });
  if (!row) throw notFound('Site redirect');
  return row;
}

export async function updateRedirect(ctx: Context, organizationId: string, siteId: string, id: string, body: unknown) {
  const site = await requireSite(ctx, organizationId, siteId, 'write');
  const input = bodyObject(body);
  checkOfficial('updateSiteRedirectById', input);
  const current = await redirectOf(ctx, siteId, id);
  const data: Prisma.SiteRedirectUpdateInput = { updatedAt: new Date() };
  for (const key of ['source', 'captureWildcard', 'draft', 'permanent'] as const) if (input[key] !== undefined) data[key] = input[key];
  if (input.destination !== undefined) data.destination = await siteDestination(ctx, site, input.destination, 'destination');
  const row = await unique(input.source ?? current.source, input.draft ?? current.draft, () =>
    ctx.prisma.siteRedirect.update({ where: { id }, data }),
  );
  return redirectJson(row);
}

/** Deletes a redirect; 404 when the site has no such redirect. */
export async function deleteRedirect(ctx: Context, organizationId: string, siteId: string, id: string): Promise<boolean> {
  await requireSite(ctx, organizationId, siteId, 'write');
  const { count } = await ctx.prisma.siteRedirect.deleteMany({ where: { id, siteId } });
  if (!count) throw notFound('Site redirect');
  return true;
}

export type BulkResult =
  | { status: 'created' | 'updated' | 'published'; source: string; draft: boolean; id: string }
  | { status: 'deleted'; source: string; draft: boolean }
  | { status: 'error'; source: string; draft: boolean; error: string };

export const MAX_BULK_REDIRECTS = 500;

/**
 * Up to 500 operations, each on its own (one failing leaves the others done): the body must match
 * the official schema as a whole (400 naming the item's field otherwise); what can only fail against
 * the site's data (an unknown site space, a missing draft to publish, nothing to delete) is that
 * item's `error` result.
 */
export async function bulkUpsertRedirects(
  ctx: Context,
  organizationId: string,
  siteId: string,
  body: unknown,
): Promise<{ results: BulkResult[] }> {
  const site = await requireSite(ctx, organizationId, siteId, 'write');
  const input = bodyObject(body);
  for (const key of Object.keys(input)) if (key !== 'redirects') throw badRequest(key, 'is not a known field');
  const items = input.redirects;
  if (!Array.isArray(items)) throw badRequest('redirects', items === undefined ? 'is required' : 'must be an array');
  if (items.length < 1 || items.length > MAX_BULK_REDIRECTS)
    throw badRequest('redirects', `must hold 1 to ${MAX_BULK_REDIRECTS} redirects`);
  items.forEach((item, i) =>
    checkOfficial(
      isObject(item) && item.intent === 'publish' ? 'bulkUpsertSiteRedirectsPublish' : 'bulkUpsertSiteRedirectsUpsert',
      item,
      `redirects[${i}]`,
    ),
  );

  const results: BulkResult[] = [];
  for (const [i, item] of items.entries()) {
    const source: string = item.source;
    const draft = item.intent === 'draft';
    try {
      if (item.intent === 'publish') {
        const pending = await ctx.prisma.siteRedirect.findUnique({ where: { siteId_draft_source: { siteId, draft: true, source } } });
        if (!pending) throw badRequest(`redirects[${i}].source`, 'has no draft redirect to publish');
        const { id: _id, draft: _d, createdAt: _c, updatedAt: _u, siteId: _s, ...values } = pending;
        const live = await ctx.prisma.$transaction(async (tx) => {
          const existing = await tx.siteRedirect.findUnique({ where: { siteId_draft_source: { siteId, draft: false, source } } });
          const data = { ...values, destination: values.destination as Prisma.InputJsonValue };
          const row = existing
            ? await tx.siteRedirect.update({ where: { id: existing.id }, data: { ...data, updatedAt: new Date() } })
            : await tx.siteRedirect.create({ data: { id: newId(), siteId, draft: false, ...data } });
          await tx.siteRedirect.delete({ where: { id: pending.id } });
          return row;
        });
        results.push({ status: 'published', source, draft: false, id: live.id });
        continue;
      }
      const key = { siteId_draft_source: { siteId, draft, source } };
      if (item.destination === null) {
        const { count } = await ctx.prisma.siteRedirect.deleteMany({ where: { siteId, draft, source } });
        if (!count) throw badRequest(`redirects[${i}].source`, `has no ${draft ? 'draft' : 'live'} redirect to delete`);
        results.push({ status: 'deleted', source, draft });
        continue;
      }
      const destination = await siteDestination(ctx, site, item.destination, `redirects[${i}].destination`);
      const values = {
        captureWildcard: item.captureWildcard ?? false,
        ...(item.permanent !== undefined ? { permanent: item.permanent } : {}),
        destination,
      };
      const existing = await ctx.prisma.siteRedirect.findUnique({ where: key });
      const row = existing
        ? await ctx.prisma.siteRedirect.update({ where: { id: existing.id }, data: { ...values, updatedAt: new Date() } })
        : await ctx.prisma.siteRedirect.create({ data: { id: newId(), siteId, source, draft, ...values } });
      results.push({ status: existing ? 'updated' : 'created', source, draft, id: row.id });
    } catch (error) {
      const message = (error as Error).message;
      if (!(error as { extensions?: { code?: string } }).extensions?.code) throw error;
      results.push({ status: 'error', source, draft: item.intent === 'publish' ? true : draft, error: message });
    }
  }
  return { results };
}

/** The live redirect of a path (an exact source first, then the longest wildcard source) and what the `*` matched. */
async function matchRedirect(
  ctx: Pick<Context, 'prisma'>,
  siteId: string,
  path: string,
): Promise<{ redirect: SiteRedirect; rest: string } | null> {
  const clean = `/${path.replace(/^\/+/, '')}`.replace(/(.)\/+$/, '$1');
  const candidates = await ctx.prisma.$queryRaw<SiteRedirect[]>`
    SELECT * FROM "SiteRedirect"
    WHERE "siteId" = ${siteId} AND draft = false
      AND (source = ${clean} OR (right(source, 1) = '*' AND starts_with(${clean}, left(source, -1))))
    ORDER BY (source = ${clean}) DESC, length(source) DESC, id
    LIMIT 1`;
  const redirect = candidates[0];
  if (!redirect) return null;
  const rest = redirect.source.endsWith('*') && redirect.source !== clean ? clean.slice(redirect.source.length - 1) : '';
  return { redirect, rest };
}

/** Where a redirect leads: an absolute URL (the site's published URLs, with a share key when one was accepted). */
async function targetOf(ctx: Context, site: Site, redirect: SiteRedirect, rest: string): Promise<string | null> {
  const d = redirect.destination as Destination;
  let base: string | null;
  if (d.kind === 'external') base = d.url;
  else {
    const view = await siteView(ctx, site);
    const org = await accessRows(ctx).organization.load(site.organizationId);
    // The published URL (with an accepted share key); an unpublished site's URL-to-be otherwise.
    const url = async (path: string[]) =>
      (await publishedUrl(ctx, site, path)) ?? ctx.urls.publishedSite(site, org?.hostname ?? null, { path });
    if (d.kind === 'site-section') {
      const section = view.section(d.siteSectionId);
      base = section ? await url(sectionPath(view, section)) : null;
    } else {
      const siteSpace = view.siteSpaces.find((s) => s.id === d.siteSpaceId);
      if (!siteSpace) base = null;
      else if (d.kind === 'site-space') base = await url(siteSpacePath(view, siteSpace));
      else {
        const page = await pageOfSpace(ctx, siteSpace.spaceId, { id: d.pageId });
        base = page
          ? await url([
              ...siteSpacePath(view, siteSpace),
              ...String(page.json.path ?? '')
                .split('/')
                .filter(Boolean),
            ])
          : null;
      }
    }
  }
  if (base === null) return null;
  if (!redirect.captureWildcard || !rest) return base;
  const u = new URL(base);
  u.pathname = `${u.pathname.replace(/\/$/, '')}/${rest.replace(/^\//, '')}`;
  return u.toString();
}

export async function redirectBySource(ctx: Context, organizationId: string, siteId: string, source: string, shareKey?: string | null) {
  const site = await requireSite(ctx, organizationId, siteId);
  if (!source) throw badRequest('source', 'is required');
  if (!source.startsWith('/') || source.length > 512) throw badRequest('source', 'must be a path starting with / (at most 512 characters)');
  await acceptShareKey(ctx, site, shareKey);
  const found = await matchRedirect(ctx, siteId, source);
  const target = found && (await targetOf(ctx, site, found.redirect, found.rest));
  // A redirect whose section, site space or page is gone leads nowhere: as if there were none.
  if (!found || !target) throw notFound('Site redirect');
  return { redirect: redirectJson(found.redirect), target };
}

/**
 * For the published site's renderer (src/modules/reader): the live redirect of a path below the
 * site (`/old/page`), its target URL and whether it is permanent (308) or not (307); null when no
 * redirect applies. No permission check: the reader has decided the visitor may see the site.
 */
export async function findRedirect(
  ctx: Context,
  site: Site,
  path: string,
): Promise<{ target: string; permanent: boolean; redirect: RedirectJson } | null> {
  const found = await matchRedirect(ctx, site.id, path);
  if (!found) return null;
  const target = await targetOf(ctx, site, found.redirect, found.rest);
  return target ? { target, permanent: found.redirect.permanent, redirect: redirectJson(found.redirect) } : null;
}
