import { registerNode } from '../../graphql/node.js';
import { findPage, PageType } from './page-type.js';
import { spaceRevision } from './revision-reads.js';
import { RevisionType } from './revision.js';

/**
 * Global ids of revisions and pages.
 *
 * - A revision: `Revision:<spaceId>:<revisionId>`, the arguments of `space(id:) { revision(id:) }`
 *   (spaceRevision: `read` on the space, and the revision must be the space's).
 * - A page: `Page:<spaceId>:<revisionId>:<pageId>`, resolved as `space(id:) { revision(id:) {
 *   typedPage(id:) } }`. Decision: a page id is only unique within a space's revisions, and a page
 *   differs from revision to revision, so its global id names the revision it was read from, not
 *   "the page with this id in whatever is current". Revisions are immutable: `node(id:)` then gives
 *   back exactly the object whose `globalId` it was (title, path, body), which is what a client
 *   cache keyed by global id assumes, and a page read from a change request or from an older revision
 *   has an id of its own that keeps naming it. A front-end wanting the page as it is now asks the
 *   space again (`Space.page(path:)`). A page missing from the revision (or a computed page, which is
 *   looked up among the pages as stored when the expanded tree lacks it) is null, as `typedPage`.
 * - Pages a published site shows to visitors who cannot read the space carry a global id too, but
 *   `node(id:)` answers it only for callers who can read the space, as the direct field does.
 *
 * Revisions and page trees come through the per-request loaders and memos of the content reads
 * (one tree per revision per request), so `nodes(ids:)` costs a constant number of statements.
 */
registerNode(RevisionType, {
  args: ['spaceId', 'id'],
  keys: (v) => [v.space.id, v.revision.id],
  load: (ctx, [spaceId, id]) => spaceRevision(ctx, spaceId!, id!),
});

registerNode(PageType, {
  args: ['spaceId', 'revisionId', 'id'],
  keys: (p) => [p.view.space.id, p.view.revision.id, String(p.json.id)],
  load: async (ctx, [spaceId, revisionId, id]) => {
    const view = await spaceRevision(ctx, spaceId!, revisionId!);
    return (await findPage(ctx, view, { id })) ?? (await findPage(ctx, view, { id }, false));
  },
});
