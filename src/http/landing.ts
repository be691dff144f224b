import fs from 'node:fs';
import path from 'node:path';
import type { GraphiQLOptions } from 'graphql-yoga';

const VERSION = (JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string })
  .version;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * GET /: a small page for whoever opens the server in a browser — what this is, where the APIs are,
 * and the first steps (the same as the README's). Self-contained: no script, no external asset.
 */
export function landingPage(opts: { publicUrl: string; graphiql: boolean }): Response {
  const base = escapeHtml(opts.publicUrl);
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Lectern</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#222}code,pre{font:14px ui-monospace,monospace;background:#f4f4f4;border-radius:4px}pre{padding:.75rem;overflow-x:auto}code{padding:0 .2em}</style>
</head><body>
<h1>Lectern is running</h1>
<p>A self-hostable documentation platform with a GitBook-compatible API (version ${escapeHtml(VERSION)}).</p>
<ul>
<li>${opts.graphiql ? `<a href="/graphql">GraphiQL</a> — explore the GraphQL API at <code>${base}/graphql</code> (it asks for your token)` : `GraphQL API at <code>${base}/graphql</code> (GraphiQL is turned off on this server)`}</li>
<li>REST API at <code>${base}/v1</code> — GitBook's API paths, with <code>Authorization: Bearer &lt;token&gt;</code></li>
<li><a href="/healthz">/healthz</a> and <a href="/readyz">/readyz</a> — liveness and readiness probes</li>
</ul>
<h2>First steps</h2>
<p>From the clone, in a second terminal (<code>bash docs/quickstart.sh</code> does all of this and publishes a site with a share link).</p>
<p>1. Create a user, an organization and an API token (the token is printed once):</p>
<pre>OUT=$(npx lectern user create --email you@example.com --name "Your Name" --org-title "My docs")
TOKEN=$(node -pe 'JSON.parse(process.argv[1]).token' "$OUT")
ORG=$(node -pe 'JSON.parse(process.argv[1]).organization.id' "$OUT")</pre>
<p>2. Call the API with it:</p>
<pre>curl -H "Authorization: Bearer $TOKEN" ${base}/v1/user
curl -H "Authorization: Bearer $TOKEN" ${base}/v1/orgs</pre>
<p>3. Create a space and write a page in it:</p>
<pre>SPACE=$(curl -sS -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\
  -d '{"title":"Docs"}' "${base}/v1/orgs/$ORG/spaces" | node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).id')
curl -sS -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' "${base}/v1/spaces/$SPACE/content" \\
  -d '{"changes":[{"operation":"insert_page","title":"Setup","document":{"markdown":"# Setup\\n\\nFirst steps."}}]}'</pre>
<p>More: <code>npx lectern --help</code> and the README and docs/ (quick start, running it, backups).</p>
</body></html>
`;
  return new Response(html, {
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
    },
  });
}

/**
 * GraphiQL (yoga's page) that asks for the API token first, so the schema loads with it. The token
 * is kept in this tab's sessionStorage (gone when the tab closes), never in localStorage; headers
 * typed in the editor are not persisted either (shouldPersistHeaders: false in src/app.ts).
 */
export async function renderLecternGraphiQL(opts: GraphiQLOptions): Promise<string> {
  // Loaded on first use only: GraphiQL's bundled page is ~30 MB of strings in the heap (measured
  // with a heap snapshot of an idle server: a third of its heap), which a server nobody browses
  // with GraphiQL should not carry.
  const { renderGraphiQL } = await import('@graphql-yoga/render-graphiql');
  const ask = `<script>
function lecternGraphiQL(el, opts) {
  var key = 'lectern-token', token = null;
  try { token = sessionStorage.getItem(key); } catch (e) {}
  if (!token) {
    token = window.prompt('Your Lectern API token (from \`lectern user create\` or \`lectern token create\`).\\nIt is kept in this browser tab only (sessionStorage). Cancel to browse without one and add it later under Headers, then reload the schema (Shift+Ctrl+R).');
    token = token && token.trim().replace(/^Bearer\\s+/i, '');
    if (token) try { sessionStorage.setItem(key, token); } catch (e) {}
  }
  if (token) opts.headers = JSON.stringify({ Authorization: 'Bearer ' + token }, null, 2);
  return YogaGraphiQL.renderYogaGraphiQL(el, opts);
}
</script>`;
  const page = renderGraphiQL(opts);
  // The call is renamed first, then the asking script goes in before yoga's.
  return page
    .replace('YogaGraphiQL.renderYogaGraphiQL(', 'lecternGraphiQL(')
    .replace('<div id="root"></div>', `<div id="root"></div>\n${ask}`);
}
