import { createHash } from 'node:crypto';
import { settings } from '../../config.js';
import type { Context, Services } from '../../context.js';
import { requireOrg, requireSpace, spaceRole } from '../../auth/permissions.js';
import { atLeast } from '../../auth/roles.js';
import { badRequest, LecternError, notFound } from '../../errors.js';
import type { ImportRun, Prisma } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import { enqueueJob, type JobDefinition } from '../../jobs/queue.js';
import { paginateArray } from '../../pagination.js';
import { serverKeys } from '../../secrets.js';
import { getChangeRequest } from '../change-requests/index.js';
import { Content, ContentWriter, type FileEntry, type PageEntry, putBody, reindexSpace, uniqueSlug } from '../content/index.js';
import { afterMainMoved, layoutPageFields, readLayout, SyncBusy, withSpaceSyncLock, type ReadResult } from '../git-sync/index.js';
import { archiveKind, ArchiveError, docsFolder, readArchive } from './archive.js';
import { isObject } from '../../validate.js';

/**
 * Imports, the official 0.202.0 operations:
 * - generateStorageUploadURL: an upload to Lectern's own storage (table StorageUpload, so every
 *   process behind a load balancer sees it): a signed, expiring PUT URL (`/storage/uploads/<key>`,
 *   http.ts) that takes at most the declared size. Only `import_file` uploads are served.
 * - startImportRun: uploads (`source: { type: 'file', files: [key…] }`) → a run (table ImportRun)
 *   and a job. The job reads each upload (archive.ts: .zip, .tar.gz, .tar, a lone .md), finds the
 *   docs folder (a Git-layout folder through git-sync's layout reader, or a plain folder of Markdown
 *   such as MkDocs' or Docusaurus' `docs/`), stores the pages one by one (progress: pagesDone /
 *   pagesTotal on the run, checked for a cancel between pages) and writes one revision at the end,
 *   in one transaction: the imported pages are appended after the space's own top-level pages (or
 *   under `target.page`), files added; into main (as a merge would: needs the review role) or into
 *   an open change request (the edit role). A cancelled or failed run leaves the space as it was.
 *   `source.type: 'website'` (crawling a site) is refused with a 400 saying so.
 * - listImportRuns, getImportRun, cancelImportRun.
 * The run's JSON is the official ContentImportRun, plus Lectern's `progress` and `skipped` (what was
 * left out, and why).
 */
type Tx = Prisma.TransactionClient;
export const IMPORT_RUN_JOB = 'imports.run';
const UPLOAD_TTL_S = 3600;
/** Uploads are kept this long for runs to read (then swept). */
const UPLOAD_KEEP_MS = 24 * 3600_000;
const REQUEUE_MS = 5_000;

const uploadSignature = (key: string, expires: number) => ['storage-upload', key, String(expires)];

// ---------------------------------------------------------------------------------------------
// Uploads
// ---------------------------------------------------------------------------------------------

export async function generateStorageUploadURL(ctx: Context, organizationId: string, input: unknown) {
  await requireOrg(ctx, organizationId, 'edit');
  if (!isObject(input)) throw badRequest('body', 'must be an object');
  const kind = input.kind;
  if (typeof kind !== 'string') throw badRequest('kind', 'is required (import_file)');
  if (kind !== 'import_file') throw badRequest('kind', `${kind} uploads are not served by this server: only import_file`);
  const file = input.file;
  if (!isObject(file)) throw badRequest('file', 'is required: { name, type, size }');
  if (typeof file.name !== 'string' || !file.name.trim() || file.name.length > 255)
    throw badRequest('file.name', 'must be a file name of 1 to 255 characters');
  if (typeof file.type !== 'string' || file.type.length > 255) throw badRequest('file.type', 'must be a MIME type');
  const max = settings().imports.uploadMaxBytes;
  if (typeof file.size !== 'number' || !Number.isInteger(file.size) || file.size < 1)
    throw badRequest('file.size', 'must be a positive integer (bytes)');
  if (file.size > max) throw badRequest('file.size', `must be at most ${max} bytes (LECTERN_UPLOAD_MAX_BYTES)`);
  const key = `imports/${organizationId}/${newId()}`;
  const expires = Math.floor(Date.now() / 1000) + UPLOAD_TTL_S;
  await ctx.prisma.$transaction([
    ctx.prisma.storageUpload.deleteMany({ where: { createdAt: { lt: new Date(Date.now() - UPLOAD_KEEP_MS) } } }),
    ctx.prisma.storageUpload.create({
      data: {
        key,
        organizationId,
        kind,
        name: file.name.trim(),
        contentType: file.type || 'application/octet-stream',
        size: file.size,
        expiresAt: new Date(expires * 1000),
        createdById: ctx.caller.id,
      },
    }),
  ]);
  const signature = (await serverKeys(ctx)).sign(uploadSignature(key, expires));
  const url = `${ctx.config.publicUrl.replace(/\/$/, '')}/storage/uploads/${key.split('/').map(encodeURIComponent).join('/')}?expires=${expires}&signature=${signature}`;
  // `urls.location` (Lectern's addition): the 201's Location is where the upload goes, outside /v1.
  return { object: 'storage-signed-url', url, key, urls: { location: url } };
}

/** The PUT of a signed upload URL: null when the URL is not (or no longer) valid. */
export async function openUpload(services: Services, key: string, expires: string | null, signature: string | null) {
  const at = Number(expires);
  if (!Number.isInteger(at) || !signature || at < Date.now() / 1000) return null;
  if (!(await serverKeys(services)).verify(uploadSignature(key, at), signature)) return null;
  return services.db.prisma.storageUpload.findUnique({ where: { key }, select: { key: true, size: true, uploadedAt: true } });
}

export async function storeUpload(services: Services, key: string, data: Uint8Array): Promise<string> {
  const etag = createHash('sha256').update(data).digest('hex').slice(0, 32);
  await services.db.prisma.storageUpload.update({ where: { key }, data: { data: Buffer.from(data), uploadedAt: new Date() } });
  return etag;
}

// ---------------------------------------------------------------------------------------------
// Runs
// ---------------------------------------------------------------------------------------------

type PageItem = { id: string; type: 'page' | 'folder'; status: 'complete' | 'pending'; sourceURL?: string };

export function importRunJson(ctx: Pick<Context, 'urls'>, run: ImportRun) {
  const iso = (d: Date | null) => (d ? { value: d.toISOString() } : undefined);
  const opt = <K extends string>(key: K, d: Date | null) => (d ? { [key]: iso(d)!.value } : {});
  return {
    object: 'import-run',
    id: run.id,
    status: run.status,
    ...(run.reason ? { reason: run.reason } : {}),
    source: run.source,
    target: {
      space: run.spaceId,
      ...(run.changeRequestId ? { changeRequest: run.changeRequestId } : {}),
      ...(run.pageId ? { page: run.pageId } : {}),
    },
    ...(run.siteId ? { site: run.siteId } : {}),
    createdBy: run.createdById,
    createdAt: run.createdAt.toISOString(),
    updatedAt: run.updatedAt.toISOString(),
    ...opt('startedAt', run.startedAt),
    ...opt('completedAt', run.completedAt),
    pages: run.pages as PageItem[],
    urls: { location: ctx.urls.api(`/org/${run.organizationId}/imports/${run.id}`) },
    // Lectern's additions.
    progress: { pagesDone: run.pagesDone, pagesTotal: run.pagesTotal },
    skipped: run.skipped,
  };
}

async function readTarget(ctx: Context, organizationId: string, input: Record<string, unknown>) {
  const target = input.target;
  if (!isObject(target)) throw badRequest('target', 'is required: { space, changeRequest?, page? }');
  if (typeof target.space !== 'string' || !target.space) throw badRequest('target.space', 'is required');
  const space = await requireSpace(ctx, target.space, 'read').catch((error) => {
    if (error instanceof LecternError && error.code === 'NOT_FOUND') throw badRequest('target.space', 'no such space');
    throw error;
  });
  if (space.organizationId !== organizationId) throw badRequest('target.space', 'is not a space of this organization');
  for (const key of ['changeRequest', 'page'] as const)
    if (target[key] !== undefined && (typeof target[key] !== 'string' || !target[key])) throw badRequest(`target.${key}`, 'must be an id');
  let changeRequest: { id: string; revisionId: string } | null = null;
  if (target.changeRequest) {
    await requireSpace(ctx, space.id, 'edit');
    const cr = await getChangeRequest(ctx, space.id, target.changeRequest as string).catch((error) => {
      if (error instanceof LecternError && error.code === 'NOT_FOUND')
        throw badRequest('target.changeRequest', 'no such change request in this space');
      throw error;
    });
    if (cr.status === 'merged' || cr.status === 'archived')
      throw badRequest('target.changeRequest', `the change request is ${cr.status}: only an open one takes an import`);
    changeRequest = cr;
  } else {
    // Straight into main, as a merge would: the role that merges change requests.
    await requireSpace(ctx, space.id, 'review');
    if (space.editMode === 'locked') throw badRequest('target.space', 'the space is locked');
  }
  if (target.page) {
    const revision = await ctx.prisma.revision.findUnique({ where: { id: changeRequest?.revisionId ?? space.revisionId } });
    const page = revision ? await (await Content.load(ctx.prisma, revision.manifest)).page(target.page as string) : undefined;
    if (!page || page.type === 'link') throw badRequest('target.page', 'no such document or group page in the target');
  }
  return { space, changeRequest, page: (target.page as string | undefined) ?? null };
}

export async function startImportRun(ctx: Context, organizationId: string, input: unknown) {
  await requireOrg(ctx, organizationId);
  if (!isObject(input)) throw badRequest('body', 'must be an object');
  const source = input.source;
  if (!isObject(source)) throw badRequest('source', "is required: { type: 'file', files: [key] }");
  if (source.type === 'website')
    throw badRequest(
      'source.type',
      "importing a website is not supported by this server: upload a .zip or .tar.gz of Markdown (generateStorageUploadURL) and import it as { type: 'file' }",
    );
  if (source.type !== 'file') throw badRequest('source.type', "must be 'file'");
  const files = source.files;
  if (!Array.isArray(files) || files.length < 1 || files.length > 50) throw badRequest('source.files', 'must list 1 to 50 upload keys');
  for (const key of ['site', 'enhance'] as const) {
    if (input[key] !== undefined && typeof input[key] !== (key === 'site' ? 'string' : 'boolean'))
      throw badRequest(key, key === 'site' ? 'must be a site id' : 'must be true or false');
  }
  const target = await readTarget(ctx, organizationId, input);
  const uploads = await ctx.prisma.storageUpload.findMany({
    where: { key: { in: files.filter((f): f is string => typeof f === 'string') }, organizationId },
    select: { key: true, name: true, uploadedAt: true, data: true },
  });
  const byKey = new Map(uploads.map((u) => [u.key, u]));
  files.forEach((key, i) => {
    const upload = typeof key === 'string' ? byKey.get(key) : undefined;
    if (!upload) throw badRequest(`source.files[${i}]`, 'no upload of this organization has this key');
    if (!upload.uploadedAt || !upload.data) throw badRequest(`source.files[${i}]`, 'nothing was uploaded to this key yet');
    if (!archiveKind(upload.data, upload.name))
      throw badRequest(`source.files[${i}]`, `${upload.name} is not a .zip, .tar.gz or Markdown file`);
  });
  const id = newId();
  const run = await ctx.prisma.$transaction(async (tx) => {
    const run = await tx.importRun.create({
      data: {
        id,
        organizationId,
        spaceId: target.space.id,
        changeRequestId: target.changeRequest?.id ?? null,
        pageId: target.page,
        siteId: (input.site as string | undefined) ?? null,
        source: { type: 'file', files } as Prisma.InputJsonValue,
        createdById: ctx.caller.id,
      },
    });
    await enqueueJob(tx, IMPORT_RUN_JOB, { runId: id }, { maxAttempts: 1 });
    return run;
  });
  return importRunJson(ctx, run);
}

/** A run the caller may see (it reads the run's space): else 404. */
async function visibleRun(ctx: Context, organizationId: string, id: string): Promise<ImportRun> {
  await requireOrg(ctx, organizationId);
  const run = await ctx.prisma.importRun.findUnique({ where: { id } });
  if (!run || run.organizationId !== organizationId) throw notFound('Import run');
  await requireSpace(ctx, run.spaceId, 'read').catch(() => {
    throw notFound('Import run');
  });
  return run;
}

export async function getImportRun(ctx: Context, organizationId: string, id: string) {
  return importRunJson(ctx, await visibleRun(ctx, organizationId, id));
}

const STATUSES = ['active', 'pending', 'in-progress', 'completed', 'failed', 'cancelled'];

export async function listImportRuns(
  ctx: Context,
  organizationId: string,
  args: {
    space?: string | null;
    changeRequest?: string | null;
    site?: string | null;
    status?: string | null;
    page?: string | null;
    limit?: number | null;
  },
) {
  await requireOrg(ctx, organizationId);
  if (args.status && !STATUSES.includes(args.status)) throw badRequest('status', `must be one of ${STATUSES.join(', ')}`);
  const runs = await ctx.prisma.importRun.findMany({
    where: {
      organizationId,
      ...(args.space ? { spaceId: args.space } : {}),
      ...(args.changeRequest ? { changeRequestId: args.changeRequest } : {}),
      ...(args.site ? { siteId: args.site } : {}),
      ...(args.status ? { status: args.status === 'active' ? { in: ['pending', 'in-progress'] } : args.status } : {}),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
    take: 5000,
  });
  // Only the runs of spaces the caller reads (one permission check per distinct space, batched by the loaders).
  const spaceIds = [...new Set(runs.map((r) => r.spaceId))];
  const spaces = await ctx.prisma.space.findMany({ where: { id: { in: spaceIds }, deletedAt: null } });
  const readable = new Set<string>();
  await Promise.all(spaces.map(async (s) => (atLeast((await spaceRole(ctx, s)) ?? null, 'read') ? readable.add(s.id) : undefined)));
  const list = paginateArray(
    args,
    runs.filter((r) => readable.has(r.spaceId)),
  );
  return { items: list.items.map((r) => importRunJson(ctx, r)), count: list.count, ...(list.next ? { next: list.next } : {}) };
}

export async function cancelImportRun(ctx: Context, organizationId: string, id: string) {
  const run = await visibleRun(ctx, organizationId, id);
  await requireSpace(ctx, run.spaceId, run.changeRequestId ? 'edit' : 'review');
  // Only a run that has not ended; the job checks the status between pages and before it writes.
  const { count } = await ctx.prisma.importRun.updateMany({
    where: { id, status: { in: ['pending', 'in-progress'] } },
    data: { status: 'cancelled', completedAt: new Date() },
  });
  if (!count) {
    const now = (await ctx.prisma.importRun.findUnique({ where: { id } }))!;
    throw badRequest('status', `the import run has already ended (${now.status})`);
  }
  return importRunJson(ctx, (await ctx.prisma.importRun.findUnique({ where: { id } }))!);
}

// ---------------------------------------------------------------------------------------------
// The job
// ---------------------------------------------------------------------------------------------

class Cancelled extends Error {}
const PROGRESS_EVERY = 10;

async function stillRunning(db: Tx | Services['db']['prisma'], id: string) {
  const run = await db.importRun.findUnique({ where: { id }, select: { status: true } });
  if (run?.status !== 'in-progress') throw new Cancelled();
}

/** The run's uploads read as archives, each's docs folder read as a layout; what was left out, labelled by upload when there are several. */
async function readUploads(services: Services, run: ImportRun) {
  const prisma = services.db.prisma;
  const uploads = await prisma.storageUpload.findMany({ where: { key: { in: (run.source as { files: string[] }).files } } });
  const byKey = new Map(uploads.map((u) => [u.key, u]));
  const skipped: { path: string; reason: string }[] = [];
  const reads: ReadResult[] = [];
  for (const key of (run.source as { files: string[] }).files) {
    const upload = byKey.get(key);
    if (!upload?.data) throw new ArchiveError(`the upload ${key} is no longer stored (uploads are kept a day): upload it again`);
    const archive = await readArchive(new Uint8Array(upload.data), upload.name);
    const found = docsFolder(archive.files);
    const read = await readLayout(found.files, found.folder);
    const label = (files: { path: string; reason: string }[]) =>
      files.map((s) => ({ path: uploads.length > 1 ? `${upload.name}:${s.path}` : s.path, reason: s.reason }));
    skipped.push(...label(archive.skipped), ...label(found.notes), ...label(read.layout.skipped));
    reads.push(read);
    // Reading a large archive takes a while: a cancel that came meanwhile stops the run here.
    await stillRunning(prisma, run.id);
  }
  return { reads, skipped };
}

/** The bodies, one page at a time (content-addressed: a cancelled run leaves only unreferenced objects), with the run's progress. */
async function storeBodies(services: Services, run: ImportRun, reads: ReadResult[], total: number) {
  const prisma = services.db.prisma;
  const bodies = new Map<string, string>();
  let done = 0;
  for (const read of reads) {
    for (const page of read.layout.pages) {
      if (page.type === 'document') bodies.set(page.id, await putBody(prisma, page.markdown ?? '', read.links[page.id] ?? []));
      done++;
      if (done % PROGRESS_EVERY === 0 || done === total) {
        await stillRunning(prisma, run.id);
        await prisma.importRun.update({ where: { id: run.id }, data: { pagesDone: done } });
      }
    }
  }
  if (!total) await stillRunning(prisma, run.id);
  return bodies;
}

async function runImport(services: Services, run: ImportRun): Promise<void> {
  const prisma = services.db.prisma;
  const { reads, skipped } = await readUploads(services, run);
  const pages = reads.flatMap((r) => r.layout.pages);
  const items: PageItem[] = pages.map((p) => ({
    id: p.id,
    type: p.type === 'group' ? 'folder' : 'page',
    status: 'pending',
    ...(p.path ? { sourceURL: p.path } : {}),
  }));
  await prisma.importRun.update({
    where: { id: run.id },
    data: { pagesTotal: pages.length, pages: items as Prisma.InputJsonValue, skipped: skipped as Prisma.InputJsonValue },
  });
  const bodies = await storeBodies(services, run, reads, pages.length);
  await prisma.$transaction((tx) => writeImport(tx, run, { reads, pages, items, bodies }), { timeout: 120_000 });
}

type ImportedPages = { reads: ReadResult[]; pages: ReadResult['layout']['pages']; items: PageItem[]; bodies: Map<string, string> };

/** The import's one transaction: a new revision of the space (or of its change request) with the pages and files, unless the run was cancelled. */
async function writeImport(tx: Tx, run: ImportRun, imported: ImportedPages) {
  const { reads, pages, items } = imported;
  // The run's row first: a cancel that came meanwhile wins, and nothing is written.
  await tx.$queryRaw`SELECT id FROM "ImportRun" WHERE id = ${run.id} FOR UPDATE`;
  await stillRunning(tx, run.id);
  await tx.$queryRaw`SELECT id FROM "Space" WHERE id = ${run.spaceId} FOR UPDATE`;
  const space = (await tx.space.findUnique({ where: { id: run.spaceId } }))!;
  const cr = run.changeRequestId ? await tx.changeRequest.findUnique({ where: { id: run.changeRequestId } }) : null;
  if (run.changeRequestId && (!cr || cr.status === 'merged' || cr.status === 'archived'))
    throw new ArchiveError('the change request was merged or closed before the import ended: nothing was imported');
  const headId = cr?.revisionId ?? space.revisionId;
  const base = await Content.load(tx, (await tx.revision.findUnique({ where: { id: headId } }))!.manifest);
  const writer = new ContentWriter(base);
  const now = new Date().toISOString();
  await placeImportedPages(writer, base, run, imported, now);
  const files: FileEntry[] = [...(await base.files())];
  for (const file of reads.flatMap((r) => r.layout.files)) {
    const data = Buffer.from(file.data);
    const blob = createHash('sha256').update(data).digest('hex');
    await tx.fileBlob.createMany({ data: [{ hash: blob, data, size: data.length }], skipDuplicates: true });
    files.push({ id: file.id, name: file.name, contentType: file.contentType, size: data.length, blob, createdAt: now });
  }
  writer.setFiles(files);
  const manifest = await writer.write(tx);
  const revision = newId();
  await tx.revision.create({
    data: {
      id: revision,
      spaceId: run.spaceId,
      parents: [headId],
      type: 'edits',
      manifest,
      createdById: run.createdById,
      ...(cr ? { changeRequestId: cr.id } : {}),
    },
  });
  if (cr) {
    await tx.changeRequest.update({
      where: { id: cr.id },
      data: { revisionId: revision, ...(cr.contributors.includes(run.createdById) ? {} : { contributors: { push: run.createdById } }) },
    });
  } else {
    await tx.space.update({ where: { id: run.spaceId }, data: { revisionId: revision } });
    await reindexSpace(tx, run.spaceId, headId, revision);
    await afterMainMoved(tx, { spaceId: run.spaceId, revisionId: revision, userId: run.createdById });
  }
  await tx.importRun.update({
    where: { id: run.id },
    data: {
      status: 'completed',
      completedAt: new Date(),
      pagesDone: pages.length,
      revisionId: revision,
      pages: items.map((i) => ({ ...i, status: 'complete' })) as Prisma.InputJsonValue,
    },
  });
}

/** The imported pages put under the run's page (or at the top), after the pages already there. */
async function placeImportedPages(writer: ContentWriter, base: Content, run: ImportRun, imported: ImportedPages, now: string) {
  const { pages, bodies } = imported;
  const existing = await base.allPages();
  const into = run.pageId && existing.some((p) => p.id === run.pageId) ? run.pageId : null;
  const siblings = existing.filter((p) => p.parent === into);
  let position = siblings.reduce((max, p) => Math.max(max, p.position), -1) + 1;
  const childPosition = new Map<string, number>();
  for (const page of pages) {
    const top = page.parent === null;
    const parent = top ? into : page.parent;
    const entry: PageEntry = {
      id: page.id,
      parent,
      position: top
        ? position++
        : (childPosition.set(page.parent!, (childPosition.get(page.parent!) ?? -1) + 1), childPosition.get(page.parent!)!),
      type: page.type,
      title: page.title,
      // Top-level slugs must not clash with the space's own pages there.
      slug: top ? uniqueSlug(page.slug, siblings) : page.slug,
      ...layoutPageFields(page),
      ...(page.type === 'document' ? { body: bodies.get(page.id) } : {}),
      ...(page.type === 'link' ? { href: page.href } : {}),
      createdAt: now,
      updatedAt: now,
    };
    if (top) siblings.push(entry);
    await writer.put(entry);
  }
}

async function handleRun(payload: { runId: string }, services: Services) {
  const prisma = services.db.prisma;
  const claimed = await prisma.importRun.updateMany({
    where: { id: payload.runId, status: 'pending' },
    data: { status: 'in-progress', startedAt: new Date() },
  });
  if (!claimed.count) return; // cancelled before it started (or already taken)
  const run = (await prisma.importRun.findUnique({ where: { id: payload.runId } }))!;
  const fail = (reason: string) =>
    prisma.importRun.updateMany({
      where: { id: run.id, status: 'in-progress' },
      data: { status: 'failed', reason: reason.slice(0, 2000), completedAt: new Date() },
    });
  try {
    // Not at the same time as a Git sync or another import of the space (git-sync's lock).
    await withSpaceSyncLock(services, run.spaceId, () => runImport(services, run), { waitMs: 2_000 });
  } catch (error) {
    if (error instanceof Cancelled) return;
    if (error instanceof SyncBusy) {
      await prisma.importRun.updateMany({ where: { id: run.id, status: 'in-progress' }, data: { status: 'pending', startedAt: null } });
      await enqueueJob(prisma, IMPORT_RUN_JOB, payload, { runAfter: new Date(Date.now() + REQUEUE_MS), maxAttempts: 1 });
      return;
    }
    const name = (error as Error)?.name;
    if (error instanceof ArchiveError || name === 'IsolatedTaskError' || name === 'IsolateLimitError') {
      await fail((error as Error).message);
      return;
    }
    await fail('the import failed unexpectedly; nothing was imported');
    throw error;
  }
}

export const importJobs: JobDefinition[] = [
  {
    kind: IMPORT_RUN_JOB,
    handler: handleRun,
    abandoned: async (payload: { runId: string }, services, message) => {
      await services.db.prisma.importRun.updateMany({
        where: { id: payload.runId, status: { in: ['pending', 'in-progress'] } },
        data: { status: 'failed', reason: message, completedAt: new Date() },
      });
    },
  },
];
