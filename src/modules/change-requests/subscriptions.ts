/**
 * Live updates of a space (GraphQL subscriptions over SSE, src/live/): its main content moving
 * (a change request merged, or a live edit) and its change requests' changes. Each checks the
 * caller's rights when subscribing with the functions the query fields use (a space the caller
 * cannot see is refused exactly as `space(id:)` refuses it), and again before each event (a member
 * removed meanwhile gets that refusal as the stream's last message). An event carries ids; the
 * objects are read as they are when it is delivered, with the caller's rights.
 */
import { requireSpace } from '../../auth/permissions.js';
import { builder } from '../../graphql/builder.js';
import type { LiveEvent } from '../../live/events.js';
import { delivered, liveSubscription, type Delivery } from '../../live/listener.js';
import { RevisionType, spaceRevision } from '../content/index.js';
import { SpaceType } from '../spaces/index.js';
import { ChangeRequestType } from './change-request.js';
import { changeRequestTopic, contentTopic, getChangeRequest, type ChangeRequestAction } from './service.js';

const SpaceContentActionEnum = builder.enumType('SpaceContentAction', {
  description: "How the space's main content moved: a change request `merged` into it, or `edited` live",
  values: ['merged', 'edited'] as const,
});

const SpaceContentEvent = builder.objectRef<LiveEvent>('SpaceContentEvent').implement({
  description: "The space's main content moved to a new revision",
  fields: (t) => ({
    action: t.field({ type: SpaceContentActionEnum, resolve: (e) => e.action as 'merged' | 'edited' }),
    space: t.field({ type: SpaceType, resolve: (e, _a, ctx) => requireSpace(ctx, e.spaceId!) }),
    revision: t.field({
      type: RevisionType,
      description: 'The new main revision (the one this event announced, even if main moved again since)',
      resolve: (e, _a, ctx) => spaceRevision(ctx, e.spaceId!, e.revisionId!),
    }),
    changeRequest: t.field({
      type: ChangeRequestType,
      nullable: true,
      description: 'The change request merged (null for a live edit)',
      resolve: (e, _a, ctx) => (e.changeRequestId ? getChangeRequest(ctx, e.spaceId!, e.changeRequestId) : null),
    }),
  }),
});

const CHANGE_REQUEST_ACTIONS = [
  'created',
  'updated',
  'status_changed',
  'merged',
  'reviewed',
] as const satisfies readonly ChangeRequestAction[];
const ChangeRequestActionEnum = builder.enumType('ChangeRequestAction', {
  description:
    'What happened to a change request: `created`; `updated` (subject, description, content, brought up to date with main); `status_changed` (draft, open, archived: closed or reopened); `merged`; `reviewed` (a review submitted, reviewers requested or one taken off)',
  values: CHANGE_REQUEST_ACTIONS,
});

const ChangeRequestEvent = builder.objectRef<LiveEvent>('ChangeRequestEvent').implement({
  fields: (t) => ({
    action: t.field({ type: ChangeRequestActionEnum, resolve: (e) => e.action as ChangeRequestAction }),
    changeRequest: t.field({
      type: ChangeRequestType,
      description: 'The change request as it is now',
      resolve: (e, _a, ctx) => getChangeRequest(ctx, e.spaceId!, e.changeRequestId!),
    }),
  }),
});

builder.subscriptionField('spaceContentEvents', (t) =>
  t.field({
    type: SpaceContentEvent,
    description:
      "Each time the space's main content moves: a change request merged, or a live edit (by any Lectern process on this database)",
    args: { spaceId: t.arg.id({ required: true }) },
    subscribe: async (_root, { spaceId }, ctx) => {
      const space = await requireSpace(ctx, String(spaceId));
      return liveSubscription(ctx, contentTopic(space.id), async () => Boolean(await requireSpace(ctx, space.id)));
    },
    resolve: (delivery: Delivery) => delivered(delivery),
  }),
);

builder.subscriptionField('changeRequestEvents', (t) =>
  t.field({
    type: ChangeRequestEvent,
    description:
      "Changes of the space's change requests (created, updated, status changed, merged); of one only with `changeRequestId` (an id or a number)",
    args: { spaceId: t.arg.id({ required: true }), changeRequestId: t.arg.id() },
    subscribe: async (_root, args, ctx) => {
      const space = await requireSpace(ctx, String(args.spaceId));
      const only = args.changeRequestId == null ? null : (await getChangeRequest(ctx, space.id, String(args.changeRequestId))).id;
      return liveSubscription(ctx, changeRequestTopic(space.id), async (event) => {
        await requireSpace(ctx, space.id);
        return only === null || event.changeRequestId === only;
      });
    },
    resolve: (delivery: Delivery) => delivered(delivery),
  }),
);
