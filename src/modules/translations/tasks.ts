/**
 * The CPU-heavy parts of a translation run, in a worker thread through src/jobs/isolate.ts
 * (run.ts keeps the database and the translator's network calls): parsing pages into the texts to
 * translate, and writing the translations back (with the links of the result, for the store).
 */
import { parseMarkdown } from '../../document/index.js';
import { TranslatableMarkdown } from './segments.js';

/** The texts to translate of each body, and their word count. */
export function segmentBodies(input: { bodies: string[] }): { texts: string[]; words: number }[] {
  return input.bodies.map((body) => {
    const markdown = new TranslatableMarkdown(body);
    return { texts: markdown.texts, words: markdown.words };
  });
}

/** Each body with its translated texts in place (see segments.ts), and the links it holds. */
export function applyTranslations(input: {
  items: { source: string; translated: string[] }[];
}): { markdown: string; links: { href: string; text: string }[] }[] {
  return input.items.map(({ source, translated }) => {
    const markdown = new TranslatableMarkdown(source).apply(translated);
    return { markdown, links: parseMarkdown(markdown).links };
  });
}
