import { describe, expect, it } from 'vitest';
import { documentFromMarkdown, parseMarkdown, type DocumentBlock, type DocumentBlockTable } from '../../src/document/index.js';

// Markdown → document: front matter, text and marks, blocks. Sections, links, plain text, keys and
// the official schema are in markdown-derived.test.ts.

/** The document without keys, with each text node reduced to [text, marks] pairs. */
function shape(node: any): any {
  if (Array.isArray(node)) return node.map(shape);
  if (!node || typeof node !== 'object') return node;
  if (node.object === 'text') return node.leaves.map((l: any) => [l.text, l.marks.map((m: any) => m.type)]);
  const out: any = {};
  for (const [k, v] of Object.entries(node)) if (k !== 'key' && k !== 'object') out[k] = shape(v);
  return out;
}

const blocks = (md: string): DocumentBlock[] => documentFromMarkdown(md).nodes;
const only = (md: string) => {
  const nodes = blocks(md);
  expect(nodes).toHaveLength(1);
  return nodes[0] as any;
};

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

describe('front matter', () => {
  it('is parsed as YAML and removed from the body', () => {
    const parsed = parseMarkdown('---\ntitle: Hello\ncount: 3\nnested:\n  list: [1, two]\n---\n\n# Hello\n');
    expect(parsed.frontMatter).toEqual({ title: 'Hello', count: 3, nested: { list: [1, 'two'] } });
    expect(parsed.body).toBe('# Hello\n');
    expect(shape(parsed.document.nodes)).toEqual([
      { type: 'heading-1', isVoid: false, data: {}, meta: { id: 'hello' }, nodes: [[['Hello', []]]] },
    ]);
    expect(parsed.text).toBe('Hello');
  });

  it('is {} when absent, and the body is the whole markdown', () => {
    const parsed = parseMarkdown('Just text.\n');
    expect(parsed.frontMatter).toEqual({});
    expect(parsed.body).toBe('Just text.\n');
  });

  it('is {} when empty', () => {
    const parsed = parseMarkdown('---\n---\nBody');
    expect(parsed.frontMatter).toEqual({});
    expect(parsed.body).toBe('Body');
  });

  it('keeps YAML 1.2 semantics (dates stay strings)', () => {
    expect(parseMarkdown('---\ndate: 2024-01-02\non: yes\n---\n').frontMatter).toEqual({ date: '2024-01-02', on: 'yes' });
  });

  it('only counts at the very start of the document', () => {
    const parsed = parseMarkdown('Intro\n\n---\ntitle: x\n---\n');
    expect(parsed.frontMatter).toEqual({});
    expect(parsed.body).toBe('Intro\n\n---\ntitle: x\n---\n');
  });

  it('throws a markdown: error on invalid YAML', () => {
    expect(() => parseMarkdown('---\ntitle: [unclosed\n---\n\nBody')).toThrow(/^markdown: invalid front matter/);
    expect(() => parseMarkdown('---\na: 1\na: 2\n---\n')).toThrow(/^markdown: invalid front matter/);
    expect(() => parseMarkdown('---\nkey: value\n  bad indent: x\n---\n')).toThrow(/^markdown: invalid front matter/);
  });

  it('throws when the front matter is not a mapping', () => {
    expect(() => parseMarkdown('---\n- a\n- b\n---\n')).toThrow(/^markdown: invalid front matter.*mapping/);
    expect(() => parseMarkdown('---\njust a string\n---\n')).toThrow(/^markdown: invalid front matter.*mapping/);
  });

  it('ignores a byte order mark', () => {
    const parsed = parseMarkdown('\uFEFF---\na: 1\n---\nText');
    expect(parsed.frontMatter).toEqual({ a: 1 });
    expect(parsed.body).toBe('Text');
  });
});

describe('document: text and marks', () => {
  it('maps a paragraph with bold, italic, strikethrough and code marks', () => {
    expect(shape(only('Plain **bold** *italic* ~~struck~~ `code` ***both*** **`bold code`**'))).toEqual({
      type: 'paragraph',
      isVoid: false,
      data: {},
      nodes: [
        [
          ['Plain ', []],
          ['bold', ['bold']],
          [' ', []],
          ['italic', ['italic']],
          [' ', []],
          ['struck', ['strikethrough']],
          [' ', []],
          ['code', ['code']],
          [' ', []],
          ['both', ['bold', 'italic']],
          [' ', []],
          ['bold code', ['bold', 'code']],
        ],
      ],
    });
  });

  it('uses the exact GitBook leaf and mark objects', () => {
    const text = only('**x**').nodes[0];
    expect(text).toEqual({
      object: 'text',
      key: expect.any(String),
      leaves: [{ object: 'leaf', text: 'x', marks: [{ object: 'mark', type: 'bold', data: {} }] }],
    });
  });

  it('merges adjacent runs with the same marks', () => {
    expect(shape(only('**a** **b**').nodes)).toEqual([
      [
        ['a', ['bold']],
        [' ', []],
        ['b', ['bold']],
      ],
    ]);
    expect(shape(only('**a*b*c**').nodes)).toEqual([
      [
        ['a', ['bold']],
        ['b', ['bold', 'italic']],
        ['c', ['bold']],
      ],
    ]);
  });

  it('keeps hard breaks as \\n and turns soft breaks into spaces', () => {
    expect(shape(only('one\ntwo  \nthree\\\nfour').nodes)).toEqual([[['one two\nthree\nfour', []]]]);
  });

  it('does not interpret markdown syntax inside code spans or escapes', () => {
    expect(shape(only('`**not bold**` \\*not italic\\*').nodes)).toEqual([
      [
        ['**not bold**', ['code']],
        [' *not italic*', []],
      ],
    ]);
  });
});

describe('document: blocks', () => {
  it('maps headings, deeper levels to heading-3', () => {
    const nodes = blocks('# One\n\n## Two\n\n### Three\n\n#### Four\n\n##### Five\n\n###### Six\n\nSetext\n===\n');
    expect(nodes.map((n) => n.type)).toEqual(['heading-1', 'heading-2', 'heading-3', 'heading-3', 'heading-3', 'heading-3', 'heading-1']);
    expect(nodes.map((n: any) => n.meta.id)).toEqual(['one', 'two', 'three', 'four', 'five', 'six', 'setext']);
    expect(shape(nodes[1])).toEqual({ type: 'heading-2', isVoid: false, data: {}, meta: { id: 'two' }, nodes: [[['Two', []]]] });
  });

  it('maps bullet lists to list-unordered with list-item children', () => {
    expect(shape(only('- a\n- **b**\n'))).toEqual({
      type: 'list-unordered',
      isVoid: false,
      data: {},
      nodes: [
        { type: 'list-item', isVoid: false, data: {}, nodes: [{ type: 'paragraph', isVoid: false, data: {}, nodes: [[['a', []]]] }] },
        { type: 'list-item', isVoid: false, data: {}, nodes: [{ type: 'paragraph', isVoid: false, data: {}, nodes: [[['b', ['bold']]]] }] },
      ],
    });
  });

  it('maps ordered lists to list-ordered, keeping a start other than 1', () => {
    const one = only('1. a\n2. b\n');
    expect(one.type).toBe('list-ordered');
    expect(one.data).toEqual({});
    expect(one.nodes).toHaveLength(2);
    expect(only('3. c\n4. d\n').data).toEqual({ start: 3 });
  });

  it('nests lists inside list items', () => {
    const list = only('- a\n  - b\n    1. c\n');
    const item = list.nodes[0];
    expect(item.nodes.map((n: any) => n.type)).toEqual(['paragraph', 'list-unordered']);
    expect(item.nodes[1].nodes[0].nodes.map((n: any) => n.type)).toEqual(['paragraph', 'list-ordered']);
  });

  it('maps GFM task lists to list-tasks with data.checked', () => {
    expect(shape(only('- [x] done\n- [ ] todo\n'))).toEqual({
      type: 'list-tasks',
      isVoid: false,
      data: {},
      nodes: [
        {
          type: 'list-item',
          isVoid: false,
          data: { checked: true },
          nodes: [{ type: 'paragraph', isVoid: false, data: {}, nodes: [[['done', []]]] }],
        },
        {
          type: 'list-item',
          isVoid: false,
          data: { checked: false },
          nodes: [{ type: 'paragraph', isVoid: false, data: {}, nodes: [[['todo', []]]] }],
        },
      ],
    });
  });

  it('gives an empty list item an empty paragraph', () => {
    const list = only('- \n- b\n');
    expect(shape(list.nodes[0].nodes)).toEqual([{ type: 'paragraph', isVoid: false, data: {}, nodes: [[['', []]]] }]);
  });

  it('maps fenced code to code with code-line children and data.syntax', () => {
    expect(shape(only('```ts\nconst a = 1;\n\n  b();\n```\n'))).toEqual({
      type: 'code',
      isVoid: false,
      data: { syntax: 'ts' },
      nodes: [
        { type: 'code-line', isVoid: false, data: {}, nodes: [[['const a = 1;', []]]] },
        { type: 'code-line', isVoid: false, data: {}, nodes: [[['', []]]] },
        { type: 'code-line', isVoid: false, data: {}, nodes: [[['  b();', []]]] },
      ],
    });
  });

  it('maps code without a language, indented code and CRLF code', () => {
    const fence = only('```\nx\n```\n');
    expect(fence.data).toEqual({});
    const indented = only('    indented\n    code\n');
    expect(shape(indented.nodes)).toEqual([
      { type: 'code-line', isVoid: false, data: {}, nodes: [[['indented', []]]] },
      { type: 'code-line', isVoid: false, data: {}, nodes: [[['code', []]]] },
    ]);
    const crlf = only('```js\r\na\r\nb\r\n```\r\n');
    expect(crlf.nodes.map((l: any) => l.nodes[0].leaves[0].text)).toEqual(['a', 'b']);
  });

  it('maps blockquotes, including nested ones', () => {
    expect(shape(only('> quoted **text**\n>\n> > nested\n'))).toEqual({
      type: 'blockquote',
      isVoid: false,
      data: {},
      nodes: [
        {
          type: 'paragraph',
          isVoid: false,
          data: {},
          nodes: [
            [
              ['quoted ', []],
              ['text', ['bold']],
            ],
          ],
        },
        { type: 'blockquote', isVoid: false, data: {}, nodes: [{ type: 'paragraph', isVoid: false, data: {}, nodes: [[['nested', []]]] }] },
      ],
    });
  });

  it('keeps code inside a blockquote as code-marked text (the schema allows no code block there)', () => {
    const quote = only('> ```\n> a\n> b\n> ```\n');
    expect(shape(quote.nodes)).toEqual([{ type: 'paragraph', isVoid: false, data: {}, nodes: [[['a\nb', ['code']]]] }]);
  });

  it('maps thematic breaks to void dividers', () => {
    const nodes = blocks('a\n\n---\n\n***\n\nb');
    expect(shape(nodes[1])).toEqual({ type: 'divider', isVoid: true, data: {} });
    expect(nodes.map((n) => n.type)).toEqual(['paragraph', 'divider', 'divider', 'paragraph']);
  });

  it('maps GFM tables to grid tables whose cells are fragments', () => {
    const table = only('| Name | **Type** | Size |\n|:--|:-:|--:|\n| a | `x` | 1 |\n| [b](https://b.example) |\n') as DocumentBlockTable;
    expect(table.type).toBe('table');
    expect(table.isVoid).toBe(true);
    const { view, definition, records } = table.data;
    expect(view).toEqual({ type: 'grid', columns: ['c1', 'c2', 'c3'], hideHeader: false });
    expect(definition).toEqual({
      c1: { id: 'c1', title: 'Name', type: 'text', textAlignment: 'left' },
      c2: { id: 'c2', title: 'Type', type: 'text', textAlignment: 'center' },
      c3: { id: 'c3', title: 'Size', type: 'text', textAlignment: 'right' },
    });
    expect(records).toEqual({
      r1: { orderIndex: '0', values: { c1: 'r1c1', c2: 'r1c2', c3: 'r1c3' } },
      r2: { orderIndex: '1', values: { c1: 'r2c1' } },
    });
    const byName = Object.fromEntries(table.fragments.map((f) => [f.fragment, shape(f.nodes)]));
    expect(byName).toEqual({
      r1c1: [{ type: 'paragraph', isVoid: false, data: {}, nodes: [[['a', []]]] }],
      r1c2: [{ type: 'paragraph', isVoid: false, data: {}, nodes: [[['x', ['code']]]] }],
      r1c3: [{ type: 'paragraph', isVoid: false, data: {}, nodes: [[['1', []]]] }],
      r2c1: [
        {
          type: 'paragraph',
          isVoid: false,
          data: {},
          nodes: [
            [['', []]],
            { type: 'link', isVoid: false, data: { ref: { kind: 'url', url: 'https://b.example' } }, nodes: [[['b', []]]] },
            [['', []]],
          ],
        },
      ],
    });
    for (const f of table.fragments) expect(f).toMatchObject({ object: 'fragment', key: expect.any(String) });
  });

  it('orders table records so that more than ten rows still sort correctly', () => {
    const md = `| n |\n|---|\n${Array.from({ length: 12 }, (_, i) => `| ${i} |\n`).join('')}`;
    const table = only(md) as DocumentBlockTable;
    const ordered = Object.entries(table.data.records)
      .sort(([, a], [, b]) => (a.orderIndex < b.orderIndex ? -1 : 1))
      .map(([id]) => id);
    expect(ordered).toEqual(Array.from({ length: 12 }, (_, i) => `r${i + 1}`));
  });

  it('maps a paragraph of images to an images block of image blocks', () => {
    expect(shape(only('![Alt text](https://img.example/a.png "A caption")\n![](b.png)'))).toEqual({
      type: 'images',
      isVoid: false,
      data: {},
      nodes: [
        {
          type: 'image',
          isVoid: true,
          data: { ref: { kind: 'url', url: 'https://img.example/a.png' }, alt: 'Alt text' },
          fragments: [{ fragment: 'caption', nodes: [{ type: 'paragraph', isVoid: false, data: {}, nodes: [[['A caption', []]]] }] }],
        },
        { type: 'image', isVoid: true, data: { ref: { kind: 'url', url: 'b.png' } }, fragments: [] },
      ],
    });
  });

  it('resolves reference-style images', () => {
    const images = only('![logo][l]\n\n[l]: https://img.example/logo.png "Logo"\n');
    expect(shape(images.nodes)).toEqual([
      {
        type: 'image',
        isVoid: true,
        data: { ref: { kind: 'url', url: 'https://img.example/logo.png' }, alt: 'logo' },
        fragments: [{ fragment: 'caption', nodes: [{ type: 'paragraph', isVoid: false, data: {}, nodes: [[['Logo', []]]] }] }],
      },
    ]);
  });

  it('keeps images among text (or where the schema allows no image block) as inline images', () => {
    expect(shape(only('See ![icon](i.svg "Icon") here').nodes)).toEqual([
      [['See ', []]],
      { type: 'inline-image', isVoid: true, data: { ref: { kind: 'url', url: 'i.svg' }, alt: 'icon', caption: 'Icon' } },
      [[' here', []]],
    ]);
    const list = only('- ![pic](p.png)\n');
    expect(shape(list.nodes[0].nodes)).toEqual([
      {
        type: 'paragraph',
        isVoid: false,
        data: {},
        nodes: [[['', []]], { type: 'inline-image', isVoid: true, data: { ref: { kind: 'url', url: 'p.png' }, alt: 'pic' } }, [['', []]]],
      },
    ]);
  });

  it('maps links to link inlines with a url ref, surrounded by text nodes', () => {
    expect(shape(only('Go [**there**](https://there.example "T") now').nodes)).toEqual([
      [['Go ', []]],
      { type: 'link', isVoid: false, data: { ref: { kind: 'url', url: 'https://there.example' } }, nodes: [[['there', ['bold']]]] },
      [[' now', []]],
    ]);
  });

  it('resolves reference-style links and keeps linked images inside the link', () => {
    const nodes = only(
      '[full][Ref], [collapsed][], [shortcut] and [![b](b.svg)](https://ci.example)\n\n[ref]: https://ref.example\n[collapsed]: /c\n[shortcut]: /s\n',
    ).nodes;
    const links = nodes.filter((n: any) => n.object === 'inline');
    expect(links.map((l: any) => l.data.ref.url)).toEqual(['https://ref.example', '/c', '/s', 'https://ci.example']);
    expect(shape(links[3].nodes)).toEqual([
      [['', []]],
      { type: 'inline-image', isVoid: true, data: { ref: { kind: 'url', url: 'b.svg' }, alt: 'b' } },
      [['', []]],
    ]);
  });

  it('maps autolinks and GFM literal links', () => {
    const links = only('<https://a.example> and www.b.example').nodes.filter((n: any) => n.object === 'inline');
    expect(links.map((l: any) => [l.data.ref.url, l.nodes[0].leaves[0].text])).toEqual([
      ['https://a.example', 'https://a.example'],
      ['http://www.b.example', 'www.b.example'],
    ]);
  });

  it('drops definitions, HTML comments and front matter from the document; keeps other HTML as text', () => {
    const nodes = blocks(
      '---\na: 1\n---\n\n[x]: https://x.example\n\n<!-- hidden -->\n\n<div>shown</div>\n\nText <b>inline</b><!-- c -->.',
    );
    expect(shape(nodes)).toEqual([
      { type: 'paragraph', isVoid: false, data: {}, nodes: [[['<div>shown</div>', []]]] },
      { type: 'paragraph', isVoid: false, data: {}, nodes: [[['Text <b>inline</b>.', []]]] },
    ]);
  });

  it('renders footnotes as superscript labels', () => {
    const nodes = blocks('Claim[^1].\n\n[^1]: Source.\n');
    expect(shape(nodes)).toEqual([
      {
        type: 'paragraph',
        isVoid: false,
        data: {},
        nodes: [
          [
            ['Claim', []],
            ['1', ['superscript']],
            ['.', []],
          ],
        ],
      },
      {
        type: 'paragraph',
        isVoid: false,
        data: {},
        nodes: [
          [
            ['1', ['superscript']],
            [' Source.', []],
          ],
        ],
      },
    ]);
  });

  it('gives an empty document no nodes', () => {
    expect(documentFromMarkdown('')).toEqual({ object: 'document', data: { schemaVersion: 1 }, nodes: [] });
    expect(documentFromMarkdown('   \n\n')).toEqual({ object: 'document', data: { schemaVersion: 1 }, nodes: [] });
  });
});
