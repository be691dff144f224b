import { builder } from '../../graphql/builder.js';
import { restBodyValue } from '../../rest/typed-body.js';
import * as check from '../../validate.js';

/**
 * Merge rules (official MergeRules / MergeRule), typed. Stored as the JSON `check.mergeRules`
 * (src/validate.ts) wrote: `{ type: inherit | none }` or `{ type: rules, rules: [...] }`, each rule
 * `{ rule }`, `{ rule, users }` or `{ rule: custom, expression }`. The variants are unions so a
 * client sees which fields a variant has; the REST documents select them with MERGE_RULES_SELECTION.
 */
type StoredRule = { rule: string; users?: string[]; expression?: string };
type StoredRules = { type: 'inherit' | 'none' } | { type: 'rules'; rules: StoredRule[] };

const MergeRulesKindEnum = builder.enumType('MergeRulesKind', {
  description: 'inherit: the organization’s rules apply (spaces only); none: no rule; rules: the listed rules',
  values: ['inherit', 'none', 'rules'] as const,
});

export const MergeRuleNameEnum = builder.enumType('MergeRuleName', { values: check.MERGE_RULE_NAMES });
type RuleName = (typeof MergeRuleNameEnum)['$inferType'];

const MergeRulePlain = builder.objectRef<StoredRule>('MergeRulePlain').implement({
  description: 'A rule with no parameter (e.g. require_at_least_one_review)',
  fields: (t) => ({ rule: t.field({ type: MergeRuleNameEnum, resolve: (r) => r.rule as RuleName }) }),
});
const MergeRuleUsers = builder.objectRef<StoredRule>('MergeRuleUsers').implement({
  description: 'A rule naming people: require_specific_reviewers, require_one_of_specific_reviewers, allow_bypass',
  fields: (t) => ({
    rule: t.field({ type: MergeRuleNameEnum, resolve: (r) => r.rule as RuleName }),
    users: t.stringList({ description: 'User ids', resolve: (r) => r.users ?? [] }),
  }),
});
const MergeRuleCustom = builder.objectRef<StoredRule>('MergeRuleCustom').implement({
  description: 'A custom rule: an expression',
  fields: (t) => ({
    rule: t.field({ type: MergeRuleNameEnum, resolve: (r) => r.rule as RuleName }),
    expression: t.string({ resolve: (r) => r.expression ?? '' }),
  }),
});
const MergeRuleUnion = builder.unionType('MergeRule', {
  types: [MergeRulePlain, MergeRuleUsers, MergeRuleCustom],
  resolveType: (r) => (r.rule === 'custom' ? MergeRuleCustom : Array.isArray(r.users) ? MergeRuleUsers : MergeRulePlain),
});

const MergeRulesPlain = builder.objectRef<StoredRules>('MergeRulesPlain').implement({
  description: 'inherit or none: no list of rules',
  fields: (t) => ({ type: t.field({ type: MergeRulesKindEnum, resolve: (m) => m.type }) }),
});
const MergeRulesList = builder.objectRef<Extract<StoredRules, { type: 'rules' }>>('MergeRulesList').implement({
  description: 'The rules a change request must meet to be merged',
  fields: (t) => ({
    type: t.field({ type: MergeRulesKindEnum, resolve: (m) => m.type }),
    rules: t.field({ type: [MergeRuleUnion], resolve: (m) => m.rules }),
  }),
});
export const MergeRulesUnion = builder.unionType('MergeRules', {
  types: [MergeRulesPlain, MergeRulesList],
  resolveType: (m) => (m.type === 'rules' ? MergeRulesList : MergeRulesPlain),
});

const MergeRuleInput = builder.inputType('MergeRuleInput', {
  description:
    'One merge rule, by its `rule` (discriminator) and the field that rule takes: `users` for require_specific_reviewers, require_one_of_specific_reviewers and allow_bypass; `expression` for custom; none for the others',
  fields: (t) => ({
    rule: t.field({ type: MergeRuleNameEnum, required: false, description: 'Required' }),
    users: t.stringList({ required: false, description: 'User ids: required by the rules naming people' }),
    expression: t.string({ required: false, description: 'Required by custom: at most 1024 characters' }),
  }),
});

/**
 * Merge rules as written (official MergeRulesConfiguration): a discriminator, `type`, and the
 * field its variant takes (`rules` with rules), rather than a oneOf input, since the variants
 * share `type`; the service names the field a variant lacks or should not have.
 */
export const MergeRulesInput = builder.inputType('MergeRulesInput', {
  description:
    'Discriminated by `type`: inherit (spaces only: the organization’s rules apply) and none take nothing else; rules takes `rules`',
  fields: (t) => ({
    type: t.field({ type: MergeRulesKindEnum, required: false, description: 'Required' }),
    rules: t.field({ type: [MergeRuleInput], required: false, description: 'With type rules: the rules, in order' }),
  }),
});

/**
 * A REST update body with its `mergeRules` as MergeRulesInput takes them: checked (unknown keys
 * dropped, as the service stores them), or refused with the service's 400 when the input type
 * cannot hold them (src/rest/typed-body.ts).
 */
export function restMergeRulesBody(body: Record<string, unknown>, opts: { allowInherit: boolean }): Record<string, unknown> {
  if (!('mergeRules' in body)) return body;
  return {
    ...body,
    mergeRules: restBodyValue(body.mergeRules, 'MergeRulesInput', (v) => check.mergeRules('mergeRules', v, opts)),
  };
}

/** A stored merge-rules value as the union's source (stored rows are written by check.mergeRules). */
export const storedMergeRules = (value: unknown) => value as StoredRules;

/** The selection a REST document makes of a MergeRules field: the stored JSON, key for key. */
export const MERGE_RULES_SELECTION = `{
  ... on MergeRulesPlain { type }
  ... on MergeRulesList { type rules { ... on MergeRulePlain { rule } ... on MergeRuleUsers { rule users } ... on MergeRuleCustom { rule expression } } }
}`;
