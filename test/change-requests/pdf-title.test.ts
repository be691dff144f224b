import { describe, expect, it } from 'vitest';
import { renderPdf } from '../../src/modules/change-requests/pdf.js';

/** The text objects (BT … ET) of an uncompressed PDF, each one's hex glyph strings decoded (ASCII text only). */
function textObjects(pdf: Buffer): string[] {
  return [...pdf.toString('latin1').matchAll(/\bBT\b([\s\S]*?)\bET\b/g)].map((block) =>
    [...block[1]!.matchAll(/<([0-9a-fA-F]*)>/g)].map((hex) => Buffer.from(hex[1]!, 'hex').toString('latin1')).join(''),
  );
}

/**
 * PDF exports print a page's title as its heading: a body that begins with a level-1 heading saying
 * the same title does not print it a second time; a heading that says something else is printed.
 */
describe('one title per page in PDF exports', () => {
  it('leaves out a leading "# Title" that repeats the page title, keeps other headings', async () => {
    const pdf = await renderPdf(
      {
        title: 'Handbook',
        pages: [
          { title: 'Setup', path: 'setup', markdown: '# Setup\n\nInstall it.', depth: 0 },
          { title: 'Usage', path: 'usage', markdown: '# Daily use\n\nUse it.', depth: 0 },
        ],
      },
      { compress: false },
    );
    const texts = textObjects(pdf);
    // The footer repeats the document's title, not the pages': count the pages' titles only.
    expect(texts.filter((t) => t === 'Setup')).toHaveLength(1);
    expect(texts.filter((t) => t === 'Usage')).toHaveLength(1);
    // Body lines are drawn word by word: the heading that is not the title is there, once.
    expect(texts.join('').match(/Daily use/g)).toHaveLength(1);
    expect(texts.join('')).toContain('Install it.');
  });
});
