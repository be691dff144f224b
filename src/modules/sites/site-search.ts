import type { Context } from '../../context.js';
import { canReadSpace, requireSite } from '../../auth/permissions.js';
import { accessRows } from '../../auth/access-rows.js';
import { badRequest } from '../../errors.js';
import type { Site, SiteSpace } from '../../generated/prisma/client.js';
import { builder } from '../../graphql/builder.js';
import { pageArgs } from '../../graphql/lists.js';
import type { ListPage, PageArgs } from '../../pagination.js';
import { readSearchQuery, searchSpaces, type SearchSpaceResult, type SearchSpacesOptions } from '../search/index.js';
import { SiteRef } from './refs.js';
import { siteView, type SiteView } from './structure.js';
import { isObject } from '../../validate.js';

/**
 * Site search (official searchSiteContent): the site's site spaces chosen by a scope, their
 * spaces' main content searched together, the answer grouped by space (the search module's
 * `searchSpaces`: spaces best first, each with its best pages and their sections).
 *
 * Scopes (official SiteSearchScope; decisions where the description is silent):
 * - `{ mode: 'all' }`: every site space of every section.
 * - `{ mode: 'default', currentSiteSpace?, restrictTo? }` (also what a body without a scope gets):
 *   the default site space of each section (of the site's root when it has no sections), and the
 *   current site space when given, which stands in for its section's default; in the other sections,
 *   a site space whose space has the current one's language stands in for the default when there is
 *   one. `restrictTo: 'currentSiteSpace'` searches only the current site space, `'otherSiteSpaces'`
 *   the default scope without it (both need `currentSiteSpace`).
 * - `{ mode: 'specific', siteSpaceIds }`: those site spaces (each must be one of the site's).
 * - The deprecated body forms: `{ siteSpaceIds, mode?: 'specific' }`, `{ mode: 'current',
 *   siteSpaceId }` (= default with that current site space), `{ mode: 'all' }`.
 *
 * Rights: any member of the organization may search a site (as they read it; outsiders get the
 * site's 404). Of the chosen site spaces, a published site searches every space (its audience
 * reads them without rights on the spaces, and members are always in it); an unpublished site only
 * the spaces the caller may read. Deleted spaces are left out. The reader searches for visitors
 * with `searchSiteFor` (its own access decision, hidden and conditioned pages left out).
 */

export type SiteSearchScope =
  | { mode: 'all' }
  | { mode: 'default'; currentSiteSpace?: string; restrictTo?: 'currentSiteSpace' | 'otherSiteSpaces' }
  | { mode: 'specific'; siteSpaceIds: string[] };

const MAX_SITE_SPACE_IDS = 1000;

function stringField(field: string, value: unknown): string {
  if (typeof value !== 'string' || !value) throw badRequest(field, 'must be a non-empty string');
  return value;
}

function idList(field: string, value: unknown): string[] {
  if (!Array.isArray(value) || !value.length) throw badRequest(field, 'must be a non-empty array of site space ids');
  if (value.length > MAX_SITE_SPACE_IDS) throw badRequest(field, `must hold at most ${MAX_SITE_SPACE_IDS} ids`);
  return value.map((v, i) => stringField(`${field}[${i}]`, v));
}

/** The official SiteSearchScope object (`field` names it in errors); null/undefined: the default scope. */
export function readScope(value: unknown, field = 'scope'): SiteSearchScope {
  if (value == null) return { mode: 'default' };
  if (!isObject(value)) throw badRequest(field, 'must be an object');
  const known = new Set(['mode', 'currentSiteSpace', 'restrictTo', 'siteSpaceIds']);
  for (const key of Object.keys(value)) if (!known.has(key)) throw badRequest(`${field}.${key}`, 'is not a field of a search scope');
  switch (value.mode) {
    case 'all':
      for (const key of ['currentSiteSpace', 'restrictTo', 'siteSpaceIds'])
        if (value[key] !== undefined) throw badRequest(`${field}.${key}`, "is not allowed with mode 'all'");
      return { mode: 'all' };
    case 'specific':
      for (const key of ['currentSiteSpace', 'restrictTo'])
        if (value[key] !== undefined) throw badRequest(`${field}.${key}`, "is not allowed with mode 'specific'");
      return { mode: 'specific', siteSpaceIds: idList(`${field}.siteSpaceIds`, value.siteSpaceIds) };
    case 'default': {
      if (value.siteSpaceIds !== undefined) throw badRequest(`${field}.siteSpaceIds`, "is not allowed with mode 'default'");
      const current = value.currentSiteSpace === undefined ? undefined : stringField(`${field}.currentSiteSpace`, value.currentSiteSpace);
      if (value.restrictTo === undefined) return { mode: 'default', ...(current ? { currentSiteSpace: current } : {}) };
      if (value.restrictTo !== 'currentSiteSpace' && value.restrictTo !== 'otherSiteSpaces')
        throw badRequest(`${field}.restrictTo`, "must be 'currentSiteSpace' or 'otherSiteSpaces'");
      if (!current) throw badRequest(`${field}.currentSiteSpace`, 'is required with restrictTo');
      return { mode: 'default', currentSiteSpace: current, restrictTo: value.restrictTo };
    }
    default:
      throw badRequest(`${field}.mode`, "must be one of 'default', 'all', 'specific'");
  }
}

/** A REST body's scope: `scope`, or the deprecated `mode`/`siteSpaceId`/`siteSpaceIds` forms, as a SiteSearchScope. */
export function scopeOfBody(body: Record<string, unknown>): SiteSearchScope {
  const legacy = body.mode !== undefined || body.siteSpaceId !== undefined || body.siteSpaceIds !== undefined;
  if (body.scope !== undefined) {
    if (legacy) throw badRequest('scope', 'cannot be combined with the deprecated mode, siteSpaceId or siteSpaceIds');
    return readScope(body.scope);
  }
  if (!legacy) return { mode: 'default' };
  if (body.siteSpaceIds !== undefined || body.mode === 'specific') {
    if (body.mode !== undefined && body.mode !== 'specific') throw badRequest('mode', "must be 'specific' with siteSpaceIds");
    return { mode: 'specific', siteSpaceIds: idList('siteSpaceIds', body.siteSpaceIds) };
  }
  if (body.mode === 'current') return { mode: 'default', currentSiteSpace: stringField('siteSpaceId', body.siteSpaceId) };
  if (body.mode === 'all') return { mode: 'all' };
  throw badRequest('mode', "must be one of 'all', 'current', 'specific'");
}

/** The site spaces a scope names, in the structure's order. `field`: where the scope came from, for errors. */
export async function siteSpacesOfScope(
  ctx: Context,
  view: SiteView,
  scope: SiteSearchScope,
  candidates: SiteSpace[] = view.siteSpaces,
  field = 'scope',
): Promise<SiteSpace[]> {
  const allowed = new Set(candidates.map((ss) => ss.id));
  const known = (id: string, name: string) => {
    const ss = view.siteSpace(id);
    if (!ss || !allowed.has(ss.id)) throw badRequest(name, `no site space ${id} in this site`);
    return ss;
  };
  if (scope.mode === 'all') return candidates;
  if (scope.mode === 'specific') {
    const ids = new Set(scope.siteSpaceIds.map((id, i) => known(id, `${field}.siteSpaceIds[${i}]`).id));
    return candidates.filter((ss) => ids.has(ss.id));
  }
  const current = scope.currentSiteSpace ? known(scope.currentSiteSpace, `${field}.currentSiteSpace`) : undefined;
  if (scope.restrictTo === 'currentSiteSpace') return [current!];
  const spaces = await accessRows(ctx).space.loadMany(candidates.map((ss) => ss.spaceId));
  const languageOf = new Map(
    candidates.map((ss, i) => [
      ss.id,
      (spaces[i] && !(spaces[i] instanceof Error) ? (spaces[i] as { language: string | null }).language : null) ?? null,
    ]),
  );
  const language = current ? languageOf.get(current.id) : null;
  const sections = view.sectioned ? view.sections.map((s) => s.id) : [null];
  const chosen = new Set<string>();
  for (const section of sections) {
    const inSection = candidates.filter((ss) => ss.sectionId === section);
    if (!inSection.length) continue;
    if (current && current.sectionId === section) {
      chosen.add(current.id);
      continue;
    }
    const sameLanguage = language ? inSection.find((ss) => languageOf.get(ss.id) === language) : undefined;
    const byDefault = inSection.find((ss) => ss.id === view.defaultSiteSpaceIn(section)) ?? inSection[0]!;
    chosen.add((sameLanguage ?? byDefault).id);
  }
  if (scope.restrictTo === 'otherSiteSpaces') chosen.delete(current!.id);
  return candidates.filter((ss) => chosen.has(ss.id));
}

/** searchSiteContent: the site's content for a member of its organization. */
export async function searchSite(
  ctx: Context,
  organizationId: string,
  siteId: string,
  query: string,
  body: Record<string, unknown>,
  args: PageArgs,
): Promise<ListPage<SearchSpaceResult>> {
  const site = await requireSite(ctx, organizationId, siteId);
  readSearchQuery(query);
  const chosen = await siteSpacesOfScope(ctx, await siteView(ctx, site), scopeOfBody(body));
  let spaceIds = [...new Set(chosen.map((ss) => ss.spaceId))];
  if (!site.published) {
    const rows = await accessRows(ctx).space.loadMany(spaceIds);
    const readable = await Promise.all(
      rows.map(async (row) => !!row && !(row instanceof Error) && !row.deletedAt && (await canReadSpace(ctx, row))),
    );
    spaceIds = spaceIds.filter((_, i) => readable[i]);
  }
  return searchSpaces(ctx, spaceIds, query, args);
}

/**
 * The reader's search: `siteSpaces` are those the visitor may see (the reader decided the visitor
 * may read the site); `pageAllowed` leaves out what the visitor may not find.
 */
export async function searchSiteFor(
  ctx: Context,
  site: Site,
  siteSpaces: SiteSpace[],
  query: string,
  scope: SiteSearchScope,
  args: PageArgs,
  pageAllowed?: SearchSpacesOptions['pageAllowed'],
): Promise<{ siteSpaces: SiteSpace[]; results: ListPage<SearchSpaceResult> }> {
  const chosen = await siteSpacesOfScope(ctx, await siteView(ctx, site), scope, siteSpaces);
  const results = await searchSpaces(
    ctx,
    chosen.map((ss) => ss.spaceId),
    query,
    args,
    { pageAllowed },
  );
  return { siteSpaces: chosen, results };
}

const ScopeModeEnum = builder.enumType('SiteSearchScopeMode', {
  description: 'default: the current site space and its section first; all: every site space; specific: those listed',
  values: ['default', 'all', 'specific'] as const,
});

const RestrictToEnum = builder.enumType('SiteSearchRestrictTo', { values: ['currentSiteSpace', 'otherSiteSpaces'] as const });

const LegacyModeEnum = builder.enumType('SiteSearchLegacyMode', { values: ['all', 'current', 'specific'] as const });

// Fields are optional: the official schema (checked by the service) names what a mode lacks.
const ScopeInput = builder.inputType('SiteSearchScopeInput', {
  description: 'The official SiteSearchScope',
  fields: (t) => ({
    mode: t.field({ type: ScopeModeEnum, required: false, description: 'Required' }),
    currentSiteSpace: t.string({ required: false, description: 'default: the site space the visitor is in' }),
    restrictTo: t.field({ type: RestrictToEnum, required: false, description: 'default, with currentSiteSpace' }),
    siteSpaceIds: t.stringList({ required: false, description: 'specific: at least one' }),
  }),
});

// The result type is the search module's (`SearchSpaceResultList`, named: its ref stays inside that module).
builder.objectField(SiteRef, 'search', (t) =>
  t.field({
    type: 'SearchSpaceResultList' as never,
    description:
      "The site's content matching `query` (web search syntax), grouped by space, best first (GitBook's searchSiteContent). `scope` absent: mode default",
    args: {
      query: t.arg.string({ required: true, description: 'At most 512 characters' }),
      scope: t.arg({ type: ScopeInput, required: false }),
      // The deprecated body forms of the official operation (checked by the service, errors name them).
      mode: t.arg({
        type: LegacyModeEnum,
        required: false,
        description: "Deprecated: 'all', 'current' (with siteSpaceId) or 'specific' (with siteSpaceIds); use scope",
      }),
      siteSpaceId: t.arg.string({ required: false, description: "Deprecated: the current site space of mode 'current'" }),
      siteSpaceIds: t.arg.stringList({ required: false, description: "Deprecated: the site spaces of mode 'specific'" }),
      ...pageArgs(t),
    },
    resolve: ((
      site: Site,
      args: {
        query: string;
        scope?: unknown;
        mode?: unknown;
        siteSpaceId?: unknown;
        siteSpaceIds?: unknown;
        page?: string | null;
        limit?: number | null;
      },
      ctx: Context,
    ) => {
      const body = Object.fromEntries(
        Object.entries({ scope: args.scope, mode: args.mode, siteSpaceId: args.siteSpaceId, siteSpaceIds: args.siteSpaceIds }).filter(
          ([, v]) => v != null,
        ),
      );
      return searchSite(ctx, site.organizationId, site.id, args.query, body, { page: args.page, limit: args.limit });
    }) as never,
  }),
);
