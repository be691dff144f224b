import SchemaBuilder from '@pothos/core';
import ComplexityPlugin from '@pothos/plugin-complexity';
import PrismaPlugin from '@pothos/plugin-prisma';
import { GraphQLError } from 'graphql';
import type { Context } from '../context.js';
import type PrismaTypes from '../generated/pothos-types.js';
import { getDatamodel } from '../generated/pothos-types.js';
import { PrismaClient } from '../generated/prisma/client.js';

/** Limits on a GraphQL operation's shape, checked before anything is resolved. */
export const COMPLEXITY_LIMITS = { complexity: 5000, depth: 12, breadth: 300 };

/** The one Pothos builder. Domain modules add their types, queries and mutations to it. */
export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: PrismaTypes;
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
  };
  DefaultFieldNullability: false;
}>({
  plugins: [PrismaPlugin, ComplexityPlugin],
  defaultFieldNullability: false,
  prisma: {
    // The client itself comes from the request context; the plugin only needs its model metadata.
    client: (ctx) => ctx.prisma,
    dmmf: getDatamodel(),
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
  complexity: {
    defaultComplexity: 1,
    defaultListMultiplier: 10,
    limit: COMPLEXITY_LIMITS,
    complexityError: (kind, result) => {
      const key = String(kind).toLowerCase() as keyof typeof COMPLEXITY_LIMITS;
      return new GraphQLError(`Query ${key} ${result[key]} exceeds the limit of ${COMPLEXITY_LIMITS[key]}`, {
        extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
      });
    },
  },
});

builder.queryType({});
builder.mutationType({});

builder.scalarType('DateTime', {
  description: 'An ISO 8601 date-time in UTC',
  serialize: (value) => (value instanceof Date ? value.toISOString() : String(value)),
  parseValue: (value) => {
    const date = new Date(String(value));
    if (Number.isNaN(date.getTime())) throw new GraphQLError('DateTime: not an ISO 8601 date-time');
    return date;
  },
});

builder.scalarType('JSON', {
  description: 'Any JSON value (used for variant objects such as merge rules)',
  serialize: (value) => value,
  parseValue: (value) => value,
});

export { PrismaClient };
