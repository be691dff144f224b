import { DOWNLOAD_HEADERS, noSuchFile } from '../../http/download.js';
import { errorResponse } from '../../http/respond.js';
import type { HttpRoute, RouteCall } from '../../http/routes.js';
import { renderPdfExport } from './exports.js';
import { PdfTooLarge } from './pdf.js';

/** `/exports/<id>.pdf`: a change request's PDF export, rendered on request, for an hour (no token: the URL is the capability). */
async function serveExport({ services, request, params }: RouteCall): Promise<Response> {
  const head = request.method === 'HEAD';
  // A HEAD renders nothing (its length is known once a GET rendered it).
  let found: Awaited<ReturnType<typeof renderPdfExport>>;
  try {
    found = await renderPdfExport(services.db.prisma, params.id!, undefined, { render: !head });
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

export const exportHttpRoutes: HttpRoute[] = [
  // A PDF export renders a document: it costs 10 of the address's budget.
  { method: 'GET', path: '/exports/:id.pdf', handle: serveExport, cost: 10 },
  { method: 'GET', path: '/exports/*', handle: noSuchFile },
];
