import { Extension } from '@tiptap/core';
import { EditorContent, useEditor, type Editor } from '@tiptap/react';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { type EditorNode, type EditorPage, type PageFields, editorToMarkdown, markdownToEditor } from '../../../src/document/editor-model';
import { editorExtensions } from './extensions';
import { LinkDialog, type LinkablePage, pageHref } from './LinkDialog';
import { SourceEditor } from './SourceEditor';
import { Toolbar } from './Toolbar';
import './editor.css';

export interface MarkdownEditorProps {
  /** The page's Markdown (front matter included or not: it is kept as it is). */
  markdown: string;
  /** Called with the page's Markdown after each change (shortly after typing pauses, and before the editor goes away). */
  onChange: (markdown: string) => void;
  /** Pages of the space, for links picked by title. */
  pages?: LinkablePage[];
  /** Uploads an image file and answers the URL to show it at. */
  onUploadImage?: (file: File) => Promise<string>;
  readOnly?: boolean;
  /** Shows the page's front-matter fields (description, hidden) in a side panel beside the text. */
  showFields?: boolean;
}

/**
 * What the editor keeps beside its document: the front matter (its fields included) and where the
 * blocks were in the text read, so unchanged blocks are written back exactly as they were.
 */
const outsideOf = ({ fields, frontMatter, origin }: EditorPage): Omit<EditorPage, 'doc'> => ({ fields, frontMatter, origin });

/** How long typing may pause before the Markdown is written out (converting a page on every keystroke is wasted work). */
const WRITE_DELAY_MS = 150;

/**
 * The WYSIWYG editor over Lectern's Markdown: Tiptap with exactly the blocks the Markdown stores,
 * converted both ways by the one converter (src/document/editor-model.ts), and a "Source" mode
 * showing the same Markdown in CodeMirror. The editable area is a textbox named "Page content".
 */
export function MarkdownEditor({
  markdown,
  onChange,
  pages = [],
  onUploadImage,
  readOnly = false,
  showFields = false,
}: MarkdownEditorProps) {
  // biome-ignore lint/correctness/useExhaustiveDependencies: the first text only; later texts arrive through the effect below
  const initial = useMemo(() => markdownToEditor(markdown), []);
  const outside = useRef(outsideOf(initial));
  const written = useRef(markdown);
  const changed = useRef(onChange);
  changed.current = onChange;
  const [mode, setMode] = useState<'rich' | 'source'>('rich');
  const [fields, setFields] = useState(initial.fields);
  const [link, setLink] = useState<{ href: string } | null>(null);
  const [upload, setUpload] = useState<{ busy: boolean; error?: string }>({ busy: false });
  const openLink = useRef<() => void>(() => {});
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const editorRef = useRef<Editor | null>(null);

  const flush = useCallback(() => {
    clearTimeout(timer.current);
    timer.current = undefined;
    const current = editorRef.current;
    if (!current || current.isDestroyed) return;
    const next = editorToMarkdown({ doc: current.getJSON() as EditorNode, ...outside.current });
    if (next !== written.current) {
      written.current = next;
      changed.current(next);
    }
  }, []);

  const uploadImages = useRef<(files: File[]) => boolean>(() => false);
  const shortcuts = useMemo(
    () =>
      Extension.create({
        name: 'lecternShortcuts',
        addKeyboardShortcuts: () => ({
          'Mod-k': () => {
            openLink.current();
            return true;
          },
        }),
      }),
    [],
  );

  const editor = useEditor({
    extensions: [...editorExtensions(), shortcuts],
    // The app's CSP (style-src 'self') refuses Tiptap's injected <style>; editor.css carries those rules.
    injectCSS: false,
    content: initial.doc,
    editable: !readOnly,
    editorProps: {
      attributes: { role: 'textbox', 'aria-multiline': 'true', 'aria-label': 'Page content', class: 'editor-content' },
      handlePaste: (_view, event) => uploadImages.current(Array.from(event.clipboardData?.files ?? [])),
      handleDrop: (_view, event) => uploadImages.current(Array.from((event as DragEvent).dataTransfer?.files ?? [])),
    },
    onUpdate: () => {
      clearTimeout(timer.current);
      timer.current = setTimeout(flush, WRITE_DELAY_MS);
    },
    onBlur: () => flush(),
  });
  editorRef.current = editor;

  // Written before the editor goes away: no keystroke is lost to a pending timer.
  useEffect(() => () => flush(), [flush]);

  useEffect(() => {
    editor.setEditable(!readOnly);
  }, [editor, readOnly]);

  // A new text from outside (a reload, another person's save taken in) replaces the document;
  // the text this editor wrote itself is already there.
  useEffect(() => {
    if (markdown === written.current) return;
    const page = markdownToEditor(markdown);
    outside.current = outsideOf(page);
    setFields(page.fields);
    written.current = markdown;
    editor.commands.setContent(page.doc, { emitUpdate: false });
  }, [editor, markdown]);

  openLink.current = () => {
    if (!readOnly) setLink({ href: String(editor.getAttributes('link').href ?? '') });
  };

  uploadImages.current = (files) => {
    const images = files.filter((file) => file.type.startsWith('image/'));
    if (!onUploadImage || images.length === 0 || readOnly) return false;
    setUpload({ busy: true });
    (async () => {
      for (const file of images) {
        const src = await onUploadImage(file);
        editor
          .chain()
          .focus()
          .setImage({ src, alt: file.name.replace(/\.[^.]+$/, '') })
          .run();
      }
      setUpload({ busy: false });
    })().catch((error: unknown) =>
      setUpload({ busy: false, error: `The image could not be uploaded: ${error instanceof Error ? error.message : String(error)}` }),
    );
    return true;
  };

  const applyLink = (href: string) => {
    setLink(null);
    const chain = editor.chain().focus().extendMarkRange('link');
    if (!href) return void chain.unsetLink().run();
    if (editor.state.selection.empty && !editor.isActive('link')) {
      // Nothing selected: the link's text is the page's title (or the URL).
      const text = pages.find((page) => pageHref(page) === href)?.title ?? href;
      return void chain.insertContent({ type: 'text', text, marks: [{ type: 'link', attrs: { href } }] }).run();
    }
    chain.setLink({ href }).run();
  };

  const changeFields = (next: PageFields) => {
    outside.current = { ...outside.current, fields: next };
    setFields(next);
    if (mode === 'source') {
      // The source holds the front matter too: write the fields into it.
      sourceChanged(editorToMarkdown({ ...markdownToEditor(written.current), fields: next }));
    } else flush();
  };

  const showSource = () => {
    flush();
    setMode('source');
  };
  const showRich = () => {
    const page = markdownToEditor(written.current);
    outside.current = outsideOf(page);
    setFields(page.fields);
    editor.commands.setContent(page.doc, { emitUpdate: false });
    setMode('rich');
  };
  const sourceChanged = (text: string) => {
    written.current = text;
    changed.current(text);
  };

  return (
    <div className={showFields ? 'markdown-editor with-fields' : 'markdown-editor'}>
      {showFields ? <FieldsPanel fields={fields} onChange={changeFields} disabled={readOnly} /> : null}
      <div className="editor-bar">
        {mode === 'rich' ? (
          <Toolbar
            editor={editor}
            disabled={readOnly}
            onLink={() => openLink.current()}
            onImage={onUploadImage ? (file) => uploadImages.current([file]) : undefined}
          />
        ) : (
          <span />
        )}
        <button type="button" aria-pressed={mode === 'source'} onClick={mode === 'rich' ? showSource : showRich}>
          Source
        </button>
      </div>
      {upload.busy ? (
        <p role="status" className="muted">
          Uploading image…
        </p>
      ) : null}
      {upload.error ? (
        <p role="alert" className="error">
          {upload.error}
        </p>
      ) : null}
      <div hidden={mode !== 'rich'}>
        <EditorContent editor={editor} />
      </div>
      {mode === 'source' ? <SourceEditor value={written.current} onChange={sourceChanged} /> : null}
      {link ? (
        <LinkDialog
          href={link.href}
          pages={pages}
          onSubmit={applyLink}
          onClose={() => {
            setLink(null);
            editor.commands.focus();
          }}
        />
      ) : null}
    </div>
  );
}

/** The page's front-matter fields, edited beside the text (they are not part of the document). */
function FieldsPanel({ fields, onChange, disabled }: { fields: PageFields; onChange: (fields: PageFields) => void; disabled?: boolean }) {
  return (
    <aside className="editor-fields" aria-label="Page settings">
      <label>
        Description
        <textarea
          rows={3}
          value={fields.description ?? ''}
          disabled={disabled}
          onChange={(event) => onChange({ ...fields, description: event.target.value || undefined })}
        />
      </label>
      <label className="editor-fields-check">
        <input
          type="checkbox"
          checked={fields.hidden === true}
          disabled={disabled}
          onChange={(event) => onChange({ ...fields, hidden: event.target.checked || undefined })}
        />
        Hidden from the table of contents
      </label>
    </aside>
  );
}
