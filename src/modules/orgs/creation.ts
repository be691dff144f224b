import type { Context } from '../../context.js';
import { badRequest, forbidden } from '../../errors.js';
import { builder, type Model } from '../../graphql/builder.js';
import * as check from '../../validate.js';
import { OrganizationType } from './organization.js';
import { createOrganization } from './service.js';

/**
 * createOrganization (POST /orgs) and getOrganizationsForEmailDomain (GET /email-domains/{d}/orgs),
 * the two organization operations that start from a user rather than from an organization.
 */

export interface CreateOrganizationInput {
  title?: string | null;
  emailDomains?: string[] | null;
  onboardingPreferences?: unknown;
}

/**
 * Any signed-in user creates an organization and becomes its admin. Not with a token from another
 * organization's single sign-on: it reaches only that organization, so it could not even read the
 * new one. `withDefaultSite` is refused: this server does not set up sites on its own (create one
 * with createSite); `onboardingPreferences` and `openapiUrl` only serve that default site (as the
 * official description says), so without it they are checked for shape and otherwise unused.
 */
export async function createOrganizationForCaller(
  ctx: Context,
  input: CreateOrganizationInput,
  opts: { withDefaultSite?: boolean | null },
) {
  if (ctx.session.ssoOrganizationId !== null) {
    throw forbidden(
      'This token comes from the single sign-on of an organization and reaches only that organization: use an ordinary token to create one',
    );
  }
  if (opts.withDefaultSite)
    throw badRequest('withDefaultSite', 'this server does not create a default site: create one with POST /v1/orgs/{organizationId}/sites');
  if (input.title == null) throw badRequest('title', 'is required');
  if (input.emailDomains === null) throw badRequest('emailDomains', 'cannot be null');
  if (input.onboardingPreferences != null) check.object('onboardingPreferences', input.onboardingPreferences);
  return createOrganization(ctx.prisma, { title: input.title, ownerId: ctx.caller.id, emailDomains: input.emailDomains ?? [] });
}

/** At most this many organizations are listed for a domain (its admins choose their domains without proving them). */
export const EMAIL_DOMAIN_ORGANIZATIONS_MAX = 100;

/**
 * The organizations a caller could join by their email domain (joinOrganization). The official
 * operation is for GitBook's own application (`user-internal`); here any signed-in user may ask,
 * but only about the domain of their own verified email — so they learn nothing beyond what they
 * could join — and another domain is refused (403). A token from an organization's single sign-on
 * sees only that organization. Oldest first, at most EMAIL_DOMAIN_ORGANIZATIONS_MAX.
 */
export async function organizationsForEmailDomain(ctx: Context, emailDomain: string) {
  const domain = emailDomain.trim().toLowerCase();
  const own = ctx.caller.email.split('@')[1]?.toLowerCase();
  if (!ctx.caller.emailVerified || !own) throw forbidden('Only a user with a verified email can list the organizations of its domain');
  if (domain !== own) throw forbidden(`emailDomain: you can list only the organizations of your own email's domain (${own})`);
  const scope = ctx.session.ssoOrganizationId;
  return ctx.prisma.organization.findMany({
    where: { emailDomains: { has: domain }, ...(scope ? { id: scope } : {}) },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take: EMAIL_DOMAIN_ORGANIZATIONS_MAX,
  });
}

const OnboardingPreferencesInput = builder.inputType('SiteOnboardingPreferencesInput', {
  description: 'Official SiteOnboardingPreferences: accepted, not used (no default site is made)',
  fields: (t) => ({ source: t.string(), audience: t.string(), interests: t.stringList() }),
});

const CreateOrganizationInputType = builder.inputType('CreateOrganizationInput', {
  fields: (t) => ({
    title: t.string({ description: 'Required, 2..255 characters' }),
    emailDomains: t.stringList({ description: 'Email domains whose verified users may join' }),
    onboardingPreferences: t.field({
      type: OnboardingPreferencesInput,
      description: 'Only used with withDefaultSite, which this server refuses',
    }),
  }),
});

const EmailDomainOrganizations = builder.objectRef<{ organizations: Model<'Organization'>[] }>('EmailDomainOrganizations').implement({
  fields: (t) => ({ organizations: t.field({ type: [OrganizationType], resolve: (r) => r.organizations }) }),
});

builder.mutationField('createOrganization', (t) =>
  t.field({
    type: OrganizationType,
    description: 'Create an organization; the caller becomes its admin',
    args: {
      input: t.arg({ type: CreateOrganizationInputType, required: true }),
      withDefaultSite: t.arg.boolean({ required: false }),
    },
    resolve: (_r, args, ctx) => createOrganizationForCaller(ctx, args.input, { withDefaultSite: args.withDefaultSite }),
  }),
);

builder.queryField('organizationsForEmailDomain', (t) =>
  t.field({
    type: EmailDomainOrganizations,
    description: 'Organizations that admit the email domain of the caller’s verified email',
    args: { emailDomain: t.arg.string({ required: true }) },
    resolve: async (_r, { emailDomain }, ctx) => ({ organizations: await organizationsForEmailDomain(ctx, emailDomain) }),
  }),
);
