import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * TypeScript types of the GraphQL schema (from the committed schema.graphql), for code that reads
 * GraphQL results — the REST adapter's route results. Run with `npm run generate`.
 */
const config: CodegenConfig = {
  schema: 'schema.graphql',
  generates: {
    'src/generated/schema-types.ts': {
      plugins: ['typescript'],
      config: { enumsAsTypes: true, scalars: { DateTime: 'string', JSON: 'unknown' }, avoidOptionals: false },
    },
  },
};

export default config;
