import { builder } from '../../graphql/builder.js';

/** A user as the API shows it (the seed's User: object, id, displayName, email, photoURL, urls). */
export const UserType = builder.prismaObject('User', {
  fields: (t) => ({
    object: t.string({ resolve: () => 'user' }),
    id: t.exposeID('id'),
    displayName: t.exposeString('displayName'),
    email: t.exposeString('email'),
    photoURL: t.exposeString('photoURL', { nullable: true }),
    urls: t.field({
      type: builder.objectRef<{ location: string }>('UserUrls').implement({
        fields: (u) => ({ location: u.exposeString('location') }),
      }),
      resolve: (user, _args, ctx) => ctx.urls.user(user.id),
    }),
  }),
});

builder.queryField('viewer', (t) =>
  t.field({
    type: UserType,
    description: 'The authenticated caller',
    resolve: (_root, _args, ctx) => ctx.caller,
  }),
);
