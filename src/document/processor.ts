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

/** The mdast tree of `markdown` (positions kept: callers slice the source by them). */
export const markdownTree = (markdown: string): M.Root => markdownProcessor.parse(markdown) as M.Root;
