import type { Context } from '../../context.js';
import type { Team } from '../../generated/prisma/client.js';
import { batched, byId, perRequest } from '../../loaders.js';

export type TeamRole = 'owner' | 'member';

const memberKey = (organizationId: string, userId: string) => `${organizationId}\u0000${userId}`;

/** Per-request loaders of the teams module (made on first use; nothing is shared between requests). */
export const teamLoaders = perRequest((ctx: Context) => ({
  team: byId<Team>((ids) => ctx.prisma.team.findMany({ where: { id: { in: ids } } })),
  /** Members and (live) spaces of a batch of teams, in one statement. */
  counts: batched<string, { members: number; spaces: number }>(
    async (teamIds) => {
      const rows = await ctx.prisma.$queryRaw<{ id: string; members: number; spaces: number }[]>`
      SELECT t.id,
        (SELECT count(*)::int FROM "TeamMember" m WHERE m."teamId" = t.id) AS members,
        (SELECT count(*)::int FROM "TeamSpacePermission" p JOIN "Space" s ON s.id = p."spaceId" AND s."deletedAt" IS NULL
          WHERE p."teamId" = t.id) AS spaces
      FROM unnest(${teamIds}::text[]) AS t(id)`;
      return new Map(rows.map((r) => [r.id, { members: r.members, spaces: r.spaces }]));
    },
    { members: 0, spaces: 0 },
  ),
  /** The caller's role in each team (null: not in it). */
  callerTeamRole: batched<string, TeamRole | null>(async (teamIds) => {
    const rows = await ctx.prisma.teamMember.findMany({ where: { userId: ctx.caller.id, teamId: { in: teamIds } } });
    return new Map(rows.map((r) => [r.teamId, r.role as TeamRole]));
  }, null),
  /** How many teams each organization member is in, keyed by `memberKey`. */
  memberTeamCount: batched<string, number>(async (keys) => {
    const pairs = keys.map((k) => k.split('\u0000') as [string, string]);
    const rows = await ctx.prisma.$queryRaw<{ o: string; u: string; teams: number }[]>`
      SELECT k.o, k.u, count(tm."teamId")::int AS teams
      FROM unnest(${pairs.map((p) => p[0])}::text[], ${pairs.map((p) => p[1])}::text[]) AS k(o, u)
      LEFT JOIN "TeamMember" tm ON tm."organizationId" = k.o AND tm."userId" = k.u
      GROUP BY k.o, k.u`;
    return new Map(rows.map((r) => [memberKey(r.o, r.u), r.teams]));
  }, 0),
}));

/** Number of teams a member of an organization is in (batched per request). */
export const memberTeamCount = (ctx: Context, organizationId: string, userId: string) =>
  teamLoaders(ctx).memberTeamCount.load(memberKey(organizationId, userId));
