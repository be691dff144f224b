import { builder } from '../../graphql/builder.js';
import { listOf, pageArgs } from '../../graphql/lists.js';
import { SiteRef } from './refs.js';
import {
  bulkUpsertRedirects,
  createRedirect,
  deleteRedirect,
  listRedirects,
  redirectBySource,
  updateRedirect,
  type RedirectJson,
} from './redirect-service.js';

const SiteRedirectType = builder.objectRef<RedirectJson>('SiteRedirect').implement({
  description: 'A redirect of a site: a source path (a trailing `*` matches every path below) to a destination',
  fields: (t) => ({
    object: t.string({ resolve: () => 'site-redirect' }),
    id: t.exposeID('id'),
    source: t.exposeString('source'),
    draft: t.exposeBoolean('draft', { description: 'A draft redirect is not live' }),
    captureWildcard: t.exposeBoolean('captureWildcard', { description: 'Appends what the `*` matched to the destination URL' }),
    permanent: t.exposeBoolean('permanent', { description: 'Served as 308 (307 otherwise)' }),
    destination: t.field({
      type: 'JSON',
      description: 'The official SiteRedirectDestination: { kind: site-section | site-space | site-page | external, … }',
      resolve: (r) => r.destination,
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', nullable: true, description: 'Absent until the redirect is first updated' }),
  }),
});

const SiteRedirectList = listOf('SiteRedirect', SiteRedirectType);

const SiteRedirectOrderByEnum = builder.enumType('SiteRedirectOrderBy', { values: ['createdAt', 'updatedAt', 'source'] as const });

const SiteRedirectMatch = builder.objectRef<{ redirect: RedirectJson; target: string }>('SiteRedirectMatch').implement({
  fields: (t) => ({
    redirect: t.field({ type: SiteRedirectType, resolve: (m) => m.redirect }),
    target: t.exposeString('target', { description: 'The URL the redirect leads to' }),
  }),
});

builder.objectFields(SiteRef, (t) => ({
  redirects: t.field({
    type: SiteRedirectList,
    description: 'Redirects of the site, live (or draft) ones, newest first unless ordered otherwise',
    args: {
      ...pageArgs(t),
      search: t.arg.string({ required: false, description: 'Only sources containing this (case-insensitive)' }),
      draft: t.arg.boolean({ required: false, description: 'Draft redirects instead of live ones (default false)' }),
      orderBy: t.arg({ type: SiteRedirectOrderByEnum, required: false }),
    },
    resolve: (site, args, ctx) => listRedirects(ctx, site, args),
  }),
  redirect: t.field({
    type: SiteRedirectMatch,
    description: 'The live redirect that applies to a path (exact source first, then the longest wildcard) and its target URL',
    args: { source: t.arg.string({ required: true }), shareKey: t.arg.string({ required: false }) },
    resolve: (site, args, ctx) => redirectBySource(ctx, site.organizationId, site.id, args.source, args.shareKey),
  }),
}));

const ids = (t: { arg: { id: (o: { required: true }) => any } }) => ({
  organizationId: t.arg.id({ required: true }),
  siteId: t.arg.id({ required: true }),
});

builder.mutationFields((t) => ({
  createSiteRedirect: t.field({
    type: SiteRedirectType,
    description: 'Creates a redirect (input: the official createSiteRedirect body)',
    args: { ...ids(t), input: t.arg({ type: 'JSON', required: true }) },
    resolve: (_r, args, ctx) => createRedirect(ctx, String(args.organizationId), String(args.siteId), args.input),
  }),
  updateSiteRedirect: t.field({
    type: SiteRedirectType,
    description: 'Updates the given fields of a redirect (input: the official updateSiteRedirectById body)',
    args: { ...ids(t), id: t.arg.id({ required: true }), input: t.arg({ type: 'JSON', required: true }) },
    resolve: (_r, args, ctx) => updateRedirect(ctx, String(args.organizationId), String(args.siteId), String(args.id), args.input),
  }),
  deleteSiteRedirect: t.boolean({
    description: 'Deletes a redirect; NOT_FOUND when there is no such redirect',
    args: { ...ids(t), id: t.arg.id({ required: true }) },
    resolve: (_r, args, ctx) => deleteRedirect(ctx, String(args.organizationId), String(args.siteId), String(args.id)),
  }),
  bulkUpsertSiteRedirects: t.field({
    type: 'JSON',
    description:
      'Creates, updates, deletes or publishes up to 500 redirects, each on its own: { results: [{ status, source, draft, id? | error? }] }',
    args: { ...ids(t), input: t.arg({ type: 'JSON', required: true }) },
    resolve: (_r, args, ctx) => bulkUpsertRedirects(ctx, String(args.organizationId), String(args.siteId), args.input),
  }),
}));
