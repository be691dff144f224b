// Lists the schema's `JSON` positions (fields, arguments and input fields typed JSON) in
// schema.graphql, with their descriptions. JSON is kept for content that is free-form by nature;
// test/graphql/json-positions.test.ts holds the count down and asks each description to say why.
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { buildSchema, getNamedType, isInputObjectType, isInterfaceType, isObjectType, type GraphQLSchema } from 'graphql';

export interface JsonPosition {
  /** `Type.field`, `Type.field(argument)` or `Input.field` */
  position: string;
  description: string;
}

export function jsonPositions(schema: GraphQLSchema): JsonPosition[] {
  const out: JsonPosition[] = [];
  const isJson = (type: Parameters<typeof getNamedType>[0]) => getNamedType(type)?.name === 'JSON';
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    if (isObjectType(type) || isInterfaceType(type))
      for (const field of Object.values(type.getFields())) {
        if (isJson(field.type)) out.push({ position: `${type.name}.${field.name}`, description: field.description ?? '' });
        for (const arg of field.args)
          if (isJson(arg.type)) out.push({ position: `${type.name}.${field.name}(${arg.name})`, description: arg.description ?? '' });
      }
    if (isInputObjectType(type))
      for (const field of Object.values(type.getFields()))
        if (isJson(field.type)) out.push({ position: `${type.name}.${field.name}`, description: field.description ?? '' });
  }
  return out.sort((a, b) => a.position.localeCompare(b.position));
}

export const schemaFileJsonPositions = (file = 'schema.graphql') => jsonPositions(buildSchema(fs.readFileSync(file, 'utf8')));

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const positions = schemaFileJsonPositions();
  console.log(`${positions.length} JSON positions`);
  for (const p of positions) console.log(`${p.position}\t${p.description.replace(/\s+/g, ' ')}`);
}
