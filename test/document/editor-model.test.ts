import { readdirSync, readFileSync } from 'node:fs';
import { getSchema } from '@tiptap/core';
import { diffLines } from 'diff';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EDITOR_BLOCKS,
  EDITOR_INLINES,
  EDITOR_MARKS,
  type EditorNode,
  type EditorPage,
  editorToMarkdown,
  markdownToEditor,
  normalizeMarkdown,
} from '../../src/document/editor-model.js';
import { editorExtensions } from '../../web/src/editor/extensions.js';

/**
 * The editor's Markdown round trip, through the editor's real schema (what Tiptap holds is the
 * converter's JSON after the schema has read it: defaults filled in, unknown attributes dropped).
 */
const schema = getSchema(editorExtensions());
const FIXTURES = new URL('../fixtures/editor/', import.meta.url);
const fixtures = readdirSync(FIXTURES)
  .filter((name) => name.endsWith('.md'))
  .sort()
  .map((name) => ({ name, markdown: readFileSync(new URL(name, FIXTURES), 'utf8') }));

/** The page as the editor holds it: the converter's document read by the schema, checked. */
function inEditor(markdown: string): EditorPage {
  const page = markdownToEditor(markdown);
  const node = schema.nodeFromJSON(page.doc);
  node.check();
  return { ...page, doc: node.toJSON() as EditorNode };
}

const roundTrip = (markdown: string) => editorToMarkdown(inEditor(markdown));

function nodesOf(node: EditorNode, out: EditorNode[] = []): EditorNode[] {
  out.push(node);
  for (const child of node.content ?? []) nodesOf(child, out);
  return out;
}

describe('golden round trip of every supported block', () => {
  it('has fixtures', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(15);
  });

  for (const { name, markdown } of fixtures) {
    it(`${name}: is in the server's normal form and comes back from the editor unchanged`, () => {
      expect(normalizeMarkdown(markdown)).toBe(markdown);
      expect(roundTrip(markdown)).toBe(markdown);
    });
  }

  it('the fixtures cover every block, inline and mark of the schema', () => {
    const seen = new Set<string>();
    for (const { markdown } of fixtures) {
      for (const node of nodesOf(inEditor(markdown).doc)) {
        seen.add(node.type);
        for (const mark of node.marks ?? []) seen.add(mark.type);
      }
    }
    for (const type of [...EDITOR_BLOCKS, ...EDITOR_INLINES, ...EDITOR_MARKS]) expect(seen, type).toContain(type);
    // The converter's names are the schema's names, and the schema has nothing more.
    expect(new Set(Object.keys(schema.nodes))).toEqual(new Set(['doc', ...EDITOR_BLOCKS, ...EDITOR_INLINES]));
    expect(new Set(Object.keys(schema.marks))).toEqual(new Set(EDITOR_MARKS));
  });
});

describe('what the editor document holds', () => {
  it('maps blocks to the editor nodes with their Markdown details', () => {
    const { doc } = inEditor('## Title\n\n3. a\n4. b\n\n- [x] done\n- [ ] open\n\n```ts title="x"\nlet a;\n```\n');
    const [heading, ordered, tasks, code] = doc.content!;
    expect(heading).toMatchObject({ type: 'heading', attrs: { level: 2 } });
    expect(ordered).toMatchObject({ type: 'orderedList', attrs: { start: 3 } });
    expect(tasks!.content!.map((item) => item.attrs?.checked)).toEqual([true, false]);
    expect(code).toMatchObject({ type: 'codeBlock', attrs: { language: 'ts', meta: 'title="x"' }, content: [{ text: 'let a;' }] });
  });

  it('keeps marks on text: a link to a page of the space is a link mark with its href', () => {
    const { doc } = inEditor('See **[the page](/pages/abc "Title")**.\n');
    expect(doc.content![0]!.content![1]).toMatchObject({
      text: 'the page',
      marks: [{ type: 'link', attrs: { href: '/pages/abc', title: 'Title' } }, { type: 'bold' }],
    });
  });

  it('keeps table column alignment on every cell and the first row as the header', () => {
    const { doc } = inEditor('| a | b |\n| :-: | -: |\n| 1 | 2 |\n');
    const [header, row] = doc.content![0]!.content!;
    expect(header!.content!.map((cell) => [cell.type, cell.attrs?.align])).toEqual([
      ['tableHeader', 'center'],
      ['tableHeader', 'right'],
    ]);
    expect(row!.content!.map((cell) => [cell.type, cell.attrs?.align])).toEqual([
      ['tableCell', 'center'],
      ['tableCell', 'right'],
    ]);
  });

  it('an empty page is one empty paragraph, and writes back as nothing', () => {
    expect(inEditor('').doc).toEqual({ type: 'doc', content: [{ type: 'paragraph' }] });
    expect(roundTrip('')).toBe('');
  });
});

describe('front matter stays outside the document, as fields', () => {
  const page = '---\ndescription: Old\nicon: rocket\n---\n\n# Title\n';

  it('reads description and hidden, and writes the same YAML back when they are unchanged', () => {
    const editor = inEditor(page);
    expect(editor.fields).toEqual({ description: 'Old' });
    expect(nodesOf(editor.doc).some((node) => node.type === 'text' && /description/.test(node.text ?? ''))).toBe(false);
    expect(editorToMarkdown(editor)).toBe(page);
  });

  it('writes changed fields into the YAML, keeping the other keys', () => {
    const editor = inEditor(page);
    expect(editorToMarkdown({ ...editor, fields: { description: 'New: text', hidden: true } })).toBe(
      '---\ndescription: "New: text"\nicon: rocket\nhidden: true\n---\n\n# Title\n',
    );
    expect(editorToMarkdown({ ...editor, fields: {} })).toBe('---\nicon: rocket\n---\n\n# Title\n');
  });

  it('adds front matter to a page without it, and drops it when nothing is left', () => {
    const editor = inEditor('Text\n');
    expect(editorToMarkdown({ ...editor, fields: { hidden: true } })).toBe('---\nhidden: true\n---\n\nText\n');
    const onlyFields = inEditor('---\nhidden: true\n---\n\nText\n');
    expect(editorToMarkdown({ ...onlyFields, fields: {} })).toBe('Text\n');
  });
});

describe('normalizations', () => {
  // The server's serializer settings (one normalization), then the editor changes nothing more.
  const serverNormalizations: [string, string, string][] = [
    ['`*` and `+` bullets become `-`', '* a\n+ b\n', '- a\n\n* b\n'],
    ['setext headings become ATX', 'Title\n=====\n', '# Title\n'],
    ['indented code becomes fenced', '    code\n', '```\ncode\n```\n'],
    ['`_emphasis_` and `__strong__` become `*` and `**`', '_a_ __b__\n', '*a* **b**\n'],
    ['`***` and `___` rules become `---`', 'a\n\n***\n\n___\n', 'a\n\n---\n\n---\n'],
    ['a divider on the first line is written `***` (a first-line `---` opens front matter)', '___\n\n- a\n', '***\n\n- a\n'],
    ['a bare URL becomes an autolink', 'see https://example.com\n', 'see <https://example.com>\n'],
    ['runs of blank lines become one', 'a\n\n\n\nb\n', 'a\n\nb\n'],
    [
      'table rows are padded to aligned columns',
      '|a|b|\n|-|-|\n|long cell|2|\n',
      '| a         | b |\n| --------- | - |\n| long cell | 2 |\n',
    ],
  ];
  for (const [what, input, normal] of serverNormalizations) {
    it(`server: ${what}`, () => {
      expect(normalizeMarkdown(input)).toBe(normal);
      expect(roundTrip(normal)).toBe(normal);
    });
  }

  // What the editor changes beyond the server's normal form.
  it('editor: reference-style links and images stay as written until their block is edited, then become inline ones', () => {
    const input = 'Read [the guide][g] and ![logo][l].\n\n[g]: https://example.com/guide "Guide"\n\n[l]: /logo.png\n';
    expect(roundTrip(normalizeMarkdown(input))).toBe(normalizeMarkdown(input));
    const editor = inEditor(input);
    editor.doc.content![0]!.content!.push({ type: 'text', text: ' Now.' });
    // The definitions stay (they are text outside blocks); nothing refers to them any more.
    expect(editorToMarkdown(editor)).toBe(
      'Read [the guide](https://example.com/guide "Guide") and ![logo](/logo.png). Now.\n\n[g]: https://example.com/guide "Guide"\n\n[l]: /logo.png\n',
    );
    const { origin: _, ...withoutOrigin } = inEditor(input);
    expect(editorToMarkdown(withoutOrigin)).toBe('Read [the guide](https://example.com/guide "Guide") and ![logo](/logo.png).\n');
  });
});

describe('editing one paragraph changes only its lines', () => {
  const page = fixtures.find((f) => f.name === 'mixed-page.md')!.markdown;
  const paragraphCount = nodesOf(inEditor(page).doc).filter((n) => n.type === 'paragraph').length;

  /** Appends text to the `index`-th paragraph (document order) outside table cells; false when it is in one. */
  function editParagraph(doc: EditorNode, index: number): { edited: boolean; lines: number } {
    let seen = -1;
    let result = { edited: false, lines: 0 };
    const visit = (node: EditorNode, inTable: boolean) => {
      if (node.type === 'paragraph' && ++seen === index && !inTable && node.content?.length) {
        node.content.push({ type: 'text', text: ' (edited)' });
        const breaks = node.content.filter((n) => n.type === 'hardBreak').length;
        const softBreaks =
          node.content
            .map((n) => n.text ?? '')
            .join('')
            .split('\n').length - 1;
        result = { edited: true, lines: 1 + breaks + softBreaks };
      }
      for (const child of node.content ?? []) visit(child, inTable || node.type === 'table');
    };
    visit(doc, false);
    return result;
  }

  it('has paragraphs in lists, quotes and at the top level to edit', () => {
    expect(paragraphCount).toBeGreaterThanOrEqual(15);
  });

  for (let index = 0; index < 25; index++) {
    it(`paragraph ${index}`, () => {
      const editor = inEditor(page);
      const { edited, lines } = editParagraph(editor.doc, index);
      if (!edited) return; // beyond the page's paragraphs, or a table cell (the table re-pads its rows)
      const changes = diffLines(page, editorToMarkdown(editor)).filter((part) => part.added || part.removed);
      expect(changes.map((part) => [part.removed ? 'removed' : 'added', part.count])).toEqual([
        ['removed', lines],
        ['added', lines],
      ]);
      expect(changes[1]!.value).toContain(' (edited)');
    });
  }
});

describe('a page not in the normal form keeps its unchanged blocks as written', () => {
  const page = readFileSync(new URL('../fixtures/editor-hand-written/imported.md', import.meta.url), 'utf8');

  it('is not in the normal form (else this would prove nothing)', () => {
    expect(normalizeMarkdown(page)).not.toBe(page);
  });

  it('comes back byte for byte when nothing was edited', () => {
    expect(roundTrip(page)).toBe(page);
  });

  it('editing one paragraph rewrites only its lines, the rest stays as written', () => {
    const editor = inEditor(page);
    const paragraph = editor.doc.content!.find(
      (block) => block.type === 'paragraph' && (block.content ?? []).some((n) => n.text?.startsWith('Final')),
    )!;
    paragraph.content!.push({ type: 'text', text: ' Edited.' });
    const changes = diffLines(page, editorToMarkdown(editor)).filter((part) => part.added || part.removed);
    expect(changes.map((part) => [part.removed ? 'removed' : 'added', part.value])).toEqual([
      ['removed', 'Final paragraph with a trailing line.\n'],
      ['added', 'Final paragraph with a trailing line. Edited.\n'],
    ]);
  });

  it('a new block is written by the serializer between blocks kept as written', () => {
    const editor = inEditor(page);
    editor.doc.content!.splice(1, 0, { type: 'paragraph', content: [{ type: 'text', text: 'New *text*', marks: [{ type: 'bold' }] }] });
    const written = editorToMarkdown(editor);
    expect(written).toContain('Imported page\n=============\n\n**New \\*text\\***\n\nThis page was written by hand');
    expect(written).toContain('* a bullet\n* another bullet');
  });

  it('without where the blocks came from, the whole page is serialized (the normal form)', () => {
    const { origin: _, ...editor } = inEditor(page);
    const written = editorToMarkdown(editor);
    expect(written).toBe(normalizeMarkdown(written));
    expect(written).toMatch(
      /^# Imported page\n\nThis page was written by hand, not by the serializer: \*\*strong\*\*, \*emphasis\*,\nand a \[reference link\]\(https:\/\/example.com\/docs\)\.\n\n- a bullet\n/,
    );
  });

  it('serializes the whole page when blocks kept as written would read back differently', () => {
    // Two lists a paragraph apart: with the paragraph gone, `* a` and `* b` as written would be one list.
    const editor = inEditor('* a\n\nmiddle\n\n* b\n');
    editor.doc.content!.splice(1, 1);
    expect(editorToMarkdown(editor)).toBe('- a\n\n* b\n');
    expect(inEditor(editorToMarkdown(editor)).doc.content!.map((block) => block.type)).toEqual(['bulletList', 'bulletList']);
  });
});

/** Lets the test worker answer its runner between runs (a long synchronous loop starves it). */
const yieldToWorker = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('property: random editor documents write Markdown that is a fixed point', () => {
  const word = fc.stringMatching(/^[a-zA-Z0-9]{1,6}$/);
  const punctuation = fc.constantFrom(
    ' ',
    ' ',
    '*',
    '_',
    '`',
    '#',
    '[',
    ']',
    '(',
    ')',
    '<',
    '>',
    '!',
    '~',
    '|',
    '\\',
    '-',
    '+',
    '.',
    '1.',
    '&',
    ':',
    '"',
  );
  const text = fc
    .array(fc.oneof({ weight: 3, arbitrary: word }, { weight: 2, arbitrary: punctuation }), { minLength: 1, maxLength: 6 })
    .map((parts) => parts.join(''));
  const mark = fc.constantFrom<EditorNode['marks'] & object>(
    [],
    [{ type: 'bold' }],
    [{ type: 'italic' }],
    [{ type: 'strike' }],
    [{ type: 'code' }],
    [{ type: 'bold' }, { type: 'italic' }],
    [{ type: 'link', attrs: { href: 'https://example.com/a' } }],
    [{ type: 'link', attrs: { href: '/pages/p1' } }, { type: 'code' }],
  );
  const inline = fc.oneof(
    { weight: 6, arbitrary: fc.record({ text, marks: mark }).map(({ text, marks }): EditorNode => ({ type: 'text', text, marks })) },
    { weight: 1, arbitrary: fc.constant<EditorNode>({ type: 'hardBreak' }) },
    {
      weight: 1,
      arbitrary: fc.record({ alt: word }).map(({ alt }): EditorNode => ({ type: 'image', attrs: { src: `/img/${alt}.png`, alt } })),
    },
  );
  const inlines = fc.array(inline, { minLength: 0, maxLength: 5 });
  const paragraph = inlines.map((content): EditorNode => ({ type: 'paragraph', content }));
  const cell = (type: string) =>
    fc
      .array(fc.record({ text, marks: mark }), { maxLength: 2 })
      .map((runs): EditorNode => ({ type, content: [{ type: 'paragraph', content: runs.map((r) => ({ type: 'text', ...r })) }] }));
  const table = fc
    .integer({ min: 1, max: 3 })
    .chain((width) =>
      fc
        .tuple(
          fc.array(cell('tableHeader'), { minLength: width, maxLength: width }),
          fc.array(fc.array(cell('tableCell'), { minLength: width, maxLength: width }), { maxLength: 3 }),
        )
        .map(
          ([header, rows]): EditorNode => ({ type: 'table', content: [header, ...rows].map((content) => ({ type: 'tableRow', content })) }),
        ),
    );
  const leaf = fc.oneof(
    { weight: 5, arbitrary: paragraph },
    {
      weight: 1,
      arbitrary: fc
        .record({ level: fc.constantFrom(1, 2, 3), content: inlines })
        .map(({ level, content }): EditorNode => ({ type: 'heading', attrs: { level }, content })),
    },
    {
      weight: 1,
      arbitrary: fc.record({ language: fc.constantFrom(null, 'js', 'ts'), code: fc.array(text, { maxLength: 3 }) }).map(
        ({ language, code }): EditorNode => ({
          type: 'codeBlock',
          attrs: { language },
          content: code.length ? [{ type: 'text', text: code.join('\n') }] : [],
        }),
      ),
    },
    { weight: 1, arbitrary: fc.constant<EditorNode>({ type: 'horizontalRule' }) },
    { weight: 1, arbitrary: table },
  );
  const { block } = fc.letrec<{ block: EditorNode }>((tie) => {
    const blocks = fc.array(tie('block'), { minLength: 1, maxLength: 3 });
    // An item starts with text, as the editor's list commands make them (an item starting with a
    // divider is written `* ---`, and two such lists in a row read back as one).
    const firstLine = fc
      .tuple(word, inlines)
      .map(([first, rest]): EditorNode => ({ type: 'paragraph', content: [{ type: 'text', text: first }, ...rest] }));
    const itemBlocks = fc.tuple(firstLine, fc.array(tie('block'), { maxLength: 2 })).map(([first, rest]) => [first, ...rest]);
    const list = (type: string, item: string, attrs: () => fc.Arbitrary<Record<string, unknown>>) =>
      fc
        .array(fc.record({ content: itemBlocks, attrs: attrs() }), { minLength: 1, maxLength: 3 })
        .map((items): EditorNode => ({ type, content: items.map(({ content, attrs }) => ({ type: item, attrs, content })) }));
    return {
      block: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        { weight: 6, arbitrary: leaf },
        { weight: 1, arbitrary: blocks.map((content): EditorNode => ({ type: 'blockquote', content })) },
        { weight: 1, arbitrary: list('bulletList', 'listItem', () => fc.constant({})) },
        { weight: 1, arbitrary: list('orderedList', 'listItem', () => fc.constant({})) },
        { weight: 1, arbitrary: list('taskList', 'taskItem', () => fc.record({ checked: fc.boolean() })) },
      ),
    };
  });
  const document = fc.array(block, { minLength: 1, maxLength: 6 }).map((content): EditorNode => ({ type: 'doc', content }));

  it('editor → Markdown → editor → Markdown gives the same Markdown, in the server normal form', async () => {
    await fc.assert(
      fc.asyncProperty(document, async (generated) => {
        await yieldToWorker();
        const doc = schema.nodeFromJSON(generated);
        doc.check();
        const written = editorToMarkdown({ doc: doc.toJSON() as EditorNode, fields: {}, frontMatter: null });
        expect(normalizeMarkdown(written)).toBe(written);
        expect(roundTrip(written)).toBe(written);
      }),
      { numRuns: 150 },
    );
  }, 120_000);

  it('edits of a page not in the normal form are written so they read back as the edited document', async () => {
    const blockKeys = (doc: EditorNode) =>
      (doc.content ?? [])
        .map((b) => editorToMarkdown({ doc: { type: 'doc', content: [b] }, fields: {}, frontMatter: null }))
        // A block with nothing to write (an empty paragraph, one of only a line break) is not written.
        .filter((key) => key !== '');
    // Edits of top-level blocks: remove one, insert a generated one, or append text to one.
    const edit = fc.oneof(
      fc.record({ op: fc.constant('remove' as const), at: fc.nat() }),
      fc.record({ op: fc.constant('insert' as const), at: fc.nat(), block }),
      fc.record({ op: fc.constant('append' as const), at: fc.nat(), text: word }),
    );
    await fc.assert(
      fc.asyncProperty(document, fc.array(edit, { maxLength: 4 }), async (generated, edits) => {
        await yieldToWorker();
        const normal = editorToMarkdown({ doc: schema.nodeFromJSON(generated).toJSON() as EditorNode, fields: {}, frontMatter: null });
        // The same content as a person might have written it: other bullets and emphasis, more blank lines.
        const handWritten = normal.replace(/^- /gm, '* ').replace(/\*\*/g, '__').replace(/\n\n/g, '\n\n\n');
        const page = inEditor(handWritten);
        const blocks = page.doc.content!;
        for (const change of edits) {
          const at = change.at % (blocks.length + 1);
          if (change.op === 'remove' && blocks.length > 1) blocks.splice(Math.min(at, blocks.length - 1), 1);
          if (change.op === 'insert') blocks.splice(at, 0, schema.nodeFromJSON(change.block).toJSON() as EditorNode);
          const target = blocks[Math.min(at, blocks.length - 1)];
          if (change.op === 'append' && target?.type === 'paragraph')
            target.content = [...(target.content ?? []), { type: 'text', text: ` ${change.text}` }];
        }
        const written = editorToMarkdown(page);
        expect(blockKeys(inEditor(written).doc)).toEqual(blockKeys(page.doc));
        expect(roundTrip(written)).toBe(written);
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});
