import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { PrismaClient } from './generated/prisma/client.js';

/**
 * Secrets at rest, and the server's own key.
 *
 * - `hashSecret`: what is stored of a bearer secret that is only ever looked up (PDF export ids),
 *   and the lookup column of those that must also be shown again (share-link keys, invite codes):
 *   SHA-256, like API tokens (src/auth/tokens.ts). The values carry ≥ 190 random bits, so a plain
 *   hash is enough, and the migration can hash existing rows in SQL.
 * - `ServerKeys`: keys derived (HKDF) from one master secret: one signs file download URLs, one
 *   seals (AES-256-GCM) the secrets the official API shows again to admins.
 *
 * The master secret is LECTERN_SECRET_KEY when set (then a copy of the database alone opens
 * nothing); otherwise 32 random bytes made on first start and kept in the database (table
 * ServerSecret), so that every process on one database agrees without configuration. It is never
 * logged or answered. Changing LECTERN_SECRET_KEY invalidates signed file URLs (they expire within
 * hours anyway) and hides the sealed values made under the old key (their links keep working).
 */
export const hashSecret = (value: string) => createHash('sha256').update(value).digest('hex');

const MIN_ENV_KEY = 32;

export class ServerKeys {
  private readonly signing: Buffer;
  private readonly sealing: Buffer;

  constructor(master: Buffer) {
    const derive = (info: string) => Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `lectern ${info}`, 32));
    this.signing = derive('signing v1');
    this.sealing = derive('sealing v1');
  }

  /** An HMAC-SHA256 of `parts` (joined unambiguously), base64url. */
  sign(parts: string[]): string {
    return createHmac('sha256', this.signing).update(JSON.stringify(parts)).digest('base64url');
  }

  /** Whether `signature` is `sign(parts)`, compared in constant time. */
  verify(parts: string[], signature: string): boolean {
    const expected = Buffer.from(this.sign(parts), 'base64url');
    const given = Buffer.from(signature, 'base64url');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /**
   * `text` encrypted and authenticated (AES-256-GCM), bound to `context` (a value sealed for one
   * purpose does not open for another). The IV is derived from the key, context and text (SIV
   * style): the same text seals the same way, so nothing is lost by not storing a random IV and
   * no IV is ever reused for two different texts.
   */
  seal(context: string, text: string): string {
    const iv = createHmac('sha256', this.sealing).update(`${context}\0${text}`).digest().subarray(0, 12);
    const cipher = createCipheriv('aes-256-gcm', this.sealing, iv);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `v1.${iv.toString('base64url')}.${body.toString('base64url')}`;
  }

  /** The text of `sealed` for `context`; null when it was sealed under another key or context, or altered. */
  open(context: string, sealed: string | null | undefined): string | null {
    const [version, iv, body] = (sealed ?? '').split('.');
    if (version !== 'v1' || !iv || !body) return null;
    try {
      const bytes = Buffer.from(body, 'base64url');
      if (bytes.length < 16) return null;
      const decipher = createDecipheriv('aes-256-gcm', this.sealing, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(bytes.subarray(bytes.length - 16));
      return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}

type Holder = { db: { prisma: PrismaClient }; config: { secretKey?: string } };

// One load per database client (a cache of what the database holds, so no state another process needs).
const loaded = new WeakMap<PrismaClient, Promise<ServerKeys>>();

/** The server's keys: from LECTERN_SECRET_KEY, else from the database (made on first use). */
export function serverKeys({ db, config }: Holder): Promise<ServerKeys> {
  let keys = loaded.get(db.prisma);
  if (!keys) {
    keys = loadKeys(db.prisma, config.secretKey);
    loaded.set(db.prisma, keys);
    // A failed load (database down) is retried by the next caller rather than cached.
    keys.catch(() => loaded.delete(db.prisma));
  }
  return keys;
}

async function loadKeys(prisma: PrismaClient, envKey: string | undefined): Promise<ServerKeys> {
  if (envKey !== undefined) {
    if (envKey.length < MIN_ENV_KEY)
      throw new Error(`LECTERN_SECRET_KEY must be at least ${MIN_ENV_KEY} characters (e.g. openssl rand -base64 32)`);
    return new ServerKeys(Buffer.from(envKey, 'utf8'));
  }
  // Concurrent first starts: one insert wins, every process reads the same row.
  await prisma.serverSecret.createMany({ data: [{ name: 'master', value: randomBytes(32) }], skipDuplicates: true });
  const row = await prisma.serverSecret.findUniqueOrThrow({ where: { name: 'master' } });
  return new ServerKeys(Buffer.from(row.value));
}
