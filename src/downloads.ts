import type { Services } from './context.js';
import { errorResponse } from './rest/adapter.js';
import { renderPdfExport } from './modules/change-requests/exports.js';

/**
 * The two token-less download routes; their unguessable URLs are the capability:
 * - `/files/<blob>/<name>[?type=<content type>]`: a file's bytes (the blob is their SHA-256);
 * - `/exports/<id>.pdf`: a change request's PDF export, rendered on request, for an hour.
 */
const CONTENT_TYPE = /^[\w.+-]+\/[\w.+-]+$/;
const BLOB = /^[0-9a-f]{64}$/;

// Uploaded bytes are served on the API's origin: never let a browser run them as a page.
const SAFE_HEADERS = { 'x-content-type-options': 'nosniff', 'content-security-policy': "sandbox; default-src 'none'" };

export async function serveDownload(services: Services, request: Request, pathname: string): Promise<Response> {
  if (request.method !== 'GET' && request.method !== 'HEAD') return errorResponse(405, 'Only GET is allowed here');
  const head = request.method === 'HEAD';

  const exportMatch = pathname.match(/^\/exports\/([^/]+)\.pdf$/);
  if (exportMatch) {
    const pdf = await renderPdfExport(services.db.prisma, exportMatch[1]!);
    if (!pdf) return errorResponse(404, 'No such export (exports last one hour)');
    return new Response(head ? null : new Uint8Array(pdf), {
      status: 200,
      headers: { ...SAFE_HEADERS, 'content-type': 'application/pdf', 'content-length': String(pdf.length), 'cache-control': 'private, no-store' },
    });
  }

  const fileMatch = pathname.match(/^\/files\/([^/]+)\/([^/]+)$/);
  if (fileMatch && BLOB.test(fileMatch[1]!)) {
    const blob = await services.db.prisma.fileBlob.findUnique({ where: { hash: fileMatch[1]! } });
    if (blob) {
      let name: string;
      try {
        name = decodeURIComponent(fileMatch[2]!);
      } catch {
        name = 'file';
      }
      const type = new URL(request.url).searchParams.get('type') ?? '';
      return new Response(head ? null : new Uint8Array(blob.data), {
        status: 200,
        headers: {
          ...SAFE_HEADERS,
          'content-type': CONTENT_TYPE.test(type) ? type : 'application/octet-stream',
          'content-length': String(blob.size),
          'content-disposition': `inline; filename*=UTF-8''${encodeURIComponent(name)}`,
          // Content-addressed: the bytes behind this URL never change.
          'cache-control': 'public, max-age=31536000, immutable',
        },
      });
    }
  }
  return errorResponse(404, 'No such file');
}
