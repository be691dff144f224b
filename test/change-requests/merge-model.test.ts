import { writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { Content, type PageEntry } from '../../src/modules/content/index.js';
import { setupHarness, type Harness } from '../support/harness.js';
import { writeCr, type Change } from '../support/content-writes.js';

/**
 * The merge against a model of the tree, over random inputs: a random base (2–15 pages, up to three
 * levels), two or three change requests opened from it, each with random operations (insert,
 * delete, move into/at, reorder, rename, slug change, line edits, bursts of inserts that make
 * positions renumber), then merged — some updated from main first — in random order. After every
 * merge and update, whatever its answer:
 * - main (and the change request) is a tree: every parent there, no ring, slugs unique among siblings;
 * - nothing lost, nothing resurrected: the pages are exactly those of main and the change request
 *   less what one side deleted (a page both kept, or one side added);
 * - fields and bodies changed on one side only come from that side;
 * - a 409 changed nothing, and happened only where both sides changed one page (or one deleted what
 *   the other changed);
 * - every listed page reads 200, and the semantic changes of the merge name exactly the pages created
 *   and deleted.
 * `npm test` runs a fixed budget with a fixed seed; `npm run fuzz:merge` runs thousands of cases
 * (MERGE_FUZZ_RUNS, MERGE_FUZZ_SEED). A counterexample found there goes in REGRESSIONS.
 */

const RUNS = Number(process.env.MERGE_FUZZ_RUNS ?? 12);
const SEED = Number(process.env.MERGE_FUZZ_SEED ?? 20261128);

const TITLES = ['Intro', 'Guide', 'Setup', 'FAQ', 'Setup'];
const LINES = 6;

type Op =
  | { kind: 'insert'; into: number; at: number; title: number }
  | { kind: 'burst'; at: number; count: number }
  | { kind: 'delete'; page: number }
  | { kind: 'move'; page: number; into: number; at: number }
  | { kind: 'reorder'; page: number; at: number }
  | { kind: 'rename'; page: number; title: number }
  | { kind: 'slug'; page: number; slug: number }
  | { kind: 'edit'; page: number; line: number }
  | { kind: 'noop'; page: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('insert' as const), into: fc.nat(20), at: fc.nat(20), title: fc.nat(TITLES.length - 1) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('burst' as const), at: fc.nat(4), count: fc.integer({ min: 40, max: 50 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), page: fc.nat(20) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('move' as const), page: fc.nat(20), into: fc.nat(20), at: fc.nat(20) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('reorder' as const), page: fc.nat(20), at: fc.nat(20) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('rename' as const), page: fc.nat(20), title: fc.nat(TITLES.length - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('slug' as const), page: fc.nat(20), slug: fc.nat(3) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('edit' as const), page: fc.nat(20), line: fc.nat(LINES - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('noop' as const), page: fc.nat(20) }) },
);

interface Scenario {
  /** Base pages: each under one of the pages before it (index + 1) or at the top level (0). */
  base: { under: number; title: number }[];
  branches: { ops: Op[]; updateFirst: boolean }[];
  order: number[];
}

const scenarioArb: fc.Arbitrary<Scenario> = fc
  .record({
    base: fc.array(fc.record({ under: fc.nat(15), title: fc.nat(TITLES.length - 1) }), { minLength: 2, maxLength: 15 }),
    branches: fc.array(fc.record({ ops: fc.array(opArb, { minLength: 1, maxLength: 4 }), updateFirst: fc.boolean() }), {
      minLength: 2,
      maxLength: 3,
    }),
    seedOrder: fc.nat(5),
  })
  .map(({ base, branches, seedOrder }) => {
    const order = branches.map((_, i) => i);
    for (let i = order.length - 1; i > 0; i--) {
      const j = (seedOrder + i) % (i + 1);
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    return { base, branches, order };
  });

/**
 * Cases that once failed, replayed on every run: a change request whose edits change nothing,
 * updated from main and merged (its merge leaves main's head as it was).
 */
const REGRESSIONS: Scenario[] = [
  {
    base: [
      { under: 8, title: 2 },
      { under: 15, title: 1 },
      { under: 15, title: 3 },
      { under: 3, title: 3 },
      { under: 0, title: 2 },
      { under: 15, title: 3 },
      { under: 0, title: 4 },
      { under: 7, title: 1 },
      { under: 4, title: 3 },
      { under: 8, title: 4 },
    ],
    branches: [
      {
        ops: [
          { kind: 'move', page: 19, into: 16, at: 13 },
          { kind: 'insert', into: 12, at: 11, title: 0 },
          { kind: 'move', page: 5, into: 3, at: 4 },
        ],
        updateFirst: true,
      },
      {
        ops: [
          { kind: 'reorder', page: 4, at: 9 },
          { kind: 'noop', page: 13 },
        ],
        updateFirst: true,
      },
      {
        ops: [
          { kind: 'reorder', page: 8, at: 3 },
          { kind: 'move', page: 1, into: 2, at: 5 },
          { kind: 'insert', into: 9, at: 16, title: 1 },
        ],
        updateFirst: false,
      },
    ],
    order: [0, 2, 1],
  },
];

let h: Harness;
let owner: Awaited<ReturnType<Harness['owner']>>;
beforeAll(async () => {
  h = await setupHarness();
  owner = await h.owner();
});

const body = (label: string) => Array.from({ length: LINES }, (_, i) => `${label} line ${i}`).join('\n\n');

async function headOf(spaceId: string, crId?: string): Promise<string> {
  if (crId) return (await h.db.prisma.changeRequest.findUniqueOrThrow({ where: { id: crId } })).revisionId;
  return (await h.db.prisma.space.findUniqueOrThrow({ where: { id: spaceId } })).revisionId;
}
async function pagesOf(revisionId: string): Promise<Map<string, PageEntry>> {
  const revision = await h.db.prisma.revision.findUniqueOrThrow({ where: { id: revisionId } });
  const content = await Content.load(h.db.prisma as never, revision.manifest);
  return new Map((await content.allPages()).map((p) => [p.id, p]));
}

/** The tree invariants of one content: parents there, no ring, sibling slugs unique. */
function assertTree(pages: Map<string, PageEntry>, where: string) {
  const slugs = new Set<string>();
  for (const page of pages.values()) {
    const seen = new Set<string>();
    for (let p: PageEntry | undefined = page; p?.parent; p = pages.get(p.parent)) {
      expect(pages.has(p.parent), `${where}: ${p.id}'s parent ${p.parent} is missing`).toBe(true);
      expect(seen.has(p.parent), `${where}: ${page.id} is in a ring`).toBe(false);
      seen.add(p.parent);
    }
    const key = `${page.parent}/${page.slug}`;
    expect(slugs.has(key), `${where}: slug ${key} twice`).toBe(false);
    slugs.add(key);
  }
}

const siblingsBefore = (pages: Map<string, PageEntry>, page: PageEntry, shared: (id: string) => boolean) =>
  [...pages.values()]
    .filter(
      (p) => p.parent === page.parent && shared(p.id) && (p.position < page.position || (p.position === page.position && p.id < page.id)),
    )
    .map((p) => p.id)
    .sort()
    .join();

/** Whether a side changed a page from the base (any field, its body, its parent, or its order among the siblings both share). */
function changed(base: Map<string, PageEntry>, side: Map<string, PageEntry>, id: string): boolean {
  const b = base.get(id);
  const s = side.get(id);
  if (!b || !s) return b !== s;
  const { position: _bp, updatedAt: _bu, ...bf } = b;
  const { position: _sp, updatedAt: _su, ...sf } = s;
  if (JSON.stringify(Object.entries(bf).sort()) !== JSON.stringify(Object.entries(sf).sort())) return true;
  const shared = (x: string) => base.has(x) && side.has(x);
  return siblingsBefore(base, b, shared) !== siblingsBefore(side, s, shared);
}

/** Applies one random operation to a change request, resolved against its current pages. */
async function apply(spaceId: string, crId: string, op: Op, label: string) {
  const pages = [...(await pagesOf(await headOf(spaceId, crId))).values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  const pick = (n: number) => pages[n % Math.max(pages.length, 1)];
  const depth = (p: PageEntry | undefined): number => (p?.parent ? 1 + depth(pages.find((x) => x.id === p.parent)) : 0);
  const below = (root: string) => {
    const ids = new Set([root]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const p of pages) if (p.parent && ids.has(p.parent) && !ids.has(p.id)) ids.add(p.id), (grew = true);
    }
    return ids;
  };
  const siblings = (parent: string | null, except?: string) => pages.filter((p) => p.parent === parent && p.id !== except).length;
  let changes: Change[] = [];
  const page = 'page' in op ? pick(op.page) : undefined;
  if ('page' in op && !page) return;
  switch (op.kind) {
    case 'insert': {
      const under = op.into % (pages.length + 1) === 0 ? undefined : pick(op.into);
      const into = under && depth(under) < 2 ? under.id : null;
      changes = [
        {
          operation: 'insert_page',
          title: TITLES[op.title],
          document: { markdown: body(label) },
          ...(into ? { into } : {}),
          at: op.at % (siblings(into) + 1),
        },
      ];
      break;
    }
    case 'burst':
      changes = Array.from({ length: op.count }, (_, i) => ({
        operation: 'insert_page',
        title: `Burst ${label} ${i}`,
        document: { markdown: '' },
        at: Math.min(op.at, siblings(null) + i),
      }));
      break;
    case 'delete':
      changes = [{ operation: 'delete_page', page: page!.id }];
      break;
    case 'move': {
      const banned = below(page!.id);
      const targets = pages.filter((p) => !banned.has(p.id));
      const under = op.into % (targets.length + 1) === 0 ? undefined : targets[op.into % targets.length];
      const into = under?.id ?? null;
      changes = [{ operation: 'update_page', page: page!.id, into, at: op.at % (siblings(into, page!.id) + 1) }];
      break;
    }
    case 'reorder':
      changes = [{ operation: 'update_page', page: page!.id, at: op.at % (siblings(page!.parent, page!.id) + 1) }];
      break;
    case 'rename':
      changes = [{ operation: 'update_page', page: page!.id, title: `${TITLES[op.title]} ${label}` }];
      break;
    case 'slug':
      changes = [{ operation: 'update_page', page: page!.id, slug: ['intro', 'guide', `s-${label}`, 'setup'][op.slug] }];
      break;
    case 'edit': {
      const markdown = (
        await h.call('GET', `/v1/spaces/${spaceId}/change-requests/${crId}/content/page/${page!.id}?format=markdown`, {
          token: owner.token,
        })
      ).body.markdown as string;
      const lines = markdown.split('\n\n');
      if (lines.length > op.line) lines[op.line] = `${label} edited ${op.line}`;
      changes = [{ operation: 'update_page', page: page!.id, document: { markdown: lines.join('\n\n') } }];
      break;
    }
    case 'noop':
      changes = [{ operation: 'update_page', page: page!.id, title: page!.title }];
      break;
  }
  const head = await headOf(spaceId, crId);
  const res = await h.call('POST', `/v1/spaces/${spaceId}/change-requests/${crId}/content?compat=false`, {
    token: owner.token,
    body: { changes },
  });
  // Only a slug a sibling holds is refused (400), and a refused write changes nothing.
  expect([200, 400], JSON.stringify(res.body)).toContain(res.status);
  if (res.status === 400) {
    expect(op.kind, JSON.stringify(res.body)).toBe('slug');
    expect(await headOf(spaceId, crId)).toBe(head);
  }
}

/** Checks a merge (or update) of `into` ← `from` against the model; `after` is the revision it made on 200. */
async function checkMerge(
  kind: string,
  res: { status: number; body: any },
  sides: { base: Map<string, PageEntry>; into: Map<string, PageEntry>; from: Map<string, PageEntry>; intoRevision: string },
  after: Map<string, PageEntry>,
  afterRevision: string,
  spaceId: string,
) {
  const { base, into, from } = sides;
  const both = new Set([...into.keys(), ...from.keys()]);
  const expected = [...both].filter((id) => !base.has(id) || (into.has(id) && from.has(id))).sort();
  const doubly = [...new Set([...base.keys(), ...both])].filter((id) => changed(base, into, id) && changed(base, from, id));
  if (res.status === 409) {
    expect(doubly.length, `${kind}: 409 without a page changed on both sides: ${res.body.error?.message}`).toBeGreaterThan(0);
    return;
  }
  expect(res.status, `${kind}: ${JSON.stringify(res.body)}`).toBe(200);
  assertTree(after, kind);
  expect([...after.keys()].sort(), `${kind}: pages kept`).toEqual(expected);
  for (const id of expected) {
    const [b, i, f, a] = [base.get(id), into.get(id), from.get(id), after.get(id)!];
    if (!b || !i || !f) continue;
    for (const field of ['title', 'body'] as const) {
      if (i[field] === b[field] && f[field] !== b[field]) expect(a[field], `${kind}: ${field} of ${id} from the change`).toBe(f[field]);
      if (f[field] === b[field] && i[field] !== b[field]) expect(a[field], `${kind}: ${field} of ${id} kept`).toBe(i[field]);
    }
  }
  const listed = await h.call('GET', `/v1/spaces/${spaceId}/revisions/${afterRevision}/pages`, { token: owner.token });
  const flat = (pages: { id: string; pages?: unknown[] }[]): string[] => pages.flatMap((p) => [p.id, ...flat((p.pages ?? []) as never)]);
  const listedIds = flat(listed.body.pages);
  expect(listedIds.sort(), `${kind}: every page listed once`).toEqual(
    [...after.keys()].filter((id) => after.get(id)!.type !== 'link').sort(),
  );
  for (const id of listedIds.slice(0, 6))
    expect((await h.call('GET', `/v1/spaces/${spaceId}/revisions/${afterRevision}/page/${id}`, { token: owner.token })).status).toBe(200);
  const changes = (await h.call('GET', `/v1/spaces/${spaceId}/revisions/${afterRevision}/changes?limit=1000`, { token: owner.token })).body
    .changes as { type: string; page?: { id: string } }[];
  // A three-way merge's revision (a fast-forward's is the change request's own last edit).
  // A three-way merge's new revision (a fast-forward's is the change request's own last edit, and a
  // change request with nothing to bring leaves main's head as it was).
  if (
    kind.startsWith('merge') &&
    afterRevision !== sides.intoRevision &&
    (await h.db.prisma.revision.findUniqueOrThrow({ where: { id: afterRevision } })).type === 'merge'
  ) {
    const ids = (type: string) =>
      changes
        .filter((c) => c.type === type)
        .map((c) => c.page!.id)
        .sort();
    expect(ids('page_created'), `${kind}: semantic changes, created`).toEqual(expected.filter((id) => !into.has(id)));
    expect(ids('page_deleted'), `${kind}: semantic changes, deleted`).toEqual([...into.keys()].filter((id) => !after.has(id)).sort());
  }
}

async function runScenario(s: Scenario) {
  const space = (await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { title: 'Model' } })).body as {
    id: string;
  };
  const cr = async (subject: string) =>
    (await h.call('POST', `/v1/spaces/${space.id}/change-requests`, { token: owner.token, body: { subject } })).body as { id: string };
  const seed = await cr('Base');
  // One write per level: a page goes under one of the pages before it (up to three levels), else at the top.
  const parentOf: number[] = [];
  const level: number[] = [];
  s.base.forEach((p, i) => {
    const under = (p.under % (i + 1)) - 1;
    parentOf[i] = under >= 0 && level[under]! < 2 ? under : -1;
    level[i] = parentOf[i]! < 0 ? 0 : level[parentOf[i]!]! + 1;
  });
  const ids: string[] = [];
  for (const depth of [0, 1, 2]) {
    const here = s.base.map((_, i) => i).filter((i) => level[i] === depth);
    if (!here.length) continue;
    const changes = here.map((i) => ({
      operation: 'insert_page',
      title: TITLES[s.base[i]!.title],
      document: { markdown: body('base') },
      ...(parentOf[i]! >= 0 ? { into: ids[parentOf[i]!] } : {}),
    }));
    const { pages } = await writeCr(h, owner.token, space.id, seed.id, changes);
    here.forEach((i, k) => (ids[i] = pages[k]!));
  }
  expect((await h.call('POST', `/v1/spaces/${space.id}/change-requests/${seed.id}/merge`, { token: owner.token })).status).toBe(200);
  const branches = [];
  for (const [i, b] of s.branches.entries()) branches.push({ ...b, cr: await cr(`Branch ${i}`), label: `b${i}` });
  for (const b of branches) for (const op of b.ops) await apply(space.id, b.cr.id, op, b.label);
  for (const index of s.order) {
    const b = branches[index]!;
    if (b.updateFirst) await mergeStep('update', space.id, b.cr.id);
    await mergeStep('merge', space.id, b.cr.id);
  }
}

async function mergeStep(kind: 'merge' | 'update', spaceId: string, crId: string) {
  const row = await h.db.prisma.changeRequest.findUniqueOrThrow({ where: { id: crId } });
  const mainHead = await headOf(spaceId);
  const [base, main, change] = await Promise.all([pagesOf(row.revisionMergedAncestor), pagesOf(mainHead), pagesOf(row.revisionId)]);
  const state = async () =>
    JSON.stringify([
      await headOf(spaceId),
      await h.db.prisma.changeRequest.findUniqueOrThrow({ where: { id: crId } }),
      await h.db.prisma.revision.count({ where: { spaceId } }),
    ]);
  const before = await state();
  const res = await h.call('POST', `/v1/spaces/${spaceId}/change-requests/${crId}/${kind}`, { token: owner.token });
  if (res.status === 409) expect(await state(), `${kind}: a refused merge changed nothing`).toBe(before);
  const head = kind === 'merge' ? await headOf(spaceId) : await headOf(spaceId, crId);
  const sides =
    kind === 'merge'
      ? { base, into: main, from: change, intoRevision: mainHead }
      : { base, into: change, from: main, intoRevision: row.revisionId };
  await checkMerge(`${kind} ${crId}`, res, sides, await pagesOf(head), head, spaceId);
}

describe('merge against a model of the tree', () => {
  it(
    `keeps every page and the tree's shape over ${RUNS} random cases (seed ${SEED})`,
    async () => {
      for (const scenario of REGRESSIONS) await runScenario(scenario);
      let done = 0;
      const counted = async (scenario: Scenario) => {
        await runScenario(scenario);
        // A long run reports its progress (npm run fuzz:merge sets the file).
        if (process.env.MERGE_FUZZ_PROGRESS) writeFileSync(process.env.MERGE_FUZZ_PROGRESS, `${++done}\n`);
      };
      await fc.assert(fc.asyncProperty(scenarioArb, counted), { seed: SEED, numRuns: RUNS, endOnFailure: true });
    },
    RUNS * 60_000,
  );
});
