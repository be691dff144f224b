import { FREE_DOC } from '../../graphql/free-form.js';
import { builder } from '../../graphql/builder.js';
import type { RestRequest, RestRoute } from '../../rest/route.js';
import { reusableContentById, reusableContentDocument, reusableContentJson } from './reusable-contents.js';
import { ReusableContentType } from './page-type.js';
import { RevisionType } from './revision.js';
import { contentOptions, contentReadRoutes, revisionConditional } from './routes.js';

/**
 * Reads of reusable contents (reusable-contents.ts): one by id on main, on a change request and on
 * a revision (getReusableContentById, …InChangeRequestById, …InRevisionById), its document in a
 * revision, and the list (GraphQL; in REST the list is the revision's `reusableContents`).
 */
builder.objectFields(RevisionType, (t) => ({
  reusableContents: t.field({
    type: [ReusableContentType],
    description: "The revision's reusable contents (RevisionReusableContent objects)",
    resolve: async (v) => (await v.content.reusableContents()).map((r) => ({ view: v, json: reusableContentJson(v, r) })),
  }),
  reusableContent: t.field({
    type: ReusableContentType,
    description: 'One reusable content by id (RevisionReusableContent)',
    args: { id: t.arg.string({ required: true }) },
    resolve: async (v, args) => ({ view: v, json: await reusableContentById(v, args.id) }),
  }),
  reusableContentDocument: t.field({
    type: 'JSON',
    description: `${FREE_DOC}A reusable content's body`,
    args: {
      id: t.arg.string({ required: true }),
      evaluated: t.arg.string({ required: false }),
      dereferenced: t.arg.string({ required: false }),
    },
    resolve: (v, args, ctx) => reusableContentDocument(ctx, v, args.id, { evaluated: args.evaluated, dereferenced: args.dereferenced }),
  }),
}));

export const reusableContentRoutes: RestRoute[] = [
  ...contentReadRoutes([
    {
      suffix: '/reusable-contents/:reusableContentId',
      spaceOperation: 'getReusableContentById',
      changeRequestOperation: 'getReusableContentInChangeRequestById',
      revisionOperation: 'getReusableContentInRevisionById',
      args: { reusableContentId: 'String!' },
      variables: (req) => ({ ...contentOptions(req), reusableContentId: req.params.reusableContentId }),
      selection: 'reusableContent(id: $reusableContentId) { id title document: documentId }',
      pick: (r) => r.reusableContent,
    },
  ]),
  {
    method: 'GET',
    path: '/spaces/:spaceId/revisions/:revisionId/reusable-contents/:reusableContentId/document',
    operationId: 'getReusableContentDocumentInRevisionById',
    document: `query ReusableContentDocument($spaceId: ID!, $revisionId: ID!, $id: String!, $evaluated: String, $dereferenced: String) {
      space(id: $spaceId) { revisionById(id: $revisionId) { reusableContentDocument(id: $id, evaluated: $evaluated, dereferenced: $dereferenced) } }
    }`,
    // `evaluated`: true, false or deterministic-only; `dereferenced`: true, false or reusable-contents (checked by the resolver).
    variables: (req: RestRequest) => ({
      spaceId: req.params.spaceId,
      revisionId: req.params.revisionId,
      id: req.params.reusableContentId,
      evaluated: req.query.evaluated || undefined,
      dereferenced: req.query.dereferenced || undefined,
    }),
    result: (data) => data.space.revisionById.reusableContentDocument,
    // Reusable contents and what they include live in the revision: immutable.
    conditional: revisionConditional(),
  },
];
