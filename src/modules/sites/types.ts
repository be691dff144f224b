// The site domain's GraphQL types, queries and mutations (one import for src/graphql/schema.ts).
import './site.js';
import './site-space.js';
import './section.js';
import './section-group.js';
import './share-link.js';
import './adaptive.js';
import './published.js';
import './custom-hostname.js';
import './resolve.js';
