import type { CodegenConfig } from '@graphql-codegen/cli';
import { execFileSync } from 'node:child_process';

// The REST routes' documents are built in code (fragments, one table entry making three routes):
// written out first, as .graphql files, for the entry below to type them.
execFileSync(process.execPath, ['--import', 'tsx', 'scripts/print-rest-documents.ts'], { stdio: ['ignore', 'ignore', 'inherit'] });

/**
 * TypeScript from the committed schema.graphql. Run with `npm run generate`.
 * - src/generated/schema-types.ts: the schema's types, for code that reads GraphQL results (the
 *   REST adapter's route results).
 * - web/src/gql/: the app's typed documents (the client preset: `graphql()` over every document
 *   written in web/src), and persisted-documents.json, the manifest of those documents by their
 *   SHA-256, so the server can accept the app's own operations by hash.
 * - src/generated/rest-operations.ts: each REST route's document as a TypedDocumentNode with its
 *   result and variables types (from src/generated/rest-documents/, written by
 *   scripts/print-rest-documents.ts): a route's `result` reads its data through these types, so a
 *   renamed or retyped field fails `npm run typecheck`.
 */
const config: CodegenConfig = {
  schema: 'schema.graphql',
  generates: {
    'src/generated/rest-operations.ts': {
      documents: ['src/generated/rest-documents/*.graphql'],
      plugins: ['typescript-operations', 'typed-document-node'],
      config: {
        enumsAsTypes: true,
        scalars: { DateTime: 'string', JSON: 'unknown' },
        useTypeImports: true,
        onlyOperationTypes: true,
        dedupeFragments: true,
      },
    },
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
