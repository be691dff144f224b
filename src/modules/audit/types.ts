import { builder, type Model } from '../../graphql/builder.js';
import { listOf, pageArgs } from '../../graphql/lists.js';
import { OrganizationType } from '../orgs/index.js';
import { auditActions, getAuditEvent, listAuditEvents, officialSource } from './service.js';

/** An audit event (the official AuditEvent / AuditEventDetails of 0.202.0, with Lectern's tokenId and clientAddress). */
const AuditActor = builder.objectRef<{ type: string; id: string; label: string | null }>('AuditEventActor').implement({
  fields: (t) => ({ type: t.exposeString('type'), id: t.exposeString('id'), label: t.exposeString('label', { nullable: true }) }),
});
const AuditTarget = builder.objectRef<{ type: string; id: string; label: string | null }>('AuditEventTarget').implement({
  fields: (t) => ({ type: t.exposeString('type'), id: t.exposeString('id'), label: t.exposeString('label', { nullable: true }) }),
});
const AuditUrls = builder
  .objectRef<{ location: string }>('AuditEventUrls')
  .implement({ fields: (t) => ({ location: t.exposeString('location') }) });

export const AuditEventType = builder.objectRef<Model<'AuditEvent'>>('AuditEvent').implement({
  fields: (t) => ({
    object: t.string({ resolve: () => 'audit-event' }),
    id: t.exposeID('id'),
    occurredAt: t.expose('occurredAt', { type: 'DateTime' }),
    action: t.exposeString('action'),
    actor: t.field({ type: AuditActor, resolve: (e) => ({ type: e.actorType, id: e.actorId, label: e.actorLabel }) }),
    source: t.string({ description: 'ui | api | script (the official enum); see `interface`', resolve: (e) => officialSource(e.source) }),
    interface: t.exposeString('source', { description: 'How the write came: rest, graphql, sso (a sign-in), cli' }),
    target: t.field({ type: AuditTarget, resolve: (e) => ({ type: e.targetType, id: e.targetId, label: e.targetLabel }) }),
    urls: t.field({
      type: AuditUrls,
      resolve: (e, _a, ctx) => ({ location: ctx.urls.api(`/orgs/${e.organizationId}/audit-events/${e.id}`) }),
    }),
    organization: t.exposeString('organizationId', { nullable: true }),
    tokenId: t.exposeString('tokenId', { nullable: true, description: 'The id of the API token used (never the token)' }),
    clientAddress: t.exposeString('clientAddress', { nullable: true }),
    schemaVersion: t.int({ resolve: () => 1 }),
    payload: t.field({
      type: 'JSON',
      description: 'Free-form: the changed fields of whatever the event is about. { before?, after? }, small',
      resolve: (e) => e.payload,
    }),
  }),
});

const AuditEventList = listOf('AuditEvent', AuditEventType);

const AuditEventAction = builder.objectRef<{ id: string; label: string }>('AuditEventAction').implement({
  fields: (t) => ({ object: t.string({ resolve: () => 'audit-event-action' }), id: t.exposeString('id'), label: t.exposeString('label') }),
});

builder.objectFields(OrganizationType, (t) => ({
  auditEvents: t.field({
    type: AuditEventList,
    description: 'The audit log, newest first (admins only); `limit` 1..100, default 20',
    args: {
      ...pageArgs(t),
      actor: t.arg.string({ description: 'An exact actor id' }),
      action: t.arg.string({ description: 'An exact action' }),
      target: t.arg.string({ description: 'An exact target id' }),
      from: t.arg.string({ description: 'Events at or after this time (ISO 8601)' }),
      to: t.arg.string({ description: 'Events at or before this time (ISO 8601)' }),
    },
    resolve: (org, args, ctx) => listAuditEvents(ctx, org.id, args),
  }),
  auditEvent: t.field({
    type: AuditEventType,
    args: { id: t.arg.id({ required: true }) },
    resolve: (org, { id }, ctx) => getAuditEvent(ctx, org.id, String(id)),
  }),
  auditEventActions: t.field({ type: [AuditEventAction], resolve: (org, _a, ctx) => auditActions(ctx, org.id) }),
}));
