import { LIST_FIELDS, listVariables, type RestRoute } from '../../rest/route.js';

const EVENT_FIELDS = /* GraphQL */ `fragment AuditEventFields on AuditEvent {
  object id occurredAt action actor { type id label } source target { type id label } urls { location } tokenId clientAddress
}`;

/** The official 0.202.0 audit-log operations (organization admins only). */
export const auditRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/orgs/:organizationId/audit-events',
    operationId: 'listOrganizationAuditEvents',
    document: `query AuditEvents($organizationId: ID!, $page: String, $limit: Int, $actor: String, $action: String, $target: String, $from: String, $to: String) {
      organization(id: $organizationId) {
        auditEvents(page: $page, limit: $limit, actor: $actor, action: $action, target: $target, from: $from, to: $to) { items { ...AuditEventFields } ${LIST_FIELDS} }
      }
    } ${EVENT_FIELDS}`,
    variables: (req) => ({
      organizationId: req.params.organizationId,
      ...listVariables(req),
      actor: req.query.actor || undefined,
      action: req.query.action || undefined,
      target: req.query.target || undefined,
      from: req.query.from || undefined,
      to: req.query.to || undefined,
    }),
    result: (data) => data.organization.auditEvents,
  },
  {
    method: 'GET',
    path: '/orgs/:organizationId/audit-events/:auditEventId',
    operationId: 'getOrganizationAuditEvent',
    document: `query AuditEvent($organizationId: ID!, $id: ID!) {
      organization(id: $organizationId) { auditEvent(id: $id) { ...AuditEventFields schemaVersion payload } }
    } ${EVENT_FIELDS}`,
    variables: (req) => ({ organizationId: req.params.organizationId, id: req.params.auditEventId }),
    result: (data) => data.organization.auditEvent,
  },
  {
    method: 'GET',
    path: '/orgs/:organizationId/audit-event-actions',
    operationId: 'listOrganizationAuditEventActions',
    document: `query AuditEventActions($organizationId: ID!) { organization(id: $organizationId) { auditEventActions { object id label } } }`,
    variables: (req) => ({ organizationId: req.params.organizationId }),
    result: (data) => ({ items: data.organization.auditEventActions }),
  },
];
