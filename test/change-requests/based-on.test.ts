import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeCr } from '../support/content-writes.js';
import { createCr, editor, h, newSpace, owner, setupChangeRequests, state } from './fixtures.js';

/**
 * `writeChangeRequestContent(basedOn:)`, Lectern's guard against a lost update
 * (src/modules/change-requests/based-on.ts): a save of a page's document based on a revision is
 * refused when another save changed that document since, and changes nothing; anything else merges.
 */
beforeAll(setupChangeRequests);

const WRITE = `mutation($spaceId: ID!, $cr: String!, $changes: [ContentChangeInput!]!, $basedOn: String) {
  writeChangeRequestContent(spaceId: $spaceId, changeRequestId: $cr, input: { changes: $changes }, basedOn: $basedOn) { revision }
}`;

interface Saved {
  revision?: string;
  error?: { code: string; revision?: string; pages?: string[]; message: string };
}

async function save(token: string, spaceId: string, cr: string, changes: unknown[], basedOn?: string): Promise<Saved> {
  const res = await h.graphql(token, WRITE, { spaceId, cr, changes, basedOn });
  const error = res.body.errors?.[0];
  if (error) return { error: { ...error.extensions, message: error.message } };
  return { revision: res.body.data.writeChangeRequestContent.revision };
}
const body = (page: string, markdown: string) => ({ operation: 'update_page', page, document: { markdown } });

/** A space with a change request holding pages A and B, and the change request's revision. */
async function fixture() {
  const space = await newSpace();
  const cr = await createCr(space.id);
  const written = await writeCr(h, owner.token, space.id, cr.id, [
    { operation: 'insert_page', title: 'A', document: { markdown: 'a' } },
    { operation: 'insert_page', title: 'B', document: { markdown: 'b' } },
  ]);
  return { spaceId: space.id, cr: cr.id as string, pages: written.pages as [string, string], revision: written.revision };
}

const markdownOf = async (spaceId: string, cr: string, page: string) =>
  (await h.call('GET', `/v1/spaces/${spaceId}/change-requests/${cr}/content/page/${page}?format=markdown`, { token: owner.token })).body
    .markdown;

describe('a save based on a revision', () => {
  it('goes through when nobody else changed the page, and each save bases the next', async () => {
    const { spaceId, cr, pages, revision } = await fixture();
    const first = await save(owner.token, spaceId, cr, [body(pages[0], 'a, once')], revision);
    expect(first.error).toBeUndefined();
    const second = await save(owner.token, spaceId, cr, [body(pages[0], 'a, twice')], first.revision);
    expect(second.error).toBeUndefined();
    expect(await markdownOf(spaceId, cr, pages[0])).toBe('a, twice');
  });

  it('is refused with 409 naming the page when another save changed its document since, and changes nothing', async () => {
    const { spaceId, cr, pages, revision } = await fixture();
    const theirs = await save(editor.token, spaceId, cr, [body(pages[0], 'their a')], revision);
    const before = await state();
    const res = await h.graphql(owner.token, WRITE, { spaceId, cr, changes: [body(pages[0], 'my a')], basedOn: revision });
    expect(res.status).toBe(409);
    expect(res.body.errors[0].message).toBe(`Changed by another save since revision ${revision}: "A" (${pages[0]})`);
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'CONFLICT', revision: theirs.revision, pages: [pages[0]] });
    expect(await state()).toBe(before);
    // Written again based on the revision the refusal named: the person chose to replace theirs.
    const mine = await save(owner.token, spaceId, cr, [body(pages[0], 'my a')], theirs.revision);
    expect(mine.error).toBeUndefined();
    expect(await markdownOf(spaceId, cr, pages[0])).toBe('my a');
  });

  it('goes through when what changed since is another page, or the same page’s title', async () => {
    const { spaceId, cr, pages, revision } = await fixture();
    await save(editor.token, spaceId, cr, [body(pages[1], 'their b'), { operation: 'update_page', page: pages[0], title: 'A renamed' }]);
    const mine = await save(owner.token, spaceId, cr, [body(pages[0], 'my a')], revision);
    expect(mine.error).toBeUndefined();
    expect(await markdownOf(spaceId, cr, pages[0])).toBe('my a');
    expect(await markdownOf(spaceId, cr, pages[1])).toBe('their b');
  });

  it('refuses a revision of another space (400 naming basedOn), and changes nothing', async () => {
    const { spaceId, cr, pages } = await fixture();
    const other = await fixture();
    const before = await state();
    const res = await h.graphql(owner.token, WRITE, { spaceId, cr, changes: [body(pages[0], 'x')], basedOn: other.revision });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toMatch(/^basedOn: /);
    expect(await state()).toBe(before);
  });

  it('is no right in itself: a reader is refused as without it', async () => {
    const { spaceId, cr, pages, revision } = await fixture();
    const reader = await h.user('Reader of nothing');
    const res = await h.graphql(reader.token, WRITE, { spaceId, cr, changes: [body(pages[0], 'x')], basedOn: revision });
    expect(res.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});

/**
 * Two people save pages A and B in random turns, each based on the revision of their last
 * successful save (or of the refusal, as after "Keep my version"). The model keeps every
 * revision's documents: a save is taken exactly when the page's document at its base is the one
 * at the head, and the documents read back are always those of the last save taken.
 */
describe('property: no save replaces a document its writer has not seen', () => {
  it('over random turns of two writers', async () => {
    const stepArb = fc.record({ who: fc.nat(1), page: fc.nat(1), adoptOnRefusal: fc.boolean() });
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 2, maxLength: 7 }), async (steps) => {
        runs++;
        const { spaceId, cr, pages, revision } = await fixture();
        const documents = new Map<string, string[]>([[revision, ['a', 'b']]]);
        const writers = [owner, editor].map((user) => ({ token: user.token, basedOn: revision }));
        let head = revision;
        for (const [i, step] of steps.entries()) {
          const writer = writers[step.who]!;
          const markdown = `step ${i}`;
          const taken = documents.get(writer.basedOn)?.[step.page] === documents.get(head)?.[step.page];
          const result = await save(writer.token, spaceId, cr, [body(pages[step.page]!, markdown)], writer.basedOn);
          expect(result.error === undefined, JSON.stringify(result.error)).toBe(taken);
          if (result.revision) {
            const next = [...documents.get(head)!];
            next[step.page] = markdown;
            documents.set(result.revision, next);
            head = writer.basedOn = result.revision;
          } else {
            expect(result.error).toMatchObject({ code: 'CONFLICT', revision: head, pages: [pages[step.page]!] });
            if (step.adoptOnRefusal) writer.basedOn = head;
          }
        }
        for (const [k, page] of pages.entries()) expect(await markdownOf(spaceId, cr, page)).toBe(documents.get(head)![k]);
      }),
      { numRuns: 25, endOnFailure: true },
    );
    expect(runs).toBe(25);
  });
});
