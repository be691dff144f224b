// The GraphQL schema: built once from the builder, after the module registry (src/modules/index.ts)
// loaded every module's Pothos type files, which add their types, queries and mutations to it.
import type { GraphQLSchema } from 'graphql';
import { builder } from './builder.js';
import './enums.js';

/** The built schema (a live binding: set by buildSchema, which installModules calls before serving). */
export let schema: GraphQLSchema;

export function buildSchema(): GraphQLSchema {
  schema ??= builder.toSchema({ sortSchema: true });
  return schema;
}
