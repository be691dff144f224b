import { builder } from '../../graphql/builder.js';
import { listOf, pageArgs } from '../../graphql/lists.js';
import { OrganizationType } from '../orgs/index.js';
import { SpaceType } from '../spaces/index.js';
import {
  MAX_PAGES_PER_SPACE,
  MAX_SECTIONS,
  searchOrganization,
  searchSpace,
  searchSpaceById,
  type SearchPageResult,
  type SearchSectionResult,
  type SearchSpaceResult,
  type SearchUrls,
} from './service.js';

/** Search results (GitBook's SearchPageResult, SearchSectionResult, SearchSpaceResult), typed. */

// Scores, ranks and descriptions come with each result (the search's own SQL, one content read per
// space): no work per field, so they add nothing to a query's complexity and the largest page of
// results still fits in it.
const FREE = { complexity: 0 } as const;
const SearchResultUrls = builder.objectRef<SearchUrls>('SearchResultUrls').implement({
  fields: (t) => ({ app: t.exposeString('app', { description: 'URL of the page or section in the application' }) }),
});

const SearchSectionResultType = builder.objectRef<SearchSectionResult>('SearchSectionResult').implement({
  description: 'A section of a page (the text before the first heading, or a heading and its text) matching a search',
  fields: (t) => ({
    id: t.exposeID('id', { description: "The heading's anchor; the page id for the text before the first heading" }),
    title: t.exposeString('title'),
    path: t.exposeString('path', { description: 'Page path, with `#anchor` for a heading' }),
    score: t.exposeFloat('score', { ...FREE, description: "The section's full-text rank for the query (higher is better)" }),
    body: t.exposeString('body', { description: "The section's plain text; for a long section, a snippet around the matches" }),
    urls: t.field({ type: SearchResultUrls, resolve: (s) => s.urls }),
  }),
});

const SearchAncestorType = builder.objectRef<{ title: string }>('SearchResultAncestor').implement({
  fields: (t) => ({ title: t.exposeString('title') }),
});

const SearchPageResultType = builder.objectRef<SearchPageResult>('SearchPageResult').implement({
  description: 'A page matching a search',
  fields: (t) => ({
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    description: t.exposeString('description', { ...FREE, description: "The page's description ('' when it has none)" }),
    path: t.exposeString('path'),
    score: t.exposeFloat('score', {
      ...FREE,
      description: "Relevance: its best section's full-text rank, plus 1 when the page title matches (higher is better)",
    }),
    rank: t.exposeInt('rank', {
      ...FREE,
      description: 'One-based place in the order of every matching page (kept across pages of results and grouping by space)',
    }),
    sections: t.field({
      type: [SearchSectionResultType],
      description: `Best matching sections first, at most ${MAX_SECTIONS}`,
      complexity: { field: 1, multiplier: MAX_SECTIONS },
      resolve: (p) => p.sections,
    }),
    // Titles only, read from the same index row: their number is the page's depth, no resolver runs per item.
    ancestors: t.field({
      type: [SearchAncestorType],
      description: 'Parent pages, from the top',
      complexity: { field: 1, multiplier: 1 },
      resolve: (p) => p.ancestors,
    }),
    urls: t.field({ type: SearchResultUrls, resolve: (p) => p.urls }),
  }),
});

const SearchSpaceResultType = builder.objectRef<SearchSpaceResult>('SearchSpaceResult').implement({
  description: "A space's pages matching a search",
  fields: (t) => ({
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    score: t.exposeFloat('score', { ...FREE, description: "Its best page's score" }),
    pages: t.field({
      type: [SearchPageResultType],
      description: `Best matching pages first, at most ${MAX_PAGES_PER_SPACE}`,
      complexity: { field: 1, multiplier: MAX_PAGES_PER_SPACE },
      resolve: (s) => s.pages,
    }),
  }),
});

const SearchPageResultList = listOf('SearchPageResult', SearchPageResultType);
const SearchSpaceResultList = listOf('SearchSpaceResult', SearchSpaceResultType);

builder.objectField(SpaceType, 'search', (t) =>
  t.field({
    type: SearchPageResultList,
    description: 'Pages of the space\'s main content matching `query` (web search syntax: words, "phrases", or, -word), best first',
    args: { query: t.arg.string({ required: true, description: 'At most 512 characters' }), ...pageArgs(t) },
    resolve: (space, { query, ...args }, ctx) => searchSpace(ctx, space.id, query, args),
  }),
);

builder.queryField('spaceSearch', (t) =>
  t.field({
    type: SearchPageResultList,
    description:
      "The same as `space(id: spaceId) { search }`, in one round: the access check and the search run together (GitBook's searchSpaceContent)",
    args: {
      spaceId: t.arg.id({ required: true }),
      query: t.arg.string({ required: true, description: 'At most 512 characters' }),
      ...pageArgs(t),
    },
    resolve: (_root, { spaceId, query, ...args }, ctx) => searchSpaceById(ctx, String(spaceId), query, args),
  }),
);

builder.objectField(OrganizationType, 'search', (t) =>
  t.field({
    type: SearchSpaceResultList,
    description: 'Spaces of the organization the caller can see, with their pages matching `query`, best first',
    args: { query: t.arg.string({ required: true, description: 'At most 512 characters' }), ...pageArgs(t) },
    resolve: (org, { query, ...args }, ctx) => searchOrganization(ctx, org.id, query, args),
  }),
);
