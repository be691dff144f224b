import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { FIRST_PARTY_MANIFESTS, loadPersistedDocuments } from '../../src/graphql/caching.js';
import { createUrls } from '../../src/urls.js';
import { setupHarness, type Harness } from '../support/harness.js';

/** First-party persisted documents (src/graphql/caching.ts): a build-time manifest, accepted by hash, beside APQ. */
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const viewerQuery = 'query FirstPartyViewer { viewer { id displayName } }';
const orgQuery = 'query FirstPartyOrg($id: ID!) { organization(id: $id) { id title } }';

let h: Harness;
let app: ReturnType<typeof createApp>;
let owner: Awaited<ReturnType<Harness['owner']>>;
let manifestFile: string;

beforeAll(async () => {
  h = await setupHarness();
  owner = await h.owner('Persisted Co');
  // A manifest as the client preset writes it (keys `sha256:<hex>`), plus one entry whose key is not its text's hash.
  manifestFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-pd-')), 'persisted-documents.json');
  fs.writeFileSync(
    manifestFile,
    JSON.stringify({
      [`sha256:${sha256(viewerQuery)}`]: viewerQuery,
      [`sha256:${sha256(orgQuery)}`]: orgQuery,
      [`sha256:${sha256('{ x }')}`]: '{ viewer { email } }',
    }),
  );
  app = createApp(
    { db: h.db, config: h.config, urls: createUrls('http://lectern.test') },
    { persistedDocuments: loadPersistedDocuments([manifestFile, `${manifestFile}.absent`]) },
  );
});

const post = async (body: unknown, token = owner.token) => {
  const response = await app.fetch(
    new Request('http://lectern.test/graphql', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
  return { status: response.status, body: (await response.json()) as any };
};

describe('persisted documents of first-party clients', () => {
  it('loads the manifests that exist, keeping only entries whose key is their text’s SHA-256', () => {
    const documents = loadPersistedDocuments([manifestFile, `${manifestFile}.absent`]);
    expect([...documents.keys()].sort()).toEqual([sha256(viewerQuery), sha256(orgQuery)].sort());
    expect(FIRST_PARTY_MANIFESTS.some((file) => file.endsWith(path.join('web', 'src', 'gql', 'persisted-documents.json')))).toBe(true);
  });

  it('runs a known document by the client preset’s documentId (with or without sha256:) and by the APQ hash', async () => {
    for (const body of [
      { documentId: `sha256:${sha256(orgQuery)}`, variables: { id: owner.orgId } },
      { documentId: sha256(orgQuery), variables: { id: owner.orgId } },
      { variables: { id: owner.orgId }, extensions: { persistedQuery: { version: 1, sha256Hash: sha256(orgQuery) } } },
    ]) {
      const { status, body: answer } = await post(body);
      expect(status).toBe(200);
      expect(answer).toEqual({ data: { organization: { id: owner.orgId, title: 'Persisted Co' } } });
    }
    // Still with the caller's rights: another person reads nothing of this organization.
    const stranger = await h.user();
    const refused = await post({ documentId: `sha256:${sha256(orgQuery)}`, variables: { id: owner.orgId } }, stranger.token);
    expect(refused.body.data?.organization ?? null).toBeNull();
    expect(JSON.stringify(refused.body)).not.toContain('Persisted Co');
  });

  it('answers an unknown documentId with the standard PersistedQueryNotFound, and an unknown APQ hash through APQ', async () => {
    const unknown = await post({ documentId: `sha256:${sha256('query Unknown { viewer { id } }')}` });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors[0]).toMatchObject({ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } });
    // A manifest entry whose key is not its text's hash was left out.
    expect((await post({ documentId: `sha256:${sha256('{ x }')}` })).status).toBe(404);

    const text = `query Registered { viewer { id } } # ${Date.now()}`;
    const persistedQuery = { version: 1, sha256Hash: sha256(text) };
    const miss = await post({ extensions: { persistedQuery } });
    expect(miss.status).toBe(404);
    expect(miss.body.errors[0].message).toBe('PersistedQueryNotFound');
    expect((await post({ query: text, extensions: { persistedQuery } })).body.data.viewer.id).toBe(owner.id);
    expect((await post({ extensions: { persistedQuery } })).body.data.viewer.id).toBe(owner.id);
  });

  it('still runs arbitrary documents sent with an API token', async () => {
    const { status, body } = await post({ query: '{ viewer { id } }' });
    expect(status).toBe(200);
    expect(body.data.viewer.id).toBe(owner.id);
    // A text sent with a manifest documentId is the text that runs (the id names nothing then).
    const both = await post({ query: '{ viewer { displayName } }', documentId: `sha256:${sha256(orgQuery)}` });
    expect(both.body.data.viewer).toHaveProperty('displayName');
  });
});
