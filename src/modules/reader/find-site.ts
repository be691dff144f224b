import { LRUCache } from 'lru-cache';
import type { Organization, Site } from '../../generated/prisma/client.js';
import type { RouteCall } from '../../http/routes.js';
import { writeEpoch } from '../../write-epoch.js';
import { FINGERPRINT_SQL } from './page-cache.js';

/**
 * The site a published URL names (`/public/<org id or hostname>/sites/<site id or basename>`), as the
 * sites module resolves URLs: ids first, then basenames (not unique: published first, oldest first).
 * One statement. The reader's pages and its MCP server find sites alike.
 */
export async function findSite(
  call: RouteCall,
  org: string,
  siteKey: string,
): Promise<(Site & { organization: Pick<Organization, 'hostname'> }) | null> {
  const sites = await call.services.db.prisma.site.findMany({
    where: siteWhere(org, siteKey),
    orderBy: SITE_ORDER,
    include: { organization: { select: { hostname: true } } },
  });
  return sites.find((s) => s.id === siteKey) ?? sites.find((s) => s.basename === siteKey) ?? null;
}

/** What `findSiteState` answers: the site, its organization's hostname, the fingerprint of what it shows. */
export type SiteState = { site: Site; hostname: string | null; fingerprint: string };

/**
 * The site states read, kept in this process (a kept page then costs no statement). An
 * entry is used while (a) it is younger than STATE_TTL_MS and (b) no write happened in this process
 * since it was read (src/write-epoch.ts: every mutation and job run here moves the epoch, read
 * before the statement). So an edit made through this process shows at once; an edit
 * made through another Lectern process sharing the database shows within one second (the cached
 * pages themselves stay keyed by the fingerprint: nothing older than that second is ever served).
 * Unknown and unpublished sites are kept alike (a flood of 404s costs no statement either); the
 * LRU bounds the entries. Per database (tests and benches run several in one process).
 */
const STATE_TTL_MS = 1_000;
let states = new WeakMap<object, LRUCache<string, { state: SiteState | null; epoch: number; at: number }>>();

/** Forgets the kept site states (with the rendered answers: `clearReaderCache`). */
export function forgetSiteStates() {
  states = new WeakMap();
}

export function findSiteState(call: Pick<RouteCall, 'services'>, org: string, siteKey: string): Promise<SiteState | null> {
  return kept(call, `${org}\n${siteKey}`, () => readSiteState(call, 'o.id = $1 OR o.hostname = $1', [org, siteKey]));
}

/** The site whose custom hostname (`Site.hostname`: proven, unique) is `host`, kept alike. */
export function findSiteStateByHost(call: Pick<RouteCall, 'services'>, host: string): Promise<SiteState | null> {
  return kept(call, `\n${host}`, () => readSiteState(call, 's.hostname = $1', [host, null]));
}

async function kept(call: Pick<RouteCall, 'services'>, key: string, read: () => Promise<SiteState | null>): Promise<SiteState | null> {
  const db = call.services.db;
  let entries = states.get(db);
  if (!entries) states.set(db, (entries = new LRUCache({ max: 10_000 })));
  const now = Date.now();
  const hit = entries.get(key);
  if (hit && hit.epoch === writeEpoch() && now - hit.at < STATE_TTL_MS) return hit.state;
  // The epoch before the statement: a write that ends while it runs makes the entry stale at once.
  const epoch = writeEpoch();
  const state = await read();
  entries.set(key, { state, epoch, at: now });
  return state;
}

/**
 * The reader's read of the site a URL names (as `findSite`), its organization's hostname and its
 * fingerprint (page-cache.ts: what its rendered answers depend on), in one statement, with no
 * Prisma query on the way. `orgWhere`: the organization's (`$1`) or the custom hostname's condition.
 */
async function readSiteState(
  call: Pick<RouteCall, 'services'>,
  orgWhere: string,
  params: [string, string | null],
): Promise<SiteState | null> {
  const { rows } = await call.services.db.pool.query<{ site: Record<string, unknown>; hostname: string | null; fingerprint: string }>(
    `SELECT to_jsonb(s) AS site, o.hostname, ${FINGERPRINT_SQL} AS fingerprint
     FROM "Site" s JOIN "Organization" o ON o.id = s."organizationId"
     WHERE (${orgWhere}) AND ($2::text IS NULL OR s.id = $2 OR s.basename = $2)
     ORDER BY (s.id = $2) DESC, s.published DESC, s."createdAt" ASC, s.id ASC
     LIMIT 1`,
    params,
  );
  const row = rows[0];
  if (!row) return null;
  // JSON's timestamps are PostgreSQL's `timestamp(3)` without a zone, which Prisma reads as UTC.
  const date = (v: unknown) => (typeof v === 'string' ? new Date(`${v}Z`) : null);
  const site = {
    ...row.site,
    createdAt: date(row.site.createdAt),
    updatedAt: date(row.site.updatedAt),
    adaptiveSchemaUpdatedAt: date(row.site.adaptiveSchemaUpdatedAt),
  } as Site;
  return { site, hostname: row.hostname, fingerprint: row.fingerprint };
}

const siteWhere = (org: string, siteKey: string) => ({
  organization: { OR: [{ id: org }, { hostname: org }] },
  OR: [{ id: siteKey }, { basename: siteKey }],
});
const SITE_ORDER = [{ published: 'desc' as const }, { createdAt: 'asc' as const }, { id: 'asc' as const }];
