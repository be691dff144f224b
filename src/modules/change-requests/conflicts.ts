import type { Context } from '../../context.js';
import { requireSpace } from '../../auth/permissions.js';
import { parseMarkdownOffLoop } from '../../document/index.js';
import { badRequest } from '../../errors.js';
import type { ChangeRequest, Prisma } from '../../generated/prisma/client.js';
import { Content, getBodies, mergeContents, type MergeConflict } from '../content/index.js';

/**
 * Lectern addition: a change request's conflicts with main, shown page by page with the three
 * versions of each page's Markdown, and the resolutions a person sends back with "update from main".
 * A resolution settles a page whose body was edited on both sides in the same lines (it becomes the
 * page's body); every other conflict (a title changed differently, a page deleted on one side)
 * still refuses the update.
 */
export interface PageConflict {
  /** The page id; null for a conflict outside pages (a variable, a reusable content). */
  page: string | null;
  title: string;
  reasons: string[];
  /** Every conflict of the page is in its body: a resolution settles it. */
  resolvable: boolean;
  /** The page's Markdown where main last came in (null: the page did not exist there). */
  base: string | null;
  main: string | null;
  change: string | null;
}

type Tx = Prisma.TransactionClient;

/** Thrown to roll back the transaction the conflicts are computed in: reading them writes nothing. */
class Computed extends Error {
  constructor(readonly conflicts: PageConflict[]) {
    super('computed');
  }
}

const contentOf = async (tx: Tx, revisionId: string) =>
  Content.load(tx, (await tx.revision.findUnique({ where: { id: revisionId } }))?.manifest ?? '');

/**
 * One request's merges run one after another: a query asking the conflicts of a list of change
 * requests holds one pooled connection for them, not one each.
 */
const queues = new WeakMap<Context, Promise<unknown>>();
function oneAtATime<T>(ctx: Context, run: () => Promise<T>): Promise<T> {
  const next = (queues.get(ctx) ?? Promise.resolve()).catch(() => undefined).then(run);
  queues.set(ctx, next);
  return next;
}

/** What merging main into the change request would meet; empty when it merges cleanly (or is merged, or up to date). */
export async function changeRequestConflicts(ctx: Context, cr: ChangeRequest): Promise<PageConflict[]> {
  if (cr.status === 'merged' || cr.revisionId === cr.revisionMergedAncestor) return [];
  const space = await requireSpace(ctx, cr.spaceId);
  if (space.revisionId === cr.revisionMergedAncestor) return [];
  return oneAtATime(ctx, () => computeConflicts(ctx, cr, space.revisionId));
}

async function computeConflicts(ctx: Context, cr: ChangeRequest, mainRevision: string): Promise<PageConflict[]> {
  // The merge is the one updates run (so the answer is what an update would meet); its writes of
  // content-addressed objects are rolled back.
  try {
    await ctx.prisma.$transaction(
      async (tx) => {
        const [base, change, main] = await Promise.all([
          contentOf(tx, cr.revisionMergedAncestor),
          contentOf(tx, cr.revisionId),
          contentOf(tx, mainRevision),
        ]);
        const merged = await mergeContents(tx, base, change, main, { main: 'theirs' });
        throw new Computed(await describe(tx, merged.conflicts, { base, main, change }));
      },
      { timeout: 60_000 },
    );
  } catch (error) {
    if (error instanceof Computed) return error.conflicts;
    throw error;
  }
  return [];
}

/** The conflicts grouped by page, with each version of the page's body. */
async function describe(
  tx: Tx,
  conflicts: MergeConflict[],
  contents: Record<'base' | 'main' | 'change', Content>,
): Promise<PageConflict[]> {
  const byPage = new Map<string, MergeConflict[]>();
  const outside: PageConflict[] = [];
  for (const c of conflicts) {
    if (!c.page) outside.push({ page: null, title: c.title, reasons: [c.reason], resolvable: false, base: null, main: null, change: null });
    else byPage.set(c.page, [...(byPage.get(c.page) ?? []), c]);
  }
  const ids = [...byPage.keys()];
  const [base, main, change] = await Promise.all([contents.base.pages(ids), contents.main.pages(ids), contents.change.pages(ids)]);
  const hashes = [base, main, change].flatMap((m) => [...m.values()].map((e) => e.body).filter((h): h is string => !!h));
  const bodies = await getBodies(tx, hashes);
  const markdown = (entries: typeof base, id: string) => {
    const entry = entries.get(id);
    return entry ? (entry.body ? (bodies.get(entry.body) ?? '') : '') : null;
  };
  const pages = ids.map((id) => {
    const list = byPage.get(id)!;
    return {
      page: id,
      title: change.get(id)?.title ?? main.get(id)?.title ?? list[0]!.title,
      reasons: list.map((c) => c.reason),
      resolvable: list.every((c) => c.body),
      base: markdown(base, id),
      main: markdown(main, id),
      change: markdown(change, id),
    };
  });
  return [...pages, ...outside];
}

/** At most this many pages resolved at once (far above what a person resolves by hand). */
const MAX_RESOLUTIONS = 200;

/** Checked resolutions: the Markdown by page id, and which field named each page (for a 400 naming it). */
export class Resolutions {
  readonly markdown = new Map<string, string>();
  private readonly fields = new Map<string, string>();

  /** The mutation's `resolutions` checked: unique page ids, Markdown a write would accept. */
  static async read(input: readonly { pageId: string; markdown: string }[] | null | undefined): Promise<Resolutions> {
    const out = new Resolutions();
    if (!input) return out;
    if (input.length > MAX_RESOLUTIONS) throw badRequest('resolutions', `at most ${MAX_RESOLUTIONS} pages at once`);
    for (const [i, r] of input.entries()) {
      const field = `resolutions[${i}]`;
      if (!r.pageId.trim()) throw badRequest(`${field}.pageId`, 'cannot be empty');
      if (out.markdown.has(r.pageId)) throw badRequest(`${field}.pageId`, 'is given twice');
      out.markdown.set(r.pageId, await body(`${field}.markdown`, r.markdown));
      out.fields.set(r.pageId, `${field}.pageId`);
    }
    return out;
  }

  /** Refuses a resolution the merge had no use for: its page's body is not in conflict (any more). */
  checkUsed(resolved: readonly string[]) {
    const used = new Set(resolved);
    for (const [page, field] of this.fields)
      if (!used.has(page)) throw badRequest(field, 'is not a page whose body conflicts with main (reload the conflicts)');
  }
}

/** The page body a resolution stands for, refused as a page write would refuse it (size, nesting, unsafe links). */
async function body(field: string, markdown: string): Promise<string> {
  let parsed: { body: string; unsafeLinks: { href: string }[] };
  try {
    parsed = await parseMarkdownOffLoop(markdown, ['body', 'unsafeLinks']);
  } catch (error) {
    const message = error instanceof Error ? error.message : '';
    if (!message.startsWith('markdown: ')) throw error;
    throw badRequest(field, message.replace(/^markdown: /, ''));
  }
  const unsafe = parsed.unsafeLinks[0];
  if (unsafe) throw badRequest(field, `link ${JSON.stringify(unsafe.href.slice(0, 80))} uses a scheme that is not allowed`);
  return parsed.body;
}
