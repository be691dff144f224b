import { createRequire } from 'node:module';
import type { compile as Compile } from 'html-to-text';

/**
 * Plain text of HTML (raw HTML in Markdown, message bodies that are HTML): html-to-text with a
 * real HTML parser, so every entity is decoded, script and style are dropped and block elements
 * end lines. Set up for text that is read or analysed rather than shown as a plain-text e-mail:
 * no word wrapping, newlines of the input kept (a body may be Markdown with some HTML in it, and
 * its lines still matter), headings not upper-cased, links as their text, images left out.
 * html-to-text's own limits bound the work (input length, nesting depth, children per node).
 */
const require = createRequire(import.meta.url);
let converter: ReturnType<typeof Compile> | undefined;

/** The converter, made with the first HTML converted: html-to-text and its parser load only then. */
const convert = (html: string) => (converter ??= (require('html-to-text') as { compile: typeof Compile }).compile(OPTIONS))(html);

const OPTIONS: Parameters<typeof Compile>[0] = {
  wordwrap: false,
  preserveNewlines: true,
  selectors: [
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
  ],
};

export function htmlText(html: string): string {
  return convert(html);
}
