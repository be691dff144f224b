import dns from 'node:dns';
import { settings } from '../../config.js';
import type { Context } from '../../context.js';
import { orgRole, requireSite } from '../../auth/permissions.js';
import { conflict, notFound } from '../../errors.js';
import type { HostnameClaim, Prisma, Site } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import { invalidateSite } from './structure.js';
import { siteLoaders } from './loaders.js';

/**
 * Custom hostnames of sites need proof of ownership, or anyone could serve pages under a domain they do not own. Setting a site's `hostname` makes
 * a claim, pending until the DNS TXT record `_lectern-challenge.<hostname>` holds the claim's
 * token; `PATCH /v1/custom-hostnames/{hostname}` (the official dnsRevalidateCustomHostname) checks
 * it. Only then does the site's `hostname` change: only a proven hostname is served and unique.
 * Several sites, of any organizations, may claim one hostname: whoever proves it first gets it, and
 * the others are told only that it is in use. Nobody learns which organization holds or claims it.
 *
 * The check is DNS only (no fetch on the user's behalf), through the system resolver or the DNS
 * server `LECTERN_DNS_SERVER` (`host:port`; read on every check, as the outbound guard's settings).
 */
export const CHALLENGE_PREFIX = '_lectern-challenge.';
const DNS_TIMEOUT_MS = 3000;

function resolver() {
  const r = new dns.promises.Resolver({ timeout: DNS_TIMEOUT_MS, tries: 2 });
  const server = settings().dnsServer;
  if (server) r.setServers([server]);
  return r;
}

/** The TXT strings at `name` (each record's chunks joined), or none when the lookup fails. */
async function txtRecords(name: string): Promise<string[]> {
  try {
    return (await resolver().resolveTxt(name)).map((chunks) => chunks.join(''));
  } catch {
    return [];
  }
}

const IN_USE = 'hostname: this hostname is in use';

type Tx = Prisma.TransactionClient;

/**
 * Records a site's claim on `hostname` (within the site's update). The site's proven hostname, if
 * any, stays until the new one is proven; `null` removes both. Refused (409) only when another
 * site has proven it.
 */
export async function claimHostname(tx: Tx, site: Site, hostname: string | null): Promise<void> {
  if (hostname === null) {
    await tx.hostnameClaim.deleteMany({ where: { siteId: site.id } });
    await tx.site.update({ where: { id: site.id }, data: { hostname: null } });
    return;
  }
  if (hostname === site.hostname) {
    await tx.hostnameClaim.deleteMany({ where: { siteId: site.id } });
    return;
  }
  if (await tx.site.findFirst({ where: { hostname, NOT: { id: site.id } }, select: { id: true } })) throw conflict(IN_USE);
  // Claiming the same hostname again keeps its token (the published DNS record stays valid).
  const existing = await tx.hostnameClaim.findUnique({ where: { siteId: site.id } });
  if (existing?.hostname === hostname) return;
  const claim = { hostname, token: newId(32), createdAt: new Date(), checkedAt: null };
  await tx.hostnameClaim.upsert({ where: { siteId: site.id }, create: { siteId: site.id, ...claim }, update: claim });
}

export interface CustomHostnameView {
  hostname: string;
  site: Site;
  claim: HostnameClaim | null;
}

/**
 * The custom hostname as the caller may see it: the site that has proven it, or else a site that
 * claims it, among the sites of organizations the caller is a member of; 404 otherwise (also when
 * another organization holds or claims it: no answer tells who).
 */
export async function getCustomHostname(ctx: Context, hostname: string): Promise<CustomHostnameView> {
  const name = hostname.toLowerCase();
  const [holders, claims] = await Promise.all([
    ctx.prisma.site.findMany({ where: { hostname: name } }),
    ctx.prisma.hostnameClaim.findMany({ where: { hostname: name }, include: { site: true }, orderBy: { createdAt: 'asc' } }),
  ]);
  const candidates: CustomHostnameView[] = [
    ...holders.map((site) => ({ hostname: name, site, claim: null })),
    ...claims.map(({ site, ...claim }) => ({ hostname: name, site, claim })),
  ];
  for (const candidate of candidates) {
    if ((await orgRole(ctx, candidate.site.organizationId)) !== undefined) return candidate;
  }
  throw notFound('Custom hostname');
}

/**
 * Checks the DNS challenge of the caller's claim (site writers). Proven: the site's hostname
 * becomes it (true). Not proven: 409 saying which record to publish. Proven by another site first:
 * 409 "in use". An already proven hostname: nothing to do.
 */
export async function revalidateCustomHostname(ctx: Context, hostname: string): Promise<boolean> {
  const view = await getCustomHostname(ctx, hostname);
  await requireSite(ctx, view.site.organizationId, view.site.id, 'write');
  const claim = view.claim;
  if (!claim) return true;
  const records = await txtRecords(`${CHALLENGE_PREFIX}${claim.hostname}`);
  const now = new Date();
  if (!records.includes(claim.token)) {
    await ctx.prisma.hostnameClaim.updateMany({ where: { siteId: claim.siteId, token: claim.token }, data: { checkedAt: now } });
    throw conflict(
      `hostname: not proven yet: publish a DNS TXT record ${CHALLENGE_PREFIX}${claim.hostname} with the value ${claim.token}, then check again`,
    );
  }
  try {
    await ctx.prisma.$transaction(async (tx) => {
      if (await tx.site.findFirst({ where: { hostname: claim.hostname, NOT: { id: claim.siteId } }, select: { id: true } }))
        throw conflict(IN_USE);
      await tx.site.update({ where: { id: claim.siteId }, data: { hostname: claim.hostname } });
      await tx.hostnameClaim.deleteMany({ where: { siteId: claim.siteId, token: claim.token } });
    });
  } catch (error) {
    // Another site proved it between the check and this write (the unique index).
    if ((error as { code?: string }).code === 'P2002') throw conflict(IN_USE);
    throw error;
  } finally {
    invalidateSite(ctx, claim.siteId);
    siteLoaders(ctx).organizationSites.clear(view.site.organizationId);
  }
  return true;
}

/** Removes the caller's site's hostname or claim (site writers); 404 when there is none they see. */
export async function removeCustomHostname(ctx: Context, hostname: string): Promise<boolean> {
  const view = await getCustomHostname(ctx, hostname);
  await requireSite(ctx, view.site.organizationId, view.site.id, 'write');
  if (view.claim) await ctx.prisma.hostnameClaim.deleteMany({ where: { siteId: view.site.id, hostname: view.hostname } });
  else await ctx.prisma.site.updateMany({ where: { id: view.site.id, hostname: view.hostname }, data: { hostname: null } });
  invalidateSite(ctx, view.site.id);
  siteLoaders(ctx).organizationSites.clear(view.site.organizationId);
  return true;
}
