import type { Context } from '../../context.js';
import { requireSpace } from '../../auth/permissions.js';
import { notFound } from '../../errors.js';
import type { ChangeRequest } from '../../generated/prisma/client.js';
import { registerNode } from '../../graphql/node.js';
import { ChangeRequestType } from './change-request.js';
import { changeRequestLoaders } from './loaders.js';

/**
 * A change request of a space by its id, as `space(id:) { changeRequest(id:) }` answers it for an id
 * (getChangeRequest: the space checked first, so a space the caller cannot see refuses the same way),
 * but through a per-request loader: `nodes(ids:)` of N change requests (and of their comments and
 * reviews) costs one statement for the rows, not N. Only by id: a global id never names a number.
 */
export async function changeRequestById(ctx: Context, spaceId: string, id: string): Promise<ChangeRequest> {
  await requireSpace(ctx, spaceId);
  const cr = await changeRequestLoaders(ctx).changeRequest.load(id);
  if (!cr || cr.spaceId !== spaceId) throw notFound('Change request');
  return cr;
}

/** A change request by id alone, refused as changeRequestById refuses it in its own space (for rows that name only the change request). */
export async function readableChangeRequest(ctx: Context, id: string): Promise<ChangeRequest> {
  const cr = await changeRequestLoaders(ctx).changeRequest.load(id);
  if (!cr) throw notFound('Change request');
  return changeRequestById(ctx, cr.spaceId, cr.id);
}

registerNode(ChangeRequestType, {
  args: ['spaceId', 'id'],
  keys: (cr) => [cr.spaceId, cr.id],
  load: (ctx, [spaceId, id]) => changeRequestById(ctx, spaceId!, id!),
});
