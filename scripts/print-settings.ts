/**
 * The settings table of docs/running.md, printed from the one settings schema (src/config.ts).
 *   tsx scripts/print-settings.ts           prints the table
 *   tsx scripts/print-settings.ts --write   puts it into docs/running.md between the markers
 * test/config/settings.test.ts fails when the table in the docs differs from the schema.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { settingsSchema } from '../src/config.js';

export const DOC = path.resolve(import.meta.dirname, '../docs/running.md');
export const START = '<!-- settings:start (printed by scripts/print-settings.ts from src/config.ts; run it with --write) -->';
export const END = '<!-- settings:end -->';

/** A table cell: one line, its pipes escaped. */
const cell = (value: string) => value.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');

function shownDefault(schema: z.ZodType): string {
  const meta = schema.meta() as { shown?: string } | undefined;
  if (meta?.shown) return meta.shown;
  if (schema instanceof z.ZodDefault) {
    const value: unknown = schema.def.defaultValue;
    if (value === true) return 'on';
    if (value === false) return 'off';
    return String(value) === '' ? 'none' : `${value}`;
  }
  return 'none';
}

/** The Markdown table of every setting: variable, default, what it does. */
export function settingsTable(): string {
  const rows = Object.entries(settingsSchema.shape).map(([name, schema]) => {
    const about = (schema as z.ZodType).description ?? '';
    return `| \`${name}\` | ${cell(shownDefault(schema as z.ZodType))} | ${cell(about)} |`;
  });
  return ['| variable | default | what it does |', '|---|---|---|', ...rows].join('\n');
}

/** `doc` with the table between the markers replaced by the current one. */
export function withTable(doc: string): string {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/running.md lacks the markers ${START} … ${END}`);
  return `${doc.slice(0, start + START.length)}\n${settingsTable()}\n${doc.slice(end)}`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--write')) fs.writeFileSync(DOC, withTable(fs.readFileSync(DOC, 'utf8')));
  else process.stdout.write(`${settingsTable()}\n`);
}
