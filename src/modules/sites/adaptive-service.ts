import { Ajv, type ErrorObject } from 'ajv';
import type { Context } from '../../context.js';
import { requireSite } from '../../auth/permissions.js';
import { badRequest, notFound } from '../../errors.js';
import type { Prisma, Site } from '../../generated/prisma/client.js';
import { invalidateSite } from './structure.js';

/**
 * The adaptive-content visitor schema of a site: the JSON Schema (draft-07) of the claims a visitor
 * brings. Accepted shape (the official `SiteAdaptiveJSONSchema`, with the claims the seed allows:
 * booleans): an object schema with `additionalProperties: false` whose `properties` are boolean
 * claims, each with a description, and optionally `unsigned`, an object of boolean claims described
 * "Unsigned claims of the site visitor." with `additionalProperties: false`. Claim names are
 * identifiers, so conditions can name them (`visitor.claims.unsigned.beta`).
 * Checked with Ajv: the shape first (the 400 names the first thing wrong), then validity as a
 * draft-07 schema against the draft-07 meta-schema, then compilation.
 */
export const UNSIGNED_DESCRIPTION = 'Unsigned claims of the site visitor.';
const NAME = '^[A-Za-z_$][A-Za-z0-9_$]*$';
const CLAIM = {
  type: 'object',
  required: ['type', 'description'],
  additionalProperties: false,
  properties: { type: { const: 'boolean' }, description: { type: 'string', minLength: 1, maxLength: 1024 } },
};
const SHAPE = {
  type: 'object',
  required: ['type', 'properties', 'additionalProperties'],
  additionalProperties: false,
  properties: {
    $schema: { const: 'http://json-schema.org/draft-07/schema#' },
    type: { const: 'object' },
    additionalProperties: { const: false },
    properties: {
      type: 'object',
      propertyNames: { pattern: NAME },
      properties: {
        unsigned: {
          type: 'object',
          required: ['type', 'description', 'properties', 'additionalProperties'],
          additionalProperties: false,
          properties: {
            type: { const: 'object' },
            description: { const: UNSIGNED_DESCRIPTION },
            additionalProperties: { const: false },
            properties: { type: 'object', propertyNames: { pattern: NAME }, additionalProperties: CLAIM },
          },
        },
      },
      additionalProperties: CLAIM,
    },
  },
};

// Ajv's default meta-schema is draft-07.
const ajv = new Ajv({ allErrors: false, strict: true });
const checkShape = ajv.compile(SHAPE);

const pointerToField = (pointer: string) =>
  pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((field, segment) => `${field}.${segment}`, 'jsonSchema');

function describe(error: ErrorObject): ReturnType<typeof badRequest> {
  const at = pointerToField(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return badRequest(`${at}.${String(params.missingProperty)}`, 'is required');
    case 'additionalProperties':
      return badRequest(`${at}.${String(params.additionalProperty)}`, 'is not allowed here');
    case 'const':
      return badRequest(at, `must be ${JSON.stringify(params.allowedValue)}`);
    case 'pattern':
    case 'propertyNames':
      return badRequest(
        error.propertyName ? `${at}.${error.propertyName}` : at,
        'claim names must be identifiers (letters, digits, _ and $, not starting with a digit)',
      );
    default:
      return badRequest(at, error.message ?? 'is invalid');
  }
}

export function validateAdaptiveSchema(jsonSchema: unknown): Prisma.InputJsonObject {
  if (!checkShape(jsonSchema)) {
    const errors = checkShape.errors ?? [];
    // For a bad claim name Ajv reports the pattern failure (with the name) before propertyNames.
    throw describe(errors.find((e) => e.keyword === 'pattern' && e.propertyName) ?? errors[0]!);
  }
  if (!ajv.validateSchema(jsonSchema as object)) {
    throw badRequest('jsonSchema', `is not a valid draft-07 JSON Schema: ${ajv.errorsText(ajv.errors, { dataVar: 'jsonSchema' })}`);
  }
  try {
    ajv.compile(jsonSchema as object);
  } catch (error) {
    throw badRequest('jsonSchema', `cannot be compiled: ${(error as Error).message}`);
  } finally {
    // Ajv caches every schema it compiles: forget this one (each request brings a new object).
    ajv.removeSchema(jsonSchema as object);
  }
  return jsonSchema as Prisma.InputJsonObject;
}

export interface AdaptiveSchemaView {
  jsonSchema: unknown;
  updatedAt: Date;
}

export function adaptiveSchemaOf(site: Site): AdaptiveSchemaView | null {
  return site.adaptiveSchema !== null && site.adaptiveSchemaUpdatedAt
    ? { jsonSchema: site.adaptiveSchema, updatedAt: site.adaptiveSchemaUpdatedAt }
    : null;
}

/** The site's visitor schema; 404 when none was set. */
export async function getAdaptiveSchema(ctx: Context, organizationId: string, siteId: string): Promise<AdaptiveSchemaView> {
  const schema = adaptiveSchemaOf(await requireSite(ctx, organizationId, siteId));
  if (!schema) throw notFound('Adaptive schema');
  return schema;
}

export async function setAdaptiveSchema(
  ctx: Context,
  organizationId: string,
  siteId: string,
  jsonSchema: unknown,
): Promise<AdaptiveSchemaView> {
  await requireSite(ctx, organizationId, siteId, 'write');
  const schema = validateAdaptiveSchema(jsonSchema);
  const site = await ctx.prisma.site.update({
    where: { id: siteId },
    data: { adaptiveSchema: schema, adaptiveSchemaUpdatedAt: new Date() },
  });
  invalidateSite(ctx, siteId);
  return adaptiveSchemaOf(site)!;
}

type Claims = Record<string, { description?: string }>;

/**
 * Conditions suggested from the schema: one per boolean claim, `visitor.claims.<name> == true`
 * (unsigned claims under `visitor.claims.unsigned`), described by the claim's description. None
 * without a schema.
 */
export function templateConditions(site: Site): { description: string; condition: string }[] {
  const schema = site.adaptiveSchema as { properties?: Record<string, unknown> } | null;
  if (!schema?.properties) return [];
  const { unsigned, ...signed } = schema.properties as { unsigned?: { properties?: Claims } } & Claims;
  const conditions = (claims: Claims, prefix: string) =>
    Object.entries(claims).map(([name, claim]) => ({ description: claim.description ?? name, condition: `${prefix}.${name} == true` }));
  return [...conditions(unsigned?.properties ?? {}, 'visitor.claims.unsigned'), ...conditions(signed as Claims, 'visitor.claims')];
}
