import { BodyTooLarge, bodyRefusal, declaredTooLarge, readBody } from '../../http/body.js';
import { errorResponse } from '../../http/respond.js';
import type { HttpRoute, RouteCall } from '../../http/routes.js';
import { exportHttpRoutes } from './export.js';
import { openUpload, storeUpload } from './service.js';

/**
 * `PUT /storage/uploads/<key>?expires=…&signature=…`: the upload URL generateStorageUploadURL
 * gives (service.ts). No token: the signed URL is the capability, valid an hour, once. The body is
 * the file's bytes, at most the size declared when the URL was made (413 beyond, read no further).
 * A wrong or expired URL: 403 (S3's answer to a bad presigned URL); a URL already used: 409.
 */
async function upload({ services, request, params }: RouteCall): Promise<Response> {
  const key = `imports/${params.organizationId}/${params.id}`;
  const query = new URL(request.url).searchParams;
  const row = await openUpload(services, key, query.get('expires'), query.get('signature'));
  if (!row) return errorResponse(403, 'this upload URL is not valid or has expired: ask for a new one (generateStorageUploadURL)');
  if (row.uploadedAt) return errorResponse(409, 'a file was already uploaded to this URL: ask for a new one');
  if (declaredTooLarge(request, row.size)) return bodyRefusal(new BodyTooLarge(row.size))!;
  let data: Uint8Array;
  try {
    data = await readBody(request, row.size);
  } catch (error) {
    const refusal = bodyRefusal(error);
    if (refusal) return refusal;
    throw error;
  }
  if (!data.byteLength) return errorResponse(400, 'body: the file is empty');
  const etag = await storeUpload(services, key, data);
  return new Response(null, { status: 200, headers: { etag: `"${etag}"` } });
}

export const importsHttpRoutes: HttpRoute[] = [
  { method: 'PUT', path: '/storage/uploads/imports/:organizationId/:id', handle: upload },
  ...exportHttpRoutes,
];
