import { beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/auth/tokens.js';
import { setupHarness, type Harness } from '../support/harness.js';
import { writeCr, type Change } from '../support/content-writes.js';

/**
 * The search's hot path: a space search costs the same SQL statements whatever the space's size
 * (authentication, the space with the caller's membership, then one search statement giving the
 * total, the result window, snippets and descriptions), and the root `spaceSearch` the REST
 * operation runs answers exactly what `space(id) { search }` answers, refused alike.
 */
let h: Harness;
let world: Awaited<ReturnType<Harness['world']>>;
let small: string;
let large: string;

async function spaceWith(title: string, pages: number) {
  const space = (await h.call('POST', `/v1/orgs/${world.orgId}/spaces`, { token: world.owner.token, body: { title } })).body.id as string;
  const cr = await h.call('POST', `/v1/spaces/${space}/change-requests`, { token: world.owner.token, body: { subject: 'pages' } });
  const changes: Change[] = Array.from({ length: pages }, (_, i) => ({
    operation: 'insert_page',
    title: `Wombat ${i}`,
    ...(i % 2 ? { description: `About wombat ${i}` } : {}),
    document: { markdown: `Wombats dig burrows ${i}.\n\n## Diet\n\nWombats eat grass.` },
  }));
  await writeCr(h, world.owner.token, space, cr.body.id, changes);
  expect((await h.call('POST', `/v1/spaces/${space}/change-requests/${cr.body.id}/merge`, { token: world.owner.token })).status).toBe(200);
  return space;
}

beforeAll(async () => {
  h = await setupHarness();
  world = await h.world('Search statements');
  [small, large] = [await spaceWith('Small', 2), await spaceWith('Large', 40)];
});

async function statementsOf(token: string, spaceId: string, query: string) {
  const before = h.db.statements.count;
  const res = await h.rest('searchSpaceContent', 'GET', `/v1/spaces/${spaceId}/search?query=${encodeURIComponent(query)}&limit=20`, {
    token,
  });
  const statements = h.db.statements.count - before;
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { statements, body: res.body };
}

describe('space search statements', () => {
  it('are the same for a 2-page and a 40-page space (admin and member), two for an admin', async () => {
    for (const caller of [world.owner, world.reader]) {
      const a = await statementsOf(caller.token, small, 'wombats');
      const b = await statementsOf(caller.token, large, 'wombats');
      expect([a.body.count, b.body.count]).toEqual([2, 40]);
      expect(b.body.items).toHaveLength(20);
      // Descriptions come from the same statement: a page with one has it, the others ''.
      for (const page of b.body.items as { title: string; description: string }[]) {
        const n = Number(page.title.split(' ')[1]);
        expect(page.description).toBe(n % 2 ? `About wombat ${n}` : '');
      }
      expect(b.statements).toBe(a.statements);
      // Nothing found, and a window past the end: the total still comes with the same statements.
      const none = await statementsOf(caller.token, large, 'aardvark');
      expect(none.body).toEqual({ items: [], count: 0 });
      expect(none.statements).toBe(a.statements);
      // The token and the space's access rows in one statement, then the search.
      if (caller === world.owner) expect(a.statements).toBe(2);
    }
  });
});

describe('Query.spaceSearch', () => {
  const both = (token: string, space: string, query: string) =>
    h.graphql(
      token,
      `query($space: ID!, $q: String!) {
        spaceSearch(spaceId: $space, query: $q, limit: 3) { count next { page } items { id title description path score rank sections { id path body } ancestors { title } urls { app } } }
        space(id: $space) { search(query: $q, limit: 3) { count next { page } items { id title description path score rank sections { id path body } ancestors { title } urls { app } } } }
      }`,
      { space, q: query },
    );

  it('answers what space(id) { search } answers', async () => {
    const res = await both(world.reader.token, large, 'wombats diet');
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.spaceSearch.count).toBe(40);
    expect(res.body.data.spaceSearch).toEqual(res.body.data.space.search);
  });

  it('refuses every caller that space(id) { search } refuses, with the same error and nothing else', async () => {
    const ask = (token: string, document: string) => h.graphql(token, document, { s: large, q: 'wombats' });
    const cases = async (label: string) => {
      for (const caller of [world.outsider, world.guest, world.reader]) {
        const root = await ask(caller.token, `query($s: ID!, $q: String!) { spaceSearch(spaceId: $s, query: $q) { count items { id } } }`);
        const nested = await ask(
          caller.token,
          `query($s: ID!, $q: String!) { space(id: $s) { search(query: $q) { count items { id } } } }`,
        );
        const errorOf = (res: typeof root) =>
          res.body.errors?.map((e: { message: string; extensions: { code: string } }) => [e.extensions.code, e.message]) ?? null;
        expect(errorOf(root), `${label}: ${caller.id}`).toEqual(errorOf(nested));
        if (errorOf(root)) expect(root.body.data?.spaceSearch ?? null).toBeNull();
        else expect(root.body.data.spaceSearch).toEqual(nested.body.data.space.search);
      }
    };
    // A guest has no right without a grant (404, as for an outsider); the reader reads.
    await cases('as is');
    // Single sign-on required: members who are not admins are refused with 403.
    await h.db.prisma.organization.update({ where: { id: world.orgId }, data: { sso: true } });
    try {
      await cases('sso');
      const refused = await ask(world.reader.token, `query($s: ID!, $q: String!) { spaceSearch(spaceId: $s, query: $q) { count } }`);
      expect(refused.body.errors[0].extensions.code).toBe('FORBIDDEN');
    } finally {
      await h.db.prisma.organization.update({ where: { id: world.orgId }, data: { sso: false } });
    }
    // A deleted space is not found, even by its admin.
    await h.db.prisma.space.update({ where: { id: large }, data: { deletedAt: new Date() } });
    try {
      await cases('deleted');
      const gone = await h.call('GET', `/v1/spaces/${large}/search?query=wombats`, { token: world.owner.token });
      expect(gone.status).toBe(404);
      expect(gone.body).toEqual({ error: { code: 404, message: 'Space not found' } });
    } finally {
      await h.db.prisma.space.update({ where: { id: large }, data: { deletedAt: null } });
    }
    expect((await h.call('GET', `/v1/spaces/nope/search?query=wombats`, { token: world.owner.token })).status).toBe(404);
  });

  it('refuses a caller who cannot see the space (404 before the 400 of a bad query), and names a bad query', async () => {
    for (const query of ['wombats', '']) {
      const res = await h.graphql(world.outsider.token, `query($s: ID!, $q: String!) { spaceSearch(spaceId: $s, query: $q) { count } }`, {
        s: large,
        q: query,
      });
      expect(res.body.errors[0].extensions.code).toBe('NOT_FOUND');
      expect(res.body.data?.spaceSearch ?? null).toBeNull();
    }
    const bad = await h.graphql(world.reader.token, `query($s: ID!) { spaceSearch(spaceId: $s, query: "", limit: 5) { count } }`, {
      s: large,
    });
    expect(bad.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    expect(bad.body.errors[0].message).toMatch(/^query: /);
    const limit = await h.call('GET', `/v1/spaces/${large}/search?query=wombats&limit=0`, { token: world.reader.token });
    expect(limit.status).toBe(400);
    expect(limit.body.error.message).toMatch(/^limit: /);
    expect((await h.call('GET', `/v1/spaces/${large}/search?query=wombats`)).status).toBe(401);
  });
});

describe('a space search begun while the token is checked (src/db/early-reads.ts)', () => {
  /** A REST search, with the statements it sent in order and whether authentication had finished when the search was sent. */
  async function traced(token: string | null, spaceId: string, query = 'wombats') {
    const pool = h.db.pool as unknown as { query: (...args: unknown[]) => Promise<unknown> };
    const query0 = pool.query;
    const sent: string[] = [];
    let authenticated = false;
    let authenticatedBeforeSearch: boolean | null = null;
    pool.query = (...args: unknown[]) => {
      const first = args[0] as string | { text: string };
      const text = typeof first === 'string' ? first : first.text;
      const kind = text.includes('"ApiToken"') ? 'authentication' : text.includes('"SearchSection"') ? 'search' : 'other';
      // Other statements (a background job's, a member's last-seen time) are not the request's path.
      if (kind !== 'other') sent.push(kind);
      if (kind === 'search' && authenticatedBeforeSearch === null) authenticatedBeforeSearch = authenticated;
      const result = query0.apply(h.db.pool, args);
      if (kind === 'authentication')
        void result.then(
          () => (authenticated = true),
          () => {},
        );
      return result;
    };
    try {
      const res = await h.call('GET', `/v1/spaces/${spaceId}/search?query=${encodeURIComponent(query)}&limit=20`, { token });
      return { res, sent, authenticatedBeforeSearch };
    } finally {
      pool.query = query0;
    }
  }

  it('is begun only for a token this process authenticated lately, and answers what a search after authentication answers', async () => {
    const fresh = await issueToken(h.db.prisma, world.reader.id);
    // First use: the token is unknown, so the search waits for its authentication.
    const first = await traced(fresh, large);
    expect(first.res.status).toBe(200);
    expect(first.sent).toEqual(['authentication', 'search']);
    expect(first.authenticatedBeforeSearch).toBe(true);
    // Now known: the search statement goes out before the authentication has answered, and is sent once.
    const second = await traced(fresh, large);
    expect(second.res.status).toBe(200);
    expect([...second.sent].sort()).toEqual(['authentication', 'search']);
    expect(second.authenticatedBeforeSearch).toBe(false);
    expect(second.res.body).toEqual(first.res.body);
    expect(second.res.body.count).toBe(40);
  });

  it('never answers rows to a caller refused on the way', async () => {
    // The outsider's token is valid and known; the space is not theirs: the begun search is dropped.
    expect((await h.call('GET', '/v1/user', { token: world.outsider.token })).status).toBe(200);
    const outsider = await traced(world.outsider.token, large);
    expect(outsider.sent).toContain('search');
    expect(outsider.res.status).toBe(404);
    expect(outsider.res.body).toEqual({ error: { code: 404, message: 'Space not found' } });
    // A token nobody authenticated (guessed, revoked): nothing is begun before it is refused.
    const stranger = await traced('lct_not-a-token-anyone-was-given', large);
    expect(stranger.res.status).toBe(401);
    expect(stranger.sent).toEqual(['authentication']);
    // Bad input begins nothing and is answered with its 400.
    const bad = await traced(world.reader.token, large, '');
    expect(bad.res.status).toBe(400);
    expect(bad.sent).not.toContain('search');
  });
});
