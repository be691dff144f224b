import type { InputObjectRef, ObjectRef } from '@pothos/core';
import { builder } from '../../graphql/builder.js';
import { ContentRefUnion } from '../content/index.js';
import { OUTPUT_SHAPE, OVERRIDE_SHAPE, PUT_SHAPE, type ShapeNode } from './customization-model.js';

/**
 * The GraphQL types of site customization, made at schema build time from the shapes of
 * customization-model.ts (themselves read from the official schemas): object types for reads,
 * input types for the replacement and the override, an enum per closed set. Values are official
 * JSON reshaped by `toGraphQL` (customization-model.ts), so the fields resolve by name.
 */

// The types are made from data, so their names and fields are not known to Pothos' typing.
const b = builder as any;
const made = new Map<string, unknown>();
const once = <T>(name: string, make: () => T): T => {
  if (!made.has(name)) made.set(name, make());
  return made.get(name) as T;
};

const SCALARS = { String: 'String', Int: 'Int', Float: 'Float', Boolean: 'Boolean' } as const;
const gqlName = (value: string) => value.replace(/[^A-Za-z0-9_]/g, '_').replace(/^(\d)/, '_$1');

function enumRef(node: ShapeNode & { kind: 'enum' }) {
  return once(`enum:${node.name}`, () =>
    b.enumType(node.name, { values: Object.fromEntries(node.values.map((v) => [gqlName(v), { value: v }])) }),
  );
}

const DESCRIPTIONS: Record<string, string> = {
  SiteCustomization:
    "A site's customization (official SiteCustomizationSettings), with the 0.146.0 settings Lectern keeps answering: `pdf`, `git` and pageActions' switches",
  SiteCustomizationInput:
    'A full replacement of the settings (official SiteCustomizationSettingsInput): what it leaves out reverts to the defaults. Fields are optional here: the official schema, checked after, names what is missing or wrong',
  SiteCustomizationOverrideInput:
    "What a site space overrides (official SiteCustomizationSettingsPartial): merged into its override, a null removes that setting's override",
};

const localizedDescription = 'A text in one language; a list in place of the official map keyed by language, in the map’s order';

function outputRef(node: ShapeNode): unknown {
  switch (node.kind) {
    case 'scalar':
      return SCALARS[node.type];
    case 'enum':
      return enumRef(node);
    case 'list':
      return [outputRef(node.of)];
    case 'union':
      return ContentRefUnion;
    case 'localized':
      return [
        once('CustomizationLocalizedText', () =>
          b.objectRef('CustomizationLocalizedText').implement({
            description: localizedDescription,
            fields: (t: any) => ({
              language: t.field({ type: enumRef(node.language), resolve: (e: any) => e.language }),
              text: t.string({ resolve: (e: any) => e.text }),
            }),
          }),
        ),
      ];
    case 'choice':
      return once(node.name, () =>
        b.objectRef(node.name).implement({
          description: `One of two (oneOf style, one field set): a default font by name, or a custom font's definition${node.nullable ? '; neither: none of its own' : ''}`,
          fields: (t: any) => ({
            default: t.field({ type: enumRef(node.choices.default), nullable: true, resolve: (c: any) => c.default ?? null }),
            custom: t.field({ type: outputRef(node.choices.custom), nullable: true, resolve: (c: any) => c.custom ?? null }),
          }),
        }),
      );
    case 'object':
      return once(node.name, () =>
        b.objectRef(node.name).implement({
          description: DESCRIPTIONS[node.name],
          fields: (t: any) =>
            Object.fromEntries(
              node.fields.map(([key, child]) => [
                key,
                t.field({
                  type: outputRef(child),
                  nullable: child.kind === 'list' || child.kind === 'localized' ? { list: true, items: false } : true,
                  // A required reference that may be null (a header link's `to`): its null is answered.
                  ...(child.kind === 'union' && child.nullable ? { extensions: { restKeepNull: true } } : {}),
                  resolve: (o: any) => o[key] ?? null,
                }),
              ]),
            ),
        }),
      );
  }
}

function inputRef(node: ShapeNode): unknown {
  switch (node.kind) {
    case 'scalar':
      return SCALARS[node.type];
    case 'enum':
      return enumRef(node);
    case 'list':
      return [inputRef(node.of)];
    case 'localized':
      return [
        once('CustomizationLocalizedTextInput', () =>
          b.inputType('CustomizationLocalizedTextInput', {
            description: localizedDescription,
            fields: (t: any) => ({
              language: t.field({ type: enumRef(node.language), required: true }),
              text: t.string({ required: true }),
            }),
          }),
        ),
      ];
    case 'union': {
      const name = `${node.name}Input`;
      return once(name, () => {
        const kinds = enumRef({
          kind: 'enum',
          name: `${node.name}Kind`,
          values: node.members.map((m) => m.value),
          nullable: false,
        });
        const fields = [...new Set(node.members.flatMap((m) => m.node.fields.map(([key]) => key)))].filter((k) => k !== node.discriminator);
        return b.inputType(name, {
          description: `A reference, discriminator + fields style: \`${node.discriminator}\` and the fields of that kind (${node.members
            .map(
              (m) =>
                `${m.value}: ${m.node.fields
                  .map(([k]) => k)
                  .filter((k) => k !== node.discriminator)
                  .join(', ')}`,
            )
            .join('; ')}); the official schema names a field a kind lacks`,
          fields: (t: any) => ({
            [node.discriminator]: t.field({ type: kinds, required: false }),
            ...Object.fromEntries(fields.map((key) => [key, t.string({ required: false })])),
          }),
        });
      });
    }
    case 'choice':
      return once(`${node.name}Input`, () =>
        b.inputType(`${node.name}Input`, {
          description: `oneOf style: set exactly one of \`default\` (a default font by name) and \`custom\` (a font definition)${node.nullable ? '; the field itself null: none of its own' : ''}`,
          fields: (t: any) => ({
            default: t.field({ type: enumRef(node.choices.default), required: false }),
            custom: t.field({ type: inputRef(node.choices.custom), required: false }),
          }),
        }),
      );
    case 'object':
      return once(`${node.name}Input`, () =>
        b.inputType(`${node.name}Input`, {
          description: DESCRIPTIONS[`${node.name}Input`],
          fields: (t: any) =>
            Object.fromEntries(node.fields.map(([key, child]) => [key, t.field({ type: inputRef(child), required: false })])),
        }),
      );
  }
}

/** A customization as `toGraphQL` reshapes it, and an input before `fromGraphQLInput`. */
type GraphQLValue = Record<string, unknown>;
export const SiteCustomizationType = outputRef(OUTPUT_SHAPE) as ObjectRef<any, GraphQLValue>;
export const SiteCustomizationInput = inputRef(PUT_SHAPE) as InputObjectRef<any, GraphQLValue>;
export const SiteCustomizationOverrideInput = inputRef(OVERRIDE_SHAPE) as InputObjectRef<any, GraphQLValue>;
const firstUnion = (node: ShapeNode): ShapeNode | undefined =>
  node.kind === 'union'
    ? node
    : node.kind === 'object'
      ? node.fields.map(([, child]) => firstUnion(child)).find(Boolean)
      : node.kind === 'list'
        ? firstUnion(node.of)
        : undefined;
/** The official ContentRef as input (discriminator + fields), as the settings take it. */
export const ContentRefInput = inputRef(firstUnion(PUT_SHAPE)!) as InputObjectRef<any, GraphQLValue>;
