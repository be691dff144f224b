import { builder, type Model } from '../../graphql/builder.js';
import { UserType } from '../users/index.js';
import { createApiToken, revokeApiToken, viewerApiTokens } from './api-tokens.js';
import { revokeSession, signOut, viewerSessions } from './browser-sessions.js';
import { changePassword, createPasswordResetLink, resetPassword, signIn } from './sign-in.js';

// Lectern's own additions to the schema (GitBook's API has no people's sign-in): the app's sign-in,
// sessions and personal API tokens.
const LECTERN = "Lectern's addition (not in GitBook's API).";

const OidcOptionType = builder.objectRef<{ label: string }>('OidcSignInOption').implement({
  description: `How to sign in with the configured OpenID Connect provider (GET /auth/oidc/start?next=…). ${LECTERN}`,
  fields: (t) => ({ label: t.exposeString('label') }),
});

const SignInOptionsType = builder.objectRef<{ password: boolean; oidc: { label: string } | null }>('SignInOptions').implement({
  description: `The ways people can sign in to this server. ${LECTERN}`,
  fields: (t) => ({
    password: t.exposeBoolean('password'),
    oidc: t.field({ type: OidcOptionType, nullable: true, resolve: (o) => o.oidc }),
  }),
});

const BrowserSessionType = builder.objectRef<Model<'Session'> & { current: boolean }>('BrowserSession').implement({
  description: `A signed-in browser of the caller (the lectern_session cookie). ${LECTERN}`,
  fields: (t) => ({
    id: t.exposeID('id'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    lastSeenAt: t.expose('lastSeenAt', { type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', description: 'The absolute end (it also ends after the idle limit without use)' }),
    userAgent: t.exposeString('userAgent', { nullable: true }),
    current: t.exposeBoolean('current', { description: 'Whether this is the session of the request' }),
  }),
});

const ApiTokenType = builder.objectRef<Model<'ApiToken'>>('PersonalApiToken').implement({
  description: `One of the caller's personal API tokens (the token itself is shown only when created). ${LECTERN}`,
  fields: (t) => ({
    id: t.exposeID('id'),
    label: t.exposeString('label', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true }),
  }),
});

const CreatedApiTokenType = builder.objectRef<{ token: string; apiToken: Model<'ApiToken'> }>('CreatedApiToken').implement({
  description: `A new API token: \`token\` is shown this once. ${LECTERN}`,
  fields: (t) => ({
    token: t.exposeString('token', { description: 'Send as Authorization: Bearer <token>; only its hash is stored' }),
    apiToken: t.field({ type: ApiTokenType, resolve: (c) => c.apiToken }),
  }),
});

const PasswordResetLinkType = builder.objectRef<{ url: string; expiresAt: Date }>('PasswordResetLink').implement({
  description: `A one-time link to set or reset a password (the app's /app/reset-password). ${LECTERN}`,
  fields: (t) => ({
    url: t.exposeString('url'),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  signInOptions: t.field({
    type: SignInOptionsType,
    description: `The ways to sign in (no authentication needed). ${LECTERN}`,
    resolve: (_r, _a, ctx) => ({ password: true, oidc: ctx.config.oidc ? { label: ctx.config.oidc.label } : null }),
  }),
  viewerSessions: t.field({
    type: [BrowserSessionType],
    description: `The caller's signed-in browsers (not expired, not revoked), most recently seen first. ${LECTERN}`,
    resolve: (_r, _a, ctx) => viewerSessions(ctx),
  }),
  viewerApiTokens: t.field({
    type: [ApiTokenType],
    description: `The caller's personal API tokens, newest first. ${LECTERN}`,
    resolve: (_r, _a, ctx) => viewerApiTokens(ctx),
  }),
}));

builder.mutationFields((t) => ({
  signIn: t.field({
    type: UserType,
    description: `Sign in with email and password (no authentication needed): sets the lectern_session cookie. Rate limited per account and address (RATE_LIMITED, extensions.retryAfter). ${LECTERN}`,
    args: { email: t.arg.string({ required: true }), password: t.arg.string({ required: true }) },
    resolve: (_r, args, ctx) => signIn(ctx, args.email, args.password),
  }),
  signOut: t.boolean({
    description: `End the current browser session and remove its cookie. ${LECTERN}`,
    resolve: (_r, _a, ctx) => signOut(ctx),
  }),
  resetPassword: t.field({
    type: UserType,
    description: `Set a password with a one-time link's token (no authentication needed); signs in (sets the cookie) and ends the person's other sessions. ${LECTERN}`,
    args: { token: t.arg.string({ required: true }), password: t.arg.string({ required: true }) },
    resolve: (_r, args, ctx) => resetPassword(ctx, args.token, args.password),
  }),
  revokeSession: t.boolean({
    description: `End one of the caller's browser sessions (at once). ${LECTERN}`,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, args, ctx) => revokeSession(ctx, String(args.id)),
  }),
  createApiToken: t.field({
    type: CreatedApiTokenType,
    description: `Create a personal API token for the caller (shown once). ${LECTERN}`,
    args: { label: t.arg.string({ required: true }) },
    resolve: (_r, args, ctx) => createApiToken(ctx, args.label),
  }),
  revokeApiToken: t.boolean({
    description: `Revoke one of the caller's personal API tokens (it stops working at once). ${LECTERN}`,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, args, ctx) => revokeApiToken(ctx, String(args.id)),
  }),
  changePassword: t.boolean({
    description: `Change the caller's password (currentPassword required when one is set); the caller's other sessions end. ${LECTERN}`,
    args: { currentPassword: t.arg.string({ required: false }), newPassword: t.arg.string({ required: true }) },
    resolve: (_r, args, ctx) => changePassword(ctx, args.currentPassword, args.newPassword),
  }),
  createPasswordResetLink: t.field({
    type: PasswordResetLinkType,
    description: `An organization admin's one-time link for a member to set ("set your password", for an invited person) or reset their password. ${LECTERN}`,
    args: { organizationId: t.arg.id({ required: true }), userId: t.arg.id({ required: true }) },
    resolve: (_r, args, ctx) => createPasswordResetLink(ctx, String(args.organizationId), String(args.userId)),
  }),
}));
