import type * as M from 'mdast';
import remarkFrontmatter from 'remark-frontmatter';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';

/**
 * The one Markdown parser of the application: unified + remark-parse (CommonMark, micromark) with
 * GFM and YAML front matter. The content store, translation segmenting and PDF rendering all read
 * Markdown through it, so a page means the same thing everywhere. It does not check the limits
 * (limits.ts): callers parsing user input refuse oversized or deeply nested text first.
 */
export const markdownProcessor = unified().use(remarkParse).use(remarkFrontmatter, ['yaml']).use(remarkGfm).freeze();

let parses = 0;

/**
 * How many Markdown texts this process has parsed so far: here, or in a worker thread on its behalf
 * (markdown-offload.ts counts those). Tests and the bench read it to show a body is parsed once.
 */
export const markdownParseCount = () => parses;

/** Counts `n` texts parsed in a worker thread for this one. */
export const countWorkerParses = (n: number) => void (parses += n);

/** The mdast tree of `markdown` (positions kept: callers slice the source by them). */
export function markdownTree(markdown: string): M.Root {
  parses++;
  return markdownProcessor.parse(markdown) as M.Root;
}
