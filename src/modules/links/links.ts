import { requireSpace } from '../../auth/permissions.js';
import type { Context } from '../../context.js';
import { notFound } from '../../errors.js';
import type { ChangeRequest } from '../../generated/prisma/client.js';
import { builder } from '../../graphql/builder.js';
import { listOf, NextPage, pageArgs } from '../../graphql/lists.js';
import { ChangeRequestType } from '../change-requests/index.js';
import { FileType, PageType, RevisionType, viewOf } from '../content/index.js';
import { OrganizationType } from '../orgs/index.js';
import { SpaceType } from '../spaces/index.js';
import {
  listFileBacklinks,
  listLinks,
  listPageBacklinks,
  listPageLinks,
  type LinkListing,
  type LinkStats,
  type LocationJson,
  type UsageJson,
} from './service.js';
import { accessRows } from '../../auth/access-rows.js';

/**
 * Links of a revision (GitBook's content references). Locations here carry the page, file or URL;
 * every location of a revision is in the revision's space and organization, which GraphQL gives
 * once (`Space.owningOrganization`, the space itself) and the REST routes repeat in each location,
 * as GitBook's ContentLocation does.
 */
export const LinkStatusEnum = builder.enumType('LinkStatus', {
  description: 'ok: no problem; broken: the target is not in the revision; in-app: a URL to a location in the app',
  values: { ok: { value: 'ok' }, broken: { value: 'broken' }, in_app: { value: 'in-app' } } as const,
});
const BrokenContextEnum = builder.enumType('LinkBrokenContext', {
  description: 'change_request: on change request content, only the broken links the change request broke; space: all',
  values: { change_request: { value: 'change-request' }, space: { value: 'space' } } as const,
});
const RelationEnum = builder.enumType('LinkRelation', {
  values: { reference: { value: 'reference' }, dependsOn: { value: 'dependsOn' } } as const,
});

const InternalLocationType = builder.objectRef<{ type: 'anchor'; anchor: string }>('LinkInternalLocation').implement({
  description: 'Where in the page a link points: a heading, by its anchor',
  fields: (t) => ({ type: t.string({ description: 'Always anchor', resolve: (l) => l.type }), anchor: t.exposeString('anchor') }),
});

const LinkLocationType = builder.objectRef<LocationJson>('LinkLocation').implement({
  description: 'Where a link points or is found: a page, a file, or a URL',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'page, file or url' }),
    page: t.field({
      type: PageType,
      nullable: true,
      description: 'The page (in REST, its JSON with its markdown and without subpages)',
      resolve: (l) => l.page ?? null,
    }),
    file: t.field({ type: FileType, nullable: true, resolve: (l) => l.file ?? null }),
    url: t.exposeString('url', { nullable: true }),
    internalLocation: t.field({
      type: InternalLocationType,
      nullable: true,
      description: 'For a link to a heading',
      resolve: (l) => (l.internalLocation as { type: 'anchor'; anchor: string } | undefined) ?? null,
    }),
  }),
});

const LinkUsageType = builder.objectRef<UsageJson>('LinkUsage').implement({
  description: 'A link target and the pages linking to it',
  fields: (t) => ({
    status: t.field({ type: LinkStatusEnum, resolve: (u) => u.status }),
    relation: t.field({ type: RelationEnum, resolve: (u) => u.relation }),
    targetReference: t.field({ type: LinkLocationType, resolve: (u) => u.targetReference }),
    locationReferences: t.field({ type: [LinkLocationType], resolve: (u) => u.locationReferences }),
  }),
});

const LinkBrokenStats = builder.objectRef<LinkStats['broken']>('LinkBrokenStats').implement({
  fields: (t) => ({
    total: t.exposeInt('total'),
    changeRequest: t.int({
      nullable: true,
      description: 'On change request content: the broken links the change request broke',
      resolve: (b) => b.changeRequest ?? null,
    }),
  }),
});
const LinkStatsType = builder.objectRef<LinkStats>('LinkStats').implement({
  description: 'Counts of link targets over the whole listing (before the status filter and pagination)',
  fields: (t) => ({ total: t.exposeInt('total'), broken: t.field({ type: LinkBrokenStats, resolve: (s) => s.broken }) }),
});

const LinkListingType = builder.objectRef<LinkListing>('LinkListing').implement({
  fields: (t) => ({
    items: t.field({ type: [LinkUsageType], complexity: { field: 1, multiplier: 1 }, resolve: (l) => l.items }),
    count: t.exposeInt('count', { description: 'Total number of items in the list' }),
    next: t.field({ type: NextPage, nullable: true, resolve: (l) => l.next ?? null }),
    stats: t.field({ type: LinkStatsType, resolve: (l) => l.stats }),
  }),
});

const LinkLocationList = listOf('LinkLocation', LinkLocationType);

builder.objectFields(RevisionType, (t) => ({
  links: t.field({
    type: LinkListingType,
    description: 'Every link of every page, grouped by target',
    args: { ...pageArgs(t), status: t.arg({ type: LinkStatusEnum, required: false }) },
    resolve: (view, args, ctx) => listLinks(ctx, view, args),
  }),
  pageLinks: t.field({
    type: LinkListingType,
    description: 'The links written in one page',
    args: { id: t.arg.id({ required: true }), ...pageArgs(t), status: t.arg({ type: LinkStatusEnum, required: false }) },
    resolve: (view, args, ctx) => listPageLinks(ctx, view, String(args.id), args),
  }),
  fileBacklinks: t.field({
    type: LinkLocationList,
    description: 'The pages linking to a file',
    args: { id: t.arg.id({ required: true }), ...pageArgs(t) },
    resolve: (view, args, ctx) => listFileBacklinks(ctx, view, String(args.id), args),
  }),
  pageBacklinks: t.field({
    type: LinkLocationList,
    description: 'The pages linking to a page (or to one of its headings)',
    args: { id: t.arg.id({ required: true }), ...pageArgs(t) },
    resolve: (view, args, ctx) => listPageBacklinks(ctx, view, String(args.id), args),
  }),
}));

/** A change request's links: its content's, with `stats.broken.changeRequest` (the links it broke). */
const changeRequestView = async (ctx: Context, cr: ChangeRequest) => viewOf(ctx, await requireSpace(ctx, cr.spaceId), cr.revisionId);
builder.objectFields(ChangeRequestType, (t) => ({
  links: t.field({
    type: LinkListingType,
    description: "Every link of the change request's content, grouped by target",
    args: {
      ...pageArgs(t),
      status: t.arg({ type: LinkStatusEnum, required: false }),
      brokenContext: t.arg({ type: BrokenContextEnum, required: false }),
    },
    resolve: async (cr, args, ctx) =>
      listLinks(ctx, await changeRequestView(ctx, cr), { ...args, baseRevision: cr.revisionMergedAncestor }),
  }),
  pageLinks: t.field({
    type: LinkListingType,
    description: "The links written in one page of the change request's content",
    args: { id: t.arg.id({ required: true }), ...pageArgs(t), status: t.arg({ type: LinkStatusEnum, required: false }) },
    resolve: async (cr, args, ctx) =>
      listPageLinks(ctx, await changeRequestView(ctx, cr), String(args.id), { ...args, baseRevision: cr.revisionMergedAncestor }),
  }),
}));

builder.objectField(SpaceType, 'owningOrganization', (t) =>
  t.field({
    type: OrganizationType,
    description: 'The organization owning the space, as an object (`organization` is its id)',
    resolve: async (space, _a, ctx) =>
      (await accessRows(ctx).organization.load(space.organizationId)) ?? Promise.reject(notFound('Organization')),
  }),
);
