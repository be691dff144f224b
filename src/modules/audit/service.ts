import type { Context } from '../../context.js';
import { requireOrg } from '../../auth/permissions.js';
import { badRequest, notFound } from '../../errors.js';
import type { AuditEvent, Prisma } from '../../generated/prisma/client.js';
import { paginate, type PageArgs } from '../../pagination.js';
import { mutationActions } from './record.js';

/**
 * Reading the audit log (the official listOrganizationAuditEvents, getOrganizationAuditEvent,
 * listOrganizationAuditEventActions of 0.202.0): organization admins only (others 403; non-members
 * 404). Newest first (time, then id); filters by exact actor id, action and target id, and a time
 * range (`from` and `to` inclusive); `limit` 1..100, default 20, as the official description says.
 */
export const AUDIT_DEFAULT_LIMIT = 20;
export const AUDIT_MAX_LIMIT = 100;

export interface AuditFilters {
  actor?: string | null;
  action?: string | null;
  target?: string | null;
  from?: string | null;
  to?: string | null;
}

function time(field: string, value: string | null | undefined): Date | undefined {
  if (value == null || value === '') return undefined;
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime())) throw badRequest(field, 'must be an ISO 8601 date-time');
  return date;
}

export async function listAuditEvents(ctx: Context, organizationId: string, args: PageArgs & AuditFilters) {
  await requireOrg(ctx, organizationId, 'admin');
  const limit = args.limit ?? AUDIT_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_MAX_LIMIT)
    throw badRequest('limit', `must be an integer between 1 and ${AUDIT_MAX_LIMIT}`);
  const from = time('from', args.from);
  const to = time('to', args.to);
  if (from && to && from > to) throw badRequest('from', 'must not be after `to`');
  const where: Prisma.AuditEventWhereInput = {
    organizationId,
    ...(args.actor ? { actorId: args.actor } : {}),
    ...(args.action ? { action: args.action } : {}),
    ...(args.target ? { targetId: args.target } : {}),
    ...(from || to ? { occurredAt: { ...(from ? { gte: from } : {}), ...(to ? { lte: to } : {}) } } : {}),
  };
  return paginate(
    { page: args.page, limit },
    () => ctx.prisma.auditEvent.count({ where }),
    (w) => ctx.prisma.auditEvent.findMany({ where, orderBy: [{ occurredAt: 'desc' }, { id: 'desc' }], ...w }),
  );
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function getAuditEvent(ctx: Context, organizationId: string, id: string): Promise<AuditEvent> {
  await requireOrg(ctx, organizationId, 'admin');
  const event = UUID.test(id) ? await ctx.prisma.auditEvent.findFirst({ where: { id, organizationId } }) : null;
  if (!event) throw notFound('Audit event');
  return event;
}

/** The actions and their labels: every mutation's name, and the token events of src/auth/tokens.ts. */
export async function auditActions(ctx: Context, organizationId: string) {
  await requireOrg(ctx, organizationId, 'admin');
  const ids = [...new Set([...mutationActions, 'createApiToken', 'ssoSignIn'])].sort();
  return ids.map((id) => ({ id, label: labelOf(id) }));
}

const LABELS: Record<string, string> = { ssoSignIn: 'Sign in through SAML single sign-on', createApiToken: 'Create an API token' };
export const labelOf = (action: string) =>
  LABELS[action] ??
  action
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/^./, (c) => c.toUpperCase());

/** The official `source` of an event by how it came: the API (REST and GraphQL), a sign-in page, or a script (the CLI). */
export const officialSource = (source: string) => (source === 'sso' ? 'ui' : source === 'cli' || source === 'system' ? 'script' : 'api');
