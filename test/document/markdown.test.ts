import type { JSONDocument } from '@gitbook/api';
import { describe, expect, it } from 'vitest';
import { componentValidator } from '../support/openapi.js';
import {
  documentFromMarkdown,
  parseMarkdown,
  slugify,
  type DocumentBlock,
  type DocumentBlockTable,
  type MarkdownDocument,
} from '../../src/document/index.js';

// The official schema (@gitbook/api's OpenAPI description), compiled by test/support/openapi.ts.
const validateDocument = componentValidator('JSONDocument');

function expectValidDocument(document: unknown) {
  const ok = validateDocument(document);
  if (!ok) {
    throw new Error(
      `document does not match the official JSONDocument schema:\n${JSON.stringify(validateDocument.errors?.slice(0, 8), null, 2)}`,
    );
  }
}

// Compile-time: the produced document is assignable to the official TypeScript type.
const typed: JSONDocument = documentFromMarkdown('# typed');
void typed;

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/** The document without keys, with each text node reduced to [text, marks] pairs. */
function shape(node: any): any {
  if (Array.isArray(node)) return node.map(shape);
  if (!node || typeof node !== 'object') return node;
  if (node.object === 'text') return node.leaves.map((l: any) => [l.text, l.marks.map((m: any) => m.type)]);
  const out: any = {};
  for (const [k, v] of Object.entries(node)) if (k !== 'key' && k !== 'object') out[k] = shape(v);
  return out;
}

function allNodes(document: MarkdownDocument): any[] {
  const out: any[] = [];
  const visit = (node: any) => {
    out.push(node);
    for (const child of node.nodes ?? []) visit(child);
    for (const child of node.fragments ?? []) visit(child);
  };
  document.nodes.forEach(visit);
  return out;
}

const blocks = (md: string): DocumentBlock[] => documentFromMarkdown(md).nodes;
const only = (md: string) => {
  const nodes = blocks(md);
  expect(nodes).toHaveLength(1);
  return nodes[0] as any;
};

const RICH = `---
title: Getting started
tags: [intro, setup]
draft: false
---

Lectern renders **bold**, *italic*, ~~struck~~, \`code\`, ***both*** and [a link](https://example.com "Example").
A soft break, then a hard one:\\
next line. See also [the guide][guide] and <https://auto.example>.

# Installation

## Requirements *(read me)*

- Node 20
- A database
  1. PostgreSQL
  2. or the embedded one

5. five
6. six

- [x] install
- [ ] configure

\`\`\`bash
npm install lectern

lectern serve
\`\`\`

> A quote with **marks**.
>
> > Nested quote.
>
> \`\`\`
> code inside a quote
> \`\`\`
>
> | q | r |
> |---|---|
> | 1 | 2 |

---

| Name | Type | Default |
|:-----|:----:|--------:|
| \`port\` | number | 8080 |
| **host** | [string](https://types.example) | |

![Diagram](https://img.example/diagram.png "The architecture")

Text with an inline ![icon](https://img.example/icon.svg) image and [![badge](https://img.example/badge.svg)](https://ci.example).

- item with ![image](https://img.example/in-list.png)
- item with a table:

  | a | b |
  |---|---|
  | 1 | 2 |

- item with code:

  \`\`\`js
  run();
  \`\`\`

#### Deep heading

###### Deeper heading

# Installation

Footnote reference[^note].

[^note]: The footnote text.

<!-- a comment -->

<p>raw html</p>

[guide]: https://guide.example/start
`;

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
    expect(shape(only('**a** **b**').nodes)).toEqual([[['a', ['bold']], [' ', []], ['b', ['bold']]]]);
    expect(shape(only('**a*b*c**').nodes)).toEqual([[['a', ['bold']], ['b', ['bold', 'italic']], ['c', ['bold']]]]);
  });

  it('keeps hard breaks as \\n and turns soft breaks into spaces', () => {
    expect(shape(only('one\ntwo  \nthree\\\nfour').nodes)).toEqual([[['one two\nthree\nfour', []]]]);
  });

  it('does not interpret markdown syntax inside code spans or escapes', () => {
    expect(shape(only('`**not bold**` \\*not italic\\*').nodes)).toEqual([[['**not bold**', ['code']], [' *not italic*', []]]]);
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
        { type: 'list-item', isVoid: false, data: { checked: true }, nodes: [{ type: 'paragraph', isVoid: false, data: {}, nodes: [[['done', []]]] }] },
        { type: 'list-item', isVoid: false, data: { checked: false }, nodes: [{ type: 'paragraph', isVoid: false, data: {}, nodes: [[['todo', []]]] }] },
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
        { type: 'paragraph', isVoid: false, data: {}, nodes: [[['quoted ', []], ['text', ['bold']]]] },
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
          nodes: [[['', []]], { type: 'link', isVoid: false, data: { ref: { kind: 'url', url: 'https://b.example' } }, nodes: [[['b', []]]] }, [['', []]]],
        },
      ],
    });
    for (const f of table.fragments) expect(f).toMatchObject({ object: 'fragment', key: expect.any(String) });
  });

  it('orders table records so that more than ten rows still sort correctly', () => {
    const md = '| n |\n|---|\n' + Array.from({ length: 12 }, (_, i) => `| ${i} |\n`).join('');
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
    const nodes = only('[full][Ref], [collapsed][], [shortcut] and [![b](b.svg)](https://ci.example)\n\n[ref]: https://ref.example\n[collapsed]: /c\n[shortcut]: /s\n').nodes;
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
    const nodes = blocks('---\na: 1\n---\n\n[x]: https://x.example\n\n<!-- hidden -->\n\n<div>shown</div>\n\nText <b>inline</b><!-- c -->.');
    expect(shape(nodes)).toEqual([
      { type: 'paragraph', isVoid: false, data: {}, nodes: [[['<div>shown</div>', []]]] },
      { type: 'paragraph', isVoid: false, data: {}, nodes: [[['Text <b>inline</b>.', []]]] },
    ]);
  });

  it('renders footnotes as superscript labels', () => {
    const nodes = blocks('Claim[^1].\n\n[^1]: Source.\n');
    expect(shape(nodes)).toEqual([
      { type: 'paragraph', isVoid: false, data: {}, nodes: [[['Claim', []], ['1', ['superscript']], ['.', []]]] },
      { type: 'paragraph', isVoid: false, data: {}, nodes: [[['1', ['superscript']], [' Source.', []]]] },
    ]);
  });

  it('gives an empty document no nodes', () => {
    expect(documentFromMarkdown('')).toEqual({ object: 'document', data: { schemaVersion: 1 }, nodes: [] });
    expect(documentFromMarkdown('   \n\n')).toEqual({ object: 'document', data: { schemaVersion: 1 }, nodes: [] });
  });
});

describe('sections', () => {
  it('splits the text at headings, with plain-text bodies', () => {
    const { sections } = parseMarkdown(
      'Intro with **bold** and [a link](https://x.example).\n\n# First *Part*\n\nBody `one`.\n\n- item a\n- item b\n\n## Sub\n\n```js\ncode();\n```\n\n# Last\n',
    );
    expect(sections).toEqual([
      { id: '', title: '', body: 'Intro with bold and a link.' },
      { id: 'first-part', title: 'First Part', body: 'Body one.\nitem a\nitem b' },
      { id: 'sub', title: 'Sub', body: 'code();' },
      { id: 'last', title: 'Last', body: '' },
    ]);
  });

  it('has no leading section when the page starts with a heading', () => {
    expect(parseMarkdown('# Only\n\ntext').sections).toEqual([{ id: 'only', title: 'Only', body: 'text' }]);
  });

  it('is a single untitled section when there is no heading, and none for an empty page', () => {
    expect(parseMarkdown('just text').sections).toEqual([{ id: '', title: '', body: 'just text' }]);
    expect(parseMarkdown('').sections).toEqual([]);
  });

  it('gives headings unique github-slugger ids, matching the heading blocks', () => {
    const parsed = parseMarkdown('# Setup\n\n## Setup\n\n# Setup\n\n### Café & Crème!\n\n## Setup 1\n\n## 🎉\n\n## 🎉\n');
    const ids = ['setup', 'setup-1', 'setup-2', 'café--crème', 'setup-1-1', 'section', 'section-1'];
    expect(parsed.sections.map((s) => s.id)).toEqual(ids);
    expect(parsed.document.nodes.map((n: any) => n.meta.id)).toEqual(ids);
    expect(parsed.sections[3]!.title).toBe('Café & Crème!');
  });

  it('keeps nested headings inside their section body', () => {
    const { sections } = parseMarkdown('# Top\n\n> ## Quoted heading\n> text\n');
    expect(sections).toEqual([{ id: 'top', title: 'Top', body: 'Quoted heading\ntext' }]);
  });

  it('includes table cells and image alt text in the plain text', () => {
    const { sections } = parseMarkdown('# T\n\n| a | b |\n|---|---|\n| **1** | 2 |\n\n![Architecture](a.png)\n');
    expect(sections).toEqual([{ id: 't', title: 'T', body: 'a\tb\n1\t2\nArchitecture' }]);
  });
});

describe('links', () => {
  it('lists every link and image target in document order, resolving references', () => {
    const { links } = parseMarkdown(
      '[one](https://1.example) ![two](/2.png)\n\n- [three][3]\n- ![four][4]\n\n| [five](/5) |\n|---|\n\n> <https://six.example>\n\n[3]: https://3.example\n[4]: /4.png\n[unused]: /nowhere\n',
    );
    expect(links).toEqual([
      { href: 'https://1.example', text: 'one' },
      { href: '/2.png', text: 'two' },
      { href: 'https://3.example', text: 'three' },
      { href: '/4.png', text: 'four' },
      { href: '/5', text: 'five' },
      { href: 'https://six.example', text: 'https://six.example' },
    ]);
  });

  it('gives a link its plain text, images inside links included', () => {
    expect(parseMarkdown('[**bold** `code` ![img](i.png)](/x)').links).toEqual([
      { href: '/x', text: 'bold code img' },
      { href: 'i.png', text: 'img' },
    ]);
  });

  it('does not see links in code or front matter', () => {
    expect(parseMarkdown('---\nurl: "[a](/b)"\n---\n`[c](/d)`\n\n```\n[e](/f)\n```\n').links).toEqual([]);
  });
});

describe('plain text', () => {
  it('has no markdown syntax', () => {
    const { text } = parseMarkdown(
      '---\ntitle: T\n---\n# Heading\n\nSome **bold**, _it_, ~~del~~, `code`, [link](/x) and ![alt](/i.png).\n\n> quote\n\n1. one\n2. two\n\n---\n\n```\nraw *code*\n```\n',
    );
    expect(text).toBe('Heading\nSome bold, it, del, code, link and alt.\nquote\none\ntwo\nraw *code*');
  });
});

describe('determinism and keys', () => {
  it('gives identical JSON for the same markdown', () => {
    const a = JSON.stringify(parseMarkdown(RICH));
    const b = JSON.stringify(parseMarkdown(RICH));
    expect(a).toBe(b);
    expect(JSON.stringify(documentFromMarkdown(RICH))).toBe(JSON.stringify(parseMarkdown(RICH).document));
  });

  it('keys every block, inline, text and fragment uniquely', () => {
    const nodes = allNodes(documentFromMarkdown(RICH));
    expect(nodes.length).toBeGreaterThan(100);
    for (const node of nodes) expect(node.key).toMatch(/^[0-9a-f]{12}$/);
    expect(new Set(nodes.map((n) => n.key)).size).toBe(nodes.length);
  });

  it('derives keys from positions: unchanged leading blocks keep their keys', () => {
    const before = documentFromMarkdown('# A\n\nOne\n\nTwo\n');
    const after = documentFromMarkdown('# A\n\nOne\n\nTwo changed\n\nThree\n');
    expect(after.nodes[0]!.key).toBe(before.nodes[0]!.key);
    expect(after.nodes[1]!.key).toBe(before.nodes[1]!.key);
    expect(after.nodes[2]!.key).toBe(before.nodes[2]!.key);
    expect(after.nodes[3]!.key).not.toBe(after.nodes[2]!.key);
  });
});

describe('official schema', () => {
  it('accepts the document of a rich sample with every construct', () => {
    const parsed = parseMarkdown(RICH);
    const types = new Set(allNodes(parsed.document).map((n) => n.type ?? n.object));
    for (const t of [
      'paragraph',
      'heading-1',
      'heading-2',
      'heading-3',
      'list-unordered',
      'list-ordered',
      'list-tasks',
      'list-item',
      'code',
      'code-line',
      'blockquote',
      'divider',
      'table',
      'fragment',
      'images',
      'image',
      'link',
      'inline-image',
      'text',
    ]) {
      expect(types, t).toContain(t);
    }
    expectValidDocument(parsed.document);
    expect(parsed.frontMatter).toEqual({ title: 'Getting started', tags: ['intro', 'setup'], draft: false });
    expect(parsed.links.map((l) => l.href)).toContain('https://guide.example/start');
  });

  it('accepts documents whose constructs sit where GitBook restricts children', () => {
    const samples = [
      '',
      '> ```js\n> code()\n> ```\n>\n> | a |\n> |---|\n> | 1 |\n>\n> ![img](i.png)\n>\n> - list\n>   ```\n>   in list in quote\n>   ```\n',
      '- ![img](i.png)\n- | t |\n  |---|\n  | 1 |\n- > quote\n- ---\n- # heading\n- \n',
      '>\n',
      '#\n\n##  \n',
      '[![a](a.png)](/x) **[bold link](/y)** [`code link`](/z)',
      'Note[^n]\n\n[^n]: ```\n    code in footnote\n    ```\n',
      '<div>\n\nhtml\n\n</div>\n',
      '| empty |\n|---|\n| |\n',
      '1. [ ] ordered task\n2. plain\n',
    ];
    for (const md of samples) {
      try {
        expectValidDocument(documentFromMarkdown(md));
      } catch (err) {
        throw new Error(`for ${JSON.stringify(md)}: ${(err as Error).message}`);
      }
    }
  });

  it('is a real check: the validator refuses documents GitBook would refuse', () => {
    const valid = documentFromMarkdown('> quote');
    expectValidDocument(valid);
    const codeInQuote = structuredClone(valid) as any;
    codeInQuote.nodes[0].nodes = [documentFromMarkdown('```\nx\n```').nodes[0]];
    expect(validateDocument(codeInQuote)).toBe(false);
    const badMark = documentFromMarkdown('**x**') as any;
    badMark.nodes[0].nodes[0].leaves[0].marks[0].type = 'underline';
    expect(validateDocument(badMark)).toBe(false);
    expect(validateDocument({ object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph' }] })).toBe(false);
  });
});

describe('slugify', () => {
  it('lower-cases and joins words with -', () => {
    expect(slugify('Getting Started')).toBe('getting-started');
    expect(slugify('  API   Reference -- v2 ')).toBe('api-reference-v2');
    expect(slugify('snake_case and/or kebab-case')).toBe('snake-case-and-or-kebab-case');
  });

  it('strips accents and removes other characters', () => {
    expect(slugify('Café Crème Brûlée')).toBe('cafe-creme-brulee');
    expect(slugify("What's new?")).toBe('whats-new');
    expect(slugify('C++ & Rust (2024)!')).toBe('c-rust-2024');
    expect(slugify('Ça va, Ōsaka')).toBe('ca-va-osaka');
  });

  it('is never empty', () => {
    expect(slugify('')).toBe('untitled');
    expect(slugify('   ')).toBe('untitled');
    expect(slugify('!!! ???')).toBe('untitled');
    expect(slugify('🎉')).toBe('untitled');
  });
});
