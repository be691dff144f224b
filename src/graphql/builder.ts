import SchemaBuilder from '@pothos/core';
import ComplexityPlugin from '@pothos/plugin-complexity';
import PrismaPlugin from '@pothos/plugin-prisma';
import { getNullableType, GraphQLError, isListType } from 'graphql';
import type { Context } from '../context.js';
import { DEFAULT_LIMIT as DEFAULT_PAGE, MAX_LIMIT } from '../pagination.js';
import { jsonDeeperThan } from '../validate.js';
import { PrismaClient, type Prisma } from '../generated/prisma/client.js';
import type PrismaTypes from '../generated/pothos-types.js';
import { getDatamodel } from '../generated/pothos-types.js';

/** A Prisma model's row, by model name: the shape of the object type for that model (`Model<'Space'>`). */
export type Model<Name extends Prisma.ModelName> = Prisma.TypeMap['model'][Name]['payload']['scalars'];

/**
 * The one Pothos builder. Domain modules add their types, queries and mutations to it.
 *
 * With @pothos/plugin-prisma: the object types of the core models are declared from the Prisma
 * models (`builder.prismaObject('Space', …)`, typed by the generated PrismaTypes), so a field
 * exposes a model column by name and a renamed column fails the type check. Relations go through
 * `t.relation` only where a plain relation is right (one object, not in a long list, no
 * permission filter). The nested site → section → site space → space lookups and every
 * permission-filtered read stay on the per-request loaders (src/loaders.ts, the modules'
 * loaders.ts): the plugin resolves a relation of an object it did not load itself with one query
 * per parent, where a loader batches all the parents of a list into one statement (the
 * statement-count tests guard it), and a relation knows nothing of the caller's rights.
 */
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
    // The client comes from the request's context; the plugin needs the model metadata of the
    // project's `prisma-client` generator, which the pothos generator writes beside its types.
    client: (ctx) => ctx.prisma,
    dmmf: getDatamodel(),
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
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
    // The limits are checked before execution, and remembered per document (src/graphql/complexity.ts).
    disabled: true,
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
