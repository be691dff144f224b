// The audit module's face: the one recording place, the retention job, the routes.

export { appendAuditEvent, auditMutations, type AuditEventInput } from './record.js';
export { auditPruneJob, pruneAuditEvents, scheduleAuditPrune } from './retention.js';
