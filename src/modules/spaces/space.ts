import { FREE_DOC } from '../../graphql/free-form.js';
import { builder } from '../../graphql/builder.js';
import { registerNode } from '../../graphql/node.js';
import { infoSelects } from '../../graphql/selects.js';
import { ContentVisibilityEnum, DefaultLevelEnum, SpaceEditModeEnum, TranslationLanguageEnum } from '../../graphql/enums.js';
import { listOf, pageArgs } from '../../graphql/lists.js';
import { callerSpacePermissions, primeContentRoles, type spacePermissions } from '../../auth/permissions.js';
import { MergeRulesInput, MergeRulesUnion, OrganizationType, storedMergeRules } from '../orgs/index.js';
import { CollectionType, ContentPositionInput, listCollectionSpaces } from '../collections/index.js';
import { documentById, PageType, RevisionType, spaceContent, spacePageByPath, spaceRevision } from '../content/index.js';
import {
  createSpace,
  deleteSpace,
  duplicateSpace,
  getSpace,
  listSpaces,
  moveSpace,
  restoreSpace,
  transferSpace,
  updateSpace,
} from './service.js';
import { accessRows } from '../../auth/access-rows.js';
import { primeSpaceCounts, spaceCount } from './loaders.js';
import type { Context } from '../../context.js';
import type { Organization, Space } from '../../generated/prisma/client.js';
import { GitSyncStateType, VisitorAuthType, type GitSyncStateJson } from './git-sync-state.js';

interface SpaceUrls {
  location: string;
  app: string;
  published?: string;
  public?: string;
}

const SpaceUrlsType = builder.objectRef<SpaceUrls>('SpaceUrls').implement({
  fields: (t) => ({
    location: t.exposeString('location'),
    app: t.exposeString('app'),
    published: t.exposeString('published', { nullable: true, description: 'Only when the visibility is not private' }),
    public: t.exposeString('public', { nullable: true, description: 'Only when the visibility is public' }),
    icon: t.string({ nullable: true, resolve: () => null }),
  }),
});

const SpacePermissions = builder.objectRef<ReturnType<typeof spacePermissions>>('SpacePermissions').implement({
  fields: (t) => ({
    view: t.exposeBoolean('view'),
    access: t.exposeBoolean('access'),
    admin: t.exposeBoolean('admin'),
    viewInviteLinks: t.exposeBoolean('viewInviteLinks'),
    edit: t.exposeBoolean('edit'),
    triggerGitSync: t.exposeBoolean('triggerGitSync'),
    comment: t.exposeBoolean('comment'),
    merge: t.exposeBoolean('merge'),
    review: t.exposeBoolean('review'),
    installIntegration: t.exposeBoolean('installIntegration'),
  }),
});

/** A space's URLs; the published ones only when its visibility is not private. */
function spaceUrls(ctx: Context, s: Space, org: Organization | null): SpaceUrls {
  const urls: SpaceUrls = ctx.urls.space(s.id);
  if (s.visibility !== 'private') {
    urls.published = ctx.urls.publishedSpace(org?.hostname ?? null, s.id);
    if (s.visibility === 'public') urls.public = urls.published;
  }
  return urls;
}

// The merge rules, the Git Sync state and the visitor authentication are parts of the space's own
// row: selecting their fields reads nothing more, so they cost one field whatever their selection.
const IN_ROW = { field: 1, multiplier: 0 };

export const SpaceType = builder.prismaObject('Space', {
  fields: (t) => ({
    object: t.string({ resolve: () => 'space' }),
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    emoji: t.exposeString('emoji'),
    visibility: t.field({ type: ContentVisibilityEnum, resolve: (s) => s.visibility as 'private' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    deletedAt: t.expose('deletedAt', { type: 'DateTime', nullable: true }),
    editMode: t.field({ type: SpaceEditModeEnum, nullable: true, resolve: (s) => s.editMode as 'live' | null }),
    mergeRules: t.field({ type: MergeRulesUnion, complexity: IN_ROW, resolve: (s) => storedMergeRules(s.mergeRules) }),
    urls: t.field({
      type: SpaceUrlsType,
      resolve: (s, _a, ctx) => {
        if (s.visibility === 'private') return ctx.urls.space(s.id);
        const organizations = accessRows(ctx).organization;
        const org = organizations.now(s.organizationId);
        return org === undefined ? organizations.load(s.organizationId).then((o) => spaceUrls(ctx, s, o)) : spaceUrls(ctx, s, org);
      },
    }),
    organization: t.exposeString('organizationId'),
    parent: t.exposeString('parentId', { nullable: true }),
    language: t.field({ type: TranslationLanguageEnum, nullable: true, resolve: (s) => s.language as 'en' | null }),
    gitSync: t.field({ type: GitSyncStateType, nullable: true, complexity: IN_ROW, resolve: (s) => s.gitSync as GitSyncStateJson | null }),
    visitorAuth: t.field({
      type: VisitorAuthType,
      nullable: true,
      complexity: IN_ROW,
      resolve: (s) => s.visitorAuth as { backend: 'custom' } | null,
    }),
    revision: t.exposeString('revisionId'),
    defaultLevel: t.field({
      type: DefaultLevelEnum,
      nullable: true,
      extensions: { restKeepNull: true },
      resolve: (s) => s.defaultLevel as 'inherit' | null,
    }),
    comments: t.int({ description: 'Open comments', resolve: (s, _a, ctx) => spaceCount(ctx, s.id, 'comments') }),
    changeRequests: t.int({ resolve: (s, _a, ctx) => spaceCount(ctx, s.id, 'changeRequests') }),
    changeRequestsOpen: t.int({ resolve: (s, _a, ctx) => spaceCount(ctx, s.id, 'changeRequestsOpen') }),
    changeRequestsDraft: t.int({ resolve: (s, _a, ctx) => spaceCount(ctx, s.id, 'changeRequestsDraft') }),
    permissions: t.field({ type: SpacePermissions, resolve: (s, _a, ctx) => callerSpacePermissions(ctx, s) }),
  }),
});

export const SpaceList = listOf('Space', SpaceType, primeSpaceCounts);

builder.objectField(OrganizationType, 'spaces', (t) =>
  t.field({ type: SpaceList, args: pageArgs(t), resolve: (org, args, ctx) => listSpaces(ctx, org.id, args) }),
);

builder.objectField(CollectionType, 'spaces', (t) =>
  t.field({ type: SpaceList, args: pageArgs(t), resolve: (collection, args, ctx) => listCollectionSpaces(ctx, collection.id, args) }),
);

// A space's content is content's revision type; spaces stand on content (they create, copy and
// purge it), so the field is added here.
builder.objectField(SpaceType, 'content', (t) =>
  t.field({
    type: RevisionType,
    description: "The space's main content (its current revision)",
    resolve: (space, _a, ctx) => spaceContent(ctx, space.id),
  }),
);
builder.objectField(SpaceType, 'revisionById', (t) =>
  t.field({
    type: RevisionType,
    description: 'Any revision of the space by id',
    args: { id: t.arg.id({ required: true }) },
    resolve: (space, { id }, ctx) => spaceRevision(ctx, space.id, String(id)),
  }),
);
builder.objectField(SpaceType, 'page', (t) =>
  t.field({
    type: PageType,
    nullable: true,
    description: "A page of the space's main content by path (typed); null when there is none",
    args: { path: t.arg.string({ required: true }) },
    resolve: (space, { path }, ctx) => spacePageByPath(ctx, space.id, path),
  }),
);
builder.objectField(SpaceType, 'document', (t) =>
  t.field({
    type: 'JSON',
    description: `${FREE_DOC}A document (a page body, by a page's documentId)`,
    args: { id: t.arg.string({ required: true }), schema: t.arg.string() },
    resolve: (space, args, ctx) => documentById(ctx, space.id, args.id, args.schema),
  }),
);

builder.queryField('space', (t) =>
  t.field({
    type: SpaceType,
    description: 'A space; a deleted one (within its 7 days) only for its admins',
    args: { id: t.arg.id({ required: true }) },
    // Its counts are read before its fields resolve (as a list's are): each then answers a value, not a promise.
    resolve: async (_r, { id }, ctx, info) => {
      const space = await getSpace(ctx, String(id));
      await primeSpaceCounts(ctx, [space], (field) => infoSelects(info, field));
      return space;
    },
  }),
);
registerNode(SpaceType, {
  args: ['id'],
  keys: (s) => [s.id],
  load: (ctx, [id]) => getSpace(ctx, id!),
  prime: (ctx, keys) =>
    primeContentRoles(
      ctx,
      's',
      keys.map(([id]) => id!),
    ),
});

const CreateSpaceInput = builder.inputType('CreateSpaceInput', {
  fields: (t) => ({
    title: t.string(),
    emoji: t.string(),
    parent: t.id({ description: 'Parent collection id' }),
    language: t.field({ type: TranslationLanguageEnum }),
    editMode: t.field({ type: SpaceEditModeEnum }),
  }),
});
const UpdateSpaceInput = builder.inputType('UpdateSpaceInput', {
  fields: (t) => ({
    title: t.string(),
    emoji: t.string(),
    editMode: t.field({ type: SpaceEditModeEnum }),
    defaultLevel: t.field({ type: DefaultLevelEnum }),
    language: t.field({ type: TranslationLanguageEnum }),
    mergeRules: t.field({ type: MergeRulesInput }),
  }),
});
const MoveSpaceInput = builder.inputType('MoveSpaceInput', {
  fields: (t) => ({
    parent: t.id({ description: 'Parent collection id; null for the top level' }),
    position: t.field({ type: ContentPositionInput }),
  }),
});
const TransferSpaceInput = builder.inputType('TransferSpaceInput', { fields: (t) => ({ organization: t.id({ required: true }) }) });

const idArg = (t: { arg: { id: (o: { required: true }) => any } }) => ({ id: t.arg.id({ required: true }) });

builder.mutationFields((t) => ({
  createSpace: t.field({
    type: SpaceType,
    args: { organizationId: t.arg.id({ required: true }), input: t.arg({ type: CreateSpaceInput, required: false }) },
    resolve: (_r, args, ctx) =>
      createSpace(ctx, String(args.organizationId), {
        ...args.input,
        parent: args.input?.parent == null ? null : String(args.input.parent),
      }),
  }),
  updateSpace: t.field({
    type: SpaceType,
    args: { ...idArg(t), input: t.arg({ type: UpdateSpaceInput, required: true }) },
    resolve: (_r, { id, input }, ctx) => updateSpace(ctx, String(id), input),
  }),
  deleteSpace: t.boolean({
    description: 'Delete a space (restorable for 7 days); false when there was no live space',
    args: idArg(t),
    resolve: (_r, { id }, ctx) => deleteSpace(ctx, String(id)),
  }),
  duplicateSpace: t.field({ type: SpaceType, args: idArg(t), resolve: (_r, { id }, ctx) => duplicateSpace(ctx, String(id)) }),
  restoreSpace: t.field({ type: SpaceType, args: idArg(t), resolve: (_r, { id }, ctx) => restoreSpace(ctx, String(id)) }),
  moveSpace: t.field({
    type: SpaceType,
    args: { ...idArg(t), input: t.arg({ type: MoveSpaceInput, required: true }) },
    resolve: (_r, { id, input }, ctx) =>
      moveSpace(ctx, String(id), {
        parent: input.parent === undefined ? undefined : input.parent === null ? null : String(input.parent),
        position: input.position,
      }),
  }),
  transferSpace: t.field({
    type: SpaceType,
    args: { ...idArg(t), input: t.arg({ type: TransferSpaceInput, required: true }) },
    resolve: (_r, { id, input }, ctx) => transferSpace(ctx, String(id), { organization: String(input.organization) }),
  }),
}));
