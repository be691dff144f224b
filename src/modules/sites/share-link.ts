import { builder } from '../../graphql/builder.js';
import { listOf, pageArgs } from '../../graphql/lists.js';
import { SiteRef, SiteShareLinkRef } from './refs.js';
import { createShareLink, deleteShareLink, listShareLinks, shareLinkUrl, updateShareLink } from './share-link-service.js';

const ShareLinkUrls = builder.objectRef<{ published: string | null }>('SiteShareLinkUrls').implement({
  fields: (t) => ({
    published: t.exposeString('published', {
      nullable: true,
      description: 'The URL that opens the site (it holds the secret key): only for those who may change the site',
    }),
  }),
});

SiteShareLinkRef.implement({
  description: 'A share link of a site: its URL opens a share-link site while the link is active',
  fields: (t) => ({
    object: t.string({ resolve: () => 'share-link' }),
    id: t.exposeID('id'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    name: t.exposeString('name'),
    active: t.exposeBoolean('active'),
    urls: t.field({ type: ShareLinkUrls, resolve: async (link, _a, ctx) => ({ published: await shareLinkUrl(ctx, link) }) }),
  }),
});

export const SiteShareLinkList = listOf('SiteShareLink', SiteShareLinkRef);

builder.objectField(SiteRef, 'shareLinks', (t) =>
  t.field({
    type: SiteShareLinkList,
    description: 'Share links, oldest first',
    args: pageArgs(t),
    resolve: (site, args, ctx) => listShareLinks(ctx, site, args),
  }),
);

const CreateSiteShareLinkInput = builder.inputType('CreateSiteShareLinkInput', {
  fields: (t) => ({ name: t.string({ required: true, description: 'At most 50 characters' }) }),
});
const UpdateSiteShareLinkInput = builder.inputType('UpdateSiteShareLinkInput', {
  fields: (t) => ({ active: t.boolean(), name: t.string() }),
});

const ids = (t: { arg: { id: (o: { required: true }) => any } }) => ({
  organizationId: t.arg.id({ required: true }),
  siteId: t.arg.id({ required: true }),
  id: t.arg.id({ required: true }),
});

builder.mutationFields((t) => ({
  createSiteShareLink: t.field({
    type: SiteShareLinkRef,
    args: {
      organizationId: t.arg.id({ required: true }),
      siteId: t.arg.id({ required: true }),
      input: t.arg({ type: CreateSiteShareLinkInput, required: true }),
    },
    resolve: (_r, { organizationId, siteId, input }, ctx) => createShareLink(ctx, String(organizationId), String(siteId), input),
  }),
  updateSiteShareLink: t.field({
    type: SiteShareLinkRef,
    args: { ...ids(t), input: t.arg({ type: UpdateSiteShareLinkInput, required: true }) },
    resolve: (_r, { organizationId, siteId, id, input }, ctx) =>
      updateShareLink(ctx, String(organizationId), String(siteId), String(id), input),
  }),
  deleteSiteShareLink: t.boolean({
    description: 'Delete a share link; NOT_FOUND when there is no such link',
    args: ids(t),
    resolve: (_r, args, ctx) => deleteShareLink(ctx, String(args.organizationId), String(args.siteId), String(args.id)),
  }),
}));
