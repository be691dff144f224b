import { SAML, ValidateInResponseTo, type CacheProvider, type Profile } from '@node-saml/node-saml';
import type { Services } from '../../context.js';
import { issueToken } from '../../auth/tokens.js';
import { Prisma, type PrismaClient, type SamlProvider, type User } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import { MAX_DEPTH, MAX_ELEMENTS, xmlShapeProblem } from './xml-shape.js';

/**
 * The service-provider side of SAML 2.0 (Web Browser SSO profile), on @node-saml/node-saml.
 *
 * - Start (`GET /sso/saml/{provider}/start`): an AuthnRequest to the provider's `ssoURL`
 *   (HTTP-Redirect binding). Its id is kept (table SamlNonce) so the response can be matched.
 * - ACS (`POST /sso/saml/{provider}/acs`, HTTP-POST binding): the assertion must be signed with the
 *   provider's certificate, addressed to this provider's service entity id (audience), issued by
 *   the provider's `entityID`, within its validity window and at most 10 minutes old, for this ACS
 *   URL (Recipient, when given), and never seen before (assertion ids are kept until they could no
 *   longer be valid). A response to an AuthnRequest must answer one this server made (InResponseTo);
 *   unsolicited (IdP-initiated) responses are accepted on the same conditions.
 * - The person is found by the provider's NameID (linked on their first sign-in), else by email:
 *   an existing account is linked only when it consented, signed in as itself, to this
 *   organization's single sign-on (it accepted an invitation: src/modules/invites/account-invitations.ts),
 *   so no organization's identity provider can take over an account; else a new account is made
 *   (email unverified: Lectern did not verify it).
 * - A newcomer joins the organization with the provider's `defaultRole`; on a first sign-in
 *   through the provider, the person is also put in its `defaultTeam`. A member's role is never
 *   changed by signing in; a disabled member is refused.
 * - The answer is a new API token that reaches only this organization and expires after 12 hours.
 */

export const SSO_TOKEN_TTL_MS = 12 * 60 * 60 * 1000;
const REQUEST_TTL_MS = 10 * 60 * 1000;
const ASSERTION_MAX_AGE_MS = 10 * 60 * 1000;
const CLOCK_SKEW_MS = 2 * 60 * 1000;

const SSO_CONSENT_NEEDED =
  'Single sign-on cannot sign this person in to this organization yet: an admin invites them (POST /v1/orgs/{organizationId}/invites) and they accept while signed in to Lectern (POST /v1/orgs/{organizationId}/invitation/accept); then sign in again';

/** A refusal of the sign-in, answered with `status` and a message (no internals). */
export class SsoRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** AuthnRequest ids in the database, so any Lectern process can receive the response. */
class RequestIdStore implements CacheProvider {
  constructor(
    private prisma: PrismaClient,
    private providerId: string,
  ) {}

  private key(id: string) {
    return `req:${this.providerId}:${id}`;
  }

  async saveAsync(id: string, value: string) {
    await this.prisma.samlNonce.create({ data: { key: this.key(id), value, expiresAt: new Date(Date.now() + REQUEST_TTL_MS) } });
    return { value, createdAt: Date.now() };
  }

  async getAsync(id: string) {
    const row = await this.prisma.samlNonce.findUnique({ where: { key: this.key(id) } });
    return row && row.expiresAt > new Date() ? row.value : null;
  }

  async removeAsync(id: string | null) {
    if (!id) return null;
    const { count } = await this.prisma.samlNonce.deleteMany({ where: { key: this.key(id) } });
    return count ? id : null;
  }
}

export function samlFor(services: Services, provider: SamlProvider) {
  const sp = services.urls.samlService(provider.id);
  return new SAML({
    entryPoint: provider.ssoURL,
    issuer: sp.entityID,
    callbackUrl: sp.acsURL,
    audience: sp.entityID,
    idpCert: provider.certificate,
    // Only the assertion's signature is required (many providers do not sign the whole response);
    // a signed response is accepted as well.
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    validateInResponseTo: ValidateInResponseTo.ifPresent,
    requestIdExpirationPeriodMs: REQUEST_TTL_MS,
    cacheProvider: new RequestIdStore(services.db.prisma, provider.id),
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    maxAssertionAgeMs: ASSERTION_MAX_AGE_MS,
    // Let the provider choose the NameID format; the email comes from it or from an attribute.
    identifierFormat: null,
    disableRequestedAuthnContext: true,
  });
}

/** Removes expired one-time values (run on every start and ACS request: one indexed statement). */
export async function purgeNonces(prisma: PrismaClient) {
  await prisma.samlNonce.deleteMany({ where: { expiresAt: { lt: new Date() } } });
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const first = (value: unknown): string | undefined => {
  const v = Array.isArray(value) ? value[0] : value;
  return typeof v === 'string' && v.trim() ? v.trim() : undefined;
};

/** The person's email: an email attribute, else a NameID that is an email. */
function emailOf(profile: Profile): string | undefined {
  const candidates = [
    profile.email,
    profile.mail,
    profile['http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress'],
    profile.nameID,
  ];
  for (const c of candidates) {
    const v = first(c);
    if (v && EMAIL.test(v)) return v.toLowerCase();
  }
  return undefined;
}

function displayNameOf(profile: Profile, email: string): string {
  const named =
    first(profile.displayName) ?? first(profile['http://schemas.microsoft.com/identity/claims/displayname']) ?? first(profile.name);
  if (named) return named.slice(0, 255);
  const given = first(profile.givenName) ?? first(profile.firstName);
  const family = first(profile.sn) ?? first(profile.surname) ?? first(profile.lastName);
  const joined = [given, family].filter(Boolean).join(' ');
  return (joined || email.split('@')[0]!).slice(0, 255);
}

type Parsed = {
  Assertion?: {
    $?: { ID?: string };
    Subject?: { SubjectConfirmation?: { SubjectConfirmationData?: { $?: { Recipient?: string } }[] }[] }[];
  };
};

/** Checks node-saml leaves to its caller: the issuer, the Recipient, and replays. */
async function checkAssertion(services: Services, provider: SamlProvider, profile: Profile) {
  if (profile.issuer !== provider.entityID) {
    throw new SsoRefused(401, `SAML assertion refused: issued by "${profile.issuer ?? ''}", not by this provider's entity id`);
  }
  const assertion = (profile.getAssertion?.() as Parsed | undefined)?.Assertion;
  const acsURL = services.urls.samlService(provider.id).acsURL;
  const recipients = (assertion?.Subject?.[0]?.SubjectConfirmation ?? [])
    .map((c) => c.SubjectConfirmationData?.[0]?.$?.Recipient)
    .filter((r): r is string => typeof r === 'string');
  if (recipients.length && !recipients.includes(acsURL)) throw new SsoRefused(401, 'SAML assertion refused: it is for another recipient');
  const id = assertion?.$?.ID;
  if (!id) throw new SsoRefused(401, 'SAML assertion refused: it has no ID');
  try {
    await services.db.prisma.samlNonce.create({
      data: { key: `asr:${provider.id}:${id}`, value: '', expiresAt: new Date(Date.now() + ASSERTION_MAX_AGE_MS + 2 * CLOCK_SKEW_MS) },
    });
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
      throw new SsoRefused(401, 'SAML assertion refused: it was already used');
    }
    throw error;
  }
}

export interface SignedIn {
  /** The SSO token, for an API client; absent for a browser, which gets a session instead. */
  token?: string;
  expiresAt: Date;
  user: User;
  organizationId: string;
}

/**
 * Validates a SAMLResponse (base64, from the ACS form) and signs its subject in: with an SSO token
 * (`withToken`, an API client), or without one for a browser that the caller gives a session.
 */
export async function signIn(
  services: Services,
  provider: SamlProvider,
  samlResponse: string,
  clientAddress: string | null = null,
  opts: { withToken?: boolean } = {},
): Promise<SignedIn> {
  const prisma = services.db.prisma;
  // Bounded work before the library's (see xml-shape.ts): a linear scan of the decoded XML.
  const problem = xmlShapeProblem(Buffer.from(samlResponse, 'base64').toString('utf8'));
  if (problem) {
    const why = {
      doctype: 'contains a DTD (<!DOCTYPE/<!ENTITY), which SAML does not use',
      elements: `has more than ${MAX_ELEMENTS} XML elements; no identity provider's answer is that large`,
      depth: `nests XML elements deeper than ${MAX_DEPTH} levels`,
      assertions: 'carries more than one assertion',
      malformed: 'is not well-formed XML',
    }[problem];
    throw new SsoRefused(400, `SAMLResponse: ${why}`);
  }
  let profile: Profile | null;
  try {
    ({ profile } = await samlFor(services, provider).validatePostResponseAsync({ SAMLResponse: samlResponse }));
  } catch (error) {
    // node-saml's messages say what failed (signature, audience, validity…) and hold no secrets.
    throw new SsoRefused(401, `SAML response refused: ${error instanceof Error ? error.message : 'invalid'}`);
  }
  if (!profile?.nameID) throw new SsoRefused(401, 'SAML response refused: it signs no one in');
  await checkAssertion(services, provider, profile);
  const email = emailOf(profile);
  if (!email) throw new SsoRefused(400, 'SAML assertion has no email: send it as the NameID or as an email attribute');
  const organizationId = provider.organizationId;
  const nameID = profile.nameID;
  const now = new Date();
  const expiresAt = new Date(now.getTime() + SSO_TOKEN_TTL_MS);

  return prisma.$transaction(async (tx) => {
    const identity = await tx.samlIdentity.findUnique({
      where: { providerId_nameID: { providerId: provider.id, nameID } },
      include: { user: true },
    });
    let user = identity?.user ?? null;
    if (!user) {
      user = await tx.user.findUnique({ where: { email } });
      if (user) {
        const member = await tx.member.findUnique({ where: { organizationId_userId: { organizationId, userId: user.id } } });
        // Linking needs the account's own consent (it accepted an invitation, signed in as itself):
        // else an admin could invite anyone's account and sign it in through an identity provider
        // they control. The message says nothing about whether an account exists.
        if (!member?.ssoConsentAt) throw new SsoRefused(403, SSO_CONSENT_NEEDED);
      } else {
        user = await tx.user.create({ data: { id: newId(), email, displayName: displayNameOf(profile, email), emailVerified: false } });
      }
      await tx.samlIdentity.create({ data: { providerId: provider.id, nameID, userId: user.id } });
    } else {
      await tx.samlIdentity.update({ where: { providerId_nameID: { providerId: provider.id, nameID } }, data: { lastSignInAt: now } });
    }

    const member = await tx.member.findUnique({ where: { organizationId_userId: { organizationId, userId: user.id } } });
    if (member?.disabled) throw new SsoRefused(403, 'Your membership of this organization is disabled');
    if (member) {
      await tx.member.update({
        where: { organizationId_userId: { organizationId, userId: user.id } },
        data: { sso: true, lastSeenAt: now },
      });
    } else {
      await tx.member.create({ data: { organizationId, userId: user.id, role: provider.defaultRole, sso: true, lastSeenAt: now } });
    }
    if (!identity && provider.defaultTeamId) {
      await tx.teamMember.createMany({
        data: [{ teamId: provider.defaultTeamId, organizationId, userId: user.id, role: 'member' }],
        skipDuplicates: true,
      });
    }
    if (opts.withToken === false) return { expiresAt, user, organizationId };
    const token = await issueToken(tx as unknown as PrismaClient, user.id, `SSO: ${provider.label}`, {
      organizationId,
      expiresAt,
      clientAddress,
    });
    return { token, expiresAt, user, organizationId };
  });
}
