import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  buildSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isObjectType,
  isUnionType,
  type GraphQLNamedType,
  type GraphQLSchema,
  type GraphQLType,
} from 'graphql';
import { describe, expect, it } from 'vitest';

/**
 * The customization types of schema.graphql hold the official description (@gitbook/api 0.202.0):
 * every property the official settings, their input and the site space's override name is a field
 * of a type reachable from the GraphQL type, and every closed set is an enum with the same values
 * (`-` written `_`). The types are made from the official schemas, so this fails when the making
 * drops or renames something.
 */

const require = createRequire(import.meta.url);
const spec = require('gitbook-api-0202/spec/openapi.json');
const schemas = spec.components.schemas as Record<string, any>;
const schema = buildSchema(readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8'));

/** Property names and enum value sets of an official schema, following $ref, oneOf, allOf, items and maps. */
function official(root: any) {
  const properties = new Set<string>();
  const enums: string[][] = [];
  const seen = new Set<any>();
  const walk = (node: any) => {
    if (!node || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    if (node.$ref) return walk(schemas[node.$ref.split('/').pop()]);
    if (Array.isArray(node.enum) && node.enum.length > 1 && node.enum.every((v: unknown) => typeof v === 'string')) enums.push(node.enum);
    for (const [key, value] of Object.entries(node.properties ?? {})) {
      properties.add(key);
      walk(value);
    }
    for (const k of ['oneOf', 'anyOf', 'allOf']) for (const b of node[k] ?? []) walk(b);
    walk(node.items);
    walk(node.propertyNames);
    if (typeof node.additionalProperties === 'object') walk(node.additionalProperties);
  };
  walk(root);
  return { properties, enums };
}

/** Field names and enum value sets of the types reachable from `name`. */
function reachable(s: GraphQLSchema, name: string) {
  const fields = new Set<string>();
  const enums: string[][] = [];
  const seen = new Set<string>();
  const visit = (type: GraphQLNamedType) => {
    if (seen.has(type.name)) return;
    seen.add(type.name);
    if (isEnumType(type)) enums.push(type.getValues().map((v) => v.name));
    if (isUnionType(type)) type.getTypes().forEach(visit);
    if (isObjectType(type) || isInputObjectType(type))
      for (const field of Object.values(type.getFields())) {
        fields.add(field.name);
        visit(getNamedType(field.type as GraphQLType));
      }
  };
  visit(s.getType(name)!);
  return { fields, enums };
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((v) => b.includes(v));

describe.each([
  ['SiteCustomization', { $ref: '#/components/schemas/SiteCustomizationSettings' }],
  ['SiteCustomizationInput', { $ref: '#/components/schemas/SiteCustomizationSettingsBase' }],
  [
    'SiteCustomizationOverrideInput',
    spec.paths['/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/customization'].patch.requestBody.content[
      'application/json'
    ].schema,
  ],
])('%s holds the official description', (name, root) => {
  const want = official(root);
  const have = reachable(schema, name);

  it('every official property is a field', () => {
    // A localized text's map becomes { language, text } entries: its keys are languages, not properties.
    expect([...want.properties].filter((p) => !have.fields.has(p))).toEqual([]);
  });

  it('every closed set is an enum with the same values', () => {
    const missing = want.enums.filter(
      (values) =>
        !have.enums.some((e) =>
          sameSet(
            e,
            values.map((v) => v.replace(/-/g, '_')),
          ),
        ),
    );
    expect(missing).toEqual([]);
  });
});
