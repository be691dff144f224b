import { FREE_DOC } from '../../graphql/free-form.js';
import type { ArgBuilder, SchemaTypes } from '@pothos/core';
import { builder } from '../../graphql/builder.js';
import { listOf, pageArgs } from '../../graphql/lists.js';
import type { ChangeRequest } from '../../generated/prisma/client.js';
import { UserType, userLoaders } from '../users/index.js';
import { OrganizationType } from '../orgs/index.js';
import { SpaceType } from '../spaces/index.js';
import { ComputedContentSourceInput, FileType, OPERATIONS, RevisionType, viewOf } from '../content/index.js';
import { requireSpace } from '../../auth/permissions.js';
import {
  createChangeRequest,
  getChangeRequest,
  listChangeRequests,
  listOrganizationChangeRequests,
  mergeChangeRequest,
  updateChangeRequest,
  updateChangeRequestFromMain,
  writeChangeRequestContent,
  writeSpaceContent,
  type ContentWriteResult as ContentWriteResultData,
} from './service.js';
import { createPdfExport } from './exports.js';
import { applyTemplate, TEMPLATES } from './templates.js';
import { changeRequestLoaders } from './loaders.js';
import { accessRows } from '../../auth/access-rows.js';
import { addConflictFields, ConflictResolutionInput } from './conflicts-type.js';

const ChangeRequestUrls = builder.objectRef<{ app: string; location: string }>('ChangeRequestUrls').implement({
  fields: (t) => ({ app: t.exposeString('app'), location: t.exposeString('location') }),
});

export const ChangeRequestType = builder.prismaObject('ChangeRequest', {
  fields: (t) => ({
    object: t.string({ resolve: () => 'change-request' }),
    id: t.exposeID('id'),
    number: t.exposeInt('number'),
    status: t.exposeString('status'),
    subject: t.string({ resolve: (cr) => cr.subject ?? '' }),
    description: t.field({
      type: 'JSON',
      nullable: true,
      description: `${FREE_DOC}The description`,
      resolve: (cr) => cr.description,
    }),
    createdBy: t.field({
      type: UserType,
      resolve: async (cr, _a, ctx) => (cr.createdById ? await userLoaders(ctx).user.load(cr.createdById) : null) ?? ctx.caller,
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    space: t.exposeString('spaceId'),
    revision: t.exposeString('revisionId'),
    revisionInitial: t.exposeString('revisionInitial'),
    revisionMergedAncestor: t.exposeString('revisionMergedAncestor'),
    revisionMerged: t.exposeString('revisionMerged', { nullable: true }),
    comments: t.int({
      description: 'Open comments',
      resolve: (cr, _a, ctx) => changeRequestLoaders(ctx).openComments.load(cr.id),
    }),
    outdated: t.boolean({
      description: 'True when main moved since it last merged main in',
      resolve: async (cr, _a, ctx) =>
        cr.status !== 'merged' && (await accessRows(ctx).space.load(cr.spaceId))?.revisionId !== cr.revisionMergedAncestor,
    }),
    conversationsIssuesCluster: t.exposeString('conversationsIssuesCluster', { nullable: true }),
    urls: t.field({ type: ChangeRequestUrls, resolve: (cr, _a, ctx) => ctx.urls.changeRequest(cr.spaceId, cr.id, cr.number) }),
    content: t.field({
      type: RevisionType,
      description: "The change request's content (its head revision)",
      resolve: async (cr, _a, ctx) => viewOf(ctx, await requireSpace(ctx, cr.spaceId), cr.revisionId),
    }),
  }),
});

addConflictFields(ChangeRequestType);

const ChangeRequestList = listOf('ChangeRequest', ChangeRequestType);

const filterArgs = <T extends SchemaTypes>(t: { arg: ArgBuilder<T> }) => ({
  ...pageArgs(t),
  status: t.arg.string({ required: false, description: 'draft, open (default), archived or merged' }),
  creator: t.arg.string({ required: false }),
  contributor: t.arg.string({ required: false }),
  requestedReviewer: t.arg.string({ required: false }),
  conversationsIssuesCluster: t.arg.string({ required: false }),
});

builder.objectField(SpaceType, 'changeRequestList', (t) =>
  t.field({ type: ChangeRequestList, args: filterArgs(t), resolve: (space, args, ctx) => listChangeRequests(ctx, space.id, args) }),
);
builder.objectField(SpaceType, 'changeRequest', (t) =>
  t.field({
    type: ChangeRequestType,
    description: 'A change request by id or by number',
    args: { id: t.arg.string({ required: true }) },
    resolve: (space, { id }, ctx) => getChangeRequest(ctx, space.id, id) as Promise<ChangeRequest>,
  }),
);
// Its global id (Node) is registered in ./node.ts.
builder.objectField(OrganizationType, 'changeRequestList', (t) =>
  t.field({ type: ChangeRequestList, args: filterArgs(t), resolve: (org, args, ctx) => listOrganizationChangeRequests(ctx, org.id, args) }),
);

const MergeResult = builder.objectRef<{ revision: string; result: string }>('MergeResult').implement({
  fields: (t) => ({ revision: t.exposeString('revision'), result: t.exposeString('result') }),
});
const ContentUpdateChange = builder.objectRef<ContentWriteResultData['changes'][number]>('ContentUpdateChange').implement({
  description: 'What a content write did to one page (created_page, updated_page or deleted_page)',
  fields: (t) => ({
    object: t.string({ resolve: (c) => c.object }),
    ref: t.string({
      nullable: true,
      description: 'The batch-local ref of a created page, when it had one',
      resolve: (c) => ('ref' in c ? (c.ref ?? null) : null),
    }),
    page: t.id({ description: 'The page id', resolve: (c) => c.page }),
    location: t.string({ description: 'API URL of the page where it was written', resolve: (c) => c.location }),
  }),
});
const ContentWriteResult = builder.objectRef<ContentWriteResultData>('ContentWriteResult').implement({
  fields: (t) => ({
    revision: t.exposeString('revision', { description: 'The new head revision (of the change request, or of main for live edits)' }),
    changeRequest: t.field({
      type: ChangeRequestType,
      nullable: true,
      description: 'The change request after the batch',
      resolve: (r) => r.changeRequest ?? null,
    }),
    changes: t.field({
      type: [ContentUpdateChange],
      description: 'One entry per affected page, in the order the batch first touched it',
      resolve: (r) => r.changes,
    }),
    insertedFiles: t.field({ type: [FileType], description: 'The files inserted, in order', resolve: (r) => r.insertedFiles }),
  }),
});

const PdfExportType = builder.objectRef<{ url: string }>('PdfExport').implement({
  fields: (t) => ({ url: t.exposeString('url', { description: 'Temporary URL of the PDF (valid for one hour, no token needed)' }) }),
});

const crArgs = <T extends SchemaTypes>(t: { arg: ArgBuilder<T> }) => ({
  spaceId: t.arg.id({ required: true }),
  changeRequestId: t.arg.string({ required: true }),
});

const CreateChangeRequestInput = builder.inputType('CreateChangeRequestInput', { fields: (t) => ({ subject: t.string() }) });
const UpdateChangeRequestInput = builder.inputType('UpdateChangeRequestInput', {
  fields: (t) => ({
    subject: t.string(),
    description: t.field({ type: 'JSON', description: `${FREE_DOC}The description` }),
    status: t.string(),
  }),
});
const SpaceTemplateParamsInput = builder.inputType('SpaceTemplateParamsInput', {
  description: 'Official SpaceTemplateParams',
  fields: (t) => ({
    contentRefs: t.field({
      type: 'JSON',
      description:
        'Free-form: a map keyed by the names a template gives its content slots (any string, the official shape is a map), each a ContentRef. Lectern’s templates name none: accepted, not read',
    }),
  }),
});
const ApplySpaceTemplateInput = builder.inputType('ApplySpaceTemplateInput', {
  fields: (t) => ({
    id: t.string({ required: true, description: `Template id: ${Object.keys(TEMPLATES).join(', ')}` }),
    params: t.field({ type: SpaceTemplateParamsInput }),
    changeRequestId: t.string({ description: 'Apply to this change request (id or number) rather than live to main' }),
  }),
});
// The official updateChangeRequestContent body (@gitbook/api 0.202.0) as typed inputs: a field the
// input types do not define is refused by GraphQL (and so answered 400 naming it on REST). One
// input type carries every operation's fields; which fields an operation takes is checked when
// the batch is applied (src/modules/content/changes.ts).
const ContentChangeOperation = builder.enumType('ContentChangeOperation', {
  values: Object.fromEntries(OPERATIONS.map((op) => [op, { value: op }])) as Record<
    (typeof OPERATIONS)[number],
    { value: (typeof OPERATIONS)[number] }
  >,
});
const ContentFileInput = builder.inputType('ContentFileInput', {
  description: 'A file of insert_files: exactly one of base64 (with contentType) and url',
  fields: (t) => ({
    name: t.string({ description: 'File name, with its extension (required)' }),
    contentType: t.string({ description: 'MIME type: required with base64, overrides the source type with url' }),
    ref: t.string({ description: 'Batch-local reference: pages of the batch link the file as ./<ref>' }),
    base64: t.string({ description: 'The bytes, base64 (at most 1 MB)' }),
    url: t.string({ description: 'A public http(s) URL to fetch the file from (at most 1 MB)' }),
  }),
});
const ContentChangeInput = builder.inputType('ContentChangeInput', {
  description: 'One change of a content batch (the official ChangeRequestContentChange; Lectern adds type, href and update_variables)',
  fields: (t) => ({
    operation: t.field({ type: ContentChangeOperation, required: true }),
    page: t.string({
      description: 'update_page, delete_page, revert_page: the page id (or a ref of a page inserted earlier in the batch)',
    }),
    document: t.field({ type: 'JSON', description: `${FREE_DOC}{ markdown } or { document: JSONDocument }` }),
    title: t.string(),
    slug: t.string({ description: 'Unique among the siblings; derived from the title when omitted (insert_page)' }),
    emoji: t.string({ description: 'An empty string removes it' }),
    icon: t.string({ description: 'An empty string removes it' }),
    description: t.string(),
    hidden: t.boolean(),
    noIndex: t.boolean(),
    noRobotsIndex: t.boolean(),
    condition: t.string({ description: 'Adaptive-content condition; an empty string removes it' }),
    into: t.string({ description: 'Parent page id or ref (null: the top level)' }),
    at: t.int({ description: '0-based index among the new siblings (default: the end)' }),
    ref: t.string({ description: 'insert_page: batch-local reference for later changes and Markdown links (./<ref>.md)' }),
    revision: t.string({ description: 'revert_page: the revision to revert to (default: the change request base)' }),
    block: t.stringList({ description: 'revert_page: block keys (not supported by this server: whole pages are reverted)' }),
    files: t.field({ type: [ContentFileInput], description: 'insert_files: 1 to 20 files' }),
    type: t.string({ description: 'Lectern: insert_page of a document (default), group or link page' }),
    href: t.string({ description: 'Lectern: the target of a link page' }),
    reusableContent: t.string({ description: 'Lectern, update_reusable_content and delete_reusable_content: the reusable content id' }),
    computed: t.field({ type: ComputedContentSourceInput, description: 'Lectern, insert_page of type computed: its source' }),
    variables: t.field({
      type: 'JSON',
      description:
        'Free-form: variables are named by the writer and hold any JSON value. Lectern, update_variables: { name: value or null }',
    }),
  }),
});
const ContentChangesInput = builder.inputType('ContentChangesInput', {
  fields: (t) => ({
    changes: t.field({ type: [ContentChangeInput], required: true, description: 'At most 50 changes, applied in order, atomically' }),
  }),
});

builder.mutationFields((t) => ({
  createChangeRequest: t.field({
    type: ChangeRequestType,
    args: { spaceId: t.arg.id({ required: true }), input: t.arg({ type: CreateChangeRequestInput, required: false }) },
    resolve: (_r, args, ctx) => createChangeRequest(ctx, String(args.spaceId), { subject: args.input?.subject }),
  }),
  updateChangeRequest: t.field({
    type: ChangeRequestType,
    args: { ...crArgs(t), input: t.arg({ type: UpdateChangeRequestInput, required: true }) },
    resolve: (_r, args, ctx) => updateChangeRequest(ctx, String(args.spaceId), args.changeRequestId, args.input),
  }),
  mergeChangeRequest: t.field({
    type: MergeResult,
    args: crArgs(t),
    resolve: (_r, args, ctx) => mergeChangeRequest(ctx, String(args.spaceId), args.changeRequestId),
  }),
  updateChangeRequestFromMain: t.field({
    type: MergeResult,
    args: {
      ...crArgs(t),
      resolutions: t.arg({
        type: [ConflictResolutionInput],
        required: false,
        description: 'Lectern addition: the Markdown of pages whose bodies conflict with main (see ChangeRequest.conflicts)',
      }),
    },
    resolve: (_r, args, ctx) => updateChangeRequestFromMain(ctx, String(args.spaceId), args.changeRequestId, args.resolutions),
  }),
  writeChangeRequestContent: t.field({
    type: ContentWriteResult,
    args: {
      ...crArgs(t),
      input: t.arg({ type: ContentChangesInput, required: true }),
      basedOn: t.arg.string({
        required: false,
        description:
          "Lectern addition: the change request's revision these edits start from. An update_page of a page whose document another save changed since is refused (409, CONFLICT, with the change request's revision now in the `revision` extension); other changes since do not refuse it",
      }),
    },
    resolve: (_r, args, ctx) =>
      writeChangeRequestContent(ctx, String(args.spaceId), args.changeRequestId, args.input.changes as never, { basedOn: args.basedOn }),
  }),
  exportChangeRequestPdf: t.field({
    type: PdfExportType,
    description: "A temporary URL of the change request's content (or of one page) as a PDF",
    args: { ...crArgs(t), page: t.arg.string({ required: false, description: 'Only this page' }) },
    resolve: (_r, args, ctx) => createPdfExport(ctx, String(args.spaceId), args.changeRequestId, args.page),
  }),
  applyTemplateToSpace: t.field({
    type: ContentWriteResult,
    args: { spaceId: t.arg.id({ required: true }), input: t.arg({ type: ApplySpaceTemplateInput, required: true }) },
    resolve: (_r, args, ctx) => applyTemplate(ctx, String(args.spaceId), args.input),
  }),
  writeSpaceContent: t.field({
    type: ContentWriteResult,
    description: 'Live edit of the main content (spaces in live edit mode)',
    args: { spaceId: t.arg.id({ required: true }), input: t.arg({ type: ContentChangesInput, required: true }) },
    resolve: (_r, args, ctx) => writeSpaceContent(ctx, String(args.spaceId), args.input.changes as never),
  }),
}));
