import { createContext } from '../../context.js';
import { requireSpace } from '../../auth/permissions.js';
import { LecternError, statusOfCode } from '../../errors.js';
import type { Services } from '../../context.js';
import { errorResponse } from '../../http/respond.js';
import type { HttpRoute, RouteCall } from '../../http/routes.js';
import { getChangeRequest } from '../change-requests/index.js';
import { layoutOfContent, writeLayout } from '../git-sync/index.js';

/**
 * Exports: a space's main content, or a change request's, as a `.zip` in the Git
 * layout (README.md, SUMMARY.md, one Markdown file per page with front matter, relative links,
 * `.gitbook/assets/`), the same files Git Sync would commit — so the archive imports back
 * (startImportRun) or becomes a repository as it is. A download with the caller's token (a reader
 * of the space may export it): `GET /archives/spaces/<spaceId>/content.zip` and
 * `…/change-requests/<changeRequestId>/content.zip`. Not an official operation (the official API
 * has PDF exports only).
 */
async function zip(files: { path: string; data: Uint8Array }[]): Promise<Buffer> {
  // yazl loads with the first export (a server that never exports keeps none of it).
  const { default: yazl } = await import('yazl');
  const z = new yazl.ZipFile();
  // A fixed date: the same content gives the same bytes.
  const mtime = new Date(Date.UTC(2000, 0, 1));
  for (const f of files) z.addBuffer(Buffer.from(f.data), f.path, { mtime, mode: 0o100644 });
  z.end();
  const chunks: Buffer[] = [];
  return new Promise((done, fail) => {
    z.outputStream.on('data', (c: Buffer) => chunks.push(c));
    z.outputStream.on('error', fail);
    z.outputStream.on('end', () => done(Buffer.concat(chunks)));
  });
}

/** A revision's content as the Git layout's files, zipped (sorted paths, fixed dates: the same content gives the same bytes). */
async function revisionZip(prisma: Services['db']['prisma'], revisionId: string): Promise<Buffer> {
  const revision = (await prisma.revision.findUnique({ where: { id: revisionId } }))!;
  const files = await writeLayout(await layoutOfContent(prisma, revision.manifest), '');
  return zip(files.sort((a, b) => (a.path < b.path ? -1 : 1)));
}

/**
 * A space's main content as the same `.zip` as the download, for the operator (`lectern export`,
 * src/cli.ts): no caller, no permission check (the CLI runs with the database's rights). A 404
 * LecternError for a missing (or deleted) space.
 */
export async function exportSpaceArchive(prisma: Services['db']['prisma'], spaceId: string): Promise<{ title: string; zip: Buffer }> {
  const space = await prisma.space.findFirst({ where: { id: spaceId, deletedAt: null } });
  if (!space) throw new LecternError('NOT_FOUND', `No space with id ${spaceId}`);
  return { title: space.title, zip: await revisionZip(prisma, space.revisionId) };
}

async function exportZip({ services, params, caller }: RouteCall): Promise<Response> {
  if (!caller) return errorResponse(401, 'Authentication required: send Authorization: Bearer <token>');
  const ctx = createContext(services, caller.user, caller.session);
  try {
    const space = await requireSpace(ctx, params.spaceId!, 'read');
    const cr = params.changeRequestId ? await getChangeRequest(ctx, space.id, params.changeRequestId) : null;
    const body = await revisionZip(ctx.prisma, cr?.revisionId ?? space.revisionId);
    const name = `${(space.title || 'space').replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '') || 'space'}${cr ? `-cr-${cr.number}` : ''}.zip`;
    return new Response(new Uint8Array(body), {
      status: 200,
      headers: {
        'content-type': 'application/zip',
        'content-length': String(body.length),
        'content-disposition': `attachment; filename="${name}"`,
        'cache-control': 'private, no-store',
        'x-content-type-options': 'nosniff',
      },
    });
  } catch (error) {
    if (error instanceof LecternError) return errorResponse(statusOfCode(error.code) ?? 500, error.message);
    throw error;
  }
}

export const exportHttpRoutes: HttpRoute[] = [
  { method: 'GET', path: '/archives/spaces/:spaceId/content.zip', handle: exportZip, optionalToken: true },
  { method: 'GET', path: '/archives/spaces/:spaceId/change-requests/:changeRequestId/content.zip', handle: exportZip, optionalToken: true },
];
