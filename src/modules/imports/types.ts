import { builder } from '../../graphql/builder.js';
import { cancelImportRun, generateStorageUploadURL, getImportRun, listImportRuns, startImportRun } from './service.js';

// GraphQL of imports: the official shapes as JSON (ContentImportRun, StorageUploadURL), the bodies
// checked field by field in the service (400 naming the field).
builder.queryFields((t) => ({
  importRuns: t.field({
    type: 'JSON',
    description: "The organization's import runs the caller may see (those of spaces they read), newest first: { items, count, next? }",
    args: {
      organizationId: t.arg.id({ required: true }),
      space: t.arg.string(),
      changeRequest: t.arg.string(),
      site: t.arg.string(),
      status: t.arg.string(),
      page: t.arg.string(),
      limit: t.arg.int(),
    },
    resolve: (_r, args, ctx) => listImportRuns(ctx, String(args.organizationId), args),
  }),
  importRun: t.field({
    type: 'JSON',
    description: 'One import run (ContentImportRun), with its progress and what it skipped',
    args: { organizationId: t.arg.id({ required: true }), id: t.arg.id({ required: true }) },
    resolve: (_r, { organizationId, id }, ctx) => getImportRun(ctx, String(organizationId), String(id)),
  }),
}));

builder.mutationFields((t) => ({
  generateStorageUploadURL: t.field({
    type: 'JSON',
    description: "A signed, expiring URL of Lectern's own storage to PUT a file to (import_file uploads)",
    args: { organizationId: t.arg.id({ required: true }), input: t.arg({ type: 'JSON', required: true }) },
    resolve: (_r, { organizationId, input }, ctx) => generateStorageUploadURL(ctx, String(organizationId), input),
  }),
  startImportRun: t.field({
    type: 'JSON',
    description: 'Imports uploaded .zip/.tar.gz archives (or Markdown files) into a space or a change request, as a job',
    args: { organizationId: t.arg.id({ required: true }), input: t.arg({ type: 'JSON', required: true }) },
    resolve: (_r, { organizationId, input }, ctx) => startImportRun(ctx, String(organizationId), input),
  }),
  cancelImportRun: t.field({
    type: 'JSON',
    description: 'Cancels a pending or running import: the space stays as it was',
    args: { organizationId: t.arg.id({ required: true }), id: t.arg.id({ required: true }) },
    resolve: (_r, { organizationId, id }, ctx) => cancelImportRun(ctx, String(organizationId), String(id)),
  }),
}));
