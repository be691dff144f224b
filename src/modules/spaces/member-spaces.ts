import type { Context } from '../../context.js';
import { contentFilterOfOrgRole, orgRole, requireOrg, spaceRoleOfOrgRole } from '../../auth/permissions.js';
import type { RoleName } from '../../auth/roles.js';
import { forbidden, notFound } from '../../errors.js';
import type { Prisma, Space } from '../../generated/prisma/client.js';
import { builder } from '../../graphql/builder.js';
import { restEnum, RoleEnum } from '../../graphql/enums.js';
import { listOf, pageArgs } from '../../graphql/lists.js';
import { paginate, type PageArgs } from '../../pagination.js';
import { LIST_FIELDS, listVariables, type RestRoute } from '../../rest/route.js';
import { SPACE_FIELDS } from './routes.js';
import { SpaceType } from './space.js';

/**
 * The live spaces one member of an organization can access, with their role on each
 * (listSpacesForOrganizationMember): the same rules that decide the member's own access
 * (src/auth/permissions.ts, for their organization role), so the list is what they would see.
 * A disabled member accesses nothing. Asked by the member themself or by an organization admin;
 * another member gets 403 (one member's access is the admins' business), an outsider 404.
 * Ordered by creation, newest first unless `order` is asc (the official default is desc).
 */
export async function listMemberSpaces(
  ctx: Context,
  organizationId: string,
  userId: string,
  args: PageArgs & { order?: 'asc' | 'desc' | null },
) {
  await requireOrg(ctx, organizationId);
  if (userId !== ctx.caller.id && (await orgRole(ctx, organizationId)) !== 'admin') {
    throw forbidden('Only an organization admin can list the spaces of another member');
  }
  const member = await ctx.prisma.member.findUnique({ where: { organizationId_userId: { organizationId, userId } } });
  if (!member) throw notFound('Member');
  const role = member.role as RoleName | null;
  const filter = await contentFilterOfOrgRole(ctx, organizationId, role, userId);
  const where: Prisma.SpaceWhereInput = member.disabled
    ? { id: { in: [] } }
    : { AND: [{ organizationId, deletedAt: null }, filter.spaces] };
  const order = args.order ?? 'desc';
  const page = await paginate(
    args,
    () => ctx.prisma.space.count({ where }),
    (w) => ctx.prisma.space.findMany({ where, orderBy: [{ createdAt: order }, { id: order }], ...w }),
  );
  const items = await Promise.all(
    page.items.map(async (space) => ({ permission: (await spaceRoleOfOrgRole(ctx, role, space, userId))!, space })),
  );
  return { ...page, items };
}

const MemberSpacesOrderEnum = restEnum('MemberSpacesOrder', ['asc', 'desc'] as const, 'By creation: desc (the default) or asc');

const MemberSpaceType = builder.objectRef<{ permission: RoleName; space: Space }>('MemberSpacePermission').implement({
  description: 'A space a member can access, and their role on it',
  fields: (t) => ({
    permission: t.field({ type: RoleEnum, resolve: (m) => m.permission }),
    space: t.field({ type: SpaceType, resolve: (m) => m.space }),
  }),
});

builder.queryField('memberSpaces', (t) =>
  t.field({
    type: listOf('MemberSpacePermission', MemberSpaceType),
    description: 'Live spaces of an organization a member can access, with their role on each',
    args: {
      ...pageArgs(t),
      organizationId: t.arg.id({ required: true }),
      userId: t.arg.id({ required: true }),
      order: t.arg({ type: MemberSpacesOrderEnum, required: false }),
    },
    resolve: (_r, args, ctx) => listMemberSpaces(ctx, String(args.organizationId), String(args.userId), args),
  }),
);

export const memberSpaceRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/orgs/:organizationId/members/:userId/spaces',
    operationId: 'listSpacesForOrganizationMember',
    document: `query MemberSpaces($organizationId: ID!, $userId: ID!, $page: String, $limit: Int, $order: MemberSpacesOrder) {
      memberSpaces(organizationId: $organizationId, userId: $userId, page: $page, limit: $limit, order: $order) {
        items { permission space { ...SpaceFields } } ${LIST_FIELDS}
      }
    } ${SPACE_FIELDS}`,
    variables: (req) => ({
      organizationId: req.params.organizationId,
      userId: req.params.userId,
      ...listVariables(req),
      order: req.query.order || undefined,
    }),
    result: (data) => data.memberSpaces,
  },
];
