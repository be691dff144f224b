import DataLoader from 'dataloader';
import type { Context } from '../../context.js';
import { notFound } from '../../errors.js';
import type { Member } from '../../generated/prisma/client.js';
import { registerNode } from '../../graphql/node.js';
import { perRequest } from '../../loaders.js';
import { MemberType } from './member.js';
import { requireListMembers } from './member-service.js';

/**
 * Global id of an organization member: `Member:<organizationId>:<userId>`, the arguments of its
 * direct field `organization(id:) { member(userId:) }`. Refused as getMember refuses (the caller
 * must be a member of the organization and not a guest: guests cannot list members), then null
 * when the user is not a member. Member rows come through one per-request loader keyed by
 * (organization, user): one statement for any number of members in `nodes(ids:)`.
 */
const members = perRequest(
  (ctx: Context) =>
    new DataLoader<string, Member | null>(async (keys) => {
      const pairs = keys.map((k) => JSON.parse(k) as [string, string]);
      const rows = await ctx.prisma.member.findMany({
        where: { OR: pairs.map(([organizationId, userId]) => ({ organizationId, userId })) },
      });
      const found = new Map(rows.map((m) => [JSON.stringify([m.organizationId, m.userId]), m]));
      return keys.map((k) => found.get(k) ?? null);
    }),
);

registerNode(MemberType, {
  args: ['organizationId', 'userId'],
  keys: (m) => [m.organizationId, m.userId],
  load: async (ctx, [organizationId, userId]) => {
    await requireListMembers(ctx, organizationId!);
    const member = await members(ctx).load(JSON.stringify([organizationId, userId]));
    if (!member) throw notFound('Member');
    return member;
  },
});
