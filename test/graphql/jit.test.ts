import { execute, parse } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../../src/context.js';
import { jitPaysOff } from '../../src/graphql/jit.js';
import { schema } from '../../src/graphql/schema.js';
import { createUrls } from '../../src/urls.js';
import { BASE, setupHarness, type Harness } from '../support/harness.js';

/**
 * graphql-jit runs the operations that select a list (src/graphql/jit.ts). Which ones it takes, that
 * bad variables still get graphql-js's messages, and that both executors give the same answer.
 */
let h: Harness;
let world: Awaited<ReturnType<Harness['world']>>;
beforeAll(async () => {
  h = await setupHarness();
  world = await h.world();
  for (const title of ['One', 'Two', 'Three'])
    await h.call('POST', `/v1/orgs/${world.orgId}/spaces`, { token: world.owner.token, body: { title } });
});

const LIST = parse(
  `query($id: ID!, $limit: Int) { organization(id: $id) { title spaces(limit: $limit) { count items { id title permissions { edit } urls { app } } } } }`,
);
const SINGLE = parse(`query($id: ID!) { organization(id: $id) { id title } }`);

describe('graphql-jit', () => {
  it('takes operations that select a list, leaves single objects to graphql-js', () => {
    expect(jitPaysOff({ schema, document: LIST })).toBe(true);
    expect(jitPaysOff({ schema, document: SINGLE })).toBe(false);
  });

  it('answers a bad variable of a list query with graphql-js’s message (graphql-js runs it again)', async () => {
    const query = `query($id: ID!, $limit: Int) { organization(id: $id) { spaces(limit: $limit) { count items { id } } } }`;
    expect(jitPaysOff({ schema, document: parse(query) })).toBe(true);
    const res = await h.graphql(world.owner.token, query, { id: world.orgId, limit: 'ten' });
    expect(res.body.errors[0].message).toBe('Variable "$limit" got invalid value "ten"; Int cannot represent non-integer value: "ten"');
    expect(res.body.data).toBeUndefined();
    const missing = await h.graphql(world.owner.token, query, { limit: 2 });
    expect(missing.body.errors[0].message).toBe('Variable "$id" of required type "ID!" was not provided.');
  });

  it('runs each operation of a document of several: the one its request names', async () => {
    const query = `query Titles($id: ID!) { organization(id: $id) { spaces(limit: 5) { items { title } } } }
      query Ids($id: ID!) { organization(id: $id) { spaces(limit: 5) { items { id } } } }`;
    expect(jitPaysOff({ schema, document: parse(query), operationName: 'Ids' })).toBe(true);
    const call = (operationName: string) =>
      h.call('POST', '/graphql', { token: world.owner.token, body: { query, operationName, variables: { id: world.orgId } } });
    const titles = await call('Titles');
    const ids = await call('Ids');
    expect(titles.body.data.organization.spaces.items.map((s: any) => Object.keys(s))).toEqual([['title'], ['title'], ['title']]);
    expect(ids.body.data.organization.spaces.items.map((s: any) => Object.keys(s))).toEqual([['id'], ['id'], ['id']]);
  });

  it('gives the same answer as graphql-js, for the owner and for a reader', async () => {
    const compiled = compileQuery(schema, LIST);
    if (!isCompiledQuery(compiled)) throw new Error('did not compile');
    for (const who of [world.owner, world.reader]) {
      const caller = (await h.db.prisma.user.findUniqueOrThrow({ where: { id: who.id } }))!;
      const context = () => createContext({ db: h.db, config: h.config, urls: createUrls(BASE) }, caller);
      const variableValues = { id: world.orgId, limit: 2 };
      const viaJit = await compiled.query(undefined, context(), variableValues);
      const viaGraphqlJs = await execute({ schema, document: LIST, contextValue: context(), variableValues });
      expect(viaJit.errors).toBeUndefined();
      expect(JSON.parse(JSON.stringify(viaJit.data))).toEqual(JSON.parse(JSON.stringify(viaGraphqlJs.data)));
      expect((viaJit.data as any).organization.spaces.items).toHaveLength(2);
    }
  });
});

/** An app whose envelop phases are recorded as they run. */
async function appObservingPhases() {
  const { createApp } = await import('../../src/app.js');
  const phases: string[] = [];
  const app = createApp(
    { db: h.db, config: h.config, urls: createUrls(BASE) },
    {
      plugins: [
        {
          onParse: () => void phases.push('parse'),
          onValidate: () => void phases.push('validate'),
          onExecute: () => void phases.push('execute'),
        },
      ],
    },
  );
  return { app, phases };
}

describe('server-owned REST documents', () => {
  it('are parsed and validated once at start and run without envelop: a REST request runs no phase of it, a /graphql request all three', async () => {
    const { app, phases } = await appObservingPhases();
    const call = (path: string, init: RequestInit = {}) =>
      app.fetch(
        new Request(`${BASE}${path}`, {
          ...init,
          headers: { authorization: `Bearer ${world.owner.token}`, 'content-type': 'application/json' },
        }),
      );
    for (let i = 0; i < 3; i++) expect((await call(`/v1/orgs/${world.orgId}/spaces`)).status).toBe(200);
    expect(phases).toEqual([]);
    phases.length = 0;
    expect((await call('/graphql', { method: 'POST', body: JSON.stringify({ query: '{ viewer { id } }' }) })).status).toBe(200);
    expect(phases).toEqual(['parse', 'validate', 'execute']);
  });

  it('a small /graphql query of a known token runs without envelop: parsed and validated by it the first time, then no phase', async () => {
    const { app, phases } = await appObservingPhases();
    const body = JSON.stringify({ query: '{ viewer { id } }' });
    const headers = { authorization: `Bearer ${world.owner.token}`, 'content-type': 'application/json' };
    const call = (init: { length: boolean }) =>
      app.fetch(
        new Request(`${BASE}/graphql`, {
          method: 'POST',
          body,
          headers: init.length ? { ...headers, 'content-length': String(body.length) } : headers,
        }),
      );
    const answers = [await call({ length: false }), await call({ length: true }), await call({ length: true })];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    const [byYoga, first, second] = await Promise.all(answers.map((answer) => answer.json()));
    expect(first).toEqual(byYoga);
    expect(second).toEqual(byYoga);
    // yoga's run, then the direct lane's first sight of the text (envelop's parse and validation), then nothing
    expect(phases).toEqual(['parse', 'validate', 'execute', 'parse', 'validate']);
  });
});
