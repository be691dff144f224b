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
  type BulkResult,
  type RedirectJson,
} from './redirect-service.js';

type Destination = RedirectJson['destination'];
const destinationMember = <K extends Destination['kind']>(name: string, kind: K, description: string, ids: string[]) =>
  builder.objectRef<Extract<Destination, { kind: K }>>(name).implement({
    description,
    isTypeOf: (d) => (d as Destination).kind === kind,
    fields: (t) => ({
      kind: t.string({ resolve: () => kind }),
      ...Object.fromEntries(ids.map((id) => [id, t.string({ resolve: (d) => (d as Record<string, string>)[id]! })])),
    }),
  });

const SiteRedirectDestinationUnion = builder.unionType('SiteRedirectDestination', {
  description: 'Where a redirect leads, by `kind`',
  types: [
    destinationMember('SiteRedirectDestinationSiteSection', 'site-section', 'A section of the site', ['siteSectionId']),
    destinationMember('SiteRedirectDestinationSiteSpace', 'site-space', 'A site space of the site', ['siteSpaceId']),
    destinationMember('SiteRedirectDestinationPage', 'site-page', 'A page of a site space', ['siteSpaceId', 'pageId']),
    destinationMember('SiteRedirectDestinationExternal', 'external', 'An absolute http(s) URL', ['url']),
  ],
  resolveType: (d) =>
    ({
      'site-section': 'SiteRedirectDestinationSiteSection',
      'site-space': 'SiteRedirectDestinationSiteSpace',
      'site-page': 'SiteRedirectDestinationPage',
      external: 'SiteRedirectDestinationExternal',
    })[d.kind],
});

const DestinationKindEnum = builder.enumType('SiteRedirectDestinationKind', {
  values: {
    site_section: { value: 'site-section' },
    site_space: { value: 'site-space' },
    site_page: { value: 'site-page' },
    external: { value: 'external' },
    path: { value: 'path', description: 'Input only: a page of a space by its path, stored as the site page it names' },
  } as const,
});

// Fields are optional here: the official request schema (customization-validate.ts) then names
// the field a given kind lacks.
const DestinationInput = builder.inputType('SiteRedirectDestinationInput', {
  description: 'Where a redirect leads: `kind` and the fields of that kind',
  fields: (t) => ({
    kind: t.field({ type: DestinationKindEnum, required: false }),
    siteSectionId: t.string({ required: false, description: 'site-section' }),
    siteSpaceId: t.string({ required: false, description: 'site-space, site-page' }),
    pageId: t.string({ required: false, description: 'site-page' }),
    url: t.string({ required: false, description: 'external' }),
    spaceId: t.string({ required: false, description: 'path' }),
    path: t.string({ required: false, description: 'path' }),
  }),
});

const redirectInputFields = (t: any) => ({
  source: t.string({ required: false, description: 'A path starting with `/`, optionally ending in `*`' }),
  captureWildcard: t.boolean({ required: false }),
  draft: t.boolean({ required: false }),
  permanent: t.boolean({ required: false }),
  destination: t.field({ type: DestinationInput, required: false }),
});
const CreateRedirectInput = builder.inputType('CreateSiteRedirectInput', {
  description: 'A new redirect: source and destination are required',
  fields: redirectInputFields,
});
const UpdateRedirectInput = builder.inputType('UpdateSiteRedirectInput', {
  description: 'The fields of a redirect to change',
  fields: redirectInputFields,
});

const BulkIntentEnum = builder.enumType('SiteRedirectBulkIntent', {
  description: 'live or draft: upsert (a null destination deletes); publish: the draft redirect replaces the live one',
  values: { live: { value: 'live' }, draft: { value: 'draft' }, publish: { value: 'publish' } } as const,
});

const BulkItemInput = builder.inputType('SiteRedirectBulkItemInput', {
  fields: (t) => ({
    source: t.string({ required: false }),
    intent: t.field({ type: BulkIntentEnum, required: false, description: 'Default live' }),
    captureWildcard: t.boolean({ required: false }),
    permanent: t.boolean({ required: false }),
    destination: t.field({ type: DestinationInput, required: false, description: 'null deletes the redirect' }),
  }),
});

const BulkUpsertInput = builder.inputType('BulkUpsertSiteRedirectsInput', {
  fields: (t) => ({ redirects: t.field({ type: [BulkItemInput], required: false, description: '1 to 500 operations, required' }) }),
});

const BulkStatusEnum = builder.enumType('SiteRedirectBulkStatus', {
  values: ['created', 'updated', 'published', 'deleted', 'error'] as const,
});

const BulkResultType = builder.objectRef<BulkResult>('SiteRedirectBulkResult').implement({
  description: 'What became of one operation of a bulk upsert',
  fields: (t) => ({
    status: t.field({ type: BulkStatusEnum, resolve: (r) => r.status }),
    source: t.exposeString('source'),
    draft: t.exposeBoolean('draft'),
    id: t.id({ nullable: true, description: 'The redirect (absent once deleted or on error)', resolve: (r) => ('id' in r ? r.id : null) }),
    error: t.string({ nullable: true, description: 'Why this operation failed', resolve: (r) => ('error' in r ? r.error : null) }),
  }),
});

const BulkUpsertResultType = builder.objectRef<{ results: BulkResult[] }>('BulkUpsertSiteRedirectsResult').implement({
  fields: (t) => ({ results: t.field({ type: [BulkResultType], resolve: (r) => r.results }) }),
});

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
      type: SiteRedirectDestinationUnion,
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
    description: 'Creates a redirect',
    args: { ...ids(t), input: t.arg({ type: CreateRedirectInput, required: true }) },
    resolve: (_r, args, ctx) => createRedirect(ctx, String(args.organizationId), String(args.siteId), args.input),
  }),
  updateSiteRedirect: t.field({
    type: SiteRedirectType,
    description: 'Updates the given fields of a redirect',
    args: { ...ids(t), id: t.arg.id({ required: true }), input: t.arg({ type: UpdateRedirectInput, required: true }) },
    resolve: (_r, args, ctx) => updateRedirect(ctx, String(args.organizationId), String(args.siteId), String(args.id), args.input),
  }),
  deleteSiteRedirect: t.boolean({
    description: 'Deletes a redirect; NOT_FOUND when there is no such redirect',
    args: { ...ids(t), id: t.arg.id({ required: true }) },
    resolve: (_r, args, ctx) => deleteRedirect(ctx, String(args.organizationId), String(args.siteId), String(args.id)),
  }),
  bulkUpsertSiteRedirects: t.field({
    type: BulkUpsertResultType,
    description: 'Creates, updates, deletes or publishes up to 500 redirects, each on its own',
    args: { ...ids(t), input: t.arg({ type: BulkUpsertInput, required: true }) },
    resolve: (_r, args, ctx) => bulkUpsertRedirects(ctx, String(args.organizationId), String(args.siteId), args.input),
  }),
}));
