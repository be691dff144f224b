import { Extension, Mark, Node, markInputRule, markPasteRule, mergeAttributes } from '@tiptap/core';
import Image from '@tiptap/extension-image';
import { ListItem, TaskItem, TaskList } from '@tiptap/extension-list';
import { Table, TableCell, TableHeader, TableRow } from '@tiptap/extension-table';
import StarterKit from '@tiptap/starter-kit';

/**
 * The editor's schema: exactly the blocks, inlines and marks Lectern's Markdown stores (see
 * src/document/editor-model.ts, which converts between this document and Markdown). Underline and
 * merged table cells have no Markdown form, so they are not offered; what the converter keeps
 * verbatim (raw HTML, footnotes) has its own raw nodes.
 */
export function editorExtensions() {
  return [
    StarterKit.configure({
      heading: { levels: [1, 2, 3] },
      underline: false,
      code: false,
      listItem: false,
      link: {
        openOnClick: false,
        autolink: true,
        linkOnPaste: true,
        HTMLAttributes: { rel: 'noopener noreferrer nofollow', target: null },
      },
    }),
    InlineCode,
    // A list item may start with any block (Markdown allows a heading or code block first).
    ListItem.extend({ content: 'block+' }),
    TaskList,
    TaskItem.extend({ content: 'block+' }).configure({ nested: true }),
    Image.configure({ inline: true, allowBase64: false }),
    Table.configure({ resizable: false }),
    TableRow,
    // A Markdown table cell holds one line of text.
    TableHeader.extend({ content: 'paragraph' }),
    TableCell.extend({ content: 'paragraph' }),
    MarkdownAttributes,
    RawBlock,
    RawInline,
  ];
}

/**
 * Inline code that other marks may wrap: Markdown has **`bold code`** and [`linked code`](url),
 * which Tiptap's own code mark (exclusive of every other mark) would lose.
 */
const InlineCode = Mark.create({
  name: 'code',
  excludes: 'code',
  code: true,
  exitable: true,
  parseHTML: () => [{ tag: 'code' }],
  renderHTML: ({ HTMLAttributes }) => ['code', mergeAttributes(HTMLAttributes), 0],
  addKeyboardShortcuts() {
    return { 'Mod-e': () => this.editor.commands.toggleMark(this.name) };
  },
  addInputRules() {
    return [markInputRule({ find: /(^|[^`])`([^`]+)`(?!`)$/, type: this.type })];
  },
  addPasteRules() {
    return [markPasteRule({ find: /(^|[^`])`([^`]+)`(?!`)/g, type: this.type })];
  },
});

/** What Markdown says and HTML does not: loose lists, code fence info after the language, column alignment. */
const MarkdownAttributes = Extension.create({
  name: 'markdownAttributes',
  addGlobalAttributes() {
    return [
      {
        types: ['bulletList', 'orderedList', 'taskList', 'listItem', 'taskItem'],
        attributes: { spread: { default: false, rendered: false } },
      },
      { types: ['codeBlock'], attributes: { meta: { default: null, rendered: false } } },
      {
        types: ['tableHeader', 'tableCell'],
        attributes: {
          align: {
            default: null,
            parseHTML: (element) => element.style.textAlign || null,
            renderHTML: (attributes) => (attributes.align ? { style: `text-align: ${attributes.align}` } : {}),
          },
        },
      },
    ];
  },
});

/** Markdown kept as written (raw HTML blocks, footnote definitions), edited as plain text. */
const RawBlock = Node.create({
  name: 'rawBlock',
  group: 'block',
  content: 'text*',
  marks: '',
  code: true,
  defining: true,
  parseHTML: () => [{ tag: 'pre[data-raw-markdown]', preserveWhitespace: 'full' }],
  renderHTML: () => ['pre', { 'data-raw-markdown': '', class: 'raw-markdown', title: 'Markdown kept as written' }, ['code', 0]],
});

/** Inline Markdown kept as written (inline HTML, footnote references). */
const RawInline = Node.create({
  name: 'rawInline',
  group: 'inline',
  inline: true,
  atom: true,
  addAttributes: () => ({ markdown: { default: '', rendered: false } }),
  parseHTML: () => [{ tag: 'code[data-raw-markdown]', getAttrs: (element) => ({ markdown: element.textContent ?? '' }) }],
  renderHTML: ({ node }) => ['code', { 'data-raw-markdown': '', class: 'raw-markdown' }, String(node.attrs.markdown)],
});
