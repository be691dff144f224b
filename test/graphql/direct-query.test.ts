import { beforeAll, describe, expect, it } from 'vitest';
import type { Plugin } from 'graphql-yoga';
import { createApp, type App } from '../../src/app.js';
import { createUrls } from '../../src/urls.js';
import { BASE, setupHarness, type Harness, type World } from '../support/harness.js';

/**
 * A plain query in a small JSON POST of a known token runs without yoga's HTTP pipeline
 * (src/graphql/direct-query.ts). Its answers must be yoga's, byte for byte: each request here is
 * sent twice, once with its Content-Length (the direct way, when eligible) and once without (a body
 * of unknown length is never read early: yoga answers it), and the two answers compared.
 */
let h: Harness;
let world: World;
let app: App;
let spaceId: string;
/** Requests yoga's request parsing saw: those the direct way did not take. */
const throughYoga: string[] = [];
const recorder: Plugin = { onRequestParse: ({ request }) => void throughYoga.push(request.url) };

beforeAll(async () => {
  h = await setupHarness();
  world = await h.world('Direct queries');
  app = createApp({ db: h.db, config: h.config, urls: createUrls(BASE) }, { plugins: [recorder] });
  spaceId = (await h.call('POST', `/v1/orgs/${world.orgId}/spaces`, { token: world.owner.token, body: { title: 'Direct' } })).body.id;
});

interface Answer {
  status: number;
  type: string | null;
  body: string;
}

async function send(body: string, opts: { length: boolean; accept?: string; token?: string }): Promise<Answer> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${opts.token ?? world.reader.token}`,
    'content-type': 'application/json',
    ...(opts.length ? { 'content-length': String(Buffer.byteLength(body)) } : {}),
    ...(opts.accept ? { accept: opts.accept } : {}),
  };
  const response = await app.fetch(new Request(`${BASE}/graphql`, { method: 'POST', headers, body }));
  return { status: response.status, type: response.headers.get('content-type'), body: await response.text() };
}

/** Both answers to one request, and whether the direct way answered it. */
async function bothWays(payload: unknown, accept?: string) {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  await send('{"query":"{ viewer { id } }"}', { length: false }); // the token is known from now on
  const seen = throughYoga.length;
  const direct = await send(body, { length: true, accept });
  const tookDirect = throughYoga.length === seen;
  const yoga = await send(body, { length: false, accept });
  return { direct, yoga, tookDirect };
}

type Case = [name: string, payload: () => unknown, accept?: string];

const SPACES = 'query Spaces($id: ID!, $limit: Int) { organization(id: $id) { spaces(limit: $limit) { count items { id title } } } }';
const OVER_COMPLEXITY = `query($id: ID!) { organization(id: $id) { ${Array.from(
  { length: 40 },
  (_, i) => `s${i}: spaces(limit: 1000) { items { id title permissions { view admin } } }`,
).join(' ')} } }`;

/** Each case answered the same both ways, and by the direct way or not, as `direct` says. */
const answeredAlike = (cases: Case[], direct: boolean) => {
  for (const [name, payload, accept] of cases)
    it(name, async () => {
      const { direct: answer, yoga, tookDirect } = await bothWays(payload(), accept);
      expect(tookDirect).toBe(direct);
      expect(answer).toEqual(yoga);
    });
};

const SPACE = 'query Space($id: ID!) { space(id: $id) { id title permissions { view edit } comments } }';

describe('a plain query runs directly and answers as yoga does', () => {
  const direct: Case[] = [
    ['a space', () => ({ query: SPACE, variables: { id: spaceId } })],
    ['a space that does not exist (an error, data null)', () => ({ query: SPACE, variables: { id: 'no-such-space' } })],
    ['variables that do not coerce', () => ({ query: SPACE, variables: { id: 5 } })],
    ['a missing variable', () => ({ query: SPACE })],
    ['variables null and an operation name null', () => ({ query: '{ viewer { id displayName } }', variables: null, operationName: null })],
    ['one operation of two, by name', () => ({ query: `query A { viewer { id } } query B { viewer { email } }`, operationName: 'B' })],
    [
      'Accept: application/graphql-response+json',
      () => ({ query: SPACE, variables: { id: 'no-such-space' } }),
      'application/graphql-response+json',
    ],
    ['Accept: */*', () => ({ query: SPACE, variables: { id: spaceId } }), '*/*'],
    ['a list query (graphql-jit)', () => ({ query: SPACES, variables: { id: world.orgId, limit: 2 } })],
    [
      'a list query whose variable does not coerce (400, graphql-js’s wording)',
      () => ({ query: SPACES, variables: { id: world.orgId, limit: 'ten' } }),
    ],
    ['a list query missing a variable', () => ({ query: SPACES, variables: { limit: 2 } })],
  ];
  answeredAlike(direct, true);
});

describe('anything else is answered by yoga', () => {
  const yogaOnly: Case[] = [
    ['a syntax error', () => ({ query: 'query { space(id: ' })],
    ['a validation error', () => ({ query: '{ viewer { noSuchField } }' })],
    ['an operation name that names no operation', () => ({ query: '{ viewer { id } }', operationName: 'Nope' })],
    ['a mutation', () => ({ query: 'mutation { updateSpace(id: "no-such-space", input: { title: "X" }) { id } }' })],
    ['a subscription', () => ({ query: 'subscription { spaceUpdated(id: "x") { id } }' })],
    ['@defer', () => ({ query: `{ viewer { id ... @defer { displayName } } }` })],
    ['extensions', () => ({ query: '{ viewer { id } }', extensions: {} })],
    ['a persisted query hash', () => ({ extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } } })],
    ['a query that is not a string', () => ({ query: 5 })],
    ['variables that are not an object', () => ({ query: '{ viewer { id } }', variables: [1] })],
    ['a batch', () => [{ query: '{ viewer { id } }' }]],
    ['a body that is not JSON', () => '{"query": '],
    ['33 fields of one name (a document limit)', () => ({ query: `{ ${'viewer { id } '.repeat(33)}}` })],
    ['an operation over the complexity limit', () => ({ query: OVER_COMPLEXITY, variables: { id: world.orgId } })],
    ['Accept: text/event-stream', () => ({ query: '{ viewer { id } }' }), 'text/event-stream'],
    ['Accept: application/json, multipart/mixed', () => ({ query: '{ viewer { id } }' }), 'application/json, multipart/mixed'],
  ];
  answeredAlike(yogaOnly, false);
});

describe('rights', () => {
  it('a caller outside the organization gets the same nothing either way', async () => {
    await send('{"query":"{ viewer { id } }"}', { length: false, token: world.outsider.token });
    const body = JSON.stringify({ query: SPACE, variables: { id: spaceId } });
    const direct = await send(body, { length: true, token: world.outsider.token });
    const yoga = await send(body, { length: false, token: world.outsider.token });
    expect(direct).toEqual(yoga);
    expect(JSON.parse(direct.body).data).toBeNull();
  });
});
