import type * as M from 'mdast';
import { gfmToMarkdown } from 'mdast-util-gfm';
import { type Options, toMarkdown } from 'mdast-util-to-markdown';

/**
 * The one Markdown serializer setting of the application: mdast-util-to-markdown with GFM (tables,
 * strikethrough, task lists, autolink escapes), `-` bullets, `*` emphasis, fenced code, `---` rules.
 * Documents written through the API and pages saved by the editor are serialized with it, so the
 * same content is always the same Markdown. Browser-safe: the app's editor imports it.
 */
export const MARKDOWN_WRITE_OPTIONS: Options = {
  extensions: [gfmToMarkdown()],
  bullet: '-',
  emphasis: '*',
  strong: '*',
  fences: true,
  rule: '-',
  listItemIndent: 'one',
};

/** The Markdown of an mdast tree ('' for an empty one). */
export function markdownOfTree(root: M.Root, options: Options = {}): string {
  if (root.children.length === 0) return '';
  return toMarkdown(root, { ...MARKDOWN_WRITE_OPTIONS, ...options });
}
