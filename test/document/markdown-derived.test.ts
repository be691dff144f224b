import type { JSONDocument } from '@gitbook/api';
import { describe, expect, it } from 'vitest';
import { componentValidator } from '../support/openapi.js';
import { documentFromMarkdown, parseMarkdown, slugify, type MarkdownDocument } from '../../src/document/index.js';

// What a parse derives besides the blocks (sections, links, plain text), determinism and keys, the
// official schema, slugs. Front matter, marks and blocks are in markdown.test.ts.

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
