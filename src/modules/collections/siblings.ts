import { badRequest, conflict } from '../../errors.js';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { byPosition, indexFor, placeAt } from '../../positions.js';

/** Where to put an item among its siblings: before or after a space or collection (official ContentPosition). */
export interface ContentPosition {
  before?: ContentPointer | null;
  after?: ContentPointer | null;
}
export interface ContentPointer {
  type: string;
  space?: string | null;
  collection?: string | null;
}

type Tx = Pick<PrismaClient, 'space' | 'collection'>;

/**
 * Spaces and collections under one parent share one ordering (a float `position`). Returns the
 * position for `movingId` placed as asked under `parentId`, or throws 409 when the placement is
 * the one it already has (`current` given) and 400 when a pointer is not a sibling there. Siblings
 * renumbered to make room (only when the gap ran out) are written here, in the caller's transaction.
 */
export async function placeAmongSiblings(
  tx: Tx,
  where: { organizationId: string; parentId: string | null },
  movingId: string,
  position: ContentPosition | null | undefined,
  current?: { parentId: string | null; position: number },
): Promise<number> {
  const [spaces, collections] = await Promise.all([
    tx.space.findMany({ where: { ...where, deletedAt: null }, select: { id: true, position: true } }),
    tx.collection.findMany({ where, select: { id: true, position: true } }),
  ]);
  const siblings = [...spaces.map((s) => ({ ...s, type: 'space' })), ...collections.map((c) => ({ ...c, type: 'collection' }))]
    .filter((s) => s.id !== movingId)
    .sort(byPosition);

  let index = siblings.length;
  const pointerField = position?.before ? 'before' : position?.after ? 'after' : null;
  if (pointerField) {
    const pointer = position![pointerField]!;
    const id = pointer.type === 'space' ? pointer.space : pointer.type === 'collection' ? pointer.collection : undefined;
    if (!id) throw badRequest(`position.${pointerField}`, 'must be { type: "space", space } or { type: "collection", collection }');
    // The pointer names a space or a collection: an id of the other kind is not a sibling.
    index = indexFor(siblings, { after: pointerField === 'after', matches: (s) => s.id === id && s.type === pointer.type });
    if (index < 0) throw badRequest(`position.${pointerField}`, `${pointer.type} ${id} is not an item of the target parent`);
  }

  if (current && current.parentId === where.parentId) {
    const currentIndex = siblings.filter((s) => byPosition(s, { id: movingId, position: current.position }) < 0).length;
    if (currentIndex === index) throw conflict('The move would not change anything');
  }

  const placed = placeAt(siblings, index);
  for (const { item, position: moved } of placed.renumber) {
    if (item.type === 'space') await tx.space.update({ where: { id: item.id }, data: { position: moved } });
    else await tx.collection.update({ where: { id: item.id }, data: { position: moved } });
  }
  return placed.position;
}
