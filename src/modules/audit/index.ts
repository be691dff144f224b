// The audit module's face (issue 18): the one recording place, the retention job, the routes.

export { appendAuditEvent, auditMutations, type AuditEventInput } from './record.js';
export { auditPruneJob, pruneAuditEvents, scheduleAuditPrune } from './retention.js';
