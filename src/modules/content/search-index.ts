import type { Prisma } from '../../generated/prisma/client.js';

/**
 * Keeps the search index of a space's main content current. Placeholder until the search module
 * lands: called whenever main moves, with the previous and the new main revision.
 */
export async function reindexSpace(_tx: Prisma.TransactionClient, _spaceId: string, _from: string, _to: string): Promise<void> {}
