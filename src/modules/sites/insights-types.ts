import { badRequest } from '../../errors.js';
import { builder } from '../../graphql/builder.js';
import { aggregateSiteEvents, EVENT_TYPES, FEEDBACK_RATINGS, trackSiteEvents, type InsightsColumns } from './insights.js';
import { ContentRefInput } from './customization-types.js';
import { SiteRef } from './refs.js';
import { isObject } from '../../validate.js';

/**
 * Site insights in GraphQL, typed after the official aggregation (SiteInsightsQueryEventsAggregation
 * → SiteInsightsQueryEventsAggregationResult) and tracking (SiteInsightsEvent) shapes; the service
 * (insights.ts) works on official JSON, converted here both ways. The official values of a column
 * are one list whose items' type depends on the column: in GraphQL each kind of value has a list
 * of its own (discriminator + fields: `column` says which one is set), in input and in output.
 */

/** The official columns (SiteInsightsQueryEventsColumn); Lectern records the ones in VALUE_FIELD, a 400 names the others. */
const COLUMNS = [
  'datetime',
  'dayOfWeek',
  'hourOfDay',
  'url',
  'urlPath',
  'eventType',
  'eventsCount',
  'sessionsCount',
  'visitorsCount',
  'siteSection',
  'siteSpace',
  'siteShareKey',
  'displayContext',
  'page',
  'visitorGeoCountry',
  'visitorGeoPoint',
  'visitorDevice',
  'visitorBrowser',
  'visitorOS',
  'visitorBot',
  'visitorLanguage',
  'eventLinkTargetValue',
  'eventLinkTargetKind',
  'eventLinkTargetDomain',
  'eventLinkPosition',
  'eventAPIOperationPath',
  'eventAPIOperationMethod',
  'eventLLMSVariant',
  'eventPageNotFoundType',
  'eventMarkdownSource',
  'eventSearchQuery',
  'eventSearchResultRecordId',
  'eventPageFeedbackRating',
  'eventPageFeedbackComment',
  'eventAskResponseRating',
  'pageFeedbackRating',
  'askResponseRating',
  'referrer',
  'referrerDomain',
  'utmSource',
  'utmMedium',
  'utmCampaign',
  'utmTerm',
  'utmContent',
  'visitorAuthenticated',
  'visitorClaimProperty',
  'visitorClaim',
  'eventAdDomain',
  'eventAdPlacement',
  'eventTrademarkPlacement',
] as const;

/** Which list holds a recorded column's values, in answers (and in filters, for the groupable ones). */
const VALUE_FIELD: Record<string, string> = {
  datetime: 'datetimes',
  dayOfWeek: 'days',
  eventType: 'eventTypes',
  siteSection: 'ids',
  siteSpace: 'ids',
  page: 'pages',
  eventPageFeedbackRating: 'ratings',
  eventsCount: 'counts',
  pageFeedbackRating: 'ratingCounts',
};
/** In filters an event type is any string (an unknown one matches nothing, as in REST). */
const FILTER_FIELD: Record<string, string> = { ...VALUE_FIELD, eventType: 'ids' };

const ColumnEnum = builder.enumType('SiteInsightsColumn', {
  description: 'A column of the official insights aggregation',
  values: COLUMNS,
});
const IntervalEnum = builder.enumType('SiteInsightsInterval', {
  description: 'The interval of a datetime column (counts are per day: hour is refused)',
  values: ['hour', 'day', 'week', 'month'] as const,
});
const EventTypeEnum = builder.enumType('SiteInsightsEventType', { values: EVENT_TYPES as unknown as readonly string[] });
const RatingEnum = builder.enumType('PageFeedbackRating', { values: FEEDBACK_RATINGS });
const OperatorEnum = builder.enumType('SiteInsightsQueryOperator', {
  values: ['in', 'notIn', 'greaterThan', 'greaterThanOrEqual', 'lessThan', 'lessThanOrEqual'] as const,
});
const PresetEnum = builder.enumType('SiteInsightsQueryRangePreset', {
  values: ['lastYear', 'last3Months', 'last30Days', 'last7Days', 'last24Hours'] as const,
});
const DirectionEnum = builder.enumType('SiteInsightsOrderDirection', { values: ['asc', 'desc'] as const });

// ---- the aggregation's answer ----

type Column = { column: string; values: unknown[] };

const PageValue = builder.objectRef<{ page: string; space: string }>('SiteInsightsPage').implement({
  description: 'A page of a space (official values of the page column)',
  fields: (t) => ({ page: t.exposeString('page'), space: t.exposeString('space') }),
});
const RatingCounts = builder.objectRef<{ ok: number; good: number; bad: number }>('SiteInsightsFeedbackCounts').implement({
  description: 'How many ratings of each kind a group has',
  fields: (t) => ({ ok: t.exposeInt('ok'), good: t.exposeInt('good'), bad: t.exposeInt('bad') }),
});

const list = (column: Column, field: string) => (VALUE_FIELD[column.column] === field ? column.values : null);
const ColumnValues = builder.objectRef<Column>('SiteInsightsColumnValues').implement({
  description: "One column of an aggregation's answer: `column`, and its values in the list of that column's kind (the others are null)",
  fields: (t) => ({
    column: t.field({ type: ColumnEnum, resolve: (c) => c.column as (typeof COLUMNS)[number] }),
    datetimes: t.field({ type: ['DateTime'], nullable: true, description: 'datetime', resolve: (c) => list(c, 'datetimes') as string[] }),
    days: t.intList({ nullable: true, description: 'dayOfWeek (1 Monday … 7 Sunday)', resolve: (c) => list(c, 'days') as number[] }),
    eventTypes: t.field({ type: [EventTypeEnum], nullable: true, description: 'eventType', resolve: (c) => list(c, 'eventTypes') as any }),
    ids: t.field({
      type: ['String'],
      nullable: { list: true, items: true },
      description: 'siteSection, siteSpace (null: none)',
      resolve: (c) => list(c, 'ids') as (string | null)[],
    }),
    pages: t.field({
      type: [PageValue],
      nullable: { list: true, items: true },
      description: 'page (null: none)',
      resolve: (c) => list(c, 'pages') as any,
    }),
    ratings: t.field({
      type: [RatingEnum],
      nullable: true,
      description: 'eventPageFeedbackRating',
      resolve: (c) => list(c, 'ratings') as any,
    }),
    counts: t.intList({ nullable: true, description: 'eventsCount', resolve: (c) => list(c, 'counts') as number[] }),
    ratingCounts: t.field({
      type: [RatingCounts],
      nullable: true,
      description: 'pageFeedbackRating',
      resolve: (c) => list(c, 'ratingCounts') as any,
    }),
  }),
});

const Aggregation = builder.objectRef<InsightsColumns>('SiteInsightsAggregation').implement({
  description: 'The answer of an insights aggregation (official SiteInsightsQueryEventsAggregationResult): one entry per selected column',
  fields: (t) => ({ columns: t.field({ type: [ColumnValues], resolve: (a) => a.columns }) }),
});

/** The REST answer: each column's list under the official `values`. */
export const officialAggregation = (data: { columns: Record<string, unknown>[] }) => ({
  columns: data.columns.map((c) => ({ column: c.column, values: c[VALUE_FIELD[c.column as string]!] ?? [] })),
});
export const AGGREGATION_SELECTION =
  '{ columns { column datetimes days eventTypes ids pages { page space } ratings counts ratingCounts { ok good bad } } }';

// ---- the aggregation's query ----

const ColumnInput = builder.inputType('SiteInsightsColumnInput', {
  description: 'A column (official SiteInsightsQueryEventsColumn): `interval` for datetime only',
  fields: (t) => ({
    column: t.field({ type: ColumnEnum, required: true }),
    interval: t.field({ type: IntervalEnum, required: false, description: 'datetime: day (default), week or month' }),
  }),
});
const PageInput = builder.inputType('SiteInsightsPageInput', {
  fields: (t) => ({ page: t.string({ required: true }), space: t.string({ required: false }) }),
});
const FilterInput = builder.inputType('SiteInsightsFilterInput', {
  description:
    'A filter (official SiteInsightsQueryEventsFilter), discriminator + fields: `column`, and its values in the list of its kind: datetimes (datetime), days (dayOfWeek), ids (siteSection, siteSpace, eventType; null: none), pages (page; null: none), ratings (eventPageFeedbackRating)',
  fields: (t) => ({
    column: t.field({ type: ColumnEnum, required: true }),
    interval: t.field({ type: IntervalEnum, required: false }),
    operator: t.field({ type: OperatorEnum, required: false, description: 'Default in' }),
    datetimes: t.field({ type: ['DateTime'], required: false }),
    days: t.intList({ required: false }),
    ids: t.field({ type: ['String'], required: { list: false, items: false } }),
    pages: t.field({ type: [PageInput], required: { list: false, items: false } }),
    ratings: t.field({ type: [RatingEnum], required: false }),
  }),
});
const RangeCustomInput = builder.inputType('SiteInsightsRangeCustomInput', {
  fields: (t) => ({ from: t.field({ type: 'DateTime', required: true }), to: t.field({ type: 'DateTime', required: true }) }),
});
const RangeInput = builder.inputType('SiteInsightsRangeInput', {
  description: 'The days counted (official SiteInsightsQueryRange), oneOf style: set exactly one of `preset` and `custom`',
  fields: (t) => ({
    preset: t.field({ type: PresetEnum, required: false }),
    custom: t.field({ type: RangeCustomInput, required: false }),
  }),
});
const OrderInput = builder.inputType('SiteInsightsOrderInput', {
  fields: (t) => ({
    by: t.field({ type: ColumnInput, required: true, description: 'eventsCount or a grouped column' }),
    direction: t.field({ type: DirectionEnum, required: true }),
  }),
});
const QueryInput = builder.inputType('SiteInsightsQueryInput', {
  description:
    'An aggregation of insights (official SiteInsightsQueryEventsAggregation): without select, the grouped columns and their count',
  fields: (t) => ({
    range: t.field({ type: RangeInput, required: true }),
    select: t.field({ type: [ColumnInput], required: false }),
    groupBy: t.field({ type: [ColumnInput], required: false }),
    where: t.field({ type: [FilterInput], required: false }),
    order: t.field({ type: OrderInput, required: false }),
    limit: t.int({ required: false, description: '1 to 1000 (default)' }),
  }),
});

const columnOf = (c: Record<string, unknown>) => ({ column: c.column, ...(c.interval !== undefined ? { interval: c.interval } : {}) });
const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : v);

/** A checked REST body (official JSON) → the GraphQL input; what Lectern does not read is left out, as the service ignores it. */
export function aggregationInput(body: Record<string, any>) {
  const filter = (w: Record<string, any>) => {
    const field = FILTER_FIELD[w.column]!;
    // A page filter's value is `{ page, space }`, a bare page id or null; the service reads only the page.
    const page = (v: unknown) =>
      typeof v === 'string' ? { page: v } : isObject(v) && typeof v.page === 'string' ? { page: v.page } : null;
    const values = field === 'pages' ? w.values.map(page) : w.values;
    return defined({ ...columnOf(w), operator: w.operator, [field]: values });
  };
  return defined({
    range: typeof body.range === 'string' ? { preset: body.range } : { custom: { from: body.range.from, to: body.range.to } },
    select: body.select?.map(columnOf),
    groupBy: body.groupBy?.map(columnOf),
    where: body.where?.map(filter),
    order: body.order && { by: columnOf(body.order.by), direction: body.order.direction },
    limit: body.limit,
  });
}

/** The GraphQL input → the official body the service reads. */
function aggregationBody(input: Record<string, any>) {
  const range = input.range as { preset?: string | null; custom?: { from: Date; to: Date } | null };
  if ((range.preset == null) === (range.custom == null)) throw badRequest('range', 'set exactly one of preset, custom');
  const column = (c: Record<string, unknown>) => defined({ column: c.column, interval: c.interval ?? undefined });
  const filter = (w: Record<string, any>) => {
    const field = FILTER_FIELD[w.column] ?? 'ids';
    const values = w[field] ?? ['datetimes', 'days', 'ids', 'pages', 'ratings'].map((f) => w[f]).find((v) => v != null);
    return defined({ ...column(w), operator: w.operator ?? undefined, values: values?.map(iso) });
  };
  return defined({
    range: range.preset ?? { from: iso(range.custom!.from), to: iso(range.custom!.to) },
    select: input.select?.map(column),
    groupBy: input.groupBy?.map(column),
    where: input.where?.map(filter),
    order: input.order ?? undefined,
    limit: input.limit ?? undefined,
  });
}

builder.objectField(SiteRef, 'insights', (t) =>
  t.field({
    type: Aggregation,
    description: "An aggregation over the site's insights events; counted per page and day",
    args: { query: t.arg({ type: QueryInput, required: true }) },
    resolve: (site, args, ctx) => aggregateSiteEvents(ctx, site.organizationId, site.id, aggregationBody(args.query as any)),
  }),
);

// ---- tracking ----

const SessionInput = builder.inputType('SiteInsightsSessionInput', {
  description:
    "The visitor's session (official SiteInsightsEventSession). Lectern keeps nothing about visitors: their cookies, claims and tokens are not taken, and the rest is dropped on arrival",
  fields: (t) => ({
    sessionId: t.string({ required: false }),
    visitorId: t.string({ required: false }),
    ip: t.string({ required: false }),
    userAgent: t.string({ required: false }),
    language: t.string({ required: false }),
    referrer: t.string({ required: false }),
  }),
});
const DisplayContextEnum = builder.enumType('SiteInsightsDisplayContext', { values: ['site', 'server', 'embed', 'mcp'] as const });
const LocationInput = builder.inputType('SiteInsightsLocationInput', {
  description: 'Where the event happened (official SiteInsightsEventLocation): counted per section, site space and page',
  fields: (t) => ({
    url: t.string({ required: true }),
    displayContext: t.field({ type: DisplayContextEnum, required: false }),
    siteSection: t.string({ required: false }),
    siteSpace: t.string({ required: false }),
    siteShareKey: t.string({ required: false }),
    space: t.string({ required: false }),
    revision: t.string({ required: false }),
    page: t.string({ required: false }),
  }),
});
const FeedbackInput = builder.inputType('SiteInsightsFeedbackInput', {
  fields: (t) => ({
    rating: t.field({ type: RatingEnum, required: true }),
    comment: t.string({ required: false, description: 'page_post_feedback_comment (not kept)' }),
  }),
});
const SearchResultInput = builder.inputType('SiteInsightsSearchResultInput', {
  description: 'A search result opened: a page (spaceId, pageId) or a record (recordId)',
  fields: (t) => ({
    spaceId: t.string({ required: false }),
    pageId: t.string({ required: false }),
    recordId: t.string({ required: false }),
  }),
});
const LinkInput = builder.inputType('SiteInsightsLinkInput', {
  fields: (t) => ({
    target: t.field({ type: ContentRefInput, required: true }),
    position: t.field({
      type: builder.enumType('SiteInsightsLinkPosition', { values: ['announcement', 'header', 'footer', 'sidebar', 'content'] as const }),
      required: true,
    }),
  }),
});
const OperationInput = builder.inputType('SiteInsightsOperationInput', {
  description: 'An operation of an OpenAPI specification',
  fields: (t) => ({ path: t.string({ required: true }), method: t.string({ required: true }) }),
});
const AdInput = builder.inputType('SiteInsightsAdInput', {
  fields: (t) => ({
    domain: t.string({ required: true }),
    zoneId: t.string({ required: true }),
    placement: t.field({ type: builder.enumType('SiteInsightsAdPlacement', { values: ['aside'] as const }), required: true }),
  }),
});
const EventInput = builder.inputType('SiteInsightsEventInput', {
  description:
    "A visitor's event (official SiteInsightsEvent), discriminator + fields: `type`, and the fields of that type (page_post_feedback: feedback; page_markdown_request: markdownSource; search_type_query, search_open_result, ask_question, ask_rate_response: query; search_open_result: result; ask_question: goal; ask_rate_response: rating, responseId; link_click: link; api_client_*: operation; trademark_click: placement; ad_*: ad; llms_request: llmsVariant). Lectern keeps counts per page and day only: of these it reads the feedback's rating",
  fields: (t) => ({
    type: t.field({ type: EventTypeEnum, required: true }),
    session: t.field({ type: SessionInput, required: true }),
    location: t.field({ type: LocationInput, required: true }),
    timestamp: t.field({ type: 'DateTime', required: false, description: 'Within 5 minutes of the current time; default now' }),
    feedback: t.field({ type: FeedbackInput, required: false }),
    markdownSource: t.field({
      type: builder.enumType('SiteInsightsMarkdownSource', { values: { page_action: { value: 'page-action' } } }),
      required: false,
    }),
    query: t.string({ required: false }),
    result: t.field({ type: SearchResultInput, required: false }),
    goal: t.string({ required: false }),
    rating: t.int({ required: false, description: '1 or -1' }),
    responseId: t.string({ required: false }),
    link: t.field({ type: LinkInput, required: false }),
    operation: t.field({ type: OperationInput, required: false }),
    placement: t.field({
      type: builder.enumType('SiteInsightsTrademarkPlacement', { values: ['sidebar', 'ad', 'footer', 'pdf', 'embed'] as const }),
      required: false,
    }),
    ad: t.field({ type: AdInput, required: false }),
    llmsVariant: t.field({ type: builder.enumType('SiteInsightsLLMSVariant', { values: ['standard', 'full'] as const }), required: false }),
  }),
});
const TrackInput = builder.inputType('SiteInsightsTrackEventsInput', {
  fields: (t) => ({ events: t.field({ type: [EventInput], required: true, description: 'At most 500' }) }),
});

const FEEDBACK_TYPE = 'page_post_feedback';

/** A checked REST tracking body → the GraphQL input: what the service counts by (the rest it drops, as ever). */
export function trackInput(body: Record<string, any>) {
  return {
    events: (body.events as Record<string, any>[]).map((e) =>
      defined({
        type: e.type,
        session: {},
        location: defined({
          url: e.location.url,
          siteSection: e.location.siteSection,
          siteSpace: e.location.siteSpace,
          space: e.location.space,
          page: e.location.page,
        }),
        timestamp: e.timestamp,
        feedback: e.type === FEEDBACK_TYPE ? { rating: e.feedback.rating } : undefined,
      }),
    ),
  };
}

/** The GraphQL input → the official body the service reads. */
const trackBody = (input: { events: Record<string, any>[] }) => ({
  events: input.events.map((e) => defined({ ...e, timestamp: iso(e.timestamp ?? undefined) })),
});

builder.mutationFields((t) => ({
  trackSiteEvents: t.boolean({
    description: "Records events of a site's visitors (official trackEventsInSiteById); only counts per page and day are kept",
    args: {
      organizationId: t.arg.id({ required: true }),
      siteId: t.arg.id({ required: true }),
      input: t.arg({ type: TrackInput, required: true }),
    },
    resolve: async (_r, args, ctx) => {
      await trackSiteEvents(ctx, String(args.organizationId), String(args.siteId), trackBody(args.input as any));
      return true;
    },
  }),
}));
