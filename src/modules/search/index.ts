// The search module's face: what other modules (and the entry points) may import from it.
// Search over a given set of spaces, grouped by space (the sites module's searchSiteContent and the reader's search page).
export { searchSpaces, readSearchQuery, type SearchSpacesOptions } from './site-search.js';
export type { SearchPageResult, SearchSpaceResult } from './service.js';
