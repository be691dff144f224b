import type * as M from 'mdast';
import { toString as mdastToString } from 'mdast-util-to-string';
import { markdownTree } from './processor.js';

/**
 * A page's title and the level-1 heading its body may begin with are one title, not two: GitBook's
 * Git Sync takes a file's first H1 as the page's title, and authors write `# Setup` at the top of a
 * page titled "Setup". Whoever shows the title above the body (the published site, llms-full.txt,
 * a page's Markdown, PDF exports) leaves that heading out. Titles compare as text a reader sees:
 * Unicode-normalized (NFKC), whitespace collapsed, case folded.
 */
export function normalizedTitle(text: string): string {
  return text.normalize('NFKC').replace(/\s+/g, ' ').trim().toLocaleLowerCase('en');
}

/** Whether `node` is a level-1 heading that says the same as `title`. */
export function isTitleHeading(node: M.RootContent | undefined, title: string): boolean {
  return (
    node?.type === 'heading' &&
    node.depth === 1 &&
    !!normalizedTitle(title) &&
    normalizedTitle(mdastToString(node)) === normalizedTitle(title)
  );
}

/** The blocks of a body without a leading level-1 heading equal to the title (front matter ignored). */
export function withoutTitleHeading(children: M.RootContent[], title: string): M.RootContent[] {
  const first = children.findIndex((n) => n.type !== 'yaml');
  return first >= 0 && isTitleHeading(children[first], title) ? children.filter((_, i) => i !== first) : children;
}

/** A Markdown body (front matter already removed) without a leading level-1 heading equal to the title. */
export function markdownWithoutTitleHeading(markdown: string, title: string): string {
  const start = markdown.replace(/^\uFEFF/, '').trimStart();
  const _lead = markdown.length - start.length;
  // Only the first block can be the heading: it alone is parsed, not the whole body.
  const blank = /\n[ \t]*\n/.exec(start);
  const firstBlock = blank ? start.slice(0, blank.index) : start;
  if (!firstBlock.startsWith('#') && !/\n=+[ \t]*$/.test(firstBlock)) return markdown;
  const first = markdownTree(firstBlock).children[0];
  const end = first?.position?.end.offset;
  if (!isTitleHeading(first, title) || end === undefined) return markdown;
  return start.slice(end).replace(/^[ \t]*\n(?:[ \t]*\n)*/, '');
}
