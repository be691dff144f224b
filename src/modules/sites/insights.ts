import type { Context } from '../../context.js';
import { requireSite } from '../../auth/permissions.js';
import { badRequest } from '../../errors.js';
import { Prisma, type PrismaClient } from '../../generated/prisma/client.js';
import { isObject } from '../../validate.js';

/**
 * Site insights (official trackEventsInSiteById, aggregateSiteEvents).
 *
 * Storage: counters, not events — one SiteInsightDay row per site, UTC day, event type, section,
 * site space and page ('' when none), its `count` upserted. Why: nothing about a visitor is kept
 * (no address, cookies, agent, claims: the official event carries them, Lectern drops them on
 * arrival), the table grows with pages × days rather than with traffic, and "views per page per
 * day" is a range scan of the primary key. The price: the columns about visitors and sessions
 * (`visitorsCount`, `sessionsCount`, `visitor*`, `url`, `urlPath`, `hourOfDay`, hour intervals)
 * cannot be answered: asking for them is a 400 naming the field.
 *
 * Writes are batched: counts gather in memory per database and are flushed by one INSERT … ON
 * CONFLICT every 2 s (or at 500 keys, or before an aggregation on the same server), so a busy
 * reader costs one statement every couple of seconds, not one per page view; a site deleted
 * meanwhile is skipped. A crash loses at most those 2 s of counts.
 *
 * Rights: the official tracking operation has the API's default security (a user or integration
 * token), so tracking through the API needs a caller who reads the site (any member of its
 * organization; outsiders get its 404), as does aggregation (`site:insights:read`). Lectern's own
 * reader counts its page views server-side with `countPageView`, no script and no token.
 *
 * Page feedback (official `page_post_feedback`, its `feedback.rating` one of PageFeedbackRating:
 * good, ok, bad): the rating is kept in the row's event type as `page_post_feedback:<rating>`, so a
 * rating is one more counter key without a column of its own; every read below takes the event
 * type before the colon (`eventType` answers `page_post_feedback`) and the rating after it
 * (`eventPageFeedbackRating`, grouped; `pageFeedbackRating`, the official `{ ok, good, bad }`
 * counts per group). The reader's own form counts through `countPageFeedback`.
 */

export const EVENT_TYPES = [
  'page_view',
  'page_markdown_request',
  'search_open',
  'search_type_query',
  'search_open_result',
  'page_post_feedback',
  'page_post_feedback_comment',
  'agent_feedback',
  'ask_question',
  'ask_view',
  'ask_rate_response',
  'link_click',
  'api_client_open',
  'api_client_request',
  'ad_click',
  'ad_display',
  'trademark_click',
  'llms_request',
  'mcp_request',
  'rss_request',
];
/** The official PageFeedbackRating. */
export const FEEDBACK_RATINGS = ['good', 'ok', 'bad'] as const;
export type FeedbackRating = (typeof FEEDBACK_RATINGS)[number];
const FEEDBACK = 'page_post_feedback';
const MAX_EVENTS = 500;
const FLUSH_MS = 2000;
const FLUSH_KEYS = 500;

export interface CountedEvent {
  siteId: string;
  eventType?: string;
  siteSectionId?: string | null;
  siteSpaceId?: string | null;
  spaceId?: string | null;
  pageId?: string | null;
  at?: Date;
}

const pending = new Map<PrismaClient, Map<string, number>>();
let timer: NodeJS.Timeout | undefined;

const dayOf = (d: Date) => d.toISOString().slice(0, 10);

function count(prisma: PrismaClient, e: CountedEvent, n = 1) {
  let counts = pending.get(prisma);
  if (!counts) pending.set(prisma, (counts = new Map()));
  const key = JSON.stringify([
    e.siteId,
    dayOf(e.at ?? new Date()),
    e.eventType ?? 'page_view',
    e.siteSectionId ?? '',
    e.siteSpaceId ?? '',
    e.spaceId ?? '',
    e.pageId ?? '',
  ]);
  counts.set(key, (counts.get(key) ?? 0) + n);
  if (counts.size >= FLUSH_KEYS) void flushInsights(prisma).catch(() => {});
  else if (!timer) {
    timer = setTimeout(() => {
      timer = undefined;
      for (const p of [...pending.keys()]) void flushInsights(p).catch(() => {});
    }, FLUSH_MS);
    timer.unref();
  }
}

/** Writes the counts gathered for this database (one statement). */
export async function flushInsights(prisma: PrismaClient): Promise<void> {
  const counts = pending.get(prisma);
  if (!counts?.size) return;
  pending.delete(prisma);
  const rows = [...counts].map(([key, n]) => [...(JSON.parse(key) as string[]), n] as const);
  const col = (i: number) => rows.map((r) => r[i] as string);
  await prisma.$executeRaw`
    INSERT INTO "SiteInsightDay" ("siteId", "day", "eventType", "siteSectionId", "siteSpaceId", "spaceId", "pageId", "count")
    SELECT e.site, e.day::date, e.type, e.section, e.sitespace, e.space, e.page, e.n
    FROM unnest(${col(0)}::text[], ${col(1)}::text[], ${col(2)}::text[], ${col(3)}::text[], ${col(4)}::text[], ${col(5)}::text[], ${col(6)}::text[], ${rows.map((r) => r[7])}::int[])
      AS e(site, day, type, section, sitespace, space, page, n)
    JOIN "Site" s ON s.id = e.site
    ON CONFLICT ("siteId", "day", "eventType", "siteSectionId", "siteSpaceId", "spaceId", "pageId") DO UPDATE SET "count" = "SiteInsightDay"."count" + EXCLUDED."count"`;
}

/**
 * The reader's page view, counted server-side after its answer is built: never blocks it, never
 * fails it, keeps nothing about the visitor. Returns `answer` so the call fits in the return line.
 */
export function countPageView<T>(ctx: Pick<Context, 'prisma'>, view: Omit<CountedEvent, 'eventType' | 'at'>, answer: T): T {
  try {
    count(ctx.prisma, { ...view, eventType: 'page_view' });
  } catch {
    // Counting never breaks a page.
  }
  return answer;
}

/** A visitor's rating of a page (the reader's feedback form): an official `page_post_feedback` counted with its rating. */
export function countPageFeedback(
  ctx: Pick<Context, 'prisma'>,
  view: Omit<CountedEvent, 'eventType' | 'at'>,
  rating: FeedbackRating,
): void {
  count(ctx.prisma, { ...view, eventType: `${FEEDBACK}:${rating}` });
}

function optionalId(field: string, v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || v.length > 128) throw badRequest(field, 'must be an id (a string up to 128 characters) or null');
  return v;
}

/** A tracking body read and checked (see checkedAggregation): the counters it adds, for any site. */
export function checkedEvents(body: unknown): Omit<CountedEvent, 'siteId'>[] {
  const events = isObject(body) ? body.events : undefined;
  if (!Array.isArray(events)) throw badRequest('events', 'must be an array of events');
  if (events.length > MAX_EVENTS) throw badRequest('events', `at most ${MAX_EVENTS} events per request`);
  const now = Date.now();
  return events.map((e, i): Omit<CountedEvent, 'siteId'> => {
    const f = `events[${i}]`;
    if (!isObject(e)) throw badRequest(f, 'must be an object');
    if (typeof e.type !== 'string' || !EVENT_TYPES.includes(e.type))
      throw badRequest(`${f}.type`, `must be one of ${EVENT_TYPES.join(', ')}`);
    if (!isObject(e.session)) throw badRequest(`${f}.session`, 'is required (an object)');
    const loc = e.location;
    if (!isObject(loc)) throw badRequest(`${f}.location`, 'is required (an object)');
    if (typeof loc.url !== 'string' || !URL.canParse(loc.url)) throw badRequest(`${f}.location.url`, 'must be a URL');
    let at = new Date(now);
    if (e.timestamp !== undefined) {
      const t = typeof e.timestamp === 'string' ? Date.parse(e.timestamp) : NaN;
      if (Number.isNaN(t)) throw badRequest(`${f}.timestamp`, 'must be a date-time');
      if (Math.abs(t - now) > 5 * 60_000) throw badRequest(`${f}.timestamp`, 'must be within 5 minutes of the current time');
      at = new Date(t);
    }
    // The official page_post_feedback requires its rating; it is counted with it (see above).
    let eventType = e.type;
    if (e.type === FEEDBACK) {
      const rating = isObject(e.feedback) ? e.feedback.rating : undefined;
      if (typeof rating !== 'string' || !(FEEDBACK_RATINGS as readonly string[]).includes(rating))
        throw badRequest(`${f}.feedback.rating`, `must be one of ${FEEDBACK_RATINGS.join(', ')}`);
      eventType = `${FEEDBACK}:${rating}`;
    }
    return {
      eventType,
      siteSectionId: optionalId(`${f}.location.siteSection`, loc.siteSection),
      siteSpaceId: optionalId(`${f}.location.siteSpace`, loc.siteSpace),
      spaceId: optionalId(`${f}.location.space`, loc.space),
      pageId: optionalId(`${f}.location.page`, loc.page),
      at,
    };
  });
}

export async function trackSiteEvents(ctx: Context, organizationId: string, siteId: string, body: unknown): Promise<void> {
  const site = await requireSite(ctx, organizationId, siteId, 'read');
  // Every event is checked before any is counted: a 400 counts nothing.
  for (const e of checkedEvents(body)) count(ctx.prisma, { ...e, siteId: site.id });
}

// ---- aggregateSiteEvents ----

type Column = { column: string; interval?: string };
const ID_COLUMNS: Record<string, string> = {
  siteSection: '"siteSectionId"',
  siteSpace: '"siteSpaceId"',
  page: '"pageId"',
  eventType: '"eventType"',
};
const INTERVALS = ['day', 'week', 'month'];
const PRESETS: Record<string, number> = { lastYear: 365, last3Months: 90, last30Days: 30, last7Days: 7, last24Hours: 1 };
const UNSUPPORTED = 'is not recorded by Lectern (insights are counted per page and day, nothing about visitors or sessions is kept)';

function readColumn(field: string, v: unknown): Column {
  if (!isObject(v) || typeof v.column !== 'string') throw badRequest(field, 'must be an object with a column');
  const c = v.column;
  if (c === 'datetime') {
    const interval = v.interval ?? 'day';
    if (typeof interval !== 'string' || !INTERVALS.includes(interval))
      throw badRequest(`${field}.interval`, `must be one of ${INTERVALS.join(', ')} (counts are per day)`);
    return { column: c, interval };
  }
  if (c in ID_COLUMNS || c === 'dayOfWeek' || c === 'eventsCount' || c === 'eventPageFeedbackRating' || c === 'pageFeedbackRating')
    return { column: c };
  throw badRequest(`${field}.column`, UNSUPPORTED);
}

/** The SQL of a grouped column. */
function expr(c: Column): Prisma.Sql {
  if (c.column === 'datetime') return Prisma.sql`date_trunc(${c.interval}, "day")::date`;
  if (c.column === 'page') return Prisma.sql`"pageId" || '/' || "spaceId"`;
  if (c.column === 'dayOfWeek') return Prisma.sql`extract(isodow from "day")::int`;
  // The event type before the colon, the feedback rating after it (see above).
  if (c.column === 'eventType') return Prisma.sql`split_part("eventType", ':', 1)`;
  if (c.column === 'eventPageFeedbackRating') return Prisma.sql`split_part("eventType", ':', 2)`;
  return Prisma.raw(ID_COLUMNS[c.column]!);
}

/** Columns that are aggregates over a group, not groupings. */
const AGGREGATES = new Set(['eventsCount', 'pageFeedbackRating']);
const ratingCount = (r: FeedbackRating) => Prisma.sql`coalesce(sum("count") FILTER (WHERE "eventType" = ${`${FEEDBACK}:${r}`}), 0)::int`;

const key = (c: Column) => (c.column === 'datetime' ? `datetime:${c.interval}` : c.column);

function readRange(v: unknown): { from: string; to: string } {
  if (typeof v === 'string') {
    const days = PRESETS[v];
    if (!days) throw badRequest('range', `must be one of ${Object.keys(PRESETS).join(', ')} or { from, to }`);
    const now = new Date();
    return { from: dayOf(new Date(now.getTime() - days * 86_400_000)), to: dayOf(now) };
  }
  if (!isObject(v)) throw badRequest('range', 'is required (a preset or { from, to })');
  const [from, to] = (['from', 'to'] as const).map((k) => {
    const t = typeof v[k] === 'string' ? Date.parse(v[k] as string) : NaN;
    if (Number.isNaN(t)) throw badRequest(`range.${k}`, 'must be a date-time');
    return dayOf(new Date(t));
  });
  if (from! > to!) throw badRequest('range.from', 'must not be after range.to');
  return { from: from!, to: to! };
}

function readFilter(field: string, v: unknown): Prisma.Sql {
  const c = readColumn(field, v);
  const f = v as Record<string, unknown>;
  const op = f.operator ?? 'in';
  if (!Array.isArray(f.values)) throw badRequest(`${field}.values`, 'must be an array');
  const values = f.values;
  if (AGGREGATES.has(c.column)) throw badRequest(`${field}.column`, 'cannot be filtered on (filter on the grouped columns)');
  let e: Prisma.Sql;
  let arr: Prisma.Sql;
  if (c.column === 'datetime') {
    if (!values.every((x) => typeof x === 'string' && !Number.isNaN(Date.parse(x))))
      throw badRequest(`${field}.values`, 'must be date-times');
    e = Prisma.sql`"day"`;
    arr = Prisma.sql`${values.map((x) => dayOf(new Date(x as string)))}::date[]`;
  } else if (c.column === 'dayOfWeek') {
    if (!values.every((x) => Number.isInteger(x) && (x as number) >= 1 && (x as number) <= 7))
      throw badRequest(`${field}.values`, 'must be integers from 1 to 7');
    e = expr(c);
    arr = Prisma.sql`${values}::int[]`;
  } else if (c.column === 'eventPageFeedbackRating') {
    if (!values.every((x) => (FEEDBACK_RATINGS as readonly string[]).includes(x as string)))
      throw badRequest(`${field}.values`, `must be ratings: ${FEEDBACK_RATINGS.join(', ')}`);
    e = expr(c);
    arr = Prisma.sql`${values}::text[]`;
  } else {
    // A page is `{ page, space }` in the official values (a bare page id is accepted too).
    const ids = values.map((x) => (c.column === 'page' && isObject(x) ? x.page : x));
    if (!ids.every((x) => typeof x === 'string' || x === null))
      throw badRequest(`${field}.values`, c.column === 'page' ? 'must be { page, space } objects, page ids or null' : 'must be strings');
    e = c.column === 'page' ? Prisma.raw('"pageId"') : expr(c);
    arr = Prisma.sql`${ids.map((x) => x ?? '')}::text[]`;
  }
  switch (op) {
    case 'in':
      return Prisma.sql`${e} = ANY(${arr})`;
    case 'notIn':
      return Prisma.sql`NOT (${e} = ANY(${arr}))`;
  }
  const cmp = { greaterThan: '>', greaterThanOrEqual: '>=', lessThan: '<', lessThanOrEqual: '<=' }[op as string];
  if (!cmp) throw badRequest(`${field}.operator`, 'must be one of in, notIn, greaterThan, greaterThanOrEqual, lessThan, lessThanOrEqual');
  if (values.length !== 1) throw badRequest(`${field}.values`, `must hold one value with ${op}`);
  return Prisma.sql`${e} ${Prisma.raw(cmp)} (${arr})[1]`;
}

/**
 * An aggregation body read and checked: a 400 naming the first thing wrong. The REST route checks
 * its body with this before it becomes GraphQL input, so its 400s name the body's own fields.
 */
export function checkedAggregation(body: unknown) {
  if (!isObject(body)) throw badRequest('range', 'is required');
  const range = readRange(body.range);
  const list = (name: string) => {
    const v = body[name];
    if (v === undefined) return [];
    if (!Array.isArray(v)) throw badRequest(name, 'must be an array');
    return v;
  };
  const groupBy = list('groupBy').map((c, i) => readColumn(`groupBy[${i}]`, c));
  const aggregated = groupBy.findIndex((c) => AGGREGATES.has(c.column));
  if (aggregated >= 0) throw badRequest(`groupBy[${aggregated}].column`, `${groupBy[aggregated]!.column} is an aggregate, not a grouping`);
  const selectRaw = list('select');
  // Without a select: the grouped columns and their count.
  const select = selectRaw.length ? selectRaw.map((c, i) => readColumn(`select[${i}]`, c)) : [...groupBy, { column: 'eventsCount' }];
  const where = list('where').map((w, i) => readFilter(`where[${i}]`, w));
  // A selected column not grouped by is grouped by too.
  const groups = [...new Map([...groupBy, ...select.filter((c) => !AGGREGATES.has(c.column))].map((c) => [key(c), c])).values()];
  // Grouped by the feedback rating: only feedback events have one (the official values are ratings, never null).
  if (groups.some((g) => g.column === 'eventPageFeedbackRating')) where.push(Prisma.sql`"eventType" LIKE ${`${FEEDBACK}:%`}`);
  let limit = 1000;
  if (body.limit !== undefined) {
    if (!Number.isInteger(body.limit) || (body.limit as number) < 1 || (body.limit as number) > 1000)
      throw badRequest('limit', 'must be an integer from 1 to 1000');
    limit = body.limit as number;
  }
  let order: Prisma.Sql = groups.length
    ? Prisma.join(
        groups.map((_, i) => Prisma.raw(`g${i}`)),
        ', ',
      )
    : Prisma.raw('1');
  if (body.order !== undefined) {
    const o = body.order;
    if (!isObject(o)) throw badRequest('order', 'must be an object with by and direction');
    const by = readColumn('order.by', o.by);
    if (o.direction !== 'asc' && o.direction !== 'desc') throw badRequest('order.direction', 'must be asc or desc');
    const i = groups.findIndex((g) => key(g) === key(by));
    if (by.column !== 'eventsCount' && i < 0) throw badRequest('order.by', 'must be eventsCount or a grouped column');
    order = Prisma.sql`${Prisma.raw(by.column === 'eventsCount' ? 'n' : `g${i}`)} ${Prisma.raw(o.direction === 'asc' ? 'ASC' : 'DESC')}`;
  }
  return { range, select, where, groups, limit, order };
}

export type InsightsColumns = { columns: { column: string; values: unknown[] }[] };

export async function aggregateSiteEvents(ctx: Context, organizationId: string, siteId: string, body: unknown): Promise<InsightsColumns> {
  const site = await requireSite(ctx, organizationId, siteId, 'read');
  const { range, select, where, groups, limit, order } = checkedAggregation(body);
  await flushInsights(ctx.prisma);
  const selected = groups.map((g, i) => Prisma.sql`${expr(g)} AS ${Prisma.raw(`g${i}`)}`);
  const rows = await ctx.prisma.$queryRaw<Record<string, unknown>[]>`
    SELECT ${Prisma.join([...selected, Prisma.sql`sum("count")::int AS n`, Prisma.sql`${ratingCount('ok')} AS fb_ok`, Prisma.sql`${ratingCount('good')} AS fb_good`, Prisma.sql`${ratingCount('bad')} AS fb_bad`], ', ')}
    FROM "SiteInsightDay"
    WHERE ${Prisma.join([Prisma.sql`"siteId" = ${site.id}`, Prisma.sql`"day" BETWEEN ${range.from}::date AND ${range.to}::date`, ...where], ' AND ')}
    ${
      groups.length
        ? Prisma.sql`GROUP BY ${Prisma.join(
            groups.map((_, i) => Prisma.raw(`g${i}`)),
            ', ',
          )}`
        : Prisma.empty
    }
    ORDER BY ${order}
    LIMIT ${limit}`;
  const value = (c: Column, v: unknown) => {
    if (c.column === 'datetime') return (v instanceof Date ? v : new Date(String(v))).toISOString();
    if (c.column === 'page') {
      const [page, space] = String(v).split('/');
      return page ? { page, space } : null;
    }
    if (c.column in ID_COLUMNS && c.column !== 'eventType') return v === '' ? null : v;
    return v;
  };
  return {
    columns: select.map((c) => {
      const i = groups.findIndex((g) => key(g) === key(c));
      if (c.column === 'pageFeedbackRating')
        return { column: c.column, values: rows.map((r) => ({ ok: r.fb_ok, good: r.fb_good, bad: r.fb_bad })) };
      return { column: c.column, values: rows.map((r) => (c.column === 'eventsCount' ? r.n : value(c, r[`g${i}`]))) };
    }),
  };
}
