import type { Context } from '../context.js';
import { prepared, rowOf, rowsById, selectRowGroups, selectRows } from '../db/rows.js';
import type { Collection, Member, Organization, Site, Space } from '../generated/prisma/client.js';
import { batched, byId, perRequest } from '../loaders.js';
import { isRole, type RoleName } from './roles.js';

/**
 * The rows the caller's rights are decided from (src/auth/permissions.ts), loaded once per request:
 * organizations, the caller's memberships, collections, spaces and sites. They belong to the
 * permission mechanism rather than to the modules that own the tables, because a mechanism imports
 * no module; the modules read these rows through the same loaders, so a guard and the resolver
 * after it share one statement. Writers clear or prime the keys they change.
 */
export const ROLE_ARRAY = `ARRAY['read','comment','edit','review','create','admin']::text[]`;

/**
 * For (user, space or collection) requests `req(u, k, id)` (k: 's' or 'c'): the nearest explicit
 * default level up the collection chain (`inherit`: none up to the top, i.e. the organization
 * role; `none`: an explicit null) and the highest grant of the user and their teams on it and
 * every collection above it, whatever the depth, the number of teams or of grants. The CTEs and
 * the two columns, so that other statements (the authentication of a space request, the space
 * loader) can read a role's inputs with their own rows instead of in a round trip of their own.
 */
const CONTENT_ROLE_CTES = `chain(u, k, id, node, parent, level, depth) AS (
          SELECT r.u, r.k, r.id, coalesce(s.id, c.id), coalesce(s."parentId", c."parentId"),
                 CASE WHEN r.k = 's' THEN s."defaultLevel" ELSE c."defaultLevel" END, 0
            FROM req r
            LEFT JOIN "Space" s ON r.k = 's' AND s.id = r.id
            LEFT JOIN "Collection" c ON r.k = 'c' AND c.id = r.id
          UNION ALL
          SELECT ch.u, ch.k, ch.id, c.id, c."parentId", c."defaultLevel", ch.depth + 1
            FROM chain ch JOIN "Collection" c ON c.id = ch.parent WHERE ch.depth < 64
        ),
        grants(u, k, id, role) AS (
          SELECT ch.u, ch.k, ch.id, g.role::text FROM chain ch
            JOIN "UserSpacePermission" g ON ch.k = 's' AND ch.depth = 0 AND g."spaceId" = ch.node AND g."userId" = ch.u
          UNION ALL
          SELECT ch.u, ch.k, ch.id, g.role::text FROM chain ch
            JOIN "TeamMember" tm ON tm."userId" = ch.u
            JOIN "TeamSpacePermission" g ON ch.k = 's' AND ch.depth = 0 AND g."spaceId" = ch.node AND g."teamId" = tm."teamId"
          UNION ALL
          SELECT ch.u, ch.k, ch.id, g.role::text FROM chain ch
            JOIN "UserCollectionPermission" g ON NOT (ch.k = 's' AND ch.depth = 0) AND g."collectionId" = ch.node AND g."userId" = ch.u
          UNION ALL
          SELECT ch.u, ch.k, ch.id, g.role::text FROM chain ch
            JOIN "TeamMember" tm ON tm."userId" = ch.u
            JOIN "TeamCollectionPermission" g ON NOT (ch.k = 's' AND ch.depth = 0) AND g."collectionId" = ch.node AND g."teamId" = tm."teamId"
        )`;
/** The two columns of `r` (a row of `req`): its level ("__level") and highest grant ("__grant"). */
const CONTENT_ROLE_COLUMNS = `(SELECT coalesce(ch.level, 'none') FROM chain ch
          WHERE ch.u = r.u AND ch.k = r.k AND ch.id = r.id AND ch.node IS NOT NULL AND ch.level IS DISTINCT FROM 'inherit'
          ORDER BY ch.depth LIMIT 1) AS "__level",
        (SELECT g.role FROM grants g WHERE g.u = r.u AND g.k = r.k AND g.id = r.id
          ORDER BY array_position(${ROLE_ARRAY}, g.role) DESC LIMIT 1) AS "__grant"`;

/** A statement's content role columns, read by any statement that joined `req r` with `CONTENT_ROLE_CTES`. */
export const contentRoleSql = { ctes: CONTENT_ROLE_CTES, columns: CONTENT_ROLE_COLUMNS };

export interface ContentRoleRow {
  level: RoleName | 'inherit' | 'none';
  grant: RoleName | null;
}

/** The columns' values as the rule reads them (no row at all: `inherit`, no grant). */
export function contentRoleRowOf(level: string | null | undefined, grant: string | null | undefined): ContentRoleRow {
  return { level: level == null ? 'inherit' : isRole(level) || level === 'none' ? level : 'none', grant: isRole(grant) ? grant : null };
}

/**
 * A statement over a batch of ids comes in two texts: `unnest` of arrays for many, the values
 * themselves for one. A plan made without values costs an array as 10 elements, so with one id
 * PostgreSQL would keep planning anew on every execution (a content role's plan: ~2 ms).
 */
const contentRolesOf = (req: string) =>
  prepared(`WITH RECURSIVE
        req(u, k, id) AS (${req}),
        ${CONTENT_ROLE_CTES}
      SELECT r.u, r.k, r.id, ${CONTENT_ROLE_COLUMNS}
      FROM req r`);
const CONTENT_ROLES = contentRolesOf('SELECT * FROM unnest($1::text[], $2::text[], $3::text[])');
const ONE_CONTENT_ROLE = contentRolesOf('SELECT $1::text, $2::text, $3::text');

/** A batch's key: user, kind ('s' or 'c'), id. */
export const contentRoleKey = (userId: string, kind: 's' | 'c', id: string) => `${userId}\u0000${kind}\u0000${id}`;

/** THE RULE's inputs (src/auth/permissions.ts) per (user, space or collection): one prepared statement per batch. */
export const contentRoleRows = perRequest((ctx: Context) =>
  batched<string, ContentRoleRow>(
    async (keys) => {
      const parts = keys.map((k) => k.split('\u0000') as [string, string, string]);
      const rows = await selectRows<{ u: string; k: string; id: string; __level: string | null; __grant: string | null }>(
        ctx.db.pool,
        parts.length === 1 ? ONE_CONTENT_ROLE : CONTENT_ROLES,
        parts.length === 1 ? parts[0]! : [parts.map((p) => p[0]), parts.map((p) => p[1]), parts.map((p) => p[2])],
      );
      return new Map(rows.map((r) => [contentRoleKey(r.u, r.k as 's', r.id), contentRoleRowOf(r.__level, r.__grant)]));
    },
    contentRoleRowOf(null, null),
  ),
);

const MEMBERSHIPS = prepared(`SELECT ${rowOf('Member')} FROM "Member" WHERE "userId" = $1 AND "organizationId" = ANY($2::text[])`);
/**
 * Spaces by id, each with its organization, the caller's membership there and the caller's content
 * role inputs on it: what `requireSpace` decides from, in one round trip.
 */
const spacesWithAccessOf = (req: string) =>
  prepared(
    `WITH RECURSIVE req(u, k, id) AS (${req}), ${CONTENT_ROLE_CTES}
   SELECT ${rowOf('Space', 's')}, NULL AS "__next", ${rowOf('Organization', 'o')}, NULL AS "__next", ${rowOf('Member', 'm')}, NULL AS "__next", ${CONTENT_ROLE_COLUMNS}
   FROM req r JOIN "Space" s ON s.id = r.id
   JOIN "Organization" o ON o.id = s."organizationId"
   LEFT JOIN "Member" m ON m."organizationId" = s."organizationId" AND m."userId" = $2`,
  );
/** `$1`: the ids (one: the id itself, as `contentRolesOf` says why), `$2`: the caller. */
const SPACES_WITH_ACCESS = spacesWithAccessOf(`SELECT $2::text, 's', x FROM unnest($1::text[]) AS x`);
const ONE_SPACE_WITH_ACCESS = spacesWithAccessOf(`SELECT $2::text, 's', $1::text`);

export const accessRows = perRequest((ctx: Context) => {
  const { pool } = ctx.db;
  /** The caller's membership in each organization (null when not a member). */
  const callerMembership = batched<string, Member | null>(async (orgIds) => {
    const rows = await selectRowGroups(pool, MEMBERSHIPS, [ctx.caller.id, orgIds]);
    return new Map(rows.map(([row]) => [row!.organizationId as string, row as unknown as Member]));
  }, null);
  const organizations = byId(rowsById<Organization>(pool, 'Organization'));
  return {
    organization: organizations,
    callerMembership,
    collection: byId(rowsById<Collection>(pool, 'Collection')),
    /**
     * Spaces, each read with its organization, the caller's membership there and the caller's
     * content role inputs, which prime `organization`, `callerMembership` and `contentRoleRows`: a
     * space's guard (`requireSpace`) needs those next, and would otherwise wait for a round trip
     * of each on every space request.
     */
    space: byId(async (ids: string[]) => {
      const rows =
        ids.length === 1
          ? await selectRowGroups(pool, ONE_SPACE_WITH_ACCESS, [ids[0], ctx.caller.id])
          : await selectRowGroups(pool, SPACES_WITH_ACCESS, [ids, ctx.caller.id]);
      return rows.map(([space, organization, member, role]) => {
        const s = space as unknown as Space;
        organizations.prime(s.organizationId, organization as unknown as Organization);
        callerMembership.prime(s.organizationId, member as unknown as Member | null);
        contentRoleRows(ctx).prime(
          contentRoleKey(ctx.caller.id, 's', s.id),
          contentRoleRowOf(role?.__level as string | null, role?.__grant as string | null),
        );
        return s;
      });
    }),
    site: byId(rowsById<Site>(pool, 'Site')),
  };
});

/**
 * A space's access rows read before the request's context exists: by the authentication statement
 * of a `/v1/spaces/:id…` request (src/auth/authenticate.ts), so the access check costs no round
 * trip of its own (a space search would otherwise take three: authentication, access, the search).
 * Like every loaded row they are the state at the request's start.
 */
export interface SpaceAccess {
  space: Space;
  organization: Organization;
  member: Member | null;
  /** The caller's content role inputs on the space. */
  contentRole: ContentRoleRow;
}

/** What a `/v1/spaces/:spaceId…` path names, or null (ids as `src/ids.ts` spells them: a prefix check only). */
export function spaceIdOfPath(pathname: string): string | null {
  const match = /^\/v1\/spaces\/([A-Za-z0-9_-]{1,64})(?:\/|$)/.exec(pathname);
  return match ? match[1]! : null;
}

/**
 * An organization and the caller's membership there, read by the authentication of a
 * `/v1/orgs/:id…` request: null for an organization that does not exist, as the loaders say it.
 */
export interface OrganizationAccess {
  id: string;
  organization: Organization | null;
  member: Member | null;
}

/** What a `/v1/orgs/:organizationId…` path names, or null. */
export function organizationIdOfPath(pathname: string): string | null {
  const match = /^\/v1\/orgs\/([A-Za-z0-9_-]{1,64})(?:\/|$)/.exec(pathname);
  return match ? match[1]! : null;
}

/** Primes the request's access loaders with an organization's access rows (read by the authentication of this very caller). */
export function primeOrganizationAccess(ctx: Context, access: OrganizationAccess | null | undefined): void {
  if (!access) return;
  const rows = accessRows(ctx);
  rows.organization.prime(access.id, access.organization);
  rows.callerMembership.prime(access.id, access.member);
}

/** Primes the request's access loaders with a space's access rows (read by the authentication of this very caller). */
export function primeSpaceAccess(ctx: Context, access: SpaceAccess | null | undefined): void {
  if (!access) return;
  const rows = accessRows(ctx);
  rows.space.prime(access.space.id, access.space);
  rows.organization.prime(access.organization.id, access.organization);
  rows.callerMembership.prime(access.space.organizationId, access.member);
  contentRoleRows(ctx).prime(contentRoleKey(ctx.caller.id, 's', access.space.id), access.contentRole);
}
