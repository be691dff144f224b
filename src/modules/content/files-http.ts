import { openFileToken } from '../../file-urls.js';
import { DOWNLOAD_HEADERS, noSuchFile } from '../../http/download.js';
import type { HttpRoute, RouteCall } from '../../http/routes.js';
import { serverKeys } from '../../secrets.js';

/**
 * `/files/<space>/<file>/<name>?expires=…&token=…`: a file's bytes while the signed URL is valid and
 * the space exists (src/file-urls.ts); no token: the URL is the capability.
 */
const CONTENT_TYPE = /^[\w.+-]+\/[\w.+-]+$/;

async function serveFile({ services, request, params }: RouteCall): Promise<Response> {
  const { spaceId, fileId, name } = params as { spaceId: string; fileId: string; name: string };
  const query = new URL(request.url).searchParams;
  const now = Date.now();
  const grant = openFileToken(await serverKeys(services), spaceId, fileId, query.get('expires'), query.get('token'), now);
  if (!grant) return noSuchFile();
  // Checked on every request: deleting the space revokes its files' URLs.
  const space = await services.db.prisma.space.findUnique({ where: { id: spaceId }, select: { deletedAt: true } });
  if (!space || space.deletedAt) return noSuchFile();
  const blob = await services.db.prisma.fileBlob.findUnique({ where: { hash: grant.blob } });
  if (!blob) return noSuchFile();
  return new Response(new Uint8Array(blob.data), {
    status: 200,
    headers: {
      ...DOWNLOAD_HEADERS,
      'content-type': CONTENT_TYPE.test(grant.contentType) ? grant.contentType : 'application/octet-stream',
      'content-length': String(blob.size),
      'content-disposition': `inline; filename*=UTF-8''${encodeURIComponent(name)}`,
      // A space's files are private content, whatever the space's visibility today (it can change,
      // and the URL outlives it): only the holder's own browser may keep them, never a shared
      // cache, and not past the URL's expiry.
      'cache-control': `private, max-age=${Math.max(0, grant.expires - Math.floor(now / 1000))}`,
    },
  });
}

export const filesHttpRoutes: HttpRoute[] = [
  { method: 'GET', path: '/files/:spaceId/:fileId/:name', handle: serveFile },
  // Any other path below /files gets the same answer as a refused URL.
  { method: 'GET', path: '/files/*', handle: noSuchFile },
];
