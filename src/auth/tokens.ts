import { hash, randomBytes, randomUUID } from 'node:crypto';
import type { PrismaClient } from '../generated/prisma/client.js';
import { newId } from '../ids.js';

/** Tokens carry 192 random bits; only their SHA-256 hash is stored. */
// The one-shot `hash` (Node 20.12+) takes 0.4 µs where a Hash object took 1.0: every request hashes its token.
export const hashToken = (token: string) => hash('sha256', token, 'hex');

/** A new API token's secret (shown once; store `hashToken` of it). */
export const newApiToken = () => `lct_${randomBytes(24).toString('base64url')}`;

/**
 * `sso` marks the token of a SAML sign-in: it reaches only that organization and expires (see
 * src/modules/sso). Ordinary tokens (CLI) have neither.
 *
 * Making a token is a write no GraphQL mutation records, so it appends its own audit event (the
 * table of src/modules/audit), in the same transaction when `prisma` is one: `ssoSignIn` (in the
 * organization, source `sso`) or `createApiToken` (no organization, source `cli`), with the token's
 * id, never the token.
 */
export async function issueToken(
  prisma: PrismaClient,
  userId: string,
  label?: string,
  sso?: { organizationId: string; expiresAt: Date; clientAddress?: string | null },
): Promise<string> {
  const token = newApiToken();
  const id = newId();
  await prisma.apiToken.create({
    data: { id, userId, hash: hashToken(token), label, ssoOrganizationId: sso?.organizationId, expiresAt: sso?.expiresAt },
  });
  await prisma.auditEvent.create({
    data: {
      id: randomUUID(),
      organizationId: sso?.organizationId ?? null,
      action: sso ? 'ssoSignIn' : 'createApiToken',
      actorId: userId,
      tokenId: id,
      source: sso ? 'sso' : 'cli',
      targetType: 'api-token',
      targetId: id,
      clientAddress: sso?.clientAddress ?? null,
      payload: { after: { label: label ?? null, ...(sso ? { expiresAt: sso.expiresAt.toISOString() } : {}) } },
    },
  });
  return token;
}

/** The bearer token of a request, or null. Never logged. */
export function bearerToken(request: Request): string | null {
  const header = request.headers.get('authorization');
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match ? match[1]! : null;
}
