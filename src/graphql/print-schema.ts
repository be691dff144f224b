// The printed schema, as committed in schema.graphql (written by scripts/print-schema.ts; a test fails when it is stale).
import path from 'node:path';
import { printSchema } from 'graphql';
import { schema } from './schema.js';

export const SCHEMA_FILE = path.resolve(import.meta.dirname, '../../schema.graphql');
export const printedSchema = () => `${printSchema(schema)}\n`;
