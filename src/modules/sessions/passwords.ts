import { hash, verify } from '@node-rs/argon2';
import { badRequest } from '../../errors.js';

/**
 * Argon2id (the algorithm number of @node-rs/argon2's const enum, which isolated modules cannot
 * read) with OWASP's minimum parameters: 19 MiB of memory, 2 passes, 1 lane. The PHC string it
 * answers carries them, so raising them later keeps older hashes verifiable.
 */
const ARGON2ID = 2;
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const MIN_PASSWORD = 8;
/** Long passphrases are fine; unbounded input to a deliberately slow hash is not. */
export const MAX_PASSWORD = 256;

/** A new password's rules (the field named for a 400). */
export function checkPassword(field: string, password: string): string {
  if ([...password].length < MIN_PASSWORD) throw badRequest(field, `must be at least ${MIN_PASSWORD} characters`);
  if (password.length > MAX_PASSWORD) throw badRequest(field, `must be at most ${MAX_PASSWORD} characters`);
  return password;
}

export const hashPassword = (password: string) => hash(password, OPTIONS as never);

// Verified when the email has no account or no password, so both answers take the same time.
let decoy: Promise<string> | undefined;

/** Whether `password` matches `stored` (a PHC string); with no stored hash, false after the same work. */
export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  if (!stored) {
    decoy ??= hashPassword('decoy password for unknown accounts');
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}
