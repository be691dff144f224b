import type { Services } from '../../context.js';
import { processLog } from '../../ops/log.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { IsolateLimitError, runIsolated } from '../../jobs/isolate.js';
import type { JobDefinition } from '../../jobs/queue.js';
import { openAPIFetchSettings } from './fetch.js';
import type { ProcessError, ProcessOutcome } from './process.js';

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
 * The work itself (fetching, parsing, validating) runs in a worker thread with a memory and a time
 * limit (see fetch.ts for the settings): a spec that goes over them fails with PARSE_ERROR saying
 * so, like any other spec Lectern cannot read, and the server's event loop never waits on it.
 *
 * A processing failure (unreachable URL, timeout, invalid spec, too large) is a result, recorded,
 * not retried: the user fixes the source and updates the spec. An unexpected error (e.g. the
 * database going away) is thrown so the queue retries; on the last attempt it is recorded as an
 * internal error instead, so the spec never stays `progress` for good — as is a job whose process
 * died under it too often (the queue's `abandoned` hook).
 */
export const OPENAPI_JOB = 'openapi.process';
export const OPENAPI_JOB_ATTEMPTS = 3;

const TASKS = new URL('./process.ts', import.meta.url);

/** `errorCount`: how many errors processing found (`errors` may hold fewer); the number of `errors` when absent. */
type Failure = { ok: false; code: string | null; errors: ProcessError[]; errorCount?: number };

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

  const settings = openAPIFetchSettings();
  let outcome: Extract<ProcessOutcome, { ok: true }> | Failure;
  try {
    const source = version.sourceURL !== null ? { url: version.sourceURL } : { text: version.text ?? '' };
    const entryUri = services.urls.openAPIVersionText(spec.organizationId, spec.slug, version.id);
    outcome = await runIsolated<ProcessOutcome>(
      TASKS,
      'processSource',
      { source, entryUri, settings },
      {
        timeoutMs: settings.totalTimeoutMs + settings.processTimeoutMs,
        memoryMb: settings.memoryMb,
      },
    );
  } catch (error) {
    if (error instanceof IsolateLimitError) {
      const limits = `${settings.memoryMb} MB of memory and ${Math.round((settings.totalTimeoutMs + settings.processTimeoutMs) / 1000)} s`;
      outcome = {
        ok: false,
        code: 'PARSE_ERROR',
        errors: [
          {
            message: `OpenAPI processing ${error.message} (Lectern allows ${limits} per version): the spec is too large or too deeply aliased to process; split it into smaller files or reduce repetition`,
            code: 'RESOURCE_LIMIT',
          },
        ],
      };
    } else if (attempt < OPENAPI_JOB_ATTEMPTS) throw error;
    else {
      processLog().fault('OpenAPI processing failed unexpectedly', error, {
        stack: (error as { taskStack?: string } | undefined)?.taskStack,
      });
      outcome = internalFailure();
    }
  }

  const processedAt = new Date();
  if (outcome.ok) {
    // The filesystem arrives as JSON text (made in the worker): written as is, never re-serialised here.
    await prisma.$transaction([
      prisma.$executeRaw`UPDATE "OpenAPISpecVersion" SET state = 'complete', filesystem = ${outcome.filesystem}::jsonb, text = ${outcome.text},
        "processedAt" = ${processedAt}, "errorCode" = NULL, errors = '[]'::jsonb WHERE id = ${version.id}`,
      prisma.openAPISpec.updateMany({
        where: isNewest,
        data: {
          processingState: 'complete',
          lastProcessedAt: processedAt,
          lastProcessErrorCode: null,
          lastProcessedErrors: [],
          lastProcessedErrorCount: 0,
        },
      }),
    ]);
  } else await recordFailure(services, version.id, spec.id, outcome, processedAt);
}

const internalFailure = (): Failure => ({
  ok: false,
  code: null,
  errors: [{ message: 'Lectern could not process this version (an internal error): update the spec to try again', code: 'INTERNAL' }],
});

async function recordFailure(services: Services, versionId: string, specId: string, outcome: Failure, processedAt: Date) {
  const prisma = services.db.prisma;
  const errors = outcome.errors as unknown as Prisma.InputJsonValue;
  await prisma.$transaction([
    prisma.openAPISpecVersion.updateMany({
      where: { id: versionId },
      data: { state: 'failed', processedAt, errorCode: outcome.code, errors },
    }),
    prisma.openAPISpec.updateMany({
      where: { id: specId, lastVersionId: versionId },
      data: {
        processingState: 'complete',
        lastProcessedAt: processedAt,
        lastProcessErrorCode: outcome.code,
        lastProcessedErrors: errors,
        lastProcessedErrorCount: outcome.errorCount ?? outcome.errors.length,
      },
    }),
  ]);
}

/** The job kind, listed in the module registry (src/modules/index.ts). */
export const openAPIJob: JobDefinition = {
  kind: OPENAPI_JOB,
  handler: async (payload: { versionId: string }, services, job) => {
    await processVersion(services, payload.versionId, job.attempts);
  },
  // Its process stopped every time it worked on this version: say so on the version, do not retry.
  abandoned: async (payload: { specId: string; versionId: string }, services, why) => {
    const version = await services.db.prisma.openAPISpecVersion.findUnique({
      where: { id: payload.versionId },
      select: { state: true, specId: true },
    });
    if (!version || version.state === 'complete' || version.state === 'failed') return;
    await recordFailure(
      services,
      payload.versionId,
      version.specId,
      {
        ok: false,
        code: 'PARSE_ERROR',
        errors: [
          {
            message: `Lectern stopped while processing this version and gave up (${why}): the spec may be too large to process; update the spec to try again`,
            code: 'INTERRUPTED',
          },
        ],
      },
      new Date(),
    );
  },
};
