import { describe, expect, it } from 'vitest';
import { renderPdf, toWinAnsi } from '../../src/modules/change-requests/pdf.js';

/** WinAnsiEncoding's 0x80–0x9F block (the rest of the first 256 codes is Latin-1). */
const WIN_ANSI_HIGH: Record<number, string> = {
  128: '\u20ac',
  130: '\u201a',
  131: '\u0192',
  132: '\u201e',
  133: '\u2026',
  134: '\u2020',
  135: '\u2021',
  136: '\u02c6',
  137: '\u2030',
  138: '\u0160',
  139: '\u2039',
  140: '\u0152',
  142: '\u017d',
  145: '\u2018',
  146: '\u2019',
  147: '\u201c',
  148: '\u201d',
  149: '\u2022',
  150: '\u2013',
  151: '\u2014',
  152: '\u02dc',
  153: '\u2122',
  154: '\u0161',
  155: '\u203a',
  156: '\u0153',
  158: '\u017e',
  159: '\u0178',
};

function decodeWinAnsi(bytes: Buffer): string {
  let out = '';
  for (const byte of bytes) out += WIN_ANSI_HIGH[byte] ?? String.fromCharCode(byte);
  return out;
}

/**
 * Reads the text back out of an uncompressed pdfkit PDF: every `[...] TJ` array holds the glyphs
 * of one line fragment as hex strings (split wherever kerning applies), in WinAnsi encoding.
 * Returns one string per text object (BT … ET), in drawing order.
 */
function textFragments(pdf: Buffer): string[] {
  const raw = pdf.toString('latin1');
  const fragments: string[] = [];
  for (const block of raw.matchAll(/\bBT\b([\s\S]*?)\bET\b/g)) {
    let text = '';
    for (const tj of block[1]!.matchAll(/\[((?:\s*(?:<[0-9a-fA-F]*>|-?[\d.]+))*)\s*\]\s*TJ/g)) {
      for (const hex of tj[1]!.matchAll(/<([0-9a-fA-F]*)>/g)) {
        text += decodeWinAnsi(Buffer.from(hex[1]!, 'hex'));
      }
    }
    fragments.push(text);
  }
  return fragments;
}

/** Text of the whole document, fragments joined (continued runs on one line join up). */
function allText(pdf: Buffer): string {
  return textFragments(pdf).join('');
}

function pageCount(pdf: Buffer): number {
  return (pdf.toString('latin1').match(/\/Type \/Page(?![a-zA-Z])/g) ?? []).length;
}

function expectWellFormed(pdf: Buffer) {
  const raw = pdf.toString('latin1');
  expect(raw.startsWith('%PDF-')).toBe(true);
  expect(raw.trimEnd().endsWith('%%EOF')).toBe(true);
  // The cross-reference table is where the trailer says it is.
  const startxref = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(raw);
  expect(startxref).not.toBeNull();
  expect(raw.slice(Number(startxref![1]), Number(startxref![1]) + 4)).toBe('xref');
}

const RICH_MARKDOWN = `# Setup

Install with **npm** and *read* the [guide](https://example.com/guide).

- first item
- second item with \`inline code\`
  - nested item
- [x] a finished task

1. one
2. two

> Quoted text
> over two lines

\`\`\`ts
export function add(a: number, b: number) {
    return a + b;
}
\`\`\`

| Name | Value |
|:-----|------:|
| alpha | 1 |
| beta | [two](https://example.com/two) |

---

A footnote[^n] and a [reference link][ref].

[ref]: https://example.com/ref
[^n]: The note.

<p>Raw <b>HTML</b></p>

Unicode: café — “quoted” → 漢字 😀
`;

describe('renderPdf', () => {
  it('produces a well-formed PDF whose text holds the cover and the page titles', async () => {
    const pdf = await renderPdf(
      {
        title: 'Change request 42',
        subtitle: 'Rewrite the quickstart',
        pages: [
          { title: 'Getting started', path: 'getting-started', markdown: 'Hello there.', depth: 0 },
          { title: 'Installing Lectern', path: 'getting-started/install', markdown: RICH_MARKDOWN, depth: 1 },
          { title: 'Vault Avenue', path: 'reference/vault', markdown: '', depth: 0 },
        ],
      },
      { compress: false },
    );
    expectWellFormed(pdf);
    const text = allText(pdf);
    for (const expected of [
      'Change request 42',
      'Rewrite the quickstart',
      'Getting started',
      'Installing Lectern',
      'Vault Avenue', // kerned pairs (Va, Av) split pdfkit's hex strings
      'getting-started/install',
      'Hello there.',
    ]) {
      expect(text).toContain(expected);
    }
    // In order: cover first, then the pages as given.
    expect(text.indexOf('Change request 42')).toBeLessThan(text.indexOf('Getting started'));
    expect(text.indexOf('Getting started')).toBeLessThan(text.indexOf('Installing Lectern'));
    expect(text.indexOf('Installing Lectern')).toBeLessThan(text.indexOf('Vault Avenue'));
    // The check can fail: text that is not in the input is not found.
    expect(text).not.toContain('Not in this document');
  });

  it('renders headings, lists, code, quotes, tables and links as text', async () => {
    const pdf = await renderPdf(
      { title: 'Rich', pages: [{ title: 'Rich page', path: 'rich', markdown: RICH_MARKDOWN, depth: 0 }] },
      { compress: false },
    );
    expectWellFormed(pdf);
    const text = allText(pdf);
    for (const expected of [
      'Setup',
      'npm',
      'guide',
      '(https://example.com/guide)',
      'first item',
      'inline code',
      'nested item',
      '[x]',
      '1.',
      'Quoted text',
      'export function add(a: number, b: number) {',
      '\u00a0\u00a0\u00a0\u00a0return a + b;', // indentation kept as no-break spaces
      'Name',
      'alpha',
      'beta',
      'two (https://example.com/two)',
      'reference link',
      '(https://example.com/ref)',
      'The note.',
      'Raw HTML',
      'caf\u00e9 \u2014 \u201cquoted\u201d -> ?? ?',
    ]) {
      expect(text).toContain(expected);
    }
    // Bullets are WinAnsi glyphs too.
    expect(text).toContain('\u2022first item');
    const raw = pdf.toString('latin1');
    // Monospace font for code, links as link annotations.
    expect(raw).toContain('/BaseFont /Courier');
    expect(raw).toContain('/BaseFont /Helvetica-Bold');
    expect(raw).toMatch(/\/URI \(https:\/\/example\.com\/guide\)/);
    expect(pageCount(pdf)).toBeGreaterThanOrEqual(1);
  });

  it('paginates long documents', async () => {
    const paragraph =
      'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.';
    const long = Array.from({ length: 120 }, (_, i) => `Paragraph ${i}. ${paragraph}`).join('\n\n');
    const code = `\`\`\`\n${Array.from({ length: 150 }, (_, i) => `line ${i}`).join('\n')}\n\`\`\``;
    const pages = [
      { title: 'Long page', path: 'long', markdown: long, depth: 0 },
      { title: 'Long code', path: 'long/code', markdown: code, depth: 1 },
      ...Array.from({ length: 30 }, (_, i) => ({ title: `Small page ${i}`, path: `small-${i}`, markdown: `Body ${i}.`, depth: 2 })),
    ];
    const pdf = await renderPdf({ title: 'Big change', pages }, { compress: false });
    expectWellFormed(pdf);
    const count = pageCount(pdf);
    expect(count).toBeGreaterThanOrEqual(6);
    const text = allText(pdf);
    expect(text).toContain('Paragraph 119.');
    expect(text).toContain('line 149');
    expect(text).toContain('Small page 29');
    // Page footers number every page.
    expect(text).toContain(`1 / ${count}`);
    expect(text).toContain(`${count} / ${count}`);
    // Bookmarks for the pages.
    expect(pdf.toString('latin1')).toContain('/Outlines');

    // Compressed (the default) paginates the same way and is smaller.
    const compressed = await renderPdf({ title: 'Big change', pages });
    expectWellFormed(compressed);
    expect(pageCount(compressed)).toBe(count);
    expect(compressed.length).toBeLessThan(pdf.length);
  });

  it('yields a valid one-page PDF for an empty page list', async () => {
    const pdf = await renderPdf({ title: 'Nothing here', pages: [] }, { compress: false });
    expectWellFormed(pdf);
    expect(pageCount(pdf)).toBe(1);
    expect(allText(pdf)).toContain('Nothing here');

    const untitled = await renderPdf({ title: '', pages: [] });
    expectWellFormed(untitled);
    expect(pageCount(untitled)).toBe(1);
  });

  it('survives awkward Markdown', async () => {
    const awkward = [
      '| a | b | c |\n|---|---|---|\n| only one |\n| 1 | 2 | 3 | 4 |',
      `| big |\n|---|\n| ${'word '.repeat(2000)} |`,
      `\`\`\`\n${'x'.repeat(3000)}\n\`\`\``,
      '- \n- [ ] \n\n1) x\n\n10. y',
      '> > > deeply\n> > > nested quote with ```code``` and **bold _mixed_ emphasis**',
      '![alt text](https://example.com/i.png) ![][missing] [dangling]',
      '#',
      '\u0000\u0007\t\u200b\ufeff',
    ].join('\n\n');
    const pdf = await renderPdf(
      { title: 'Awkward', subtitle: '', pages: [{ title: '', path: '', markdown: awkward, depth: 7 }] },
      { compress: false },
    );
    expectWellFormed(pdf);
    const text = allText(pdf);
    expect(text).toContain('[Image: alt text] (https://example.com/i.png)');
    expect(text).toContain('deeply');
  });
});

describe('toWinAnsi', () => {
  it('keeps what the standard fonts can show and replaces the rest', () => {
    expect(toWinAnsi('Caf\u00e9 \u20ac5 \u2014 \u2022 \u2122')).toBe('Caf\u00e9 \u20ac5 \u2014 \u2022 \u2122');
    expect(toWinAnsi('\u0141\u00f3d\u017a \u0107')).toBe('?\u00f3dz c');
    expect(toWinAnsi('a\tb\u200bc\u0007\n\u2192 \ud83d\ude00')).toBe('a    bc\n-> ?');
  });
});
