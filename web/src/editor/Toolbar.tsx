import type { Editor } from '@tiptap/react';
import { useEditorState } from '@tiptap/react';
import { type ReactNode, useRef } from 'react';

/** What the toolbar shows as pressed, read from the editor state on each transaction. */
function useActive(editor: Editor) {
  return useEditorState({
    editor,
    selector: ({ editor: e }) => ({
      bold: e.isActive('bold'),
      italic: e.isActive('italic'),
      strike: e.isActive('strike'),
      code: e.isActive('code'),
      link: e.isActive('link'),
      h1: e.isActive('heading', { level: 1 }),
      h2: e.isActive('heading', { level: 2 }),
      h3: e.isActive('heading', { level: 3 }),
      bulletList: e.isActive('bulletList'),
      orderedList: e.isActive('orderedList'),
      taskList: e.isActive('taskList'),
      blockquote: e.isActive('blockquote'),
      codeBlock: e.isActive('codeBlock'),
      language: e.isActive('codeBlock') ? String(e.getAttributes('codeBlock').language ?? '') : null,
      table: e.isActive('table'),
    }),
  });
}

function Tool({
  label,
  shortcut,
  pressed,
  onClick,
  children,
  disabled,
}: {
  label: string;
  shortcut?: string;
  pressed?: boolean;
  onClick: () => void;
  children: ReactNode;
  disabled?: boolean;
}) {
  return (
    <button
      type="button"
      title={shortcut ? `${label} (${shortcut})` : label}
      aria-pressed={pressed === undefined ? undefined : pressed}
      aria-keyshortcuts={shortcut?.replace('Ctrl', 'Control')}
      disabled={disabled}
      // Keep the selection in the editor: a click must not move focus before the command runs.
      onMouseDown={(event) => event.preventDefault()}
      onClick={onClick}
    >
      {/* The name is the words, not the glyph: what is read out is what a person says to press it. */}
      <span aria-hidden="true">{children}</span>
      <span className="editor-visually-hidden">{label}</span>
    </button>
  );
}

/**
 * The formatting toolbar: exactly the marks and blocks Lectern's Markdown stores. Buttons are
 * named for assistive technology ("Bold", "Heading 2", "Table"…) and show their state as pressed.
 */
export function Toolbar({
  editor,
  onLink,
  onImage,
  disabled,
}: {
  editor: Editor;
  onLink: () => void;
  onImage?: (file: File) => void;
  disabled?: boolean;
}) {
  const active = useActive(editor);
  const chain = () => editor.chain().focus();
  const fileInput = useRef<HTMLInputElement>(null);
  return (
    <div role="toolbar" aria-label="Formatting" className="editor-toolbar">
      <div className="editor-toolbar-group">
        <Tool label="Bold" shortcut="Ctrl+B" pressed={active.bold} disabled={disabled} onClick={() => chain().toggleBold().run()}>
          <b>B</b>
        </Tool>
        <Tool label="Italic" shortcut="Ctrl+I" pressed={active.italic} disabled={disabled} onClick={() => chain().toggleItalic().run()}>
          <i>I</i>
        </Tool>
        <Tool
          label="Strikethrough"
          shortcut="Ctrl+Shift+S"
          pressed={active.strike}
          disabled={disabled}
          onClick={() => chain().toggleStrike().run()}
        >
          <s>S</s>
        </Tool>
        <Tool label="Code" shortcut="Ctrl+E" pressed={active.code} disabled={disabled} onClick={() => chain().toggleMark('code').run()}>
          <code>{'<>'}</code>
        </Tool>
        <Tool label="Link" shortcut="Ctrl+K" pressed={active.link} disabled={disabled} onClick={onLink}>
          Link
        </Tool>
      </div>
      <div className="editor-toolbar-group">
        {([1, 2, 3] as const).map((level) => (
          <Tool
            key={level}
            label={`Heading ${level}`}
            pressed={active[`h${level}`]}
            disabled={disabled}
            onClick={() => chain().toggleHeading({ level }).run()}
          >
            H{level}
          </Tool>
        ))}
      </div>
      <div className="editor-toolbar-group">
        <Tool label="Bulleted list" pressed={active.bulletList} disabled={disabled} onClick={() => chain().toggleBulletList().run()}>
          •
        </Tool>
        <Tool label="Numbered list" pressed={active.orderedList} disabled={disabled} onClick={() => chain().toggleOrderedList().run()}>
          1.
        </Tool>
        <Tool label="Task list" pressed={active.taskList} disabled={disabled} onClick={() => chain().toggleTaskList().run()}>
          ☑
        </Tool>
        <Tool label="Quote" pressed={active.blockquote} disabled={disabled} onClick={() => chain().toggleBlockquote().run()}>
          ❝
        </Tool>
        <Tool label="Code block" pressed={active.codeBlock} disabled={disabled} onClick={() => chain().toggleCodeBlock().run()}>
          {'{ }'}
        </Tool>
        <Tool
          label="Table"
          pressed={active.table}
          disabled={disabled || active.table}
          onClick={() => chain().insertTable({ rows: 3, cols: 3, withHeaderRow: true }).run()}
        >
          ▦
        </Tool>
        <Tool label="Divider" disabled={disabled} onClick={() => chain().setHorizontalRule().run()}>
          ―
        </Tool>
        {onImage ? (
          <>
            <Tool label="Image" disabled={disabled} onClick={() => fileInput.current?.click()}>
              Img
            </Tool>
            <input
              ref={fileInput}
              type="file"
              accept="image/*"
              hidden
              aria-label="Image file"
              onChange={(event) => {
                const file = event.target.files?.[0];
                event.target.value = '';
                if (file) onImage(file);
              }}
            />
          </>
        ) : null}
      </div>
      {active.language !== null ? (
        <label className="editor-toolbar-group">
          Language
          <input
            type="text"
            size={10}
            value={active.language}
            disabled={disabled}
            onChange={(event) =>
              editor
                .chain()
                .updateAttributes('codeBlock', { language: event.target.value.trim() || null })
                .run()
            }
          />
        </label>
      ) : null}
      {active.table ? <TableTools editor={editor} disabled={disabled} /> : null}
    </div>
  );
}

/** Row and column commands while the cursor is in a table (no merged cells: Markdown has none). */
function TableTools({ editor, disabled }: { editor: Editor; disabled?: boolean }) {
  const chain = () => editor.chain().focus();
  return (
    <div className="editor-toolbar-group" role="group" aria-label="Table">
      <Tool label="Add row" disabled={disabled} onClick={() => chain().addRowAfter().run()}>
        +row
      </Tool>
      <Tool label="Delete row" disabled={disabled} onClick={() => chain().deleteRow().run()}>
        −row
      </Tool>
      <Tool label="Add column" disabled={disabled} onClick={() => chain().addColumnAfter().run()}>
        +col
      </Tool>
      <Tool label="Delete column" disabled={disabled} onClick={() => chain().deleteColumn().run()}>
        −col
      </Tool>
      <Tool label="Delete table" disabled={disabled} onClick={() => chain().deleteTable().run()}>
        ×table
      </Tool>
    </div>
  );
}
