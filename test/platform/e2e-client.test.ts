import { GitBookAPI } from '@gitbook/api';
import { GitBookAPI as GitBookAPI0202 } from 'gitbook-api-0202';
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
        body: JSON.stringify({
          query: 'query($id: ID!) { organization(id: $id) { spaces { items { id } } } }',
          variables: { id: owner.orgId },
        }),
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
      body: JSON.stringify({
        query: 'query($id: ID!) { organization(id: $id) { spaces { count items { title parent } } } }',
        variables: { id: owner.orgId },
      }),
    });
    const body = (await response.json()) as any;
    expect(body.data.organization.spaces.items).toEqual([{ title: 'Onboarding guide', parent: null }]);
  });
});

/**
 * The latest official client (0.202.0), call for call: the flow an integration that writes docs
 * goes through. Every answer is checked against the official schemas (0.202.0, and 0.146.0 where
 * the operation is in both).
 */
describe('official @gitbook/api 0.202.0 client over HTTP: write, read by path, review, merge, changes', () => {
  it('writes pages and files through updateChangeRequestContent, reads them by path, reviews, merges and lists the changes', async () => {
    const reviewer = await h.user('Reviewer');
    await h.addMember(owner.orgId, reviewer.id, 'review');
    const latest = new GitBookAPI0202({ endpoint: server.url, authToken: owner.token });
    const space = await latest.orgs.createSpace(owner.orgId, { title: 'Latest client' });
    assertMatchesSpec('createSpace', 201, space.data);
    const cr = await latest.spaces.createChangeRequest(space.data.id, { subject: 'First pages' });
    assertMatchesSpec('createChangeRequest', 201, cr.data);

    // compat=false: the affected pages (refs echoed) and the inserted files; a ref used by a later
    // change (`into`) and by Markdown links, whatever the order of the changes.
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex').toString('base64');
    const written = await latest.spaces.updateChangeRequestContent(
      space.data.id,
      cr.data.id,
      {
        changes: [
          {
            operation: 'insert_page',
            ref: 'guide',
            title: 'Guide',
            document: { markdown: 'Start with [setup](./setup.md).\n\n![Logo](./logo)\n' },
          },
          {
            operation: 'insert_page',
            ref: 'setup',
            into: 'guide',
            document: { markdown: '---\ndescription: Install it\n---\n# Setup\n\n1. npm ci\n' },
          },
          { operation: 'insert_files', files: [{ ref: 'logo', name: 'logo.png', contentType: 'image/png', base64: png }] },
        ],
      },
      { compat: false },
    );
    assertMatchesSpec('updateChangeRequestContent', 200, written.data);
    const update = written.data as {
      changes: { object: string; ref?: string; page: { id: string } }[];
      insertedFiles?: { id: string; name: string }[];
    };
    expect(update.changes.map((c) => [c.object, c.ref])).toEqual([
      ['created_page', 'guide'],
      ['created_page', 'setup'],
    ]);
    expect(update.insertedFiles?.map((f) => f.name)).toEqual(['logo.png']);
    const [guideId, setupId] = update.changes.map((c) => c.page.id);

    // compat=true (the default) answers the change request; a page body given as a JSON document.
    const doc = {
      object: 'document',
      data: {},
      nodes: [
        {
          object: 'block',
          type: 'paragraph',
          data: {},
          nodes: [
            {
              object: 'text',
              leaves: [{ object: 'leaf', text: 'Written as a document.', marks: [{ object: 'mark', type: 'bold', data: {} }] }],
            },
          ],
        },
      ],
    };
    const compat = await latest.spaces.updateChangeRequestContent(space.data.id, cr.data.id, {
      changes: [{ operation: 'insert_page', title: 'Notes', document: doc as never }],
    });
    assertMatchesSpec('updateChangeRequestContent', 200, compat.data);
    expect(compat.data).toMatchObject({ object: 'change-request', id: cr.data.id });

    const setup = await latest.spaces.getPageInChangeRequestByPath(space.data.id, cr.data.id, 'guide/setup', { format: 'markdown' });
    assertMatchesSpec('getPageInChangeRequestByPath', 200, setup.data);
    expect(setup.data).toMatchObject({ id: setupId, title: 'Setup', description: 'Install it' });
    const guide = (await latest.spaces.getPageInChangeRequestByPath(space.data.id, cr.data.id, 'guide', { format: 'markdown' })).data as {
      markdown: string;
    };
    // The refs became ids: the link points at the setup page, the image at the file.
    expect(guide.markdown).toContain(setupId);
    expect(guide.markdown).toContain(update.insertedFiles![0]!.id);
    const notes = (await latest.spaces.getPageInChangeRequestByPath(space.data.id, cr.data.id, 'notes', { format: 'markdown' })).data as {
      markdown: string;
    };
    expect(notes.markdown.trim()).toBe('**Written as a document.**');

    // Review: the owner requests a reviewer, who approves with a comment.
    const requested = await latest.spaces.requestReviewersForChangeRequest(space.data.id, cr.data.id, { users: [reviewer.id] });
    assertMatchesSpec('requestReviewersForChangeRequest', 200, requested.data);
    const listedRequests = await latest.spaces.getRequestedReviewersByChangeRequestId(space.data.id, cr.data.id);
    assertMatchesSpec('getRequestedReviewersByChangeRequestId', 200, listedRequests.data);
    expect(listedRequests.data.items.map((r) => (r as { user?: { id: string } }).user?.id)).toEqual([reviewer.id]);
    const asReviewer = new GitBookAPI0202({ endpoint: server.url, authToken: reviewer.token });
    const review = await asReviewer.spaces.submitChangeRequestReview(space.data.id, cr.data.id, {
      status: 'approved' as never,
      comment: { markdown: 'Looks good' } as never,
    });
    expect([200, 201]).toContain(review.status);
    const reviews = await latest.spaces.getReviewsByChangeRequestId(space.data.id, cr.data.id);
    assertMatchesSpec('getReviewsByChangeRequestId', 200, reviews.data);
    expect(reviews.data.items.map((r) => [r.reviewer.id, r.status])).toEqual([[reviewer.id, 'approved']]);

    const merged = await latest.spaces.mergeChangeRequest(space.data.id, cr.data.id);
    assertMatchesSpec('mergeChangeRequest', 200, merged.data);
    expect(merged.data.result).toBe('merge');
    const live = await latest.spaces.getPageByPath(space.data.id, 'guide/setup', { format: 'markdown' });
    assertMatchesSpec('getPageByPath', 200, live.data);
    expect(live.data.id).toBe(setupId);

    const changes = await latest.spaces.getRevisionSemanticChanges(space.data.id, merged.data.revision);
    assertMatchesSpec('getRevisionSemanticChanges', 200, changes.data);
    const created = changes.data.changes.filter((c) => c.type === 'page_created').map((c) => (c as { page: { id: string } }).page.id);
    expect(created.sort()).toEqual([guideId, setupId, (await latest.spaces.getPageByPath(space.data.id, 'notes')).data.id].sort());
    expect(changes.data.changes.some((c) => c.type === 'file_created')).toBe(true);
    expect(changes.data.mergedFrom?.id).toBe(cr.data.id);
  });
});
