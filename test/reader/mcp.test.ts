import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createServerAdapter } from '@whatwg-node/server';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { siteVisitorKey } from '../../src/modules/reader/index.js';
import { serverKeys } from '../../src/secrets.js';
import { createUrls } from '../../src/urls.js';
import { setupHarness, type Harness, type World } from '../support/harness.js';
import { insertPage, writeLive } from '../support/content-writes.js';
import { siteHelpers } from '../support/sites.js';

/**
 * The MCP server of a published site (src/modules/reader/mcp.ts) at `<site URL>/~gitbook/mcp`,
 * driven by the official MCP TypeScript SDK's client over real HTTP (Streamable HTTP transport):
 * tools listed, search, a page read (as its `.md`), the page list; the reader's visibility rules
 * (share-link key as query or header, visitor-auth JWT, unpublished sites), refused input.
 */
let h: Harness;
const s = siteHelpers(() => h);
let t: World;
let server: Server;
let origin: string;
let app: App;
const sites: Record<string, { id: string; url: string }> = {};
let shareKey: string;
let visitorToken: string;

async function connect(url: string, headers: Record<string, string> = {}) {
  const client = new Client({ name: 'lectern-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}
const textOf = (result: any) => (result.content as { type: string; text: string }[]).map((c) => c.text).join('\n');

beforeAll(async () => {
  h = await setupHarness();
  // A second app on the same database, its public URL the loopback address it listens on, so the URLs it hands out are real.
  const adapter = createServerAdapter((request: Request) => app.fetch(request));
  server = createServer(adapter);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  app = createApp({ db: h.db, config: { ...h.config, publicUrl: origin }, urls: createUrls(origin) });

  t = await s.team();
  const guides = await s.space(t.owner, 'Guides');
  const { pages } = await writeLive(h, t.owner.token, guides.id, [
    insertPage(
      'Getting started',
      '# Getting started\n\nInstall the widget toolkit with npm.\n\n## Configure\n\nSet the frobnicator level.',
      { description: 'First steps' },
    ),
    insertPage('Usage', 'Use the toolkit every day.'),
    insertPage('Secret', 'Hidden widget notes', { hidden: true }),
    insertPage('Beta notes', 'Widget beta program', { condition: 'visitor.claims.unsigned.beta == true' }),
  ]);
  await writeLive(h, t.owner.token, guides.id, [insertPage('Advanced widgets', 'Deep widget internals.', { into: pages[1] })]);
  const reference = await s.space(t.owner, 'Reference');
  await writeLive(h, t.owner.token, reference.id, [insertPage('Endpoints', 'All widget endpoints.')]);

  const publicSite = await s.site(t.owner, t.orgId, { title: 'Widget docs' });
  await s.section(t.owner, t.orgId, publicSite.id, { spaceId: guides.id, title: 'Guides' });
  await s.section(t.owner, t.orgId, publicSite.id, { spaceId: reference.id, title: 'Reference' });
  await s.ok('publishSite', 'POST', `${s.sitePath(t.orgId, publicSite.id)}/publish`, { token: t.owner.token });

  const made = async (name: string, visibility: string, publish = true) => {
    const space = await s.space(t.owner, `${name} space`);
    await writeLive(h, t.owner.token, space.id, [insertPage('Home', `Home of the ${name} site`)]);
    const site = await s.site(t.owner, t.orgId, { title: `${name} site`, visibility, spaces: [space.id] });
    if (publish) await s.ok('publishSite', 'POST', `${s.sitePath(t.orgId, site.id)}/publish`, { token: t.owner.token });
    return site;
  };
  const share = await made('share', 'share-link');
  const link = await s.ok(
    'createSiteShareLink',
    'POST',
    `${s.sitePath(t.orgId, share.id)}/share-links`,
    { token: t.owner.token, body: { name: 'Agents' } },
    201,
  );
  shareKey = new URL(link.urls.published).searchParams.get('share')!;
  const visitor = await made('visitor', 'visitor-auth');
  const key = new TextEncoder().encode(siteVisitorKey(await serverKeys({ db: h.db, config: h.config }), visitor.id));
  visitorToken = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('10m').sign(key);
  const draft = await made('draft', 'public', false);
  for (const [name, site] of Object.entries({ public: publicSite, share, visitor, draft })) {
    sites[name] = { id: site.id, url: `${origin}/public/${t.orgId}/sites/${site.id}` };
  }
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('the MCP server of a public site', () => {
  it('lists its tools; searches; reads a page exactly as its .md; lists the pages in reading order', async () => {
    const started = performance.now();
    const client = await connect(`${sites.public!.url}/~gitbook/mcp`);
    expect(client.getServerVersion()).toMatchObject({ name: `lectern-site-${sites.public!.id}`, title: 'Widget docs' });
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual(['list_pages', 'read_page', 'search_pages']);
    expect(tools.find((x) => x.name === 'search_pages')!.inputSchema.required).toEqual(['query']);

    // Search: every term must match; titles rank first; hidden and condition-failing pages stay out.
    const found = await client.callTool({ name: 'search_pages', arguments: { query: 'widget' } });
    const results = (found.structuredContent as any).results as { title: string; url: string; location: string[]; snippet: string }[];
    expect(results.map((r) => r.title)).toEqual(['Advanced widgets', 'Getting started', 'Endpoints']);
    expect(results[1]).toMatchObject({
      url: `${sites.public!.url}/getting-started`,
      location: ['Guides'],
      snippet: expect.stringContaining('Install the widget toolkit'),
    });
    expect(results[0]!.location).toEqual(['Guides', 'Usage']);
    expect(results[2]!.url).toBe(`${sites.public!.url}/reference/endpoints`);
    expect(textOf(found)).toContain(`[Getting started](${sites.public!.url}/getting-started)`);
    const narrow = await client.callTool({ name: 'search_pages', arguments: { query: 'frobnicator widget', limit: 5 } });
    expect((narrow.structuredContent as any).results.map((r: any) => r.title)).toEqual(['Getting started']);
    const none = await client.callTool({ name: 'search_pages', arguments: { query: 'nothing-like-this' } });
    expect((none.structuredContent as any).results).toEqual([]);
    expect(textOf(none)).toMatch(/No page matches/);

    // Read: by the URL a search gave, by a path below the site, by its .md URL; the text is the page's .md.
    const md = await (await fetch(`${sites.public!.url}/getting-started.md`)).text();
    expect(md).toMatch(/^# Getting started\n\nFirst steps\n/);
    for (const url of [results[1]!.url, 'getting-started', `${results[1]!.url}.md#configure`]) {
      const read = await client.callTool({ name: 'read_page', arguments: { url } });
      expect(read.isError, url).toBeFalsy();
      expect(textOf(read)).toBe(md);
    }
    expect(textOf(await client.callTool({ name: 'read_page', arguments: { url: 'usage/advanced-widgets' } }))).toContain(
      'Deep widget internals.',
    );
    // Hidden pages open by URL, as in the browser; a missing page, a page the claims hide, another server's URL do not.
    expect(textOf(await client.callTool({ name: 'read_page', arguments: { url: 'secret' } }))).toContain('Hidden widget notes');
    for (const url of ['no/such/page', 'beta-notes', 'https://example.com/getting-started']) {
      const missing = await client.callTool({ name: 'read_page', arguments: { url } });
      expect(missing.isError, url).toBe(true);
      expect(textOf(missing)).toMatch(/No such page/);
    }

    const listed = await client.callTool({ name: 'list_pages', arguments: {} });
    expect(((listed.structuredContent as any).pages as { title: string }[]).map((p) => p.title)).toEqual([
      'Getting started',
      'Usage',
      'Advanced widgets',
      'Endpoints',
    ]);
    await client.close();
    console.log(`MCP over HTTP: connect, list tools, 5 searches and reads, list: ${(performance.now() - started).toFixed(0)} ms`);
  });

  it('unsigned claims on the MCP URL (?visitor.beta=true) open the pages they unlock', async () => {
    const client = await connect(`${sites.public!.url}/~gitbook/mcp?visitor.beta=true`);
    const found = await client.callTool({ name: 'search_pages', arguments: { query: 'beta' } });
    expect((found.structuredContent as any).results.map((r: any) => r.title)).toEqual(['Beta notes']);
    expect(textOf(await client.callTool({ name: 'read_page', arguments: { url: 'beta-notes' } }))).toContain('Widget beta program');
    await client.close();
  });

  it('refuses bad input (naming the argument) and answers GET/DELETE 405 (stateless)', async () => {
    const client = await connect(`${sites.public!.url}/~gitbook/mcp`);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{}, /-32602.*at query/],
      [{ query: '' }, /-32602.*at query/],
      [{ query: 'x', limit: 500 }, /-32602.*at limit/],
    ];
    // The SDK answers an error result (isError, the validation message as text); its client throws it for a tool with an output schema.
    const refusal = (call: Promise<any>) =>
      call.then(
        (r) => (r.isError ? textOf(r) : 'accepted'),
        (e: Error) => e.message,
      );
    for (const [args, message] of cases)
      expect(await refusal(client.callTool({ name: 'search_pages', arguments: args })), JSON.stringify(args)).toMatch(message);
    expect(await refusal(client.callTool({ name: 'read_page', arguments: { url: 'x'.repeat(3000) } }))).toMatch(/-32602.*at url/);
    await client.close();
    const get = await fetch(`${sites.public!.url}/~gitbook/mcp`, { headers: { accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect((await fetch(`${sites.public!.url}/~gitbook/mcp`, { method: 'DELETE' })).status).toBe(405);
    // Not JSON-RPC: the transport's own 400.
    const junk = await fetch(`${sites.public!.url}/~gitbook/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{nope',
    });
    expect(junk.status).toBe(400);
  });
});

describe('visibility, as the HTML reader decides', () => {
  it('a share-link site: refused without the key (404), served with ?share=KEY or the X-Lectern-Share-Key header', async () => {
    const endpoint = `${sites.share!.url}/~gitbook/mcp`;
    await expect(connect(endpoint)).rejects.toThrow(/404/);
    await expect(connect(`${endpoint}?share=wrong-key`)).rejects.toThrow(/404/);
    await expect(connect(endpoint, { 'x-lectern-share-key': 'wrong-key' })).rejects.toThrow(/404/);
    for (const client of [await connect(`${endpoint}?share=${shareKey}`), await connect(endpoint, { 'x-lectern-share-key': shareKey })]) {
      const read = await client.callTool({ name: 'read_page', arguments: { url: 'home' } });
      expect(textOf(read)).toContain('Home of the share site');
      await client.close();
    }
    // Members with an API token read it too; an outsider's token is a 404 like no key.
    const member = await connect(endpoint, { authorization: `Bearer ${t.guest.token}` });
    expect(textOf(await member.callTool({ name: 'list_pages', arguments: {} }))).toContain('Home');
    await member.close();
    await expect(connect(endpoint, { authorization: `Bearer ${t.outsider.token}` })).rejects.toThrow(/404/);
  });

  it('a visitor-auth site needs a valid visitor JWT (401 otherwise); an unpublished site is a 404', async () => {
    const endpoint = `${sites.visitor!.url}/~gitbook/mcp`;
    await expect(connect(endpoint)).rejects.toThrow(/401/);
    await expect(connect(endpoint, { 'x-lectern-visitor-token': 'not.a.jwt' })).rejects.toThrow(/401/);
    for (const client of [
      await connect(endpoint, { 'x-lectern-visitor-token': visitorToken }),
      await connect(`${endpoint}?jwt_token=${visitorToken}`),
    ]) {
      expect(textOf(await client.callTool({ name: 'search_pages', arguments: { query: 'home' } }))).toContain('[Home]');
      await client.close();
    }
    await expect(connect(`${sites.draft!.url}/~gitbook/mcp`)).rejects.toThrow(/404/);
    await expect(connect(`${origin}/public/${t.orgId}/sites/no-such-site/~gitbook/mcp`)).rejects.toThrow(/404/);
  });
});
