import SchemaBuilder from '@pothos/core';
import ComplexityPlugin from '@pothos/plugin-complexity';
import { getNullableType, GraphQLError, isListType } from 'graphql';
import type { Context } from '../context.js';
import { DEFAULT_LIMIT as DEFAULT_PAGE, MAX_LIMIT } from '../pagination.js';
import { jsonDeeperThan } from '../validate.js';
import { PrismaClient, type Prisma } from '../generated/prisma/client.js';

/**
 * Limits on a GraphQL operation's shape, checked before anything is resolved. A page of 1000
 * spaces with every field costs about 60,000; two levels of full pages cannot pass.
 */
export const COMPLEXITY_LIMITS = { complexity: 200_000, depth: 12, breadth: 400 };


/** A Prisma model's row, by model name: the shape of the object type for that model (`Model<'Space'>`). */
export type Model<Name extends Prisma.ModelName> = Prisma.TypeMap['model'][Name]['payload']['scalars'];

/**
 * The one Pothos builder. Domain modules add their types, queries and mutations to it.
 *
 * Without @pothos/plugin-prisma: its point is resolving relations (`t.relation`) with selections
 * merged into one Prisma query, and no type here has a relation field — every resolver loads what
 * it shows through its module's per-request loaders (src/loaders.ts), whose batching the
 * statement-count tests guard. Object types for models are plain object refs typed by the model's
 * row (`Model<'Space'>`), which is all the plugin was used for.
 */
export const builder = new SchemaBuilder<{
  Context: Context;
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
  };
  DefaultFieldNullability: false;
}>({
  plugins: [ComplexityPlugin],
  defaultFieldNullability: false,
  complexity: {
    // A paginated field multiplies its selection by the page size asked for (`limit`, else the
    // default page); plain lists by 10.
    fieldComplexity: (args, _ctx, field) => {
      if ('limit' in args || field.args.some((a) => a.name === 'limit')) {
        // An out-of-range limit is refused by the list itself (a 400 naming `limit`): cost it as the default page.
        const limit = typeof args.limit === 'number' && args.limit > 0 && args.limit <= MAX_LIMIT ? args.limit : DEFAULT_PAGE;
        return { field: 1, multiplier: limit };
      }
      return { field: 1, multiplier: isListType(getNullableType(field.type)) ? 10 : 1 };
    },
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
// Live updates (src/live/): each module adds its fields in its subscriptions.ts.
builder.subscriptionType({});

builder.scalarType('DateTime', {
  description: 'An ISO 8601 date-time in UTC',
  serialize: (value) => (value instanceof Date ? value.toISOString() : String(value)),
  parseValue: (value) => {
    const date = new Date(String(value));
    if (Number.isNaN(date.getTime())) throw new GraphQLError('DateTime: not an ISO 8601 date-time');
    return date;
  },
});

/** Deepest JSON value accepted in a variable (as for REST bodies, src/rest/shape.ts). */
const JSON_MAX_DEPTH = 256;

builder.scalarType('JSON', {
  description: 'Any JSON value (used for variant objects such as merge rules)',
  serialize: (value) => value,
  // Checked without recursion: resolvers and Prisma walk the value recursively, and a value
  // nested thousands deep would overflow the stack there (a 500) instead of being refused.
  parseValue: (value) => {
    if (jsonDeeperThan(value, JSON_MAX_DEPTH)) throw new GraphQLError(`JSON: is nested too deeply (at most ${JSON_MAX_DEPTH} levels)`);
    return value;
  },
});

export { PrismaClient };
