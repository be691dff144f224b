import { timingSafeEqual } from 'node:crypto';
import type { ServerKeys } from '../../secrets.js';

/**
 * Document ids (a page's `documentId`, read back by `getDocumentById`). A page body is stored once,
 * content-addressed by its SHA-256 (store.ts), and shared by every page, revision and space with
 * that text, so the body's hash names an immutable document: unchanged pages keep their id across
 * revisions, and a client may cache a document forever. Nothing records which spaces use a body,
 * so the id also carries a MAC of (space, hash) under the server key: `getDocumentById` answers a
 * document only in a space Lectern handed its id out for (any other space: 404) with no lookup,
 * and knowing a text gives no way to confirm it exists in a space one can read.
 *
 * Format: base64url of the 32-byte hash followed by the first 16 bytes of the MAC (64 characters).
 */
const HASH_BYTES = 32;
const MAC_BYTES = 16;
const ID = /^[A-Za-z0-9_-]{64}$/;

const macOf = (keys: ServerKeys, spaceId: string, hash: string) =>
  Buffer.from(keys.sign(['document', spaceId, hash]), 'base64url').subarray(0, MAC_BYTES);

export function documentIdOf(keys: ServerKeys, spaceId: string, bodyHash: string): string {
  return Buffer.concat([Buffer.from(bodyHash, 'hex'), macOf(keys, spaceId, bodyHash)]).toString('base64url');
}

/** The body hash a document id names in `spaceId`; undefined when the id was not made for that space (or is no id at all). */
export function bodyHashOfDocument(keys: ServerKeys, spaceId: string, documentId: string): string | undefined {
  if (!ID.test(documentId)) return undefined;
  const bytes = Buffer.from(documentId, 'base64url');
  if (bytes.length !== HASH_BYTES + MAC_BYTES) return undefined;
  const hash = bytes.subarray(0, HASH_BYTES).toString('hex');
  const mac = bytes.subarray(HASH_BYTES);
  return timingSafeEqual(mac, macOf(keys, spaceId, hash)) ? hash : undefined;
}
