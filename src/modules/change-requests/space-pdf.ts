import { builder } from '../../graphql/builder.js';
import { badRequest } from '../../errors.js';
import { boolParam, type RestRoute } from '../../rest/route.js';
import { createSpacePdfExport } from './exports.js';

/**
 * getSpacePDF: the same PDF export as a change request's (exports.ts, pdf.ts), of the space's main
 * content. The URL works for an hour without a token and renders main as it is when fetched.
 */
const SpacePdfExportType = builder.objectRef<{ url: string }>('SpacePdfExport').implement({
  fields: (t) => ({ url: t.exposeString('url', { description: 'Works for an hour, without a token' }) }),
});

builder.mutationField('exportSpacePdf', (t) =>
  t.field({
    type: SpacePdfExportType,
    description: "A temporary URL of the space's content (or of one page) as a PDF",
    args: { spaceId: t.arg.id({ required: true }), page: t.arg.string({ required: false, description: 'Only this page' }) },
    resolve: (_r, args, ctx) => createSpacePdfExport(ctx, String(args.spaceId), args.page),
  }),
);

export const spacePdfRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/spaces/:spaceId/pdf',
    operationId: 'getSpacePDF',
    // Asking for a PDF records an export (its random id is the URL's capability), hence a mutation.
    document: `mutation SpacePdf($spaceId: ID!, $page: String) { exportSpacePdf(spaceId: $spaceId, page: $page) { url } }`,
    variables: (req) => {
      // As getChangeRequestPDF: `only=true` asks for one page, which `page` must name.
      if (boolParam(req.query, 'only') && req.query.page === undefined) throw badRequest('page', 'is required when only is true');
      return { spaceId: req.params.spaceId, page: req.query.page };
    },
    result: (data) => data.exportSpacePdf,
  },
];
