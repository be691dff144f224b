import type { Context } from '../../context.js';
import { canSeeUser } from '../../auth/permissions.js';
import { badRequest, forbidden, notFound } from '../../errors.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { builder } from '../../graphql/builder.js';
import { registerNode } from '../../graphql/node.js';
import * as check from '../../validate.js';
import { userLoaders } from './loaders.js';
import { UserType } from './user.js';

/** A user the caller may see (see `canSeeUser`); anyone else is "not found", as a missing id. */
export async function getUser(ctx: Context, id: string) {
  const user = await userLoaders(ctx).user.load(id);
  if (!user || !(await canSeeUser(ctx, id))) throw notFound('User');
  return user;
}

export interface UpdateUserInput {
  displayName?: string | null;
  photoURL?: string | null;
}

/**
 * A user changes their own display name and photo (updateUserById). Someone the caller can see gets
 * 403, anyone else 404. The official body needs at least one field; neither may be null (a user's
 * display name is required, and the official photoURL is a URL, not a way to clear it).
 */
export async function updateUser(ctx: Context, id: string, input: UpdateUserInput) {
  if (id !== ctx.caller.id) {
    await getUser(ctx, id);
    throw forbidden('You can only update your own user');
  }
  const data: Prisma.UserUpdateInput = {};
  if (input.displayName !== undefined) {
    if (input.displayName === null) throw badRequest('displayName', 'cannot be null');
    const name = input.displayName.trim();
    if (!name) throw badRequest('displayName', 'must not be blank');
    data.displayName = check.text('displayName', name, { min: 1, max: 64 });
  }
  if (input.photoURL !== undefined) {
    if (input.photoURL === null) throw badRequest('photoURL', 'cannot be null');
    data.photoURL = check.url('photoURL', input.photoURL);
  }
  if (Object.keys(data).length === 0) throw badRequest('body', 'must have at least one of displayName, photoURL');
  const user = await ctx.prisma.user.update({ where: { id }, data });
  userLoaders(ctx).user.clear(id).prime(id, user);
  return user;
}

const UpdateUserInputType = builder.inputType('UpdateUserInput', {
  fields: (t) => ({
    displayName: t.string({ description: '1..64 characters' }),
    photoURL: t.string({ description: 'An absolute http(s) URL, at most 2048 characters' }),
  }),
});

builder.queryField('user', (t) =>
  t.field({
    type: UserType,
    description: 'A user who shares an organization with the caller (the caller may list its members), or the caller',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => getUser(ctx, String(id)),
  }),
);
registerNode(UserType, { args: ['id'], keys: (u) => [u.id], load: (ctx, [id]) => getUser(ctx, id!) });

builder.mutationField('updateUser', (t) =>
  t.field({
    type: UserType,
    description: 'Update the caller’s own user',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateUserInputType, required: true }) },
    resolve: (_r, { id, input }, ctx) => updateUser(ctx, String(id), input),
  }),
);
