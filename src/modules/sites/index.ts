// The sites module's face: what other modules (and the entry points) may import from it.
// The reader (src/modules/reader) renders published sites with these.
export { resolveSegments, type Resolution } from './resolve.js';
export { siteView, type SiteView } from './structure.js';
export { sectionPath, siteSpacePath, isActiveShareKey } from './links.js';
export { defaultCustomization } from './published-service.js';
// The effective customization of a site or site space, and the live redirect of a path (no permission check: the reader decides access).
export { siteCustomization, type Customization } from './customization-service.js';
export { findRedirect } from './redirect-service.js';
// Site search for the reader's visitors (the reader chose the site spaces they see; no permission check).
export { searchSiteFor, type SiteSearchScope } from './site-search.js';
// The key that signs a site's visitor JWTs and where refused visitors go (publishing auth; no permission check).
export { derivedVisitorKey, siteVisitorKeyOf, visitorFallbackUrl } from './publishing-auth.js';
// The reader's server-side page views (site insights: counted per page and day, nothing about the visitor).
export { countPageView } from './insights.js';
// The reader's page feedback form (an official page_post_feedback counted with its rating).
export { countPageFeedback, FEEDBACK_RATINGS, type FeedbackRating } from './insights.js';
