import type { Context } from '../../context.js';
import { orgRole, requireOrg } from '../../auth/permissions.js';
import { forbidden, notFound } from '../../errors.js';
import type { Prisma, Team } from '../../generated/prisma/client.js';
import { builder } from '../../graphql/builder.js';
import { listOf, pageArgs } from '../../graphql/lists.js';
import { paginate, type PageArgs } from '../../pagination.js';
import { LIST_FIELDS, listVariables, type RestRoute } from '../../rest/route.js';
import { TeamMemberInfo, TeamType } from './team.js';
import { TEAM_FIELDS } from './routes.js';

/**
 * The teams one member of an organization is in (listTeamsForOrganizationMember), with their role
 * in each. The rights are those of the team lists: a member who is not a guest sees every team and
 * its members, so any member's teams; a guest sees only the teams they are in, and asks only about
 * themself (asking about someone else would tell a guest who is a member, which they may not list).
 */
export async function listMemberTeams(ctx: Context, organizationId: string, userId: string, args: PageArgs & { title?: string | null }) {
  await requireOrg(ctx, organizationId);
  if ((await orgRole(ctx, organizationId)) == null && userId !== ctx.caller.id) {
    throw forbidden('Guests can list only their own teams');
  }
  const member = await ctx.prisma.member.findUnique({ where: { organizationId_userId: { organizationId, userId } } });
  if (!member) throw notFound('Member');
  const where: Prisma.TeamMemberWhereInput = { organizationId, userId };
  // Escaped as in the team list: LIKE's wildcards match themselves.
  if (args.title) where.team = { title: { contains: args.title.replace(/[\\%_]/g, '\\$&'), mode: 'insensitive' } };
  return paginate(
    args,
    () => ctx.prisma.teamMember.count({ where }),
    (w) =>
      ctx.prisma.teamMember.findMany({
        where,
        include: { team: true },
        orderBy: [{ team: { createdAt: 'asc' } }, { teamId: 'asc' }],
        ...w,
      }),
  );
}

const MemberTeamType = builder.objectRef<{ role: string; team: Team }>('MemberTeam').implement({
  description: 'A team a member is in, and their place in it',
  fields: (t) => ({
    team: t.field({ type: TeamType, resolve: (m) => m.team }),
    member: t.field({ type: TeamMemberInfo, resolve: (m) => ({ role: m.role }) }),
  }),
});

builder.queryField('memberTeams', (t) =>
  t.field({
    type: listOf('MemberTeam', MemberTeamType),
    description: 'Teams of an organization a member is in',
    args: {
      ...pageArgs(t),
      organizationId: t.arg.id({ required: true }),
      userId: t.arg.id({ required: true }),
      title: t.arg.string({ required: false, description: 'Only teams whose title contains this (case-insensitive)' }),
    },
    resolve: (_r, args, ctx) => listMemberTeams(ctx, String(args.organizationId), String(args.userId), args),
  }),
);

export const memberTeamRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/orgs/:organizationId/members/:userId/teams',
    operationId: 'listTeamsForOrganizationMember',
    document: `query MemberTeams($organizationId: ID!, $userId: ID!, $page: String, $limit: Int, $title: String) {
      memberTeams(organizationId: $organizationId, userId: $userId, page: $page, limit: $limit, title: $title) {
        items { team { ...TeamFields } member { role } } ${LIST_FIELDS}
      }
    } ${TEAM_FIELDS}`,
    variables: (req) => ({
      organizationId: req.params.organizationId,
      userId: req.params.userId,
      ...listVariables(req),
      title: req.query.title || undefined,
    }),
    result: (data) => data.memberTeams,
  },
];
