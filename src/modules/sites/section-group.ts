import { builder } from '../../graphql/builder.js';
import { listOf, pageArgs } from '../../graphql/lists.js';
import { paginateArray } from '../../pagination.js';
import { FEW, SiteRef, SiteSectionGroupChild, SiteSectionGroupRef, SiteSectionRef } from './refs.js';
import {
  addSectionToGroup,
  createSectionGroup,
  deleteSectionGroup,
  moveSectionGroup,
  removeSectionFromGroup,
  updateSectionGroup,
} from './section-group-service.js';
import { requireSiteMember } from './site-service.js';
import { isPublishedGroup, isSection, publishedItems, siteView, siteViewById } from './structure.js';

SiteSectionGroupRef.implement({
  description: 'A group of sections (and of other groups) in a site',
  fields: (t) => ({
    object: t.string({ resolve: () => 'site-section-group' }),
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    icon: t.exposeString('icon', { nullable: true }),
    sectionGroup: t.exposeID('parentId', { nullable: true, description: 'The group holding it' }),
    // Lectern has no draft site structure: adding, changing or removing a group is live at once (GitBook keeps unpublished ones as drafts).
    draft: t.boolean({ description: 'Always false: groups are live as soon as they are added', resolve: () => false }),
    sections: t.field({
      type: [SiteSectionRef],
      complexity: FEW,
      description: 'The sections directly in the group (deprecated upstream: use children)',
      resolve: async (g, _a, ctx) => (await siteViewById(ctx, g.siteId)).children(g.id).filter(isSection),
    }),
    children: t.field({
      type: [SiteSectionGroupChild],
      complexity: FEW,
      description: 'The sections, groups and external links directly in the group, in order',
      resolve: async (g, _a, ctx) => {
        const items = (await siteViewById(ctx, g.siteId)).items(g.id);
        return isPublishedGroup(g) ? publishedItems(items) : items;
      },
    }),
  }),
});

export const SiteSectionGroupList = listOf('SiteSectionGroup', SiteSectionGroupRef);

builder.objectField(SiteRef, 'sectionGroups', (t) =>
  t.field({
    type: SiteSectionGroupList,
    description: "The site's section groups, in structure order (depth first)",
    args: pageArgs(t),
    resolve: async (site, args, ctx) => paginateArray(args, (await siteView(ctx, await requireSiteMember(ctx, site))).groups),
  }),
);

const CreateSiteSectionGroupInput = builder.inputType('CreateSiteSectionGroupInput', {
  fields: (t) => ({
    title: t.string({ required: true, description: '1..100 characters' }),
    icon: t.string(),
    sections: t.idList({ description: 'Sections moved into the group, in order' }),
    parent: t.id({ description: "Parent group; default: the site's root" }),
  }),
});
const UpdateSiteSectionGroupInput = builder.inputType('UpdateSiteSectionGroupInput', {
  fields: (t) => ({ title: t.string(), icon: t.string() }),
});
const SiteStructurePointerInput = builder.inputType('SiteStructurePointerInput', {
  fields: (t) => ({
    type: t.string({ required: true, description: '"site-section" or "site-section-group"' }),
    id: t.id({ required: true }),
  }),
});
const SiteSectionGroupPositionInput = builder.inputType('SiteSectionGroupPositionInput', {
  fields: (t) => ({ before: t.field({ type: SiteStructurePointerInput }), after: t.field({ type: SiteStructurePointerInput }) }),
});
const MoveSiteSectionGroupInput = builder.inputType('MoveSiteSectionGroupInput', {
  fields: (t) => ({ position: t.field({ type: SiteSectionGroupPositionInput, description: "Absent: the end of the site's root" }) }),
});
const AddSectionToGroupInput = builder.inputType('AddSectionToGroupInput', { fields: (t) => ({ sectionId: t.id({ required: true }) }) });

const ids = (t: { arg: { id: (o: { required: true }) => any } }) => ({
  organizationId: t.arg.id({ required: true }),
  siteId: t.arg.id({ required: true }),
  id: t.arg.id({ required: true }),
});

builder.mutationFields((t) => ({
  createSiteSectionGroup: t.field({
    type: SiteSectionGroupRef,
    args: {
      organizationId: t.arg.id({ required: true }),
      siteId: t.arg.id({ required: true }),
      input: t.arg({ type: CreateSiteSectionGroupInput, required: true }),
    },
    resolve: (_r, { organizationId, siteId, input }, ctx) =>
      createSectionGroup(ctx, String(organizationId), String(siteId), {
        ...input,
        sections: input.sections?.map(String),
        parent: input.parent == null ? null : String(input.parent),
      }),
  }),
  updateSiteSectionGroup: t.field({
    type: SiteSectionGroupRef,
    args: { ...ids(t), input: t.arg({ type: UpdateSiteSectionGroupInput, required: true }) },
    resolve: (_r, { organizationId, siteId, id, input }, ctx) =>
      updateSectionGroup(ctx, String(organizationId), String(siteId), String(id), input),
  }),
  deleteSiteSectionGroup: t.boolean({
    description: 'Delete a section group (what it holds takes its place); NOT_FOUND when there is no such group',
    args: ids(t),
    resolve: (_r, args, ctx) => deleteSectionGroup(ctx, String(args.organizationId), String(args.siteId), String(args.id)),
  }),
  moveSiteSectionGroup: t.field({
    type: SiteSectionGroupRef,
    args: { ...ids(t), input: t.arg({ type: MoveSiteSectionGroupInput, required: false }) },
    resolve: (_r, { organizationId, siteId, id, input }, ctx) => {
      const pointer = (p: { type: string; id: string | number } | null | undefined) => p && { type: p.type, id: String(p.id) };
      return moveSectionGroup(ctx, String(organizationId), String(siteId), String(id), {
        position: input?.position && { before: pointer(input.position.before), after: pointer(input.position.after) },
      });
    },
  }),
  removeSectionFromSiteSectionGroup: t.boolean({
    description:
      'Take a section out of a group (it goes right after the group); false when it was not in it, NOT_FOUND when either is missing',
    args: { ...ids(t), sectionId: t.arg.id({ required: true }) },
    resolve: (_r, args, ctx) =>
      removeSectionFromGroup(ctx, String(args.organizationId), String(args.siteId), String(args.id), String(args.sectionId)),
  }),
  addSectionToSiteSectionGroup: t.field({
    type: SiteSectionGroupRef,
    args: { ...ids(t), input: t.arg({ type: AddSectionToGroupInput, required: true }) },
    resolve: (_r, { organizationId, siteId, id, input }, ctx) =>
      addSectionToGroup(ctx, String(organizationId), String(siteId), String(id), { sectionId: String(input.sectionId) }),
  }),
}));
