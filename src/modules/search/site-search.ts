import type { Context } from '../../context.js';
import { accessRows } from '../../auth/access-rows.js';
import { badRequest } from '../../errors.js';
import { readPageArgs, type ListPage, type PageArgs } from '../../pagination.js';
import * as check from '../../validate.js';
import { pageTree, viewOf, type PageNode, type PageTree } from '../content/index.js';
import { MAX_QUERY_CHARS, searchSpacesGrouped, type ExcludedPages, type SearchSpaceResult } from './service.js';

/**
 * Search over a given set of spaces, grouped by space (the shape of GitBook's searchSiteContent and
 * searchOrganizationContent): the spaces, best first, each with its best pages and their best
 * sections — the organization search's very statement (service.ts `searchSpacesGrouped`: scores,
 * global ranks, snippets, descriptions, the total and the window in one statement).
 *
 * No permission check here: the caller decides which spaces may be searched (the site search of
 * the sites module by the caller's rights and the site's audience; the reader by the visitor's).
 * Deleted spaces are left out. `pageAllowed` leaves pages out before anything is counted (the
 * reader: hidden pages and pages whose adaptive condition the visitor does not meet); it reads the
 * searched spaces' page trees (kept per manifest by the content module) first.
 */
export interface SearchSpacesOptions {
  /** Pages a visitor may find; all pages without it. */
  pageAllowed?: (spaceId: string, page: PageNode, tree: PageTree) => boolean;
}

/** The `query` argument: required, at most 512 characters (as the space search checks it). */
export function readSearchQuery(query: string | null | undefined): string {
  if (query == null || !query.trim()) throw badRequest('query', 'is required');
  return check.text('query', query, { max: MAX_QUERY_CHARS });
}

/** Spaces (by id) with their pages matching `query`, best first. */
export async function searchSpaces(
  ctx: Context,
  spaceIds: string[],
  query: string,
  args: PageArgs,
  options: SearchSpacesOptions = {},
): Promise<ListPage<SearchSpaceResult>> {
  const q = readSearchQuery(query);
  readPageArgs(args);
  const rows = await accessRows(ctx).space.loadMany([...new Set(spaceIds)]);
  const spaces = rows.flatMap((s) => (s && !(s instanceof Error) && !s.deletedAt ? [s] : []));
  const excluded: ExcludedPages = { spaces: [], pages: [] };
  if (options.pageAllowed) {
    await Promise.all(
      spaces.map(async (space) => {
        const tree = await pageTree(ctx, await viewOf(ctx, space, space.revisionId));
        for (const node of tree.byId.values()) {
          if (!options.pageAllowed!(space.id, node, tree)) {
            excluded.spaces.push(space.id);
            excluded.pages.push(node.id);
          }
        }
      }),
    );
  }
  return searchSpacesGrouped(ctx, spaces, q, args, excluded);
}
