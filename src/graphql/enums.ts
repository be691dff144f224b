import { builder } from './builder.js';
import { ROLES } from '../auth/roles.js';

/**
 * REST strings such as `share-link` or `pt-br` are not valid GraphQL enum names. Every enum is
 * declared here with GraphQL name = the REST string with `-` as `_`, and internal value = the
 * REST string; the REST adapter maps both ways from the schema, so nothing else converts.
 */
export function restEnum<const V extends string>(name: string, values: readonly V[], description?: string) {
  return builder.enumType(name, {
    description,
    values: Object.fromEntries(values.map((v) => [v.replace(/-/g, '_'), { value: v }])) as Record<string, { value: V }>,
  });
}

export const RoleEnum = restEnum('Role', ROLES, 'Member role, from read to admin; null (where allowed) is a guest');
export const DefaultLevelEnum = restEnum(
  'DefaultLevel',
  [...ROLES, 'inherit'] as const,
  'Default level for content: a role, or inherit from the parent',
);
export const ContentVisibilityEnum = restEnum('ContentVisibility', [
  'public',
  'unlisted',
  'share-link',
  'visitor-auth',
  'in-collection',
  'private',
] as const);
export const SpaceEditModeEnum = restEnum('SpaceEditMode', ['live', 'locked'] as const);
export const OrganizationTypeEnum = restEnum('OrganizationType', ['business', 'community'] as const);
export const BillingProductEnum = restEnum('BillingProduct', [
  'free_2024',
  'plus_2024',
  'pro_2024',
  'enterprise_2024',
  'community_2024',
  'free',
  'plus',
  'pro',
  'internal',
] as const);
export const LANGUAGES = [
  'en',
  'fr',
  'de',
  'es',
  'it',
  'pt',
  'pt-br',
  'ru',
  'ja',
  'zh',
  'yue',
  'ko',
  'ar',
  'hi',
  'nl',
  'pl',
  'tr',
  'sv',
  'no',
  'da',
  'fi',
  'el',
  'cs',
  'hu',
  'ro',
  'th',
  'vi',
  'id',
  'ms',
  'he',
  'uk',
  'sk',
  'bg',
  'hr',
  'lt',
  'lv',
  'et',
  'sl',
] as const;
export const TranslationLanguageEnum = restEnum('TranslationLanguage', LANGUAGES);
