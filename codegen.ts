import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * TypeScript from the committed schema.graphql. Run with `npm run generate`.
 * - src/generated/schema-types.ts: the schema's types, for code that reads GraphQL results (the
 *   REST adapter's route results).
 * - web/src/gql/: the app's typed documents (the client preset: `graphql()` over every document
 *   written in web/src), and persisted-documents.json, the manifest of those documents by their
 *   SHA-256, so the server can accept the app's own operations by hash.
 */
const config: CodegenConfig = {
  schema: 'schema.graphql',
  generates: {
    'src/generated/schema-types.ts': {
      plugins: ['typescript'],
      config: { enumsAsTypes: true, scalars: { DateTime: 'string', JSON: 'unknown' }, avoidOptionals: false },
    },
    'web/src/gql/': {
      documents: ['web/src/**/*.tsx', 'web/src/**/*.ts', '!web/src/gql/**'],
      preset: 'client',
      presetConfig: { persistedDocuments: { hashAlgorithm: 'sha256' }, fragmentMasking: false },
      config: { enumsAsTypes: true, scalars: { DateTime: 'string', JSON: 'unknown' }, useTypeImports: true },
    },
  },
};

export default config;
