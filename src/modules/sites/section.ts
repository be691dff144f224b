import { builder } from '../../graphql/builder.js';
import { listOf, pageArgs } from '../../graphql/lists.js';
import { paginateArray } from '../../pagination.js';
import { acceptShareKey, publishedUrl, sectionPath } from './links.js';
import { FEW, SiteRef, SiteSectionRef, SiteSpaceRef } from './refs.js';
import { addSection, deleteSection, moveSection, updateSection } from './section-service.js';
import { requireSiteMember } from './site-service.js';
import { siteView, siteViewById } from './structure.js';

const SiteSectionUrls = builder.objectRef<{ published: string | null }>('SiteSectionUrls').implement({
  fields: (t) => ({ published: t.exposeString('published', { nullable: true, description: 'Only while the site is published' }) }),
});

SiteSectionRef.implement({
  description: 'A section of a site; its site spaces are its variants',
  fields: (t) => ({
    object: t.string({ resolve: () => 'site-section' }),
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    description: t.exposeString('description', { nullable: true }),
    default: t.boolean({
      description: "Whether it is the site's default section",
      resolve: async (s, _a, ctx) => (await siteViewById(ctx, s.siteId)).defaultSectionId === s.id,
    }),
    path: t.exposeString('path'),
    condition: t.exposeString('condition', { nullable: true }),
    sectionGroup: t.exposeID('sectionGroupId', { nullable: true, description: 'The group holding it' }),
    icon: t.exposeString('icon', { nullable: true }),
    // Lectern has no draft site structure: adding, changing or removing a section is live at once (GitBook keeps unpublished ones as drafts).
    draft: t.boolean({ description: 'Always false: sections are live as soon as they are added', resolve: () => false }),
    urls: t.field({
      type: SiteSectionUrls,
      resolve: async (s, _a, ctx) => {
        const view = await siteViewById(ctx, s.siteId);
        return { published: await publishedUrl(ctx, view.site, sectionPath(view, s)) };
      },
    }),
    siteSpaces: t.field({
      type: [SiteSpaceRef],
      complexity: FEW,
      description: 'Its site spaces (variants), in order',
      resolve: async (s, _a, ctx) => (await siteViewById(ctx, s.siteId)).spacesIn(s.id),
    }),
  }),
});

export const SiteSectionList = listOf('SiteSection', SiteSectionRef);

builder.objectField(SiteRef, 'sections', (t) =>
  t.field({
    type: SiteSectionList,
    description: "The site's sections, in structure order (depth first through the groups)",
    args: {
      ...pageArgs(t),
      shareKey: t.arg.string({ required: false, description: 'Key of an active share link: the published URLs carry it' }),
    },
    resolve: async (site, args, ctx) => {
      await requireSiteMember(ctx, site);
      await acceptShareKey(ctx, site, args.shareKey);
      return paginateArray(args, (await siteView(ctx, site)).sections);
    },
  }),
);

const AddSiteSectionInput = builder.inputType('AddSiteSectionInput', {
  fields: (t) => ({
    spaceId: t.id({ required: true, description: "The section's first site space" }),
    title: t.string({ description: "2..128 characters; default: the space's title" }),
    icon: t.string(),
  }),
});
const UpdateSiteSectionInput = builder.inputType('UpdateSiteSectionInput', {
  fields: (t) => ({
    title: t.string(),
    path: t.string(),
    defaultSiteSpace: t.id(),
    condition: t.string({ description: 'Unset keeps it, null removes it' }),
    icon: t.string(),
    description: t.string(),
  }),
});
const SiteSectionPointerInput = builder.inputType('SiteSectionPointerInput', {
  fields: (t) => ({ type: t.string({ required: true, description: '"site-section"' }), siteSection: t.id({ required: true }) }),
});
const SiteSectionPositionInput = builder.inputType('SiteSectionPositionInput', {
  fields: (t) => ({ before: t.field({ type: SiteSectionPointerInput }), after: t.field({ type: SiteSectionPointerInput }) }),
});
const MoveSiteSectionInput = builder.inputType('MoveSiteSectionInput', {
  fields: (t) => ({ position: t.field({ type: SiteSectionPositionInput, description: "Absent: the end of the site's root" }) }),
});

const ids = (t: { arg: { id: (o: { required: true }) => any } }) => ({
  organizationId: t.arg.id({ required: true }),
  siteId: t.arg.id({ required: true }),
  id: t.arg.id({ required: true }),
});

builder.mutationFields((t) => ({
  addSiteSection: t.field({
    type: SiteSectionRef,
    args: {
      organizationId: t.arg.id({ required: true }),
      siteId: t.arg.id({ required: true }),
      input: t.arg({ type: AddSiteSectionInput, required: true }),
    },
    resolve: (_r, { organizationId, siteId, input }, ctx) =>
      addSection(ctx, String(organizationId), String(siteId), { ...input, spaceId: String(input.spaceId) }),
  }),
  updateSiteSection: t.field({
    type: SiteSectionRef,
    args: { ...ids(t), input: t.arg({ type: UpdateSiteSectionInput, required: true }) },
    resolve: (_r, { organizationId, siteId, id, input }, ctx) =>
      updateSection(ctx, String(organizationId), String(siteId), String(id), {
        ...input,
        defaultSiteSpace: input.defaultSiteSpace == null ? input.defaultSiteSpace : String(input.defaultSiteSpace),
      }),
  }),
  deleteSiteSection: t.boolean({
    description: 'Delete a section and its site spaces; NOT_FOUND when there is no such section',
    args: ids(t),
    resolve: (_r, args, ctx) => deleteSection(ctx, String(args.organizationId), String(args.siteId), String(args.id)),
  }),
  moveSiteSection: t.field({
    type: SiteSectionRef,
    args: { ...ids(t), input: t.arg({ type: MoveSiteSectionInput, required: false }) },
    resolve: (_r, { organizationId, siteId, id, input }, ctx) =>
      moveSection(ctx, String(organizationId), String(siteId), String(id), {
        position: input?.position && {
          before: input.position.before && { type: input.position.before.type, siteSection: String(input.position.before.siteSection) },
          after: input.position.after && { type: input.position.after.type, siteSection: String(input.position.after.siteSection) },
        },
      }),
  }),
}));
