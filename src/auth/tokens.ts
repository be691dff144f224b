import { createHash, randomBytes } from 'node:crypto';
import type { PrismaClient } from '../generated/prisma/client.js';
import { newId } from '../ids.js';

/** Tokens carry 192 random bits; only their SHA-256 hash is stored. */
export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * `sso` marks the token of a SAML sign-in: it reaches only that organization and expires (see
 * src/modules/sso). Ordinary tokens (CLI) have neither.
 */
export async function issueToken(
  prisma: PrismaClient,
  userId: string,
  label?: string,
  sso?: { organizationId: string; expiresAt: Date },
): Promise<string> {
  const token = `lct_${randomBytes(24).toString('base64url')}`;
  await prisma.apiToken.create({
    data: { id: newId(), userId, hash: hashToken(token), label, ssoOrganizationId: sso?.organizationId, expiresAt: sso?.expiresAt },
  });
  return token;
}

/** The bearer token of a request, or null. Never logged. */
export function bearerToken(request: Request): string | null {
  const header = request.headers.get('authorization');
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match ? match[1]! : null;
}
