// Tasks run in a worker thread (src/jobs/isolate.ts): parsing a whole repository's Markdown must
// not hold the event loop that answers requests. Plain data in, plain data out.
import { parseMarkdown } from '../../document/index.js';
import { readRepository, writeRepository, type KnownIds, type RepoFile, type SpaceLayout } from './repository-layout.js';

export interface ReadResult {
  layout: SpaceLayout;
  /** Each document page's (and reusable content's) links as the content store indexes them (BodyLink). */
  links: Record<string, { href: string; text: string }[]>;
}

export function readTask(input: { files: RepoFile[]; folder: string; known: KnownIds }): ReadResult {
  const layout = readRepository(input.files, { folder: input.folder, known: input.known });
  const links: ReadResult['links'] = {};
  for (const page of layout.pages) {
    if (page.markdown === undefined) continue;
    try {
      links[page.id] = parseMarkdown(page.markdown).links;
    } catch {
      links[page.id] = [];
    }
  }
  for (const include of layout.includes ?? []) {
    try {
      links[include.id] = parseMarkdown(include.markdown).links;
    } catch {
      links[include.id] = [];
    }
  }
  return { layout, links };
}

export function writeTask(input: { layout: SpaceLayout; folder: string }): RepoFile[] {
  return writeRepository(input.layout, { folder: input.folder });
}
