import type { Prisma } from './generated/prisma/client.js';

/**
 * A space's change requests are numbered 1, 2, 3… in the order they were made (#n in the API and in
 * commit messages). Two modules make them: change-requests (createChangeRequest) and git-sync (an
 * import whose merge conflicts opens one). The numbering lives here, below both, because
 * change-requests already calls git-sync (afterMainMoved: a merge into main queues an export), so
 * git-sync calling change-requests would make the two modules import each other; a hook list that
 * git-sync registered into would break that tie instead, but the export after a merge would then
 * depend on a registration at load time rather than on a call one can read.
 *
 * The caller holds the space's row lock (`SELECT … FROM "Space" … FOR UPDATE`) in `tx`, as both
 * writers do before they create one, so two creations in one space take their numbers in turn; the
 * unique (spaceId, number) index refuses a number twice should a writer forget.
 */
export async function nextChangeRequestNumber(tx: Prisma.TransactionClient, spaceId: string): Promise<number> {
  const last = await tx.changeRequest.aggregate({ where: { spaceId }, _max: { number: true } });
  return (last._max.number ?? 0) + 1;
}
