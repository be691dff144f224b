import type { Context } from '../../context.js';
import { badRequest, notFound } from '../../errors.js';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import { hashSecret } from '../../secrets.js';
import { Content, getBodies, buildTree, flatten, type PageNode } from '../content/index.js';
import { cachedPdf, type PdfPageInput } from './pdf.js';
import { getChangeRequest } from './service.js';
import { requireSpace } from '../../auth/permissions.js';

/**
 * PDF exports of a change request. Asking for one stores a random export id (the capability: ~190
 * random bits) and answers its URL; `GET /exports/<id>.pdf` renders the change request's current
 * content on request, without a token, for an hour after the export was asked for. Only the id's
 * SHA-256 is stored (like API tokens): the database alone cannot open an export.
 */
export const PDF_EXPORT_TTL_MS = 60 * 60 * 1000;
export const PDF_EXPORT_ID = /^[0-9A-Za-z]{32}$/;

export async function createPdfExport(ctx: Context, spaceId: string, idOrNumber: string, pageId?: string | null): Promise<{ url: string }> {
  const cr = await getChangeRequest(ctx, spaceId, idOrNumber);
  if (pageId !== undefined && pageId !== null) {
    if (!pageId) throw badRequest('page', 'must be a page id');
    const revision = await ctx.prisma.revision.findUnique({ where: { id: cr.revisionId } });
    const content = await Content.load(ctx.prisma, revision?.manifest ?? '');
    if (!(await content.page(pageId))) throw notFound('Page');
  }
  const id = newId(32);
  await ctx.prisma.$transaction([
    // Expired exports serve nothing: drop them as new ones are made.
    ctx.prisma.pdfExport.deleteMany({ where: { createdAt: { lt: new Date(Date.now() - PDF_EXPORT_TTL_MS) } } }),
    ctx.prisma.pdfExport.create({ data: { id: hashSecret(id), spaceId: cr.spaceId, changeRequestId: cr.id, pageId: pageId ?? null } }),
  ]);
  return { url: ctx.urls.pdfExport(id) };
}

/** A PDF export of a space's main content (getSpacePDF): rendered from main as it is when fetched. */
export async function createSpacePdfExport(ctx: Context, spaceId: string, pageId?: string | null): Promise<{ url: string }> {
  const space = await requireSpace(ctx, spaceId, 'read');
  if (pageId !== undefined && pageId !== null) {
    if (!pageId) throw badRequest('page', 'must be a page id');
    const revision = await ctx.prisma.revision.findUnique({ where: { id: space.revisionId } });
    const content = await Content.load(ctx.prisma, revision?.manifest ?? '');
    if (!(await content.page(pageId))) throw notFound('Page');
  }
  const id = newId(32);
  await ctx.prisma.$transaction([
    ctx.prisma.pdfExport.deleteMany({ where: { createdAt: { lt: new Date(Date.now() - PDF_EXPORT_TTL_MS) } } }),
    ctx.prisma.pdfExport.create({ data: { id: hashSecret(id), spaceId: space.id, changeRequestId: null, pageId: pageId ?? null } }),
  ]);
  return { url: ctx.urls.pdfExport(id) };
}

/**
 * The PDF of an export, or null when there is no such live export (unknown, expired, or its content
 * is gone). With `render: false` (a HEAD) nothing is rendered: `pdf` is null, `length` known only
 * when the export was rendered before. Rendering runs in a worker thread, once per revision (pdf.ts).
 */
export async function renderPdfExport(
  prisma: PrismaClient,
  id: string,
  now = new Date(),
  opts: { render?: boolean } = {},
): Promise<{ pdf: Buffer | null; length: number | null } | null> {
  if (!PDF_EXPORT_ID.test(id)) return null;
  const exported = await prisma.pdfExport.findUnique({ where: { id: hashSecret(id) }, include: { space: true, changeRequest: true } });
  if (!exported || now.getTime() - exported.createdAt.getTime() > PDF_EXPORT_TTL_MS) return null;
  const cr = exported.changeRequest;
  const space = exported.space;
  if (space.deletedAt) return null;
  // A change request's export renders its head; a space's, its main revision.
  const revisionId = cr ? cr.revisionId : space.revisionId;
  const revision = await prisma.revision.findUnique({ where: { id: revisionId } });
  const content = await Content.load(prisma, revision?.manifest ?? '');
  const { roots, byId } = buildTree(await content.allPages());
  let nodes: PageNode[];
  if (exported.pageId) {
    const node = byId.get(exported.pageId);
    if (!node) return null;
    nodes = [node];
  } else nodes = flatten(roots);
  const title = cr ? cr.subject || `Change request #${cr.number}` : space.title || 'Untitled space';
  const subtitle = cr ? `${space.title || 'Untitled space'}: change request #${cr.number}` : undefined;
  const expiresAt = exported.createdAt.getTime() + PDF_EXPORT_TTL_MS;
  return cachedPdf([exported.id, revisionId, exported.pageId ?? '', title, subtitle ?? ''], expiresAt, opts.render ?? true, async () => {
    const bodies = await getBodies(
      prisma,
      nodes.map((n) => n.body).filter((b): b is string => !!b),
    );
    const pages: PdfPageInput[] = nodes.map((n) => ({
      title: n.title,
      path: n.path,
      depth: exported.pageId ? 0 : n.depth,
      markdown: n.type === 'link' ? `[${n.title}](${n.href ?? ''})` : n.body ? (bodies.get(n.body) ?? '') : '',
    }));
    return { title, subtitle, pages };
  });
}
