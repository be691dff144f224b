import type { ServerKeys } from './secrets.js';
import type { Urls } from './urls.js';

/**
 * Download URLs of a space's files: `/files/<space id>/<file id>/<name>?expires=<unix s>&token=…`.
 *
 * The token seals (src/secrets.ts) the file's blob and content type, bound to the space, the file
 * and the expiry: it cannot be made without the server key, moved to another file or space, or
 * extended. Each request is also checked against the space (it must exist and not be deleted), so
 * deleting the space revokes every URL of its files at once; expiry revokes a URL handed to
 * someone who has since lost access. The blob's hash is not in the URL: knowing a file's content
 * no longer lets anyone confirm or fetch it.
 *
 * A URL lives one to two hours: the expiry is rounded up to a whole hour so the same file has the
 * same URL for an hour (answers repeat; browsers can cache), then a fresh one is handed out.
 */
export const FILE_URL_HOUR_S = 3600;

export interface SignableFile {
  id: string;
  name: string;
  contentType: string;
  blob: string;
}

const context = (spaceId: string, fileId: string, expires: number) => `file\n${spaceId}\n${fileId}\n${expires}`;

export function signedFileUrl(urls: Urls, keys: ServerKeys, spaceId: string, file: SignableFile, now = Date.now()): string {
  const expires = (Math.floor(now / 1000 / FILE_URL_HOUR_S) + 2) * FILE_URL_HOUR_S;
  const token = keys.seal(context(spaceId, file.id, expires), JSON.stringify({ b: file.blob, t: file.contentType }));
  return urls.fileDownload(spaceId, file.id, file.name, { expires, token });
}

/** What a file URL's token grants: the blob and content type to serve, until `expires` (unix s); null when invalid or expired. */
export function openFileToken(
  keys: ServerKeys,
  spaceId: string,
  fileId: string,
  expiresParam: string | null,
  token: string | null,
  now = Date.now(),
) {
  if (!expiresParam || !/^\d{1,12}$/.test(expiresParam) || !token) return null;
  const expires = Number(expiresParam);
  if (expires * 1000 <= now) return null;
  const text = keys.open(context(spaceId, fileId, expires), token);
  if (!text) return null;
  const { b, t } = JSON.parse(text) as { b: string; t: string };
  return { blob: b, contentType: t, expires };
}
