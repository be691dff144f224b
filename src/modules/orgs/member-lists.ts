import type { Prisma } from '../../generated/prisma/client.js';
import { restEnum } from '../../graphql/enums.js';

/**
 * The member list's `search`, `sort` and `order` (listMembersInOrganizationById, 0.202.0):
 * `search` keeps members whose display name or email contains it (case-insensitive); `sort` is
 * joinedAt (default), lastSeenAt or name (display name); `order` is desc (the official default) or
 * asc. Members never seen sort last either way; ties break on the user id so pages are stable.
 */
export const MEMBER_SORTS = ['joinedAt', 'lastSeenAt', 'name'] as const;
export type MemberSort = (typeof MEMBER_SORTS)[number];
export type ListOrder = 'asc' | 'desc';

export const MemberSortEnum = restEnum('MemberListSort', MEMBER_SORTS, 'The property members are sorted by (default joinedAt)');
export const MemberListOrderEnum = restEnum('MemberListOrder', ['asc', 'desc'] as const, 'desc (the default) or asc');

export interface MemberListArgs {
  search?: string | null;
  sort?: MemberSort | null;
  order?: ListOrder | null;
}

/** The filter of `search` (none when blank). Prisma hands `contains` to ILIKE as is: LIKE's wildcards are escaped to match themselves. */
export function memberSearchWhere(search: string | null | undefined): Prisma.MemberWhereInput {
  const text = search?.trim();
  if (!text) return {};
  const contains = text.replace(/[\\%_]/g, '\\$&');
  return { user: { OR: [{ displayName: { contains, mode: 'insensitive' } }, { email: { contains, mode: 'insensitive' } }] } };
}

export function memberOrderBy(args: MemberListArgs): Prisma.MemberOrderByWithRelationInput[] {
  const order = args.order ?? 'desc';
  const first: Prisma.MemberOrderByWithRelationInput =
    args.sort === 'name'
      ? { user: { displayName: order } }
      : args.sort === 'lastSeenAt'
        ? { lastSeenAt: { sort: order, nulls: 'last' } }
        : { joinedAt: order };
  return [first, { userId: order }];
}
