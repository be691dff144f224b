// The reader module's face: published sites served as HTML (and Markdown, llms.txt, sitemap.xml,
// robots.txt) at their `urls.published`. The registry lists its routes; the publishing-auth API
// can read a site's visitor-auth key with `siteVisitorKey`.
export { readerHttpRoutes } from './http.js';
// A site's custom hostname served at `/`: src/app.ts asks `siteHostedAt` before its router, then serves `hostedReaderRoute`.
export { hostedReaderRoute, siteHostedAt } from './http.js';
export { siteVisitorKey } from './access.js';
// The render cache's reset (bench: cold renders; tests).
export { clearReaderCache } from './page-cache.js';
export { conditionHolds, type Visitor } from './conditions.js';
