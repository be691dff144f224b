/**
 * Live updates of site publication (GraphQL subscriptions over SSE, src/live/): an organization's
 * sites published or unpublished. Who may subscribe is who may read the sites (any member, as
 * `site(organizationId:, id:)` and the site list check); checked when subscribing and before each
 * event.
 */
import { requireOrg } from '../../auth/permissions.js';
import { builder } from '../../graphql/builder.js';
import type { LiveEvent } from '../../live/events.js';
import { delivered, liveSubscription, type Delivery } from '../../live/listener.js';
import { SiteRef } from './refs.js';
import { getSite, siteTopic } from './site-service.js';

const SitePublicationActionEnum = builder.enumType('SitePublicationAction', { values: ['published', 'unpublished'] as const });

const SiteEvent = builder.objectRef<LiveEvent>('SitePublicationEvent').implement({
  fields: (t) => ({
    action: t.field({ type: SitePublicationActionEnum, resolve: (e) => e.action as 'published' | 'unpublished' }),
    site: t.field({
      type: SiteRef,
      description: 'The site as it is now',
      resolve: (e, _a, ctx) => getSite(ctx, e.organizationId!, e.siteId!),
    }),
  }),
});

builder.subscriptionField('sitePublicationEvents', (t) =>
  t.field({
    type: SiteEvent,
    description: "The organization's sites published or unpublished; one site only with `siteId`",
    args: { organizationId: t.arg.id({ required: true }), siteId: t.arg.id() },
    subscribe: async (_root, args, ctx) => {
      const organizationId = String(args.organizationId);
      const siteId = args.siteId == null ? null : String(args.siteId);
      // Refused as the query fields refuse: the site (404 for another organization's), else the organization.
      const check = () => (siteId ? getSite(ctx, organizationId, siteId) : requireOrg(ctx, organizationId));
      await check();
      return liveSubscription(ctx, siteTopic(organizationId), async (event) => {
        await check();
        return siteId === null || event.siteId === siteId;
      });
    },
    resolve: (delivery: Delivery) => delivered(delivery),
  }),
);
