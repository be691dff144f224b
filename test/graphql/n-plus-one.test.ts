import { beforeAll, describe, expect, it } from 'vitest';
import { setupHarness, type Harness } from '../support/harness.js';
import { SPACE_FIELDS } from '../../src/modules/spaces/routes.js';
import { COLLECTION_FIELDS } from '../../src/modules/collections/routes.js';
import { statementsOnBothLanes } from '../support/graphql-lanes.js';

/**
 * N+1 guard: the number of SQL statements a nested query issues must not grow with the data.
 * The statement counts are recorded per query below (a snapshot), like Pothos' complex-app
 * snapshots the Prisma calls a query makes.
 */
let h: Harness;
beforeAll(async () => {
  h = await setupHarness();
});

const NESTED = /* GraphQL */ `
query Nested($id: ID!) {
  organization(id: $id) {
    title permissions { admin }
    spaces(limit: 1000) { count items { ...SpaceFields } }
    collections(limit: 20) { items { ...CollectionFields spaces(limit: 100) { items { ...SpaceFields } } } }
    members { items { id role user { displayName } spaces } }
  }
}
${SPACE_FIELDS}
${COLLECTION_FIELDS}`;

async function orgWith(collections: number, spacesPerCollection: number) {
  const owner = await h.owner();
  const member = await h.user();
  await h.addMember(owner.orgId, member.id, 'edit');
  for (let c = 0; c < collections; c++) {
    const collection = (await h.call('POST', `/v1/orgs/${owner.orgId}/collections`, { token: owner.token, body: { title: `C${c}` } })).body;
    for (let s = 0; s < spacesPerCollection; s++) {
      const space = (
        await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { title: `S${c}.${s}`, parent: collection.id } })
      ).body;
      await h.db.prisma.changeRequest.create({ data: { id: `${space.id}-cr`, spaceId: space.id, number: 1, status: 'open' } });
    }
  }
  return { owner, member };
}

const statementsFor = (token: string, orgId: string) => statementsOnBothLanes(h, token, NESTED, { id: orgId });

describe('nested organization query', () => {
  it('issues the same number of SQL statements for 2 and for 12 spaces (admin and member)', async () => {
    const small = await orgWith(1, 2);
    const large = await orgWith(3, 4);
    const smallAdmin = await statementsFor(small.owner.token, small.owner.orgId);
    const largeAdmin = await statementsFor(large.owner.token, large.owner.orgId);
    expect(largeAdmin.body.data.organization.spaces.count).toBe(12);
    expect(largeAdmin.statements).toEqual(smallAdmin.statements);

    const smallMember = await statementsFor(small.member.token, small.owner.orgId);
    const largeMember = await statementsFor(large.member.token, large.owner.orgId);
    expect(largeMember.body.data.organization.spaces.items[0].permissions.edit).toBe(true);
    expect(largeMember.statements).toEqual(smallMember.statements);

    expect({ admin: largeAdmin.statements, member: largeMember.statements }).toMatchInlineSnapshot(`
      {
        "admin": {
          "direct": 11,
          "yoga": 13,
        },
        "member": {
          "direct": 11,
          "yoga": 13,
        },
      }
    `);
  });

  it('a REST list of spaces issues a constant number of statements', async () => {
    const small = await orgWith(1, 2);
    const large = await orgWith(2, 10);
    const count = async (o: Awaited<ReturnType<typeof orgWith>>) => {
      const before = h.db.statements.count;
      const res = await h.call('GET', `/v1/orgs/${o.owner.orgId}/spaces?limit=100`, { token: o.member.token });
      expect(res.status).toBe(200);
      return h.db.statements.count - before;
    };
    const smallCount = await count(small);
    const largeCount = await count(large);
    expect(largeCount).toBe(smallCount);
    // The authentication (with the organization and the membership), the reader's rights on the collections, the page, its counts.
    expect(largeCount).toMatchInlineSnapshot(`4`);
  });
});

describe('nested content', () => {
  it("reads every space's page tree in a constant number of statements", async () => {
    const build = async (spaces: number) => {
      const owner = await h.owner();
      for (let i = 0; i < spaces; i++) {
        const space = (await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { title: `S${i}` } })).body;
        const res = await h.call('POST', `/v1/spaces/${space.id}/content`, {
          token: owner.token,
          body: {
            changes: [
              { operation: 'insert_page', title: 'A', document: { markdown: 'a' } },
              { operation: 'insert_page', title: 'B', document: { markdown: 'b' } },
            ],
          },
        });
        expect(res.status).toBe(200);
      }
      return owner;
    };
    const query = `query($id: ID!) { organization(id: $id) { spaces(limit: 100) { items { id content { id pageList { id title path } pages { id title path body { ... on PageMarkdownBody { markdown } } } files { count } } } } } }`;
    const measure = async (owner: Awaited<ReturnType<typeof build>>) => {
      const { statements, body } = await statementsOnBothLanes(h, owner.token, query, { id: owner.orgId });
      expect(body.data.organization.spaces.items[0].content.pageList).toHaveLength(2);
      return statements;
    };
    const small = await measure(await build(2));
    const large = await measure(await build(8));
    expect(large).toEqual(small);
    expect(large).toMatchInlineSnapshot(`
      {
        "direct": 6,
        "yoga": 9,
      }
    `);
  });
});

describe('change request lists', () => {
  it('lists change requests (with their open-comment counts) in a constant number of statements', async () => {
    const build = async (count: number) => {
      const owner = await h.owner();
      const space = (await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { title: 'CRs' } })).body;
      for (let i = 0; i < count; i++) {
        const cr = (await h.call('POST', `/v1/spaces/${space.id}/change-requests`, { token: owner.token, body: { subject: `CR ${i}` } }))
          .body;
        const posted = await h.call('POST', `/v1/spaces/${space.id}/change-requests/${cr.id}/comments`, {
          token: owner.token,
          body: { body: { markdown: 'hi' } },
        });
        expect(posted.status).toBe(200);
      }
      return { owner, space };
    };
    const measure = async ({ owner, space }: Awaited<ReturnType<typeof build>>) => {
      const before = h.db.statements.count;
      const res = await h.call('GET', `/v1/spaces/${space.id}/change-requests?limit=100`, { token: owner.token });
      expect(res.status).toBe(200);
      expect(res.body.items.every((cr: { comments: number }) => cr.comments === 1)).toBe(true);
      return h.db.statements.count - before;
    };
    const small = await measure(await build(2));
    const large = await measure(await build(10));
    expect(large).toBe(small);
  });
});
