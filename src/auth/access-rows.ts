import type { Context } from '../context.js';
import { columnsOf, prepared, rowsById, selectRowPairs, selectRows } from '../db/rows.js';
import type { Collection, Member, Organization, Site, Space } from '../generated/prisma/client.js';
import { batched, byId, perRequest } from '../loaders.js';

/**
 * The rows the caller's rights are decided from (src/auth/permissions.ts), loaded once per request:
 * organizations, the caller's memberships, collections, spaces and sites. They belong to the
 * permission mechanism rather than to the modules that own the tables, because a mechanism imports
 * no module; the modules read these rows through the same loaders, so a guard and the resolver
 * after it share one statement. Writers clear or prime the keys they change.
 */
const MEMBERSHIPS = prepared(`SELECT ${columnsOf('Member')} FROM "Member" WHERE "userId" = $1 AND "organizationId" = ANY($2::text[])`);
const SPACES_WITH_MEMBERSHIP = prepared(
  `SELECT ${columnsOf('Space', 's')}, NULL AS "__next", ${columnsOf('Member', 'm')} FROM "Space" s LEFT JOIN "Member" m ON m."organizationId" = s."organizationId" AND m."userId" = $2 WHERE s.id = ANY($1::text[])`,
);

export const accessRows = perRequest((ctx: Context) => {
  const { pool } = ctx.db;
  /** The caller's membership in each organization (null when not a member). */
  const callerMembership = batched<string, Member | null>(async (orgIds) => {
    const rows = await selectRows<Member>(pool, MEMBERSHIPS, [ctx.caller.id, orgIds]);
    return new Map(rows.map((m) => [m.organizationId, m]));
  }, null);
  return {
    organization: byId(rowsById<Organization>(pool, 'Organization')),
    callerMembership,
    collection: byId(rowsById<Collection>(pool, 'Collection')),
    /**
     * Spaces, each read with the caller's membership in its organization, which primes
     * `callerMembership`: a space's guard (`requireSpace`) needs that row next, and would otherwise
     * wait for a second round trip on every space request.
     */
    space: byId(async (ids: string[]) => {
      const pairs = await selectRowPairs<Space, Member>(pool, SPACES_WITH_MEMBERSHIP, [ids, ctx.caller.id]);
      for (const [space, member] of pairs) callerMembership.prime(space.organizationId, member);
      return pairs.map(([space]) => space);
    }),
    site: byId(rowsById<Site>(pool, 'Site')),
  };
});

/**
 * A space's access rows read before the request's context exists: by the authentication statement
 * of a `/v1/spaces/:id…` request (src/auth/authenticate.ts), so the access check costs no round
 * trip of its own (issue 16 §5: a space search was authentication, then access, then the search).
 * Like every loaded row they are the state at the request's start.
 */
export interface SpaceAccess {
  space: Space;
  organization: Organization;
  member: Member | null;
}

/** What a `/v1/spaces/:spaceId…` path names, or null (ids as `src/ids.ts` spells them: a prefix check only). */
export function spaceIdOfPath(pathname: string): string | null {
  const match = /^\/v1\/spaces\/([A-Za-z0-9_-]{1,64})(?:\/|$)/.exec(pathname);
  return match ? match[1]! : null;
}

/** Primes the request's access loaders with a space's access rows (read by the authentication of this very caller). */
export function primeSpaceAccess(ctx: Context, access: SpaceAccess | null | undefined): void {
  if (!access) return;
  const rows = accessRows(ctx);
  rows.space.prime(access.space.id, access.space);
  rows.organization.prime(access.organization.id, access.organization);
  rows.callerMembership.prime(access.space.organizationId, access.member);
}
