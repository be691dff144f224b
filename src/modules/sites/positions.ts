import type { Prisma } from '../../generated/prisma/client.js';

/** An item ordered among its siblings by a fractional `position`, ties broken by id. */
export interface Positioned {
  id: string;
  position: number;
}

export const byPosition = (a: Positioned, b: Positioned) => a.position - b.position || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Which table a sibling lives in (sections and groups share one ordering per parent). */
export type SiblingKind = 'section' | 'group' | 'siteSpace';
export interface Sibling extends Positioned {
  kind: SiblingKind;
}

type Tx = Prisma.TransactionClient;

async function setPosition(tx: Tx, item: Sibling, position: number) {
  if (item.kind === 'section') await tx.siteSection.update({ where: { id: item.id }, data: { position } });
  else if (item.kind === 'group') await tx.siteSectionGroup.update({ where: { id: item.id }, data: { position } });
  else await tx.siteSpace.update({ where: { id: item.id }, data: { position } });
}

function between(siblings: Positioned[], index: number): number | null {
  const previous = siblings[index - 1];
  const next = siblings[index];
  if (previous && next) {
    const mid = (previous.position + next.position) / 2;
    // After ~50 insertions at the same place a float has no room left between two neighbours.
    return mid > previous.position && mid < next.position ? mid : null;
  }
  if (previous) return previous.position + 1;
  if (next) return next.position - 1;
  return 0;
}

/**
 * The position for an item inserted at `index` among `siblings` (sorted, the item itself left
 * out): the midpoint of its neighbours, so a move writes one row. Only when two neighbours have no
 * float left between them are that parent's siblings spread out again (1, 2, 3, …), in the
 * caller's transaction, which holds the site's lock.
 */
export async function positionAt(tx: Tx, siblings: Sibling[], index: number): Promise<number> {
  const position = between(siblings, index);
  if (position !== null) return position;
  for (const [i, item] of siblings.entries()) {
    item.position = i + 1;
    await setPosition(tx, item, item.position);
  }
  return between(siblings, index)!;
}

/** The position one past the last sibling. */
export const positionAtEnd = (tx: Tx, siblings: Sibling[]) => positionAt(tx, siblings, siblings.length);
