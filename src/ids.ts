import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** An opaque, unguessable id: 20 base62 characters (~119 bits of randomness). */
export function newId(length = 20): string {
  const bytes = randomBytes(length * 2);
  let id = '';
  // Rejection sampling keeps every character equally likely (248 = 4 * 62).
  for (let i = 0; i < bytes.length && id.length < length; i++) {
    if (bytes[i]! < 248) id += ALPHABET[bytes[i]! % 62];
  }
  return id.length === length ? id : newId(length);
}
