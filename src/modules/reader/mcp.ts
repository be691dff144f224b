import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createContext } from '../../context.js';
import type { User } from '../../generated/prisma/client.js';
import { errorResponse, isResponse } from '../../http/respond.js';
import type { HttpRoute, RouteCall } from '../../http/routes.js';
import { defaultCustomization, siteView } from '../sites/index.js';
import { decideAccess } from './access.js';
import { listPages, readPage, searchPages } from './mcp-tools.js';
import type { Reading } from './site-model.js';
import { findSite } from './find-site.js';

/**
 * An MCP server per published site (Model Context Protocol, Streamable HTTP transport, the official
 * TypeScript SDK) at `<site URL>/~gitbook/mcp`, so that agents (Claude, Cursor, VS Code, …) can
 * search and read the site:
 *
 * - tools `search_pages` (query → best pages with URL and snippet), `read_page` (a page's URL →
 *   its Markdown, exactly as `<page URL>.md`), `list_pages` (every page, in reading order);
 * - the URL: GitBook serves its published sites' MCP servers at `<site URL>/~gitbook/mcp`; the same
 *   path here lets a client configured for a GitBook site (or GitBook's own instructions) point at
 *   a Lectern site by changing only the host. `~` cannot start a page slug, so no page is hidden;
 * - access as the HTML reader decides (access.ts): `public`/`unlisted` for anyone; `share-link`
 *   with the key as `?share=KEY` on the MCP URL (the share link's URL with `/~gitbook/mcp` added
 *   before its query) or an `X-Lectern-Share-Key` header; `visitor-auth` (and signed claims for
 *   adaptive content) with the visitor JWT as `?jwt_token=…` or an `X-Lectern-Visitor-Token`
 *   header (not `Authorization`: a Bearer there is an API token of a member, who reads the site as
 *   in the browser); unsigned claims as `?visitor.<name>=…`; the reader's cookies count too. An
 *   unpublished, unknown or refused site: 404 (visitor-auth without a valid token: 401), before
 *   any MCP exchange, so no answer tells a hidden site from one that does not exist;
 * - stateless: every POST carries its own JSON-RPC message(s) and gets a JSON answer (a server and
 *   transport made for that request and closed after it). Decision: the tools are pure reads with
 *   no server-to-client notifications, so sessions would only add state to keep in one process,
 *   which several Lectern processes behind a load balancer could not share (ARCHITECTURE: nothing in
 *   process memory that another process would need). GET (a standalone SSE stream) and DELETE (end
 *   a session) are therefore 405, as the transport's specification allows.
 */

export const MCP_PATH = '~gitbook/mcp';
/** Largest JSON-RPC request body read (a tool call is a few hundred bytes). */
const BODY_LIMIT = 256 * 1024;
const MAX_RESULTS = 50;
const SHARE_HEADER = 'x-lectern-share-key';
const VISITOR_HEADER = 'x-lectern-visitor-token';

const ANONYMOUS = {
  id: '',
  email: '',
  displayName: 'Anonymous visitor',
  photoURL: null,
  emailVerified: false,
  createdAt: new Date(0),
} satisfies User;

/** The reading this request may do of the site, or the refusal (a 404 for anything not to be seen). */
async function readingFor(call: RouteCall): Promise<Reading | Response> {
  const { services, request, caller } = call;
  const url = new URL(request.url);
  const raw = url.pathname.split('/');
  const publicUrl = services.config.publicUrl.replace(/\/+$/, '');
  const sitePath = `/public/${raw[2] ?? ''}/sites/${raw[4] ?? ''}`;
  const base = `${publicUrl}${sitePath}`;
  const site = await findSite(call, call.params.org!, call.params.site!);
  if (!site?.published) return errorResponse(404, 'No such published site');

  // Keys and tokens brought as headers count as the reader's query parameters would.
  const access = new URL(url);
  const share = request.headers.get(SHARE_HEADER);
  const token = request.headers.get(VISITOR_HEADER);
  if (share && !access.searchParams.has('share')) access.searchParams.set('share', share);
  if (token && !access.searchParams.has('jwt_token')) access.searchParams.set('jwt_token', token);
  const cookie = request.headers.get('cookie');
  const ctx = createContext(services, caller?.user ?? ANONYMOUS, caller?.session);
  const prefix = new URL(publicUrl).pathname.replace(/\/+$/, '');
  const decided = await decideAccess(
    ctx,
    site,
    new Request(access, { headers: cookie ? { cookie } : {} }),
    !!caller,
    `${prefix}${sitePath}`,
    publicUrl.startsWith('https:'),
  );
  if (!decided.ok) return errorResponse(decided.status, decided.status === 401 ? decided.message : 'No such published site');

  const view = await siteView(ctx, site);
  const canonical = ctx.urls.publishedSite(site, site.organization.hostname);
  return { ctx, site, view, visitor: decided.visitor, base, canonical, customization: defaultCustomization(site.title) };
}

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

/**
 * The MCP SDK and zod, loaded on the first MCP request: ~17 MB of a server's memory (measured), which
 * a server no agent talks to should not carry.
 */
let sdkLoaded:
  | Promise<{
      McpServer: typeof McpServer;
      Transport: typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js').WebStandardStreamableHTTPServerTransport;
      z: typeof import('zod').z;
    }>
  | undefined;
const loadSdk = () =>
  (sdkLoaded ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('zod'),
  ]).then(([mcp, transport, zod]) => ({
    McpServer: mcp.McpServer,
    Transport: transport.WebStandardStreamableHTTPServerTransport,
    z: zod.z,
  })));

/** The MCP server of one site for one request: its tools read as `r` may. */
function serverFor(r: Reading, { McpServer, z }: Awaited<ReturnType<typeof loadSdk>>): McpServer {
  const server = new McpServer(
    { name: `lectern-site-${r.site.id}`, title: r.site.title, version: '1.0.0' },
    {
      instructions: `Documentation site "${r.site.title}" (${r.base}). Use search_pages to find pages, read_page to read one as Markdown, list_pages for the table of contents.`,
      maxToolInputElements: 16,
    },
  );
  const hitShape = { title: z.string(), url: z.string(), location: z.array(z.string()), snippet: z.string() };
  server.registerTool(
    'search_pages',
    {
      title: 'Search the documentation',
      description: `Searches the pages of the documentation site "${r.site.title}" (titles, descriptions and text). Every word of the query must appear in a page. Answers the best pages with their URL (give it to read_page) and a snippet.`,
      inputSchema: {
        query: z.string().min(1).max(500).describe('Words to look for'),
        limit: z
          .number()
          .int()
          .min(1)
          .max(MAX_RESULTS)
          .optional()
          .describe(`At most this many results (default 10, at most ${MAX_RESULTS})`),
      },
      outputSchema: { results: z.array(z.object(hitShape)) },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ query, limit }) => {
      const hits = await searchPages(r, query, limit ?? 10);
      const results = hits.map(({ title, url, location, snippet }) => ({ title, url, location, snippet }));
      const lines = results.map(
        (h) => `- [${h.title}](${h.url})${h.location.length ? ` (${h.location.join(' › ')})` : ''}\n  ${h.snippet}`,
      );
      return { ...text(results.length ? lines.join('\n') : `No page matches "${query}".`), structuredContent: { results } };
    },
  );
  server.registerTool(
    'read_page',
    {
      title: 'Read a page',
      description: `Reads one page of "${r.site.title}" as Markdown. Give the page's URL (from search_pages or list_pages) or its path below the site (for example "getting-started/install").`,
      inputSchema: { url: z.string().min(1).max(2000).describe('The page URL, or its path below the site') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ url }) => {
      const page = await readPage(r, url);
      if (!page) return { ...text(`No such page on this site: ${url}`), isError: true };
      return text(page.markdown);
    },
  );
  server.registerTool(
    'list_pages',
    {
      title: 'List the pages',
      description: `Lists every page of "${r.site.title}" in reading order, with its URL and where it sits (section, variant, parent pages).`,
      outputSchema: {
        pages: z.array(z.object({ title: z.string(), url: z.string(), location: z.array(z.string()), description: z.string() })),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () => {
      const pages = (await listPages(r)).map(({ title, url, location, description }) => ({ title, url, location, description }));
      const lines = pages.map(
        (p) =>
          `- [${p.title}](${p.url})${p.location.length ? ` (${p.location.join(' › ')})` : ''}${p.description ? `: ${p.description}` : ''}`,
      );
      return { ...text(lines.join('\n') || 'This site has no pages.'), structuredContent: { pages } };
    },
  );
  return server;
}

async function serve(call: RouteCall): Promise<Response> {
  const reading = await readingFor(call);
  if (isResponse(reading)) return reading;
  const sdk = await loadSdk();
  const server = serverFor(reading, sdk);
  const transport = new sdk.Transport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    const { request } = call;
    const headers = new Headers(request.headers);
    headers.delete('content-length');
    const response = await transport.handleRequest(new Request(request.url, { method: 'POST', headers, body: call.body ?? '' }));
    // The body is whole (JSON mode): read it before the server closes.
    const body = await response.text();
    const answer = new Headers(response.headers);
    answer.set('cache-control', 'no-store');
    return new Response(body || null, { status: response.status, headers: answer });
  } finally {
    await server.close();
  }
}

/** GET (a server-initiated SSE stream) and DELETE (a session's end): not offered by a stateless server. */
async function notOffered(call: RouteCall): Promise<Response> {
  const reading = await readingFor(call);
  if (isResponse(reading)) return reading;
  return new Response(
    JSON.stringify({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Method not allowed: this MCP server is stateless; send JSON-RPC messages with POST.' },
      id: null,
    }),
    {
      status: 405,
      headers: { allow: 'POST', 'content-type': 'application/json', 'cache-control': 'no-store' },
    },
  );
}

export const mcpHttpRoutes: HttpRoute[] = [
  { method: 'POST', path: `/public/:org/sites/:site/${MCP_PATH}`, handle: serve, optionalToken: true, bodyLimit: BODY_LIMIT },
  { method: 'GET', path: `/public/:org/sites/:site/${MCP_PATH}`, handle: notOffered, optionalToken: true },
  { method: 'DELETE', path: `/public/:org/sites/:site/${MCP_PATH}`, handle: notOffered, optionalToken: true },
];
