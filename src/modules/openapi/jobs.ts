import type { Services } from '../../context.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { registerJobHandler } from '../../jobs/queue.js';
import { buildFilesystem, ProcessingFailure, type ProcessError } from './process.js';

/**
 * The background processing of an OpenAPI spec version (job kind `openapi.process`, payload
 * `{ specId, versionId }`), queued in the transaction that records the version. The job queue runs
 * it once across processes and takes it up again after a crash.
 *
 * The version goes pending → progress → complete (or failed); when it is still its spec's newest
 * version (`lastVersion`), the spec's `processingState`, `lastProcessedAt`, `lastProcessErrorCode`
 * and `lastProcessedErrors` follow (a failure leaves `processingState` `complete`, with the error
 * fields set). An older version finishing late records its own result and leaves the spec alone.
 *
 * A processing failure (unreachable URL, timeout, invalid spec) is a result, recorded, not retried:
 * the user fixes the source and updates the spec. An unexpected error (e.g. the database going away)
 * is thrown so the queue retries; on the last attempt it is recorded as an internal error instead,
 * so the spec never stays `progress` for good.
 */
export const OPENAPI_JOB = 'openapi.process';
export const OPENAPI_JOB_ATTEMPTS = 3;

export async function processVersion(services: Services, versionId: string, attempt = 1): Promise<void> {
  const prisma = services.db.prisma;
  const version = await prisma.openAPISpecVersion.findUnique({ where: { id: versionId }, include: { spec: true } });
  // Deleted with its spec, or already processed (a job taken up again after its final write).
  if (!version || version.state === 'complete' || version.state === 'failed') return;
  const { spec } = version;
  const isNewest = { id: spec.id, lastVersionId: version.id };
  await prisma.$transaction([
    prisma.openAPISpecVersion.update({ where: { id: version.id }, data: { state: 'progress' } }),
    prisma.openAPISpec.updateMany({ where: isNewest, data: { processingState: 'progress' } }),
  ]);

  let outcome: { ok: true; filesystem: Prisma.InputJsonValue; text: string } | { ok: false; code: string | null; errors: ProcessError[] };
  try {
    const source = version.sourceURL !== null ? { url: version.sourceURL } : { text: version.text ?? '' };
    const built = await buildFilesystem(source, services.urls.openAPIVersionText(spec.organizationId, spec.slug, version.id));
    outcome = { ok: true, filesystem: built.filesystem as unknown as Prisma.InputJsonValue, text: built.text };
  } catch (error) {
    if (error instanceof ProcessingFailure) outcome = { ok: false, code: error.code, errors: error.errors };
    else if (attempt < OPENAPI_JOB_ATTEMPTS) throw error;
    else {
      console.error('OpenAPI processing failed unexpectedly:', error instanceof Error ? error.stack : error);
      outcome = { ok: false, code: null, errors: [{ message: 'Lectern could not process this version (an internal error): update the spec to try again', code: 'INTERNAL' }] };
    }
  }

  const processedAt = new Date();
  if (outcome.ok) {
    await prisma.$transaction([
      prisma.openAPISpecVersion.update({
        where: { id: version.id },
        data: { state: 'complete', filesystem: outcome.filesystem, text: outcome.text, processedAt, errorCode: null, errors: [] },
      }),
      prisma.openAPISpec.updateMany({
        where: isNewest,
        data: { processingState: 'complete', lastProcessedAt: processedAt, lastProcessErrorCode: null, lastProcessedErrors: [] },
      }),
    ]);
  } else {
    const errors = outcome.errors as unknown as Prisma.InputJsonValue;
    await prisma.$transaction([
      prisma.openAPISpecVersion.update({ where: { id: version.id }, data: { state: 'failed', processedAt, errorCode: outcome.code, errors } }),
      prisma.openAPISpec.updateMany({
        where: isNewest,
        data: { processingState: 'complete', lastProcessedAt: processedAt, lastProcessErrorCode: outcome.code, lastProcessedErrors: errors },
      }),
    ]);
  }
}

registerJobHandler(OPENAPI_JOB, async (payload: { versionId: string }, services, job) => {
  await processVersion(services, payload.versionId, job.attempts);
});
