/**
 * JSONDocument → Markdown (jsonDocumentToMarkdown) against its inverse documentFromMarkdown: a
 * document written (stored as Markdown) and read back with format=document is the same document.
 *
 * "The same" ignores what reading generates: node `key`s and heading anchors (`meta.id`); a document
 * Lectern itself produced (keys and anchors included) comes back byte for byte.
 */
import { describe, expect, it } from 'vitest';
import { documentFromMarkdown, jsonDocumentToMarkdown } from '../../src/document/index.js';
import { LecternError } from '../../src/errors.js';
import { componentValidator } from '../support/openapi.js';

const validJSONDocument = componentValidator('JSONDocument');

// Builders for documents as a client writes them: no keys, no anchors.
type Json = Record<string, unknown>;
const leaf = (text: string, ...marks: string[]) => ({
  object: 'leaf',
  text,
  marks: marks.map((type) => ({ object: 'mark', type, data: {} })),
});
const text = (...leaves: Json[]) => ({ object: 'text', leaves });
const t = (s: string, ...marks: string[]) => text(leaf(s, ...marks));
const blk = (type: string, nodes: Json[], data: Json = {}) => ({ object: 'block', type, isVoid: false, data, nodes });
const p = (...nodes: Json[]) => blk('paragraph', nodes);
const h = (level: 1 | 2 | 3, ...nodes: Json[]) => blk(`heading-${level}`, nodes);
const item = (nodes: Json[], data: Json = {}) => blk('list-item', nodes, data);
const ul = (...items: Json[]) => blk('list-unordered', items);
const ol = (data: Json, ...items: Json[]) => blk('list-ordered', items, data);
const tasks = (...items: Json[]) => blk('list-tasks', items);
const quote = (...nodes: Json[]) => blk('blockquote', nodes);
const codeBlock = (lines: string[], data: Json = {}) =>
  blk(
    'code',
    lines.map((l) => blk('code-line', [t(l)])),
    data,
  );
const divider = { object: 'block', type: 'divider', isVoid: true, data: {} };
const link = (url: string, ...nodes: Json[]) => ({
  object: 'inline',
  type: 'link',
  isVoid: false,
  data: { ref: { kind: 'url', url } },
  nodes,
});
const inlineImage = (url: string, extra: Json = {}) => ({
  object: 'inline',
  type: 'inline-image',
  isVoid: true,
  data: { ref: { kind: 'url', url }, ...extra },
});
const image = (url: string, alt?: string, caption?: string) => ({
  object: 'block',
  type: 'image',
  isVoid: true,
  data: { ref: { kind: 'url', url }, ...(alt ? { alt } : {}) },
  fragments: caption ? [{ object: 'fragment', fragment: 'caption', nodes: [p(t(caption))] }] : [],
});
const images = (...nodes: Json[]) => blk('images', nodes);
const doc = (...nodes: Json[]) => ({ object: 'document', data: { schemaVersion: 1 }, nodes });

/** A GFM-shaped table: columns c1.., rows r1.., cell fragments r1c1.. (the ids reading generates). */
function table(header: [string, 'left' | 'center' | 'right'][], rows: Json[][][]) {
  const columns = header.map((_, i) => `c${i + 1}`);
  const definition = Object.fromEntries(
    header.map(([title, textAlignment], i) => [columns[i], { id: columns[i], title, type: 'text', textAlignment }]),
  );
  const pad = String(rows.length).length;
  const records: Json = {};
  const fragments: Json[] = [];
  rows.forEach((cells, r) => {
    const values: Record<string, string> = {};
    cells.forEach((nodes, c) => {
      const name = `r${r + 1}${columns[c]}`;
      values[columns[c]!] = name;
      fragments.push({ object: 'fragment', fragment: name, nodes: [p(...nodes)] });
    });
    records[`r${r + 1}`] = { orderIndex: String(r).padStart(pad, '0'), values };
  });
  return {
    object: 'block',
    type: 'table',
    isVoid: true,
    data: { view: { type: 'grid', columns, hideHeader: false }, records, definition },
    fragments,
  };
}

/** Without what reading generates: keys and heading anchors. */
function generatedOut(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(generatedOut);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => k !== 'key' && k !== 'meta')
      .map(([k, v]) => [k, generatedOut(v)]),
  );
}

function roundTrip(document: Json) {
  expect(validJSONDocument(document), JSON.stringify(validJSONDocument.errors)).toBe(true);
  const markdown = jsonDocumentToMarkdown(document, 'document');
  const back = documentFromMarkdown(markdown);
  expect(generatedOut(back), markdown).toEqual(generatedOut(document));
  return markdown;
}

function refusal(document: unknown, field = 'document'): string {
  try {
    jsonDocumentToMarkdown(document, field);
  } catch (error) {
    expect(error).toBeInstanceOf(LecternError);
    expect((error as LecternError).code).toBe('BAD_REQUEST');
    return (error as Error).message;
  }
  throw new Error('not refused');
}

describe('round trip: every block and mark type with a Markdown form', () => {
  const cases: [string, Json][] = [
    ['headings 1-3', doc(h(1, t('One')), h(2, text(leaf('Two '), leaf('bold', 'bold'))), h(3, t('Three')))],
    ['paragraphs', doc(p(t('First paragraph.')), p(t('Second, with a hard\nbreak')))],
    [
      'bold, italic, strikethrough, code',
      doc(p(text(leaf('a'), leaf('b', 'bold'), leaf('c', 'italic'), leaf('d', 'strikethrough'), leaf('e', 'code'), leaf('f')))),
    ],
    [
      'overlapping and nested marks',
      doc(
        p(
          text(
            leaf('a', 'bold'),
            leaf('b', 'bold', 'italic'),
            leaf('c', 'italic'),
            leaf(' '),
            leaf('x', 'bold', 'code'),
            leaf('y', 'italic', 'strikethrough'),
          ),
        ),
      ),
    ],
    ['marks next to punctuation and spaces', doc(p(text(leaf('a'), leaf('.b', 'bold'), leaf('c '), leaf(' d ', 'italic'), leaf('e'))))],
    [
      'code spans holding backticks and spaces',
      doc(p(text(leaf('a`b', 'code'), leaf(' '), leaf('`', 'code'), leaf(' '), leaf(' sp ', 'code')))),
    ],
    ['line break inside bold', doc(p(text(leaf('a'), leaf('b\nc', 'bold'), leaf('d'))))],
    [
      'unordered list with nesting and two paragraphs',
      doc(ul(item([p(t('one'))]), item([p(t('two')), p(t('second paragraph')), ul(item([p(t('nested'))]))]))),
    ],
    [
      'ordered lists (start 1 and start 5)',
      doc(ol({}, item([p(t('a'))]), item([p(t('b'))])), p(t('between')), ol({ start: 5 }, item([p(t('five'))]))),
    ],
    [
      'adjacent lists stay two lists',
      doc(ul(item([p(t('a'))])), ul(item([p(t('b'))])), ol({}, item([p(t('c'))])), ol({}, item([p(t('d'))]))),
    ],
    ['task list', doc(tasks(item([p(t('todo'))], { checked: false }), item([p(t('done', 'strikethrough'))], { checked: true })))],
    [
      'list items holding a heading, code, a quote, a table',
      doc(
        ul(
          item([
            p(t('x')),
            h(3, t('Heading')),
            codeBlock(['let a;'], { syntax: 'ts' }),
            quote(p(t('q'))),
            table([['A', 'left']], [[[t('1')]]]),
          ]),
        ),
      ),
    ],
    [
      'blockquote, nested, with a list and a divider',
      doc(quote(p(t('quoted')), quote(p(t('deeper'))), ul(item([p(t('in quote'))])), divider)),
    ],
    [
      'code blocks with and without syntax',
      doc(codeBlock(['const a = 1;', '', '  indented', '```'], { syntax: 'js' }), codeBlock(['plain'])),
    ],
    ['divider', doc(p(t('above')), divider, p(t('below')))],
    [
      'images block: alt, caption, several',
      doc(images(image('https://example.com/a.png', 'Alt A', 'Caption A'), image('https://example.com/b.png'))),
    ],
    [
      'inline image with alt and caption',
      doc(p(t('see '), inlineImage('https://example.com/i.png', { alt: 'icon', caption: 'Icon' }), t(' here'))),
    ],
    [
      'links: marks inside, an image inside, URL needing brackets',
      doc(
        p(
          t('go '),
          link('https://example.com/a', t('there', 'bold')),
          t(' or '),
          link('https://example.com/a b(c)', t('odd')),
          t(' '),
          link('https://example.com', t(''), inlineImage('https://example.com/logo.png', { alt: 'logo' }), t('')),
          t(''),
        ),
      ),
    ],
    ['autolink (text is the URL)', doc(p(t('at '), link('https://example.com', t('https://example.com')), t('')))],
    [
      'table: alignments, empty and marked cells, a link, a pipe',
      doc(
        table(
          [
            ['Name', 'left'],
            ['Mid', 'center'],
            ['Num', 'right'],
          ],
          [
            [[t('a')], [t('b|c')], [t('1', 'bold')]],
            [[t('')], [t(''), link('https://example.com', t('link')), t('')], [t('2', 'code')]],
          ],
        ),
      ),
    ],
    [
      'table with 10+ rows (record order)',
      doc(
        table(
          [['N', 'left']],
          Array.from({ length: 12 }, (_, i) => [[t(String(i))]]),
        ),
      ),
    ],
  ];
  it.each(cases)('%s', (_, document) => {
    roundTrip(document);
  });

  it('a document Lectern produced comes back byte for byte, keys and anchors included', () => {
    const markdown = [
      '# Title *it* **bo** ~~st~~ `code`',
      '',
      'Para **bold *both*** and [link **b**](https://x.com/a) and ![alt](https://i/x.png "cap")\\',
      'hard break',
      '',
      '- one',
      '- [two](https://two)',
      '',
      '1. a',
      '2. b',
      '',
      '- [ ] todo',
      '- [x] done',
      '',
      '> quote',
      '>',
      '> > nested',
      '',
      '```py',
      'print(1)',
      '```',
      '',
      '---',
      '',
      '![a](https://a.png "Cap") ![b](https://b.png)',
      '',
      '| A | B |',
      '| :- | -: |',
      '| x | **y** |',
      '',
      '## Title',
    ].join('\n');
    const document = documentFromMarkdown(markdown);
    expect(validJSONDocument(document), JSON.stringify(validJSONDocument.errors)).toBe(true);
    expect(documentFromMarkdown(jsonDocumentToMarkdown(document, 'document'))).toEqual(document);
  });

  it('writes readable Markdown', () => {
    const markdown = jsonDocumentToMarkdown(
      doc(
        h(2, t('Install')),
        p(t('Run '), t('npm i', 'code'), t(' then:')),
        tasks(item([p(t('done'))], { checked: true })),
        codeBlock(['x'], { syntax: 'sh' }),
      ),
      'document',
    );
    expect(markdown).toBe('## Install\n\nRun `npm i` then:\n\n- [x] done\n\n```sh\nx\n```\n');
  });
});

describe('escaping: Markdown syntax in text stays text', () => {
  const texts = [
    'a * b _ c ` d ~~e~~ f',
    '# not a heading',
    '1. not a list',
    '- nor this',
    '> nor a quote',
    '---',
    '[not](a-link) ![nor](an-image) [ref]',
    '<div>not html</div> <https://not.autolink>',
    '&amp; &#42; stay as typed',
    'www.example.com and https://example.com stay text',
    'mail me@example.com or mailto:me@example.com, HTTP://X.COM and WWW.X.COM',
    'a\\b \\* backslashes',
    '   leading and trailing spaces   ',
    '$x$ {% hint style="info" %} | pipe',
  ];
  it.each(texts)('%j', (value) => {
    const document = doc(p(t(value)));
    const markdown = roundTrip(document);
    // Raw HTML would be flagged on read (data.rawHtml): text that looks like HTML is not HTML.
    expect(documentFromMarkdown(markdown).data).toEqual({ schemaVersion: 1 });
  });

  it('in headings, list items, table cells, link text and code', () => {
    roundTrip(
      doc(
        h(1, t('# *x* [y]')),
        ul(item([p(t('* [ ] not a task'))])),
        table([['| * |', 'left']], [[[t('*a* <b>')]]]),
        p(t(''), link('https://e.com', t('[x]*y*')), t('')),
        codeBlock(['**not bold** <b>']),
      ),
    );
  });
});

describe('what reading normalizes (documented)', () => {
  it('generated keys and anchors are replaced, empty top-level paragraphs and a final line break dropped, display-only options not kept, task items without checked unchecked', () => {
    const written = {
      object: 'document',
      data: {},
      nodes: [
        { ...h(1, t('Title')), key: 'client-key', meta: { id: 'custom' }, data: { id: 'custom' } },
        p(t('')),
        p(text(leaf('red', 'bold', 'color'))),
        codeBlock(['x'], { syntax: 'js', title: 'a.js', lineNumbers: true }),
        p(t('end\n')),
        tasks(item([p(t('no checked field'))])),
      ],
    };
    (written.nodes[2] as any).nodes[0].leaves[0].marks[1].data = { text: 'red', background: 'default' };
    expect(validJSONDocument(written), JSON.stringify(validJSONDocument.errors)).toBe(true);
    const back = documentFromMarkdown(jsonDocumentToMarkdown(written, 'document'));
    expect(generatedOut(back)).toEqual(
      generatedOut(
        doc(
          h(1, t('Title')),
          p(t('red', 'bold')),
          codeBlock(['x'], { syntax: 'js' }),
          p(t('end')),
          tasks(item([p(t('no checked field'))], { checked: false })),
        ),
      ),
    );
    expect((back.nodes[0] as any).meta).toEqual({ id: 'title' });
  });

  it('an empty document is empty Markdown', () => {
    expect(jsonDocumentToMarkdown(doc(), 'document')).toBe('');
    expect(jsonDocumentToMarkdown(doc(p(t(''))), 'document')).toBe('');
  });
});

describe('refusals: 400 naming the path', () => {
  const cases: [string, unknown, RegExp][] = [
    ['not an object', 'text', /^body: must be an object/],
    ['wrong object', { object: 'page', data: {}, nodes: [] }, /^body\.object: must be "document"/],
    ['nodes not an array', { object: 'document', data: {}, nodes: {} }, /^body\.nodes: must be an array/],
    ['a block without type', doc(p(t('a')), { object: 'block', nodes: [] }), /^body\.nodes\[1\]\.type: is required/],
    [
      'a leaf without text',
      doc(p({ object: 'text', leaves: [{ object: 'leaf', marks: [] }] })),
      /^body\.nodes\[0\]\.nodes\[0\]\.leaves\[0\]\.text: must be a string/,
    ],
    [
      'a hint (no Markdown form)',
      doc(p(t('ok')), p(t('ok')), p(t('ok')), blk('hint', [p(t('x'))], { style: 'info' })),
      /^body\.nodes\[3\]\.type: block type "hint" has no Markdown form/,
    ],
    [
      'a math block',
      doc({ object: 'block', type: 'math', isVoid: true, data: { formula: 'x^2' } }),
      /^body\.nodes\[0\]\.type: block type "math"/,
    ],
    ['an expandable', doc(blk('expandable', [])), /^body\.nodes\[0\]\.type: block type "expandable"/],
    [
      'inline math',
      doc(p({ object: 'inline', type: 'inline-math', isVoid: true, data: { formula: 'x' } })),
      /^body\.nodes\[0\]\.nodes\[0\]\.type: inline type "inline-math"/,
    ],
    [
      'an emoji',
      doc(p(t('a'), { object: 'inline', type: 'emoji', isVoid: true, data: { code: '1f600' } }, t(''))),
      /^body\.nodes\[0\]\.nodes\[1\]\.type: inline type "emoji"/,
    ],
    [
      'a superscript mark',
      doc(p(text(leaf('a'), leaf('2', 'superscript')))),
      /^body\.nodes\[0\]\.nodes\[0\]\.leaves\[1\]\.marks\[0\]\.type: mark "superscript"/,
    ],
    [
      'a keyboard mark in a list',
      doc(ul(item([p(t('k', 'keyboard'))]))),
      /^body\.nodes\[0\]\.nodes\[0\]\.nodes\[0\]\.nodes\[0\]\.leaves\[0\]\.marks\[0\]\.type: mark "keyboard"/,
    ],
    [
      'a link to a page id',
      doc(p({ object: 'inline', type: 'link', isVoid: false, data: { ref: { kind: 'page', page: 'p1' } }, nodes: [t('x')] })),
      /^body\.nodes\[0\]\.nodes\[0\]\.data\.ref\.kind: "page" references/,
    ],
    ['a javascript: link', doc(p(link('javascript:alert(1)', t('x')))), /^body\.nodes\[0\]\.nodes\[0\]\.data\.ref\.url: uses a scheme/],
    [
      'an image from a file ref',
      doc(images({ ...image('x'), data: { ref: { kind: 'file', file: 'f1' } } })),
      /^body\.nodes\[0\]\.nodes\[0\]\.data\.ref\.kind: "file"/,
    ],
    [
      'a list item at the top level',
      doc(item([p(t('x'))])),
      /^body\.nodes\[0\]\.type: a "list-item" block is not allowed at the top level/,
    ],
    ['a paragraph directly in a list', doc(ul(p(t('x')))), /^body\.nodes\[0\]\.nodes\[0\]\.type: must be "list-item"/],
    [
      'a code block in a blockquote',
      doc(quote(codeBlock(['x']))),
      /^body\.nodes\[0\]\.nodes\[0\]\.type: a "code" block is not allowed in a blockquote/,
    ],
    [
      'a code line with marks',
      doc(blk('code', [blk('code-line', [t('x', 'bold')])])),
      /^body\.nodes\[0\]\.nodes\[0\]\.nodes\[0\]\.leaves\[0\]\.marks: /,
    ],
    ['a syntax with a space', doc(codeBlock(['x'], { syntax: 'js x' })), /^body\.nodes\[0\]\.data\.syntax: /],
    [
      'a table without header',
      doc({
        ...table([['A', 'left']], []),
        data: {
          view: { type: 'grid', columns: ['c1'], hideHeader: true },
          records: {},
          definition: { c1: { id: 'c1', title: 'A', type: 'text', textAlignment: 'left' } },
        },
      }),
      /^body\.nodes\[0\]\.data\.view\.hideHeader: /,
    ],
    [
      'a table cell naming no fragment',
      doc({ ...table([['A', 'left']], [[[t('x')]]]), fragments: [] }),
      /^body\.nodes\[0\]\.data\.records\.r1\.values\.c1: names fragment "r1c1"/,
    ],
    [
      'a checkbox column',
      doc({
        ...table([['A', 'left']], []),
        data: { view: { type: 'grid', columns: ['c1'] }, records: {}, definition: { c1: { id: 'c1', title: 'A', type: 'checkbox' } } },
      }),
      /^body\.nodes\[0\]\.data\.definition\.c1\.type: "checkbox" columns/,
    ],
    [
      'a caption with marks',
      doc(images({ ...image('https://e/x.png'), fragments: [{ object: 'fragment', fragment: 'caption', nodes: [p(t('b', 'bold'))] }] })),
      /^body\.nodes\[0\]\.nodes\[0\]\.fragments\[0\]\.nodes\[0\]\.nodes\[0\]\.leaves\[0\]\.marks: /,
    ],
  ];
  it.each(cases)('%s', (_, document, message) => {
    expect(refusal(document, 'body')).toMatch(message);
  });

  it('a document nested too deeply is refused without overflowing the stack', () => {
    let node: Json = p(t('deep'));
    for (let i = 0; i < 5000; i++) node = quote(node);
    expect(refusal(doc(node), 'changes[0].document')).toMatch(/^changes\[0\]\.document: is nested too deeply/);
  });
});
