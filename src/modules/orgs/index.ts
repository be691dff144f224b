// The orgs module's face: what other modules (and the entry points) may import from it.

export { assertMayJoin } from './joining.js';
export { MemberType } from './member.js';
export { OrganizationType } from './organization.js';
export { MEMBER_FIELDS, ORGANIZATION_FIELDS } from './routes.js';
export { createOrganization } from './service.js';
export {
  MERGE_RULES_SELECTION,
  MergeRuleNameEnum,
  MergeRulesInput,
  MergeRulesUnion,
  restMergeRulesBody,
  storedMergeRules,
} from './merge-rules.js';
