import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server.js';
import { jitPaysOff } from '../../src/graphql/jit.js';
import { schema } from '../../src/graphql/schema.js';
import { setupHarness, type Harness } from '../support/harness.js';
import { insertPage, writeLive } from '../support/content-writes.js';

/**
 * @defer / @stream on /graphql over real HTTP (src/graphql/defer-stream.ts): incremental answers as
 * multipart/mixed and as SSE, assembled equal to the plain answer; not buffered by conditional GET;
 * not run by graphql-jit; the document limits and permissions still apply.
 */
let h: Harness;
let server: RunningServer;
let owner: Awaited<ReturnType<Harness['owner']>>;
let outsider: Awaited<ReturnType<Harness['owner']>>;
let spaceId: string;

const PAGES = 6;
beforeAll(async () => {
  h = await setupHarness();
  server = await startServer({ ...h.config, host: '127.0.0.1', port: 0 }, { db: h.db });
  owner = await h.owner('Defer');
  outsider = await h.owner('Elsewhere');
  spaceId = (await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { title: 'Deferred' } })).body.id;
  // Bodies long enough that `document` (Markdown parsed into the GitBook document) is the slow part.
  const body = (n: number) =>
    Array.from(
      { length: 60 },
      (_, i) => `## Part ${i} of page ${n}\n\nSome *text* with a [link](https://example.com/${i}) and \`code\`.\n\n- one\n- two\n`,
    ).join('\n');
  await writeLive(
    h,
    owner.token,
    spaceId,
    Array.from({ length: PAGES }, (_, n) => insertPage(`Page ${n}`, body(n))),
  );
});
afterAll(() => server?.close());

const QUERY = `query($id: ID!) {
  space(id: $id) {
    title
    content {
      pageTree @stream(initialCount: 2) { id title path ... @defer(label: "body") { document } }
    }
    ... @defer(label: "more") { visibility }
  }
}`;
const PLAIN = QUERY.replace(' @stream(initialCount: 2)', '').replace(/\.\.\. @defer\(label: "\w+"\) \{ (\w+) \}/g, '$1');

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

interface Part {
  at: number;
  payload: any;
}

/** Reads a multipart/mixed (incremental delivery over HTTP) body part by part, as it arrives. */
async function multipart(response: Response, t0: number): Promise<Part[]> {
  const boundary = /boundary="?([^";]+)"?/.exec(response.headers.get('content-type') ?? '')![1]!;
  const parts: Part[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf(`\r\n--${boundary}`)) >= 0) {
      const part = buffer.slice(0, end);
      buffer = buffer.slice(end + boundary.length + 4);
      const split = part.indexOf('\r\n\r\n');
      if (split >= 0 && part.slice(split + 4).trim())
        parts.push({ at: performance.now() - t0, payload: JSON.parse(part.slice(split + 4)) });
    }
  }
  return parts;
}

/** Reads a text/event-stream body: one payload per `data:` event. */
async function events(response: Response): Promise<any[]> {
  const text = await response.text();
  return text
    .split(/\n\n/)
    .map((event) =>
      event
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .join('\n'),
    )
    .filter((data) => data && data !== '')
    .map((data) => JSON.parse(data));
}

/** Applies incremental payloads to the initial one (GraphQL incremental delivery: `data` at `path`, `items` appended). */
function assemble(payloads: any[]): { data: any; errors?: any[] } {
  const [first, ...rest] = payloads;
  const result = { data: structuredClone(first.data), errors: first.errors ? [...first.errors] : undefined };
  for (const payload of rest) {
    for (const step of payload.incremental ?? []) {
      // Streamed items: `path` ends with the index of the first one in its list.
      const to = step.items ? step.path.slice(0, -1) : step.path;
      let target = result.data;
      for (const key of to) target = target[key];
      if (step.items) (target as unknown[]).splice(step.path.at(-1), 0, ...step.items);
      if (step.data) Object.assign(target, step.data);
      if (step.errors) (result.errors ??= []).push(...step.errors);
    }
  }
  return result;
}

/** The answer, whether multipart (assembled) or one JSON body. */
async function answer(response: Response): Promise<any> {
  if (!response.headers.get('content-type')?.startsWith('multipart')) return response.json();
  return assemble((await multipart(response, 0)).map((p) => p.payload));
}

const post = (token: string, query: string, variables: Record<string, unknown>, accept: string) =>
  fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept, ...auth(token) },
    body: JSON.stringify({ query, variables }),
  });

describe('@defer and @stream', () => {
  it('answer incrementally (multipart/mixed), assembled equal to the plain answer', async () => {
    const plain = await post(owner.token, PLAIN, { id: spaceId }, 'application/json');
    expect(plain.status).toBe(200);
    const expected = await plain.json();
    expect((expected as any).data.space.content.pageTree).toHaveLength(PAGES);

    const t0 = performance.now();
    const response = await post(owner.token, QUERY, { id: spaceId }, 'multipart/mixed');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^multipart\/mixed/);
    const parts = await multipart(response, t0);
    const [first] = parts;
    // The first screen: the title and the first two pages without their documents; more to come.
    expect(first!.payload.hasNext).toBe(true);
    expect(first!.payload.data.space.title).toBe('Deferred');
    expect(first!.payload.data.space.visibility).toBeUndefined();
    expect(first!.payload.data.space.content.pageTree.map((p: any) => p.title)).toEqual(['Page 0', 'Page 1']);
    expect(first!.payload.data.space.content.pageTree.every((p: any) => !('document' in p))).toBe(true);
    expect(parts.length).toBeGreaterThan(2);
    expect(parts.at(-1)!.payload.hasNext).toBe(false);
    // The streamed items and the deferred fragments came in later parts, labelled.
    const later = parts.slice(1).flatMap((p) => p.payload.incremental ?? []);
    expect(later.some((step: any) => step.items)).toBe(true);
    expect(later.filter((step: any) => step.label === 'body')).toHaveLength(PAGES);
    expect(later.some((step: any) => step.label === 'more' && step.data.visibility)).toBe(true);
    expect(assemble(parts.map((p) => p.payload))).toEqual({ data: (expected as any).data, errors: undefined });
    console.log(
      `defer/stream: ${parts.length} parts; first after ${first!.at.toFixed(1)} ms, last after ${parts.at(-1)!.at.toFixed(1)} ms`,
    );
  });

  it('answer as server-sent events too, and over GET without being buffered for an ETag', async () => {
    const sse = await post(owner.token, QUERY, { id: spaceId }, 'text/event-stream');
    expect(sse.status).toBe(200);
    expect(sse.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const payloads = await events(sse);
    expect(payloads.length).toBeGreaterThan(2);
    const plain = (await (await post(owner.token, PLAIN, { id: spaceId }, 'application/json')).json()) as any;
    expect(assemble(payloads).data).toEqual(plain.data);

    const url = new URL(`${server.url}/graphql`);
    url.searchParams.set('query', QUERY);
    url.searchParams.set('variables', JSON.stringify({ id: spaceId }));
    const t0 = performance.now();
    const overGet = await fetch(url, { headers: { accept: 'multipart/mixed', ...auth(owner.token) } });
    expect(overGet.status).toBe(200);
    // Streamed through (useConditionalGet): no ETag, no length, not stored.
    expect(overGet.headers.get('etag')).toBeNull();
    expect(overGet.headers.get('content-length')).toBeNull();
    expect(overGet.headers.get('cache-control')).toBe('no-store');
    const parts = await multipart(overGet, t0);
    expect(parts[0]!.payload.hasNext).toBe(true);
    expect(assemble(parts.map((p) => p.payload)).data).toEqual(plain.data);
  });

  it('run on the incremental executor, never graphql-jit', () => {
    expect(jitPaysOff({ schema, document: parse(QUERY), variableValues: { id: 'x' } } as never)).toBe(false);
    expect(jitPaysOff({ schema, document: parse(PLAIN), variableValues: { id: 'x' } } as never)).toBe(true);
  });

  it('are refused where they do not apply, and the document limits still hold', async () => {
    const onScalar = await post(
      owner.token,
      `query($id: ID!) { space(id: $id) { title @stream(initialCount: 1) } }`,
      { id: spaceId },
      'multipart/mixed',
    );
    expect(onScalar.status).toBe(400);
    expect(JSON.stringify(await answer(onScalar))).toMatch(/stream/i);
    const negative = await post(
      owner.token,
      `query($id: ID!) { space(id: $id) { content { pageTree @stream(initialCount: -1) { id } } } }`,
      { id: spaceId },
      'multipart/mixed',
    );
    expect(JSON.stringify((await answer(negative)).errors)).toMatch(/initialCount/);
    // 201 directives: over DOCUMENT_LIMITS.directives (armor.ts), refused before it runs.
    const many = `query($id: ID!) { space(id: $id) { ${Array.from({ length: 201 }, (_, i) => `... @defer(label: "d${i}") { title }`).join(' ')} } }`;
    const tooMany = await post(owner.token, many, { id: spaceId }, 'multipart/mixed');
    expect(tooMany.status).toBe(400);
    expect((await answer(tooMany)).errors[0].message).toBe('Query has more than 200 directives');
  });

  it('give nothing to a caller without rights, in any part', async () => {
    const response = await post(outsider.token, QUERY, { id: spaceId }, 'multipart/mixed');
    const body = await answer(response);
    expect(body.data?.space ?? null).toBeNull();
    expect(body.errors?.length).toBeGreaterThan(0);
    expect(JSON.stringify(body)).not.toContain('Page 0');
    const anonymous = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'multipart/mixed' },
      body: JSON.stringify({ query: QUERY, variables: { id: spaceId } }),
    });
    expect(anonymous.status).toBe(401);
  });
});
