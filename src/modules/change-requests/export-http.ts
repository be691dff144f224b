import type { Services } from '../../context.js';
import { DOWNLOAD_HEADERS, noSuchFile, refuseDownloadMethod } from '../../http/download.js';
import type { HttpRoute } from '../../http/routes.js';
import { errorResponse } from '../../rest/adapter.js';
import { renderPdfExport } from './exports.js';
import { PdfTooLarge } from './pdf.js';

/** `/exports/<id>.pdf`: a change request's PDF export, rendered on request, for an hour (no token: the URL is the capability). */
async function serveExport(services: Services, request: Request, pathname: string): Promise<Response> {
  const refused = refuseDownloadMethod(request);
  if (refused) return refused;
  const head = request.method === 'HEAD';
  const match = pathname.match(/^\/exports\/([^/]+)\.pdf$/);
  if (!match) return noSuchFile();
  // A HEAD renders nothing (its length is known once a GET rendered it).
  let found: Awaited<ReturnType<typeof renderPdfExport>>;
  try {
    found = await renderPdfExport(services.db.prisma, match[1]!, undefined, { render: !head });
  } catch (error) {
    if (error instanceof PdfTooLarge) return errorResponse(422, error.message);
    throw error;
  }
  if (!found) return errorResponse(404, 'No such export (exports last one hour)');
  return new Response(head || !found.pdf ? null : new Uint8Array(found.pdf), {
    status: 200,
    headers: {
      ...DOWNLOAD_HEADERS,
      'content-type': 'application/pdf',
      ...(found.length !== null ? { 'content-length': String(found.length) } : {}),
      'cache-control': 'private, no-store',
    },
  });
}

// A PDF export renders a document: it costs 10 of the address's budget.
export const exportHttpRoute: HttpRoute = { prefix: '/exports/', serve: serveExport, cost: 10 };
