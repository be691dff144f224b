import { GitBookAPI } from '@gitbook/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server.js';
import { assertMatchesSpec } from '../support/openapi.js';
import { setupHarness, type Harness } from '../support/harness.js';

/** The official GitBook client against the running HTTP server: the flow a new user goes through. */
let h: Harness;
let server: RunningServer;
let api: GitBookAPI;
let owner: Awaited<ReturnType<Harness['owner']>>;

beforeAll(async () => {
  h = await setupHarness();
  server = await startServer({ ...h.config, host: '127.0.0.1', port: 0 }, { db: h.db });
  owner = await h.owner('Client Co');
  api = new GitBookAPI({ endpoint: server.url, authToken: owner.token });
});
afterAll(() => server?.close());

describe('official @gitbook/api client over HTTP', () => {
  it('lists organizations, creates, moves, deletes and restores spaces and collections', async () => {
    const me = await api.user.getAuthenticatedUser();
    assertMatchesSpec('getAuthenticatedUser', 200, me.data);
    expect(me.data.id).toBe(owner.id);

    const orgs = await api.orgs.listOrganizationsForAuthenticatedUser();
    assertMatchesSpec('listOrganizationsForAuthenticatedUser', 200, orgs.data);
    expect(orgs.data.items.map((o) => o.id)).toEqual([owner.orgId]);

    const collection = await api.orgs.createCollection(owner.orgId, { title: 'Handbook' });
    assertMatchesSpec('createCollection', 201, collection.data);
    expect(collection.status).toBe(201);

    const space = await api.orgs.createSpace(owner.orgId, { title: 'Onboarding', emoji: '🚀' });
    expect(space.status).toBe(201);
    assertMatchesSpec('createSpace', 201, space.data);

    const moved = await api.spaces.moveSpace(space.data.id, { parent: collection.data.id });
    assertMatchesSpec('moveSpace', 200, moved.data);
    expect(moved.data.parent).toBe(collection.data.id);

    const inCollection = await api.collections.listSpacesInCollectionById(collection.data.id);
    expect(inCollection.data.items.map((s) => s.id)).toEqual([space.data.id]);

    const updated = await api.spaces.updateSpaceById(space.data.id, { title: 'Onboarding guide', visibility: undefined } as never);
    expect(updated.data.title).toBe('Onboarding guide');

    const deleted = await api.spaces.deleteSpaceById(space.data.id);
    expect(deleted.status).toBe(205);
    const listed = await api.orgs.listSpacesInOrganizationById(owner.orgId);
    expect(listed.data.items.map((s) => s.id)).not.toContain(space.data.id);

    const restored = await api.spaces.restoreSpace(space.data.id);
    assertMatchesSpec('restoreSpace', 200, restored.data);
    expect(restored.data.deletedAt).toBeUndefined();

    const gone = await api.collections.deleteCollectionById(collection.data.id);
    expect(gone.status).toBe(205);
  });

  it('surfaces errors in the GitBook error shape through the client', async () => {
    const error = await api.spaces.getSpaceById('does-not-exist').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as { code?: number }).code).toBe(404);
    const stranger = new GitBookAPI({ endpoint: server.url, authToken: 'lct_wrong' });
    const unauthorized = await stranger.user.getAuthenticatedUser().catch((e: unknown) => e);
    expect((unauthorized as { code?: number }).code).toBe(401);
  });

  it('GraphQL over HTTP sees what REST wrote', async () => {
    // Deleting the collection above deleted the space in it (restorable); restored, it is at the top level.
    const spaces = async () => {
      const res = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.token}` },
        body: JSON.stringify({ query: 'query($id: ID!) { organization(id: $id) { spaces { items { id } } } }', variables: { id: owner.orgId } }),
      });
      return ((await res.json()) as any).data.organization.spaces.items as { id: string }[];
    };
    expect(await spaces()).toEqual([]);
    const [deleted] = await h.db.prisma.space.findMany({ where: { organizationId: owner.orgId } });
    await api.spaces.restoreSpace(deleted!.id);
    expect(await spaces()).toEqual([{ id: deleted!.id }]);
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.token}` },
      body: JSON.stringify({ query: 'query($id: ID!) { organization(id: $id) { spaces { count items { title parent } } } }', variables: { id: owner.orgId } }),
    });
    const body = (await response.json()) as any;
    expect(body.data.organization.spaces.items).toEqual([{ title: 'Onboarding guide', parent: null }]);
  });
});
