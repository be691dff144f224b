/**
 * The Markdown parser in a worker thread (src/jobs/isolate.ts), for bodies large enough that
 * parsing them on the event loop would hold every other request (see markdown-offload.ts). Results
 * cross back as little as the caller needs, and documents as JSON text: rebuilding a large object
 * graph from a structured clone cost the event loop ~270 ms for a 1 MB page, JSON.parse a fraction.
 */
import { documentFromMarkdown, parseMarkdown } from './markdown.js';
import type { ParsedMarkdown } from './types.js';

export function parse({ markdown, fields }: { markdown: string; fields: (keyof ParsedMarkdown)[] }): Partial<ParsedMarkdown> {
  const parsed = parseMarkdown(markdown);
  return Object.fromEntries(fields.map((field) => [field, parsed[field]]));
}

export const documents = (bodies: string[]): string[] => bodies.map((body) => JSON.stringify(documentFromMarkdown(body)));
