import { builder } from '../../graphql/builder.js';
import { requireSpace } from '../../auth/permissions.js';
import { MergeRuleNameEnum } from '../orgs/index.js';
import { ChangeRequestType } from './change-request.js';
import { type MergeRuleCheck, mergeRuleChecks } from './service.js';

/**
 * Whether a change request meets the merge rules, as the merge would check them now for the
 * caller: the app shows each rule and disables its merge button with the reason (the merge
 * itself checks again, in its transaction).
 */
type RuleName = (typeof MergeRuleNameEnum)['$inferType'];

const MergeRuleCheckType = builder.objectRef<MergeRuleCheck>('MergeRuleCheck').implement({
  description: 'One merge rule checked against a change request',
  fields: (t) => ({
    rule: t.field({ type: MergeRuleNameEnum, resolve: (c) => c.rule as RuleName }),
    met: t.boolean({ resolve: (c) => !c.reason }),
    reason: t.string({ nullable: true, description: 'Why the rule is not met (null when it is)', resolve: (c) => c.reason }),
  }),
});

const MergeabilityType = builder.objectRef<{ bypass: boolean; checks: MergeRuleCheck[] }>('ChangeRequestMergeability').implement({
  description: 'The merge rules that apply to a change request (the space’s, or its organization’s), each checked for the caller',
  fields: (t) => ({
    rules: t.field({ type: [MergeRuleCheckType], resolve: (m) => m.checks }),
    bypass: t.boolean({
      description: 'The caller is listed in an allow_bypass rule: no rule holds their merge back',
      resolve: (m) => m.bypass,
    }),
    met: t.boolean({
      description: 'True when a merge by the caller would pass the rules',
      resolve: (m) => m.bypass || m.checks.every((c) => !c.reason),
    }),
  }),
});

builder.objectField(ChangeRequestType, 'mergeability', (t) =>
  t.field({
    type: MergeabilityType,
    description: 'The merge rules that apply, each checked against the change request as it is now',
    resolve: async (cr, _a, ctx) => mergeRuleChecks(ctx, ctx.prisma, await requireSpace(ctx, cr.spaceId), cr),
  }),
);
