import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ServerKeys } from '../../secrets.js';

/**
 * A connection's webhook secret: 192 random bits, made when the space is connected (or connected
 * to another remote, branch or folder), stored sealed (AES-GCM with the server key, bound to the
 * space): the provider's HMAC needs the secret itself, so a hash would not do. Shown only to the
 * space's admins (GET /v1/spaces/:spaceId/git/webhook), never logged.
 */
const SEAL = (spaceId: string) => `git-sync-webhook:${spaceId}`;

export const newWebhookSecret = (keys: ServerKeys, spaceId: string) => keys.seal(SEAL(spaceId), randomBytes(24).toString('base64url'));
export const openWebhookSecret = (keys: ServerKeys, spaceId: string, sealed: string | null) => keys.open(SEAL(spaceId), sealed);

const equal = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);
const hmacHex = (secret: string, body: Uint8Array) => createHmac('sha256', secret).update(body).digest();

/**
 * Which provider signed a delivery with `secret`, or null when none did:
 * - GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>` (Gitea and Forgejo send it too);
 * - Gitea / Gogs / Forgejo: `X-Gitea-Signature` (`X-Gogs-Signature`, `X-Forgejo-Signature`): the bare hex HMAC;
 * - GitLab: `X-Gitlab-Token: <the secret>` (no signature: the shared secret itself), compared as
 *   SHA-256 digests so the comparison takes the same time whatever the length.
 * Every comparison is constant-time; a header that is present but wrong is a refusal, not a fall-through.
 */
export function verifyDelivery(headers: Headers, body: Uint8Array, secret: string): 'github' | 'gitea' | 'gitlab' | null {
  const hub = headers.get('x-hub-signature-256');
  const gitea = headers.get('x-gitea-signature') ?? headers.get('x-forgejo-signature') ?? headers.get('x-gogs-signature');
  const gitlab = headers.get('x-gitlab-token');
  if (!hub && !gitea && gitlab === null) return null;
  const mac = hub || gitea ? hmacHex(secret, body) : undefined;
  if (hub && !(/^sha256=[0-9a-f]{64}$/i.test(hub) && equal(Buffer.from(hub.slice(7), 'hex'), mac!))) return null;
  if (gitea && !(/^[0-9a-f]{64}$/i.test(gitea) && equal(Buffer.from(gitea, 'hex'), mac!))) return null;
  if (gitlab !== null && !equal(createHash('sha256').update(gitlab).digest(), createHash('sha256').update(secret).digest())) return null;
  if (gitea || headers.has('x-gitea-event') || headers.has('x-forgejo-event')) return 'gitea';
  return hub ? 'github' : 'gitlab';
}
