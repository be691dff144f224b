import { builder } from '../../graphql/builder.js';
import { registerNode } from '../../graphql/node.js';
import { DefaultLevelEnum } from '../../graphql/enums.js';
import { listOf, pageArgs } from '../../graphql/lists.js';
import { collectionPermissions, collectionRole, primeContentRoles, requireCollection } from '../../auth/permissions.js';
import { OrganizationType } from '../orgs/index.js';
import { ContentPositionInput } from './position-input.js';
import {
  createCollection,
  listChildCollections,
  deleteCollection,
  listCollections,
  moveCollection,
  transferCollection,
  updateCollection,
} from './service.js';

const CollectionUrls = builder.objectRef<{ location: string; app: string }>('CollectionUrls').implement({
  fields: (t) => ({ location: t.exposeString('location'), app: t.exposeString('app') }),
});

const CollectionPermissions = builder.objectRef<ReturnType<typeof collectionPermissions>>('CollectionPermissions').implement({
  fields: (t) => ({
    view: t.exposeBoolean('view'),
    admin: t.exposeBoolean('admin'),
    viewInviteLinks: t.exposeBoolean('viewInviteLinks'),
    create: t.exposeBoolean('create'),
  }),
});

export const CollectionType = builder.prismaObject('Collection', {
  fields: (t) => ({
    object: t.string({ resolve: () => 'collection' }),
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    description: t.exposeString('description', { nullable: true }),
    organization: t.exposeString('organizationId'),
    parent: t.exposeString('parentId', { nullable: true }),
    defaultLevel: t.field({
      type: DefaultLevelEnum,
      nullable: true,
      extensions: { restKeepNull: true },
      resolve: (c) => c.defaultLevel as 'inherit' | null,
    }),
    urls: t.field({ type: CollectionUrls, resolve: (c, _a, ctx) => ctx.urls.collection(c.id) }),
    permissions: t.field({
      type: CollectionPermissions,
      resolve: async (c, _a, ctx) => collectionPermissions(await collectionRole(ctx, c)),
    }),
  }),
});

export const CollectionList = listOf('Collection', CollectionType);

builder.objectField(OrganizationType, 'collections', (t) =>
  t.field({
    type: CollectionList,
    args: { ...pageArgs(t), nested: t.arg.boolean({ required: false, description: 'false: only top-level collections (default true)' }) },
    resolve: (org, args, ctx) => listCollections(ctx, org.id, args),
  }),
);

builder.objectField(CollectionType, 'collections', (t) =>
  t.field({
    type: CollectionList,
    description: 'Collections directly inside this one (a whole tree can be read in one query)',
    args: pageArgs(t),
    resolve: (collection, args, ctx) => listChildCollections(ctx, collection.id, args),
  }),
);

builder.queryField('collection', (t) =>
  t.field({
    type: CollectionType,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => requireCollection(ctx, String(id)),
  }),
);
registerNode(CollectionType, {
  args: ['id'],
  keys: (c) => [c.id],
  load: (ctx, [id]) => requireCollection(ctx, id!),
  prime: (ctx, keys) =>
    primeContentRoles(
      ctx,
      'c',
      keys.map(([id]) => id!),
    ),
});

const CreateCollectionInput = builder.inputType('CreateCollectionInput', {
  fields: (t) => ({ title: t.string(), parent: t.id() }),
});
const UpdateCollectionInput = builder.inputType('UpdateCollectionInput', {
  fields: (t) => ({ title: t.string(), description: t.string(), defaultLevel: t.field({ type: DefaultLevelEnum }) }),
});
const MoveInput = builder.inputType('MoveCollectionInput', {
  fields: (t) => ({
    parent: t.id({ description: 'Parent collection id; null for the top level' }),
    position: t.field({ type: ContentPositionInput }),
  }),
});
const TransferInput = builder.inputType('TransferCollectionInput', {
  fields: (t) => ({ organization: t.id({ required: true }) }),
});

builder.mutationFields((t) => ({
  createCollection: t.field({
    type: CollectionType,
    args: { organizationId: t.arg.id({ required: true }), input: t.arg({ type: CreateCollectionInput, required: false }) },
    resolve: (_r, args, ctx) =>
      createCollection(ctx, String(args.organizationId), {
        title: args.input?.title,
        parent: args.input?.parent == null ? null : String(args.input.parent),
      }),
  }),
  updateCollection: t.field({
    type: CollectionType,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateCollectionInput, required: true }) },
    resolve: (_r, { id, input }, ctx) => updateCollection(ctx, String(id), input),
  }),
  deleteCollection: t.boolean({
    description: 'Delete a collection (and what it holds); NOT_FOUND when there is none the caller sees',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => deleteCollection(ctx, String(id)),
  }),
  moveCollection: t.field({
    type: CollectionType,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: MoveInput, required: true }) },
    resolve: (_r, { id, input }, ctx) =>
      moveCollection(ctx, String(id), {
        parent: input.parent === undefined ? undefined : input.parent === null ? null : String(input.parent),
        position: input.position,
      }),
  }),
  transferCollection: t.field({
    type: CollectionType,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: TransferInput, required: true }) },
    resolve: (_r, { id, input }, ctx) => transferCollection(ctx, String(id), { organization: String(input.organization) }),
  }),
}));
