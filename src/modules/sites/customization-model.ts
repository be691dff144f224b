import { createRequire } from 'node:module';
import { badRequest } from '../../errors.js';
import { defaultCustomization } from './published-service.js';
import { isObject } from '../../validate.js';

/**
 * The shape of site customization, read from the official request schemas in
 * customization-schemas.json (scripts/customization-schemas.ts copies them from @gitbook/api), so
 * the GraphQL types (customization-types.ts), the REST documents' selections and the conversions
 * between official JSON and GraphQL values all come from one description and cannot drift.
 *
 * How the official constructs become GraphQL:
 * - a string enum: an enum; a `oneOf` with `null`: the other branch, nullable;
 * - a discriminated `oneOf` (ContentRef, by `kind`): a union in output; in input the
 *   discriminator + fields style (`kind` and every kind's fields, optional);
 * - a `oneOf` of a closed string set and an object (a font: a default font's name or a font
 *   definition, the heading font also null): the oneOf style in both directions, an object with
 *   one optional field per variant (`default`, `custom`); neither set is the null heading font;
 * - a `oneOf` of objects without a discriminator (the favicon: icon, emoji or nothing): one
 *   object with each branch's fields, optional;
 * - a map keyed by language (localized texts): a list of `{ language, text }`, in the map's order.
 */

const require = createRequire(import.meta.url);
const official = require('./customization-schemas.json') as { requests: Record<string, any>; components: { schemas: Record<string, any> } };
const components = official.components.schemas;

export type ShapeNode =
  | { kind: 'scalar'; type: 'String' | 'Int' | 'Float' | 'Boolean'; nullable: boolean }
  | { kind: 'enum'; name: string; values: string[]; nullable: boolean }
  | { kind: 'object'; name: string; fields: [string, ShapeNode][]; nullable: boolean }
  | { kind: 'list'; of: ShapeNode; nullable: boolean }
  | { kind: 'localized'; language: ShapeNode & { kind: 'enum' }; nullable: boolean }
  | {
      kind: 'union';
      name: string;
      discriminator: string;
      members: { name: string; value: string; node: ShapeNode & { kind: 'object' } }[];
      nullable: boolean;
    }
  | {
      kind: 'choice';
      name: string;
      choices: { default: ShapeNode & { kind: 'enum' }; custom: ShapeNode & { kind: 'object' } };
      nullable: boolean;
    };

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const componentName = (ref: string) => ref.split('/').pop()!;

/** GraphQL names for official component names: kept when they already say what they are about. */
function typeNameOf(component: string): string {
  const base = component.replace(/Input$/, '');
  if (base === 'TranslationLanguage') return 'CustomizationLanguage';
  return /^(Customization|Site)/.test(base) ? base : `Customization${base}`;
}

const enums = new Map<string, ShapeNode & { kind: 'enum' }>();
/** One enum per closed set: an inline set reuses an enum of the same values. */
function enumNode(name: string, values: string[]): ShapeNode & { kind: 'enum' } {
  const same = [...enums.values()].find((e) => e.values.join('|') === values.join('|'));
  if (same) return { ...same, nullable: false };
  const node = { kind: 'enum' as const, name, values, nullable: false };
  enums.set(name, node);
  return node;
}

const nullable = <T extends ShapeNode>(node: T): T => ({ ...node, nullable: true });

/** `name`: the GraphQL name an inline object or enum at this position takes. */
function shapeOf(schema: any, name: string): ShapeNode {
  if (schema.$ref) {
    const component = componentName(schema.$ref);
    return shapeOf(components[component], typeNameOf(component));
  }
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.includes('null') && types.length === 2) return nullable(shapeOf({ ...schema, type: types.find((t) => t !== 'null') }, name));
  if (schema.oneOf) return oneOfShape(schema, name);
  if (schema.enum) return enumNode(name, schema.enum);
  const type = types[0];
  if (type === 'string') return { kind: 'scalar', type: 'String', nullable: false };
  if (type === 'integer') return { kind: 'scalar', type: 'Int', nullable: false };
  if (type === 'number') return { kind: 'scalar', type: 'Float', nullable: false };
  if (type === 'boolean') return { kind: 'scalar', type: 'Boolean', nullable: false };
  if (type === 'array') return { kind: 'list', of: shapeOf(schema.items, name), nullable: false };
  if (type === 'object' && schema.propertyNames) {
    const language = shapeOf(schema.propertyNames, 'CustomizationLanguage');
    if (language.kind !== 'enum') throw new Error(`${name}: a map keyed by something else than a closed set`);
    return { kind: 'localized', language, nullable: false };
  }
  if (type === 'object') {
    const fields = Object.entries(schema.properties ?? {}).map(
      ([key, value]) => [key, shapeOf(value, `${name}${cap(key)}`)] as [string, ShapeNode],
    );
    return { kind: 'object', name, fields, nullable: false };
  }
  throw new Error(`${name}: no GraphQL shape for ${JSON.stringify(schema).slice(0, 200)}`);
}

function oneOfShape(schema: any, name: string): ShapeNode {
  const branches: any[] = schema.oneOf;
  const isNull = (b: any) => b.type === 'null';
  const others = branches.filter((b) => !isNull(b));
  const withNull = others.length < branches.length;
  const wrap = <T extends ShapeNode>(node: T): T => (withNull ? nullable(node) : node);
  if (others.length === 1) return wrap(shapeOf(others[0], name) as ShapeNode);
  if (schema.discriminator) {
    const key: string = schema.discriminator.propertyName;
    // The members keep the official names: the schema's ContentRef union (src/modules/content) has them.
    const members = others.map((b) => {
      const member = componentName(b.$ref);
      const node = shapeOf(components[member], member);
      if (node.kind !== 'object') throw new Error(`${name}: a union member that is not an object`);
      return { name: member, value: components[componentName(b.$ref)].properties[key].enum[0] as string, node };
    });
    return wrap({ kind: 'union', name, discriminator: key, members, nullable: false });
  }
  const shapes = others.map((b) => shapeOf(b, name));
  const defaultChoice = shapes.find((s) => s.kind === 'enum');
  const custom = shapes.find((s) => s.kind === 'object');
  if (shapes.length === 2 && defaultChoice?.kind === 'enum' && custom?.kind === 'object')
    return wrap({ kind: 'choice', name, choices: { default: defaultChoice, custom }, nullable: false });
  if (shapes.every((s) => s.kind === 'object')) {
    const fields = new Map<string, ShapeNode>();
    for (const s of shapes) for (const [key, node] of (s as ShapeNode & { kind: 'object' }).fields) fields.set(key, node);
    return wrap({ kind: 'object', name, fields: [...fields], nullable: false });
  }
  throw new Error(`${name}: no GraphQL shape for this oneOf`);
}

const withField = (node: ShapeNode & { kind: 'object' }, path: string[], field: [string, ShapeNode]): ShapeNode & { kind: 'object' } => {
  if (!path.length) return { ...node, fields: [...node.fields, field] };
  return {
    ...node,
    fields: node.fields.map(([key, child]) =>
      key === path[0] && child.kind === 'object' ? [key, withField(child, path.slice(1), field)] : [key, child],
    ),
  };
};

const bool = (): ShapeNode => ({ kind: 'scalar', type: 'Boolean', nullable: false });
const gitShape = (name: string): ShapeNode => ({ kind: 'object', name, fields: [['showEditLink', bool()]], nullable: false });

function settingsShape(): ShapeNode & { kind: 'object' } {
  const shape = shapeOf(components[componentName(official.requests.updateSiteCustomizationById.$ref)], 'SiteCustomization');
  if (shape.kind !== 'object') throw new Error('SiteCustomizationSettingsBase is not an object');
  return shape;
}

/** What a customization read answers: the official settings, their `updatedAt`, and the 0.146.0 settings Lectern keeps answering. */
export const OUTPUT_SHAPE: ShapeNode & { kind: 'object' } = [
  (s: ShapeNode & { kind: 'object' }) =>
    withField(s, [], ['pdf', { kind: 'object', name: 'SiteCustomizationPdf', fields: [['enabled', bool()]], nullable: false }]),
  (s: ShapeNode & { kind: 'object' }) => withField(s, [], ['git', gitShape('SiteCustomizationGit')]),
  (s: ShapeNode & { kind: 'object' }) => withField(s, ['pageActions'], ['externalAI', bool()]),
  (s: ShapeNode & { kind: 'object' }) => withField(s, ['pageActions'], ['markdown', bool()]),
  (s: ShapeNode & { kind: 'object' }) => withField(s, ['pageActions'], ['mcp', bool()]),
  (s: ShapeNode & { kind: 'object' }) => withField(s, [], ['updatedAt', { kind: 'scalar', type: 'String', nullable: false }]),
].reduce((s, add) => add(s), settingsShape());

/** A PUT body (0.202.0's settings; `git`, 0.146.0's, kept as given). */
export const PUT_SHAPE = withField(settingsShape(), [], ['git', gitShape('SiteCustomizationGit')]);

/** A site space's override (official SiteCustomizationSettingsPartial): null removes a setting's override. */
export const OVERRIDE_SHAPE: ShapeNode & { kind: 'object' } = (() => {
  const shape = shapeOf(official.requests.overrideSiteSpaceCustomizationById, 'SiteCustomizationOverride');
  if (shape.kind !== 'object') throw new Error('the override is not an object');
  return shape;
})();

// ---- official JSON ↔ GraphQL values ----

/**
 * Official JSON → a GraphQL value: the output the resolvers answer, or (`input`) the input a
 * checked REST body becomes. Choices and localized maps are reshaped; a null choice is an output
 * object with neither variant set, and stays null in input; input unions are objects already.
 */
export function toGraphQL(node: ShapeNode, value: unknown, input = false): unknown {
  if (value === null || value === undefined) return node.kind === 'choice' && value === null && !input ? {} : value;
  switch (node.kind) {
    case 'choice':
      return typeof value === 'string' ? { default: value } : { custom: toGraphQL(node.choices.custom, value, input) };
    case 'localized':
      return Object.entries(value as object).map(([language, text]) => ({ language, text }));
    case 'list':
      return Array.isArray(value) ? value.map((v) => toGraphQL(node.of, v, input)) : null;
    case 'object':
      return isObject(value) ? mapFields(node, value, (n, v) => toGraphQL(n, v, input)) : null;
    case 'union': {
      const member = isObject(value) && !input ? node.members.find((m) => m.value === value[node.discriminator]) : undefined;
      return member ? mapFields(member.node, value as Record<string, unknown>, (n, v) => toGraphQL(n, v)) : value;
    }
    default:
      return value;
  }
}

function mapFields(node: ShapeNode & { kind: 'object' }, value: Record<string, unknown>, map: (n: ShapeNode, v: unknown) => unknown) {
  const fields = new Map(node.fields);
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, fields.has(key) ? map(fields.get(key)!, v) : v]));
}

/** A GraphQL input value → official JSON (what the services check and store). `path` names a field in a 400. */
export function fromGraphQLInput(node: ShapeNode, value: unknown, path = ''): unknown {
  if (value === null || value === undefined) return value;
  switch (node.kind) {
    case 'choice': {
      const set = Object.entries(value as object).filter(([, v]) => v !== null && v !== undefined);
      if (set.length !== 1) throw badRequest(path || 'body', 'set exactly one of default, custom');
      const [which, chosen] = set[0]!;
      return which === 'default' ? chosen : fromGraphQLInput(node.choices.custom, chosen, `${path}.custom`);
    }
    case 'localized':
      return Object.fromEntries((value as { language: string; text: string }[]).map((e) => [e.language, e.text]));
    case 'list':
      return (value as unknown[]).map((v, i) => fromGraphQLInput(node.of, v, `${path}[${i}]`));
    case 'object': {
      const fields = new Map(node.fields);
      return Object.fromEntries(
        Object.entries(value as object).map(([key, v]) => [
          key,
          fields.has(key) ? fromGraphQLInput(fields.get(key)!, v, path ? `${path}.${key}` : key) : v,
        ]),
      );
    }
    default:
      return value;
  }
}

/** A REST answer rebuilt from the GraphQL one (after the adapter's enum and null handling): choices and localized lists back to official JSON. */
export function toOfficialJson(node: ShapeNode, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  switch (node.kind) {
    case 'choice': {
      const v = value as { default?: string; custom?: unknown };
      if (v.default !== undefined) return v.default;
      return v.custom !== undefined ? toOfficialJson(node.choices.custom, v.custom) : null;
    }
    case 'localized':
      return Object.fromEntries((value as { language: string; text: string }[]).map((e) => [e.language, e.text]));
    case 'list':
      return (value as unknown[]).map((v) => toOfficialJson(node.of, v));
    case 'object':
      return mapFields(node, value as Record<string, unknown>, toOfficialJson);
    default:
      return value;
  }
}

// ---- the REST documents' selection ----

/**
 * PostgreSQL's jsonb keeps an object's keys shortest first, then in byte order: the order in
 * which stored settings come back, so the order of every key the defaults do not place.
 */
const jsonbOrder = (a: string, b: string) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

/**
 * The selection of a customization in a REST document. The keys come in the order the answers
 * have: the defaults' keys in the defaults' order (the stored settings are laid over them), then
 * the others in jsonb's order; the 0.146.0 switches of pageActions and `pdf` where the defaults
 * have them, `updatedAt` last.
 */
function restSelection(node: ShapeNode, defaults: unknown): string {
  switch (node.kind) {
    case 'choice':
      return `{ default custom ${restSelection(node.choices.custom, undefined)} }`;
    case 'localized':
      return '{ language text }';
    case 'list':
      return restSelection(node.of, undefined);
    case 'union':
      return `{ ${node.members.map((m) => `... on ${m.name} ${restSelection(m.node, undefined)}`).join(' ')} }`;
    case 'object': {
      const placed = isObject(defaults) ? Object.keys(defaults) : [];
      const names = node.fields.map(([key]) => key).filter((key) => key !== 'updatedAt');
      const order = [...placed.filter((k) => names.includes(k)), ...names.filter((k) => !placed.includes(k)).sort(jsonbOrder)];
      if (node.fields.some(([key]) => key === 'updatedAt')) order.push('updatedAt');
      const fields = new Map(node.fields);
      return `{ ${order.map((key) => `${key}${fieldSelection(fields.get(key)!, isObject(defaults) ? defaults[key] : undefined)}`).join(' ')} }`;
    }
    default:
      return '';
  }
}

const fieldSelection = (node: ShapeNode, defaults: unknown) => {
  const inner = restSelection(node, defaults);
  return inner ? ` ${inner}` : '';
};

/** The fragment every customization route selects. */
export const CUSTOMIZATION_FRAGMENT = `fragment CustomizationFields on SiteCustomization ${restSelection(OUTPUT_SHAPE, defaultCustomization('Docs'))}`;
