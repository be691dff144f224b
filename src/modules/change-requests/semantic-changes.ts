import type { Context } from '../../context.js';
import { builder } from '../../graphql/builder.js';
import type { ChangeRequest, Space } from '../../generated/prisma/client.js';
import { requireSpace } from '../../auth/permissions.js';
import { boolParam, intParam, type RestRoute } from '../../rest/route.js';
import { changesLimit, loadContent, requireRevision, semanticChanges, type SemanticChanges } from '../content/index.js';
import { SpaceType } from '../spaces/index.js';
import { ChangeRequestType } from './change-request.js';
import type { ChangeRequestChangesQuery, RevisionChangesQuery } from '../../generated/rest-operations.js';
import { CHANGE_REQUEST_FIELDS } from './routes.js';
import { officialChange, SEMANTIC_CHANGE_SELECTION, SemanticChangeUnion } from './semantic-change-types.js';

/**
 * getRevisionSemanticChanges and getChangeRequestChanges: what a revision changed against the
 * revision before it, and what a change request changes against the main revision it last took in.
 * The diff itself is the content module's (semantic-changes.ts: from the two manifests).
 */

type Changes = SemanticChanges & { mergedFrom?: ChangeRequest | null };

const SemanticChangesType = builder.objectRef<Changes>('RevisionSemanticChanges').implement({
  fields: (t) => ({
    mergedFrom: t.field({
      type: ChangeRequestType,
      nullable: true,
      description: 'The change request whose merge made the revision',
      resolve: (v) => v.mergedFrom ?? null,
    }),
    changes: t.field({
      type: [SemanticChangeUnion],
      // Bounded by the parent's `limit`, which already multiplies this selection.
      complexity: { field: 1, multiplier: 1 },
      resolve: (v) => v.changes,
    }),
    more: t.int({ nullable: true, description: 'How many changes the limit left out', resolve: (v) => v.more ?? null }),
  }),
});

const manifestOf = async (ctx: Context, space: Space, revisionId: string | undefined) =>
  revisionId ? (await requireRevision(ctx, space.id, revisionId)).manifest : '';

/**
 * A revision against its first parent (the empty content for a space's first revision). The
 * revision a merge put on main (a merge revision, or the change request's head on a fast-forward)
 * is compared with main before the merge, so it shows everything the merge brought, with
 * `mergedFrom`; a fast-forwarded head's own parent is only the change request's previous edit.
 */
export async function revisionSemanticChanges(ctx: Context, space: Space, revisionId: string, limit?: number | null): Promise<Changes> {
  const max = changesLimit(limit);
  const revision = await requireRevision(ctx, space.id, revisionId);
  const mergedFrom = await ctx.prisma.changeRequest.findFirst({ where: { spaceId: space.id, revisionMerged: revision.id } });
  const baseId = mergedFrom && revision.type !== 'merge' ? mergedFrom.revisionMergedAncestor : revision.parents[0];
  const [before, after] = await Promise.all([loadContent(ctx, await manifestOf(ctx, space, baseId)), loadContent(ctx, revision.manifest)]);
  return { ...(await semanticChanges(ctx, space, before, after, max)), mergedFrom };
}

/** A change request's head against the main revision it was created from or last updated from. */
export async function changeRequestSemanticChanges(ctx: Context, space: Space, cr: ChangeRequest, limit?: number | null): Promise<Changes> {
  const max = changesLimit(limit);
  const [base, head] = await Promise.all([
    manifestOf(ctx, space, cr.revisionMergedAncestor || undefined),
    manifestOf(ctx, space, cr.revisionId),
  ]);
  const [before, after] = await Promise.all([loadContent(ctx, base), loadContent(ctx, head)]);
  return semanticChanges(ctx, space, before, after, max);
}

builder.objectField(SpaceType, 'revisionSemanticChanges', (t) =>
  t.field({
    type: SemanticChangesType,
    description: 'What a revision of the space changed (getRevisionSemanticChanges)',
    args: { revision: t.arg.id({ required: true }), limit: t.arg.int({ required: false, description: '1 to 1000, default 10' }) },
    resolve: (space, args, ctx) => revisionSemanticChanges(ctx, space, String(args.revision), args.limit),
  }),
);

builder.objectField(ChangeRequestType, 'semanticChanges', (t) =>
  t.field({
    type: SemanticChangesType,
    description: 'What the change request changes against main (getChangeRequestChanges)',
    args: { limit: t.arg.int({ required: false, description: '1 to 1000, default 10' }) },
    resolve: async (cr, args, ctx) => {
      return changeRequestSemanticChanges(ctx, await requireSpace(ctx, cr.spaceId), cr, args.limit);
    },
  }),
);

const SELECTION = `changes ${SEMANTIC_CHANGE_SELECTION} more`;
/** Absent rather than null, as the official schema has it. */
const answer = (v: { mergedFrom?: unknown; changes: unknown[]; more?: number | null }) => ({
  ...(v.mergedFrom ? { mergedFrom: v.mergedFrom } : {}),
  changes: (v.changes as Record<string, unknown>[]).map(officialChange),
  ...(v.more ? { more: v.more } : {}),
});

export const semanticChangeRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/spaces/:spaceId/revisions/:revisionId/changes',
    operationId: 'getRevisionSemanticChanges',
    document: `query RevisionChanges($spaceId: ID!, $revisionId: ID!, $limit: Int) {
      space(id: $spaceId) { revisionSemanticChanges(revision: $revisionId, limit: $limit) { ${SELECTION} mergedFrom { ...ChangeRequestFields } } }
    } ${CHANGE_REQUEST_FIELDS}`,
    variables: (req) => {
      // Accepted and checked; neither changes the answer: changes are those of the stored pages (a computed
      // page is reported as itself, type computed) and Lectern keeps no git metadata.
      boolParam(req.query, 'metadata');
      boolParam(req.query, 'computed');
      return { spaceId: req.params.spaceId, revisionId: req.params.revisionId, limit: intParam(req.query, 'limit') };
    },
    result: (data: RevisionChangesQuery) => answer(data.space.revisionSemanticChanges),
  },
  {
    method: 'GET',
    path: '/spaces/:spaceId/change-requests/:changeRequestId/changes',
    operationId: 'getChangeRequestChanges',
    document: `query ChangeRequestChanges($spaceId: ID!, $changeRequestId: String!, $limit: Int) {
      space(id: $spaceId) { changeRequest(id: $changeRequestId) { semanticChanges(limit: $limit) { ${SELECTION} } } }
    }`,
    variables: (req) => ({ spaceId: req.params.spaceId, changeRequestId: req.params.changeRequestId, limit: intParam(req.query, 'limit') }),
    result: (data: ChangeRequestChangesQuery) => answer(data.space.changeRequest.semanticChanges),
  },
];
