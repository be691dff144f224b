import { markdown as markdownLanguage } from '@codemirror/lang-markdown';
import { EditorView } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import { useEffect, useRef } from 'react';

/**
 * The page's raw Markdown in CodeMirror 6. Uncontrolled once mounted: a new `value` from outside
 * replaces the text only when it differs from what the view already holds (so typing never
 * resets the cursor).
 */
export function SourceEditor({
  value,
  onChange,
  label = 'Markdown source',
}: {
  value: string;
  onChange: (markdown: string) => void;
  label?: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;

  // biome-ignore lint/correctness/useExhaustiveDependencies: the view is made once with the first value; later values are put into it by the effect below
  useEffect(() => {
    const created = new EditorView({
      doc: value,
      parent: host.current!,
      extensions: [
        basicSetup,
        markdownLanguage(),
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({ 'aria-label': label }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) changed.current(update.state.doc.toString());
        }),
      ],
    });
    view.current = created;
    return () => {
      created.destroy();
      view.current = null;
    };
    // The view is created once; `value` changes are applied below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [label]);

  useEffect(() => {
    const current = view.current;
    if (current && current.state.doc.toString() !== value) {
      current.dispatch({ changes: { from: 0, to: current.state.doc.length, insert: value } });
    }
  }, [value]);

  return <div ref={host} className="source-editor" />;
}
