import { createRequire } from 'node:module';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { badRequest } from '../../errors.js';

/**
 * Request bodies of the renderer API (site customization, site-space overrides, redirects, the site
 * search scope) checked against the official 0.202.0 schemas, copied with the components they use
 * into customization-schemas.json by scripts/customization-schemas.ts (the server never loads the
 * dev dependency that holds the description). The copy closes every object schema
 * (`additionalProperties: false`): an unknown field is a 400 naming it.
 *
 * Formats: `uri` accepts absolute http, https and mailto URLs only. The official description allows
 * any URI; a `javascript:` or `data:` logo, favicon or link would run in every reader's browser.
 */
const require = createRequire(import.meta.url);
const official = require('./customization-schemas.json') as { requests: Record<string, unknown>; components: unknown };

const SAFE_SCHEMES = new Set(['http:', 'https:', 'mailto:']);
function safeUri(value: string): boolean {
  try {
    return SAFE_SCHEMES.has(new URL(value).protocol);
  } catch {
    return false;
  }
}

const ajv = new Ajv2020({
  strict: false,
  allErrors: true,
  discriminator: true,
  formats: { uri: safeUri, emoji: true, icon: true, 'date-time': true },
});
ajv.addSchema({ $id: 'official', ...official });

export type OfficialRequest =
  | 'updateSiteCustomizationById'
  | 'overrideSiteSpaceCustomizationById'
  | 'createSiteRedirect'
  | 'bulkUpsertSiteRedirects'
  | 'updateSiteRedirectById'
  | 'searchSiteScope'
  | 'bulkUpsertSiteRedirectsPublish'
  | 'bulkUpsertSiteRedirectsUpsert';

/** `/redirects/0/source` → `redirects[0].source` (under `prefix`). */
function fieldOf(instancePath: string, prefix: string): string {
  let field = prefix;
  for (const raw of instancePath.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    field = /^\d+$/.test(segment) ? `${field}[${segment}]` : field ? `${field}.${segment}` : segment;
  }
  return field || 'body';
}

/** The error a person should read first: an unknown field, then a missing one, then the deepest. */
function firstError(errors: ErrorObject[]): ErrorObject {
  // The deepest first: in a oneOf without a discriminator (a favicon: icon, emoji or nothing) the
  // branch that got furthest is the one meant; at one depth, an unknown field, then a missing one.
  const rank = (e: ErrorObject) =>
    e.keyword === 'additionalProperties' ? 0 : e.keyword === 'required' ? 1 : e.keyword === 'oneOf' || e.keyword === 'anyOf' ? 3 : 2;
  const depth = (e: ErrorObject) =>
    e.instancePath.split('/').length + (e.keyword === 'additionalProperties' || e.keyword === 'required' ? 1 : 0);
  return [...errors].sort((a, b) => depth(b) - depth(a) || rank(a) - rank(b))[0]!;
}

/** Throws a 400 naming the first thing wrong when `value` does not satisfy the official request schema. */
export function checkOfficial(name: OfficialRequest, value: unknown, prefix = ''): void {
  const validate = ajv.getSchema(`official#/requests/${name}`);
  if (!validate) throw new Error(`no official schema ${name}`);
  if (validate(value)) return;
  const error = firstError(validate.errors ?? []);
  const at = fieldOf(error.instancePath, prefix);
  const params = error.params as Record<string, unknown>;
  const join = (field: string) => (at === 'body' ? field : `${at}.${field}`);
  switch (error.keyword) {
    case 'additionalProperties':
      throw badRequest(join(String(params.additionalProperty)), 'is not a known field');
    case 'required':
      throw badRequest(join(String(params.missingProperty)), 'is required');
    case 'enum':
      throw badRequest(at, `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`);
    case 'format':
      throw badRequest(
        at,
        params.format === 'uri' ? 'must be an absolute http, https or mailto URL' : `must be a valid ${String(params.format)}`,
      );
    case 'discriminator':
      throw badRequest(join(String(params.tag)), params.error === 'mapping' ? 'has an unknown value' : 'is required');
    case 'pattern':
      if (at.endsWith('source'))
        throw badRequest(at, 'must be a path starting with / (letters, digits, - . _ ~ + and %-escapes), optionally ending in *');
      throw badRequest(at, error.message ?? 'is invalid');
    default:
      throw badRequest(at, error.message ?? 'is invalid');
  }
}
