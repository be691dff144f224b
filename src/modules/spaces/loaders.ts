import type { Context } from '../../context.js';
import { selectRowsOnce, type Statement } from '../../db/early-reads.js';
import { prepared } from '../../db/rows.js';
import type { SpaceRider } from '../../graphql/early-space.js';
import { batched, perRequest } from '../../loaders.js';
import type { ItemsPrimer } from '../../graphql/lists.js';

export interface SpaceCounts {
  comments: number;
  changeRequests: number;
  changeRequestsOpen: number;
  changeRequestsDraft: number;
}

/**
 * The counts of the spaces `ids` names (prepared: every space read sends it). Two texts: `unnest`
 * of an array for a batch, the id itself for one. A plan made without values costs an array as 10
 * elements, so with one id PostgreSQL would plan every one-space read anew.
 */
const spaceCountsOf = (ids: string) =>
  prepared(
    `SELECT s.id,
     (SELECT count(*)::int FROM "Comment" c WHERE c."spaceId" = s.id AND c.status = 'open') AS comments,
     count(r.id)::int AS total,
     (count(r.id) FILTER (WHERE r.status = 'open'))::int AS open,
     (count(r.id) FILTER (WHERE r.status = 'draft'))::int AS draft
   FROM ${ids}
   LEFT JOIN "ChangeRequest" r ON r."spaceId" = s.id
   GROUP BY s.id`,
  );
const SPACE_COUNTS = spaceCountsOf('unnest($1::text[]) AS s(id)');
const ONE_SPACE_COUNTS = spaceCountsOf('(SELECT $1::text AS id) AS s');

/**
 * The counts statement of a batch of spaces. Its columns (text and int4) survive JSON, so a GET of
 * one space has it ride on the authentication statement (the route's `early`, src/db/early-reads.ts).
 */
export const spaceCountsStatement = (spaceIds: string[]): Statement =>
  spaceIds.length === 1 ? { ...ONE_SPACE_COUNTS, values: [spaceIds[0]] } : { ...SPACE_COUNTS, values: [spaceIds] };

/** The space fields the counts statement answers. */
const COUNT_FIELDS = ['comments', 'changeRequests', 'changeRequestsOpen', 'changeRequestsDraft'];

/** A GraphQL `space(id:)` read that asks for a count has the counts ride on its authentication (src/graphql/early-space.ts). */
export const spaceCountsRider: SpaceRider = (spaceId, selects) => (COUNT_FIELDS.some(selects) ? spaceCountsStatement([spaceId]) : null);

const NO_COUNTS: SpaceCounts = { comments: 0, changeRequests: 0, changeRequestsOpen: 0, changeRequestsDraft: 0 };

/**
 * Per-request loaders of the spaces module. The space row itself is loaded by the permission
 * mechanism (src/auth/access-rows.ts), which decides rights from it.
 */
export const spaceLoaders = perRequest((ctx: Context) => {
  return {
    /** Counts of a batch of spaces in one statement, however many spaces. */
    spaceCounts: batched<string, SpaceCounts>(async (spaceIds) => {
      const rows = await selectRowsOnce<{ id: string; comments: number; total: number; open: number; draft: number }>(
        ctx,
        ctx.db.pool,
        spaceCountsStatement(spaceIds),
      );
      return new Map(
        rows.map((r) => [
          r.id,
          { comments: r.comments, changeRequests: r.total, changeRequestsOpen: r.open, changeRequestsDraft: r.draft },
        ]),
      );
    }, NO_COUNTS),
  };
});

/**
 * A count of a space: the number itself once its batch is in (a listed space, its counts read for
 * the page by `primeSpaceCounts`), else a promise of it.
 */
export function spaceCount(ctx: Context, spaceId: string, count: keyof SpaceCounts): number | Promise<number> {
  const counts = spaceLoaders(ctx).spaceCounts;
  const known = counts.now(spaceId);
  return known ? known[count] : counts.load(spaceId).then((c) => c[count]);
}

/** Reads the counts of a page of spaces in one statement before its items resolve, when their selection asks for one. */
export const primeSpaceCounts: ItemsPrimer<{ id: string }> = async (ctx, items, selects) => {
  if (COUNT_FIELDS.some(selects)) await spaceLoaders(ctx).spaceCounts.loadMany(items.map((s) => s.id));
};
