import { beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/auth/authenticate.js';
import { selectRowsOnce } from '../../src/db/early-reads.js';
import { spaceCountsStatement } from '../../src/modules/spaces/loaders.js';
import { setupHarness, type Harness, type World } from '../support/harness.js';

/**
 * A GET whose first statement rides on the authentication statement (src/db/early-reads.ts): GET
 * /v1/spaces/{id} is one round trip in all, its answer the same as the counts read on their own,
 * and a refused caller gets nothing more for it.
 */
let h: Harness;
let world: World;
let spaceId: string;
let emptyId: string;

const NO_LIMIT = { limit: 0, windowSeconds: 60 };

beforeAll(async () => {
  h = await setupHarness();
  world = await h.world('Riding statements');
  const post = async (path: string, body: unknown) => (await h.call('POST', path, { token: world.owner.token, body })).body;
  spaceId = (await post(`/v1/orgs/${world.orgId}/spaces`, { title: 'Counted' })).id;
  emptyId = (await post(`/v1/orgs/${world.orgId}/spaces`, { title: 'Empty' })).id;
  for (const subject of ['One', 'Two', 'Three']) await post(`/v1/spaces/${spaceId}/change-requests`, { subject });
  for (const markdown of ['First', 'Second']) await post(`/v1/spaces/${spaceId}/comments`, { body: { markdown } });
});

const statementsOf = async (token: string, path: string) => {
  const before = h.db.statements.count;
  const res = await h.call('GET', path, { token });
  return { res, statements: h.db.statements.count - before };
};

describe('a statement riding on the authentication statement', () => {
  it('gives the rows it gives on its own (its columns survive JSON)', async () => {
    for (const id of [spaceId, emptyId, 'no-such-space']) {
      const rider = spaceCountsStatement([id]);
      const rode = await authenticate(h.db, world.reader.token, NO_LIMIT, Date.now(), undefined, { spaceId: id, rider });
      const alone = await selectRowsOnce(world, h.db.pool, rider);
      expect(rode?.riderRows).toEqual(alone);
      expect(alone).toHaveLength(1);
    }
  });

  it('makes GET /v1/spaces/{id} one statement, with the counts of the space', async () => {
    const { res, statements } = await statementsOf(world.reader.token, `/v1/spaces/${spaceId}`);
    expect(res.status).toBe(200);
    expect(statements).toBe(1);
    const counted = await h.graphql(
      world.reader.token,
      'query($id: ID!) { space(id: $id) { comments changeRequests changeRequestsOpen changeRequestsDraft } }',
      { id: spaceId },
    );
    const { comments, changeRequests, changeRequestsOpen, changeRequestsDraft } = res.body;
    expect({ comments, changeRequests, changeRequestsOpen, changeRequestsDraft }).toEqual(counted.body.data.space);
    expect(comments).toBe(2);
    expect(changeRequests).toBe(3);
  });

  it('reads nothing more for a caller who may not see the space, nor for a bad token', async () => {
    const outsider = await statementsOf(world.outsider.token, `/v1/spaces/${spaceId}`);
    expect(outsider.res.status).toBe(404);
    expect(outsider.statements).toBe(1);
    const bad = await statementsOf('gb_api_not-a-token', `/v1/spaces/${spaceId}`);
    expect(bad.res.status).toBe(401);
    expect(bad.statements).toBe(1);
  });
});

/** A /graphql POST as an HTTP client sends it: with its Content-Length (what tells a small body). */
const askGraphql = async (token: string, query: string, variables: Record<string, unknown>) => {
  const body = JSON.stringify({ query, variables });
  const before = h.db.statements.count;
  const res = await h.app.fetch(
    new Request('http://lectern.test/graphql', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
      },
      body,
    }),
  );
  return { body: (await res.json()) as { data?: any; errors?: unknown[] }, statements: h.db.statements.count - before };
};

describe('a GraphQL space(id) query of a token this process knows', () => {
  const SPACE_QUERY = `query($id: ID!) { space(id: $id) { id title comments changeRequests changeRequestsOpen changeRequestsDraft permissions { view edit } } }`;
  it('reads the space and its counts with the authentication statement: one statement, the same answer', async () => {
    const reader = await h.user('Fresh reader');
    await h.addMember(world.orgId, reader.id, 'read');
    const first = await askGraphql(reader.token, SPACE_QUERY, { id: spaceId }); // the token is not known yet: read as always
    const known = await askGraphql(reader.token, SPACE_QUERY, { id: spaceId });
    expect(first.statements).toBeGreaterThan(1);
    expect(known.statements).toBe(1);
    expect(known.body).toEqual(first.body);
    expect(known.body.data.space).toMatchObject({ comments: 2, changeRequests: 3, permissions: { view: true, edit: false } });
    // Without a count selected nothing rides; the space's access rows still do.
    const plain = await askGraphql(reader.token, 'query($id: ID!) { space(id: $id) { id title } }', { id: spaceId });
    expect(plain.statements).toBe(1);
    expect(plain.body.data.space.id).toBe(spaceId);
  });

  it('answers a caller who may not see the space as before, and changes nothing for other queries', async () => {
    await askGraphql(world.outsider.token, '{ viewer { id } }', {});
    const outsider = await askGraphql(world.outsider.token, SPACE_QUERY, { id: spaceId });
    expect(outsider.body.data?.space ?? null).toBeNull();
    expect(outsider.statements).toBe(1);
    const viewer = await askGraphql(world.reader.token, '{ viewer { id } }', {});
    expect(viewer.body.data.viewer.id).toBe(world.reader.id);
    const malformed = await askGraphql(world.reader.token, 'query { space(id: ', {});
    expect(malformed.body.errors).toBeDefined();
  });
});

describe('a GraphQL organization(id) query of a token this process knows', () => {
  const ORGANIZATION_QUERY = `query($id: ID!) { organization(id: $id) { id title spaces { count items { id comments permissions { view edit } } } } }`;

  it('reads the organization and the membership with the authentication statement, the same answer', async () => {
    const reader = await h.user('Fresh organization reader');
    await h.addMember(world.orgId, reader.id, 'read');
    const first = await askGraphql(reader.token, ORGANIZATION_QUERY, { id: world.orgId }); // not known yet: read as always
    const known = await askGraphql(reader.token, ORGANIZATION_QUERY, { id: world.orgId });
    expect(known.body).toEqual(first.body);
    expect(known.body.data.organization.spaces.count).toBe(2);
    // As GET /v1/orgs/{id}/spaces: the authentication, the reader's rights on the collections, the page, its counts.
    expect(first.statements).toBe(6);
    expect(known.statements).toBe(4);
    const plain = await askGraphql(reader.token, 'query($id: ID!) { organization(id: $id) { id title } }', { id: world.orgId });
    expect(plain.statements).toBe(1);
  });

  it('answers a caller outside it as one asking for an organization that does not exist, in one statement', async () => {
    await askGraphql(world.outsider.token, '{ viewer { id } }', {});
    const outsider = await askGraphql(world.outsider.token, ORGANIZATION_QUERY, { id: world.orgId });
    const missing = await askGraphql(world.outsider.token, ORGANIZATION_QUERY, { id: 'no-such-org' });
    for (const refused of [outsider, missing]) {
      expect(refused.body.data?.organization ?? null).toBeNull();
      expect(refused.statements).toBe(1);
    }
    expect(JSON.stringify(outsider.body.errors).replaceAll(world.orgId, 'no-such-org')).toBe(JSON.stringify(missing.body.errors));
  });
});

describe('an organization request', () => {
  it('reads the organization and the caller’s membership with the authentication statement', async () => {
    const org = await statementsOf(world.reader.token, `/v1/orgs/${world.orgId}`);
    expect(org.res.status).toBe(200);
    expect(org.res.body.id).toBe(world.orgId);
    expect(org.statements).toBe(1);
    // The authentication, which rights a reader has on the collections, the page, the page's counts.
    const spaces = await statementsOf(world.reader.token, `/v1/orgs/${world.orgId}/spaces`);
    expect(spaces.res.status).toBe(200);
    expect(spaces.res.body.items.map((s: { id: string }) => s.id).sort()).toEqual([spaceId, emptyId].sort());
    expect(spaces.statements).toBe(4);
  });

  it('gives the same rows as the loaders read on their own', async () => {
    for (const token of [world.reader.token, world.outsider.token]) {
      const rode = await authenticate(h.db, token, NO_LIMIT, Date.now(), undefined, { organizationId: world.orgId });
      const caller = rode!.caller.id;
      const organization = await h.db.prisma.organization.findUnique({ where: { id: world.orgId } });
      const member = await h.db.prisma.member.findUnique({
        where: { organizationId_userId: { organizationId: world.orgId, userId: caller } },
      });
      expect(rode?.organizationAccess).toEqual({ id: world.orgId, organization, member });
    }
  });

  it('answers a caller outside it, and an organization that does not exist, with the same 404 in one statement', async () => {
    const outsider = await statementsOf(world.outsider.token, `/v1/orgs/${world.orgId}/spaces`);
    const missing = await statementsOf(world.reader.token, '/v1/orgs/no-such-org/spaces');
    for (const refused of [outsider, missing]) {
      expect(refused.res.status).toBe(404);
      expect(refused.statements).toBe(1);
    }
    expect(outsider.res.body).toEqual(missing.res.body);
  });
});
