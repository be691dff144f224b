import type { Services } from '../../context.js';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { enqueueJob, type JobDefinition } from '../../jobs/queue.js';

/**
 * Retention of the audit log: events older than `config.auditRetentionDays`
 * (LECTERN_AUDIT_RETENTION_DAYS, default 365) are deleted by a job on the queue. The table refuses
 * deletes (its trigger, migration 20261124150000_grants_audit) except in a transaction that set
 * `lectern.audit_prune` to 'on': this job's, with SET LOCAL, so the setting ends with it.
 * The server's hourly maintenance queues the job when none is pending (`scheduleAuditPrune`).
 */
export const AUDIT_PRUNE = 'audit.prune';
export const DEFAULT_AUDIT_RETENTION_DAYS = 365;

/** Deletes the events older than the retention; answers how many. */
export async function pruneAuditEvents(services: Pick<Services, 'db' | 'config'>, now = new Date()): Promise<number> {
  const days = services.config.auditRetentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS;
  const cutoff = new Date(now.getTime() - days * 24 * 60 * 60 * 1000);
  const client = await services.db.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SET LOCAL lectern.audit_prune = 'on'`);
    const { rowCount } = await client.query('DELETE FROM "AuditEvent" WHERE "occurredAt" < $1', [cutoff]);
    await client.query('COMMIT');
    return rowCount ?? 0;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

export const auditPruneJob: JobDefinition = {
  kind: AUDIT_PRUNE,
  handler: async (_payload, services) => {
    await pruneAuditEvents(services);
  },
};

/** Queues the prune job unless one is already waiting or running (idempotent: every process may call it). */
export async function scheduleAuditPrune(prisma: PrismaClient): Promise<void> {
  const waiting = await prisma.job.findFirst({
    where: { kind: AUDIT_PRUNE, status: { in: ['pending', 'running'] } },
    select: { id: true },
  });
  if (!waiting) await enqueueJob(prisma, AUDIT_PRUNE, {});
}
