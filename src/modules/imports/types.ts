import { builder } from '../../graphql/builder.js';
import { NextPage } from '../../graphql/lists.js';
import { cancelImportRun, generateStorageUploadURL, getImportRun, type importRunJson, listImportRuns, startImportRun } from './service.js';

// GraphQL of imports: the official shapes (ContentImportRun, StorageUploadURL). Input fields are
// optional where the service checks them, so its 400 names the field as the REST answer always did.

type RunJson = ReturnType<typeof importRunJson>;

const ImportRunStatusEnum = builder.enumType('ImportRunStatus', {
  values: {
    pending: { value: 'pending' },
    in_progress: { value: 'in-progress' },
    completed: { value: 'completed' },
    failed: { value: 'failed' },
    cancelled: { value: 'cancelled' },
  } as const,
});

const ImportRunSource = builder.objectRef<{ type: string; files: string[] }>('ImportRunSource').implement({
  description: "What a run imports: uploaded files by their keys (type 'file')",
  fields: (t) => ({ type: t.exposeString('type'), files: t.exposeStringList('files', { description: 'Upload keys' }) }),
});

const ImportRunTarget = builder.objectRef<RunJson['target']>('ImportRunTarget').implement({
  fields: (t) => ({
    space: t.exposeString('space'),
    changeRequest: t.string({ nullable: true, resolve: (x) => x.changeRequest ?? null }),
    page: t.string({ nullable: true, description: 'The page the import goes below', resolve: (x) => x.page ?? null }),
  }),
});

type PageItem = RunJson['pages'][number];
const ImportRunPage = builder.objectRef<PageItem>('ImportRunPage').implement({
  fields: (t) => ({
    id: t.exposeString('id'),
    type: t.exposeString('type', { description: 'page or folder' }),
    status: t.exposeString('status', { description: 'complete or pending' }),
    sourceURL: t.string({ nullable: true, resolve: (p) => p.sourceURL ?? null }),
  }),
});

const ImportRunUrls = builder.objectRef<{ location: string }>('ImportRunUrls').implement({
  fields: (t) => ({ location: t.exposeString('location') }),
});

const ImportRunProgress = builder.objectRef<RunJson['progress']>('ImportRunProgress').implement({
  fields: (t) => ({ pagesDone: t.exposeInt('pagesDone'), pagesTotal: t.exposeInt('pagesTotal') }),
});

const ImportRunSkipped = builder.objectRef<{ path: string; reason: string }>('ImportRunSkipped').implement({
  description: 'A file left out of the import, and why',
  fields: (t) => ({ path: t.exposeString('path'), reason: t.exposeString('reason') }),
});

// Timestamps are the ISO strings of the official shape, as REST answers them.
const ImportRunType = builder.objectRef<RunJson>('ImportRun').implement({
  description: 'An import of uploaded archives or Markdown files into a space or a change request (official ContentImportRun)',
  fields: (t) => ({
    object: t.exposeString('object'),
    id: t.exposeID('id'),
    status: t.field({ type: ImportRunStatusEnum, resolve: (r) => r.status as 'pending' }),
    reason: t.string({ nullable: true, description: 'Why the run failed', resolve: (r) => r.reason ?? null }),
    source: t.field({ type: ImportRunSource, resolve: (r) => r.source as { type: string; files: string[] } }),
    target: t.field({ type: ImportRunTarget, resolve: (r) => r.target }),
    site: t.string({ nullable: true, resolve: (r) => r.site ?? null }),
    createdBy: t.exposeString('createdBy'),
    createdAt: t.exposeString('createdAt'),
    updatedAt: t.exposeString('updatedAt'),
    startedAt: t.string({ nullable: true, resolve: (r) => (r as { startedAt?: string }).startedAt ?? null }),
    completedAt: t.string({ nullable: true, resolve: (r) => (r as { completedAt?: string }).completedAt ?? null }),
    pages: t.field({ type: [ImportRunPage], resolve: (r) => r.pages }),
    urls: t.field({ type: ImportRunUrls, resolve: (r) => r.urls }),
    progress: t.field({ type: ImportRunProgress, resolve: (r) => r.progress }),
    skipped: t.field({ type: [ImportRunSkipped], resolve: (r) => r.skipped as { path: string; reason: string }[] }),
  }),
});

const ImportRunList = builder.objectRef<{ items: RunJson[]; count: number; next?: { page: string } }>('ImportRunList').implement({
  fields: (t) => ({
    items: t.field({ type: [ImportRunType], resolve: (l) => l.items }),
    count: t.exposeInt('count'),
    next: t.field({ type: NextPage, nullable: true, resolve: (l) => l.next ?? null }),
  }),
});

const StorageUploadUrl = builder
  .objectRef<{ object: string; url: string; key: string; urls: { location: string } }>('StorageUploadURL')
  .implement({
    description: "A signed, expiring URL of Lectern's own storage to PUT a file to",
    fields: (t) => ({
      object: t.exposeString('object'),
      url: t.exposeString('url'),
      key: t.exposeString('key', { description: 'The upload key to name in startImportRun' }),
      urls: t.field({ type: ImportRunUrls, resolve: (u) => u.urls }),
    }),
  });

const StorageUploadFileInput = builder.inputType('StorageUploadFileInput', {
  fields: (t) => ({
    name: t.string({ required: false, description: 'Required: 1 to 255 characters' }),
    type: t.string({ required: false, description: 'Required: a MIME type' }),
    size: t.int({ required: false, description: 'Required: bytes' }),
  }),
});

const StorageUploadInput = builder.inputType('GenerateStorageUploadURLInput', {
  fields: (t) => ({
    kind: t.string({ required: false, description: 'Required: import_file (the one kind served)' }),
    file: t.field({ type: StorageUploadFileInput, required: false, description: 'Required' }),
  }),
});

const ImportSourceTypeEnum = builder.enumType('ImportRunSourceType', {
  description: 'file: uploaded files; website: refused by this server (upload an archive instead)',
  values: ['file', 'website'] as const,
});

const ImportSourceInput = builder.inputType('ImportRunSourceInput', {
  fields: (t) => ({
    type: t.field({ type: ImportSourceTypeEnum, required: false, description: 'Required' }),
    files: t.stringList({ required: false, description: 'file: 1 to 50 upload keys' }),
    url: t.string({ required: false, description: 'website: the site to import' }),
  }),
});

const ImportTargetInput = builder.inputType('ImportRunTargetInput', {
  fields: (t) => ({
    space: t.string({ required: false, description: 'Required' }),
    changeRequest: t.string({ required: false }),
    page: t.string({ required: false }),
  }),
});

const StartImportRunInput = builder.inputType('StartImportRunInput', {
  fields: (t) => ({
    source: t.field({ type: ImportSourceInput, required: false, description: 'Required' }),
    target: t.field({ type: ImportTargetInput, required: false, description: 'Required' }),
    site: t.string({ required: false }),
    enhance: t.boolean({ required: false }),
  }),
});

builder.queryFields((t) => ({
  importRuns: t.field({
    type: ImportRunList,
    description: "The organization's import runs the caller may see (those of spaces they read), newest first",
    args: {
      organizationId: t.arg.id({ required: true }),
      space: t.arg.string(),
      changeRequest: t.arg.string(),
      site: t.arg.string(),
      status: t.arg.string({ description: 'A status, or active (pending or in-progress)' }),
      page: t.arg.string(),
      limit: t.arg.int(),
    },
    resolve: (_r, args, ctx) => listImportRuns(ctx, String(args.organizationId), args),
  }),
  importRun: t.field({
    type: ImportRunType,
    description: 'One import run, with its progress and what it skipped',
    args: { organizationId: t.arg.id({ required: true }), id: t.arg.id({ required: true }) },
    resolve: (_r, { organizationId, id }, ctx) => getImportRun(ctx, String(organizationId), String(id)),
  }),
}));

builder.mutationFields((t) => ({
  generateStorageUploadURL: t.field({
    type: StorageUploadUrl,
    description: "A signed, expiring URL of Lectern's own storage to PUT a file to (import_file uploads)",
    args: { organizationId: t.arg.id({ required: true }), input: t.arg({ type: StorageUploadInput, required: true }) },
    resolve: (_r, { organizationId, input }, ctx) => generateStorageUploadURL(ctx, String(organizationId), input),
  }),
  startImportRun: t.field({
    type: ImportRunType,
    description: 'Imports uploaded .zip/.tar.gz archives (or Markdown files) into a space or a change request, as a job',
    args: { organizationId: t.arg.id({ required: true }), input: t.arg({ type: StartImportRunInput, required: true }) },
    resolve: (_r, { organizationId, input }, ctx) => startImportRun(ctx, String(organizationId), input),
  }),
  cancelImportRun: t.field({
    type: ImportRunType,
    description: 'Cancels a pending or running import: the space stays as it was',
    args: { organizationId: t.arg.id({ required: true }), id: t.arg.id({ required: true }) },
    resolve: (_r, { organizationId, id }, ctx) => cancelImportRun(ctx, String(organizationId), String(id)),
  }),
}));
