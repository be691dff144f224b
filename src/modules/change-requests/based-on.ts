import { badRequest, LecternError } from '../../errors.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { Content, type ContentChange } from '../content/index.js';

/**
 * Lectern's own guard against a lost update, for clients that save as people type (the app's
 * editor): a write that says which revision of the change request its edits start from
 * (`basedOn`) has its `update_page` of a page's document refused when another save changed that
 * page's document since — 409, naming the pages, with the change request's revision now (the
 * `revision` extension: writing again based on it replaces theirs knowingly). Other changes since
 * (titles, moves, other pages) do not refuse it: they are not what the write would replace.
 */
export async function refuseChangedDocuments(
  tx: Prisma.TransactionClient,
  spaceId: string,
  head: { revision: string; content: Content },
  basedOn: string,
  changes: ContentChange[],
): Promise<void> {
  if (basedOn === head.revision) return;
  const then = await tx.revision.findUnique({ where: { id: basedOn }, select: { spaceId: true, manifest: true } });
  if (then?.spaceId !== spaceId) throw badRequest('basedOn', 'is not a revision of this space');
  const pages = documentWrites(changes);
  if (!pages.length) return;
  const [before, now] = await Promise.all([(await Content.load(tx, then.manifest)).pages(pages), head.content.pages(pages)]);
  const changed = pages.filter((id) => now.has(id) && before.get(id)?.body !== now.get(id)?.body);
  if (!changed.length) return;
  const named = changed.map((id) => `"${now.get(id)?.title}" (${id})`).join(', ');
  throw new LecternError('CONFLICT', `Changed by another save since revision ${basedOn}: ${named}`, {
    revision: head.revision,
    pages: changed,
  });
}

/** The pages whose document a batch replaces by id (a page inserted in the same batch is new to everyone). */
const documentWrites = (changes: ContentChange[]): string[] => [
  ...new Set(
    (changes as unknown as Record<string, unknown>[])
      .filter((c) => c?.operation === 'update_page' && c.document !== undefined && typeof c.page === 'string')
      .map((c) => c.page as string),
  ),
];
