import { type FormEvent, useId, useState } from 'react';
import type { TreeNode } from '../PageTree';
import type { TreeEditor } from './ChangeRequestTree';
import { canHaveChildren } from './moves';

/**
 * The buttons above a change request's tree. "New page" adds one at the top level; the others act
 * on the selected page (the one last focused in the tree, named below the buttons): a page inside
 * it, rename in place, "Move to…", delete. Each outcome is announced; an error is shown as an alert.
 */
export function TreeActions({ editor }: { editor: TreeEditor }) {
  const [creating, setCreating] = useState<{ parent: TreeNode | null } | null>(null);
  const selectedId = useId();
  const { selected, outcome } = editor;
  const title = selected ? selected.page.title || 'Untitled' : null;
  const onSelected = { disabled: !selected || outcome.busy, 'aria-describedby': selected ? selectedId : undefined };
  return (
    <div className="tree-actions">
      <div role="group" aria-label="Page actions" className="tree-buttons">
        <button type="button" disabled={outcome.busy} onClick={() => setCreating({ parent: null })}>
          New page
        </button>
        <button
          type="button"
          {...onSelected}
          disabled={onSelected.disabled || !canHaveChildren(selected!)}
          onClick={() => setCreating({ parent: selected })}
        >
          New subpage
        </button>
        <button type="button" {...onSelected} onClick={() => editor.rename(selected!)}>
          Rename
        </button>
        <button type="button" {...onSelected} onClick={() => editor.openDialog('move', selected!)}>
          Move to…
        </button>
        <button type="button" className="danger" {...onSelected} onClick={() => editor.openDialog('delete', selected!)}>
          Delete
        </button>
      </div>
      {title && (
        <p id={selectedId} className="muted tree-selected">
          Selected: {title}
        </p>
      )}
      {creating && (
        <NewPageForm
          parent={creating.parent}
          onCreate={(newTitle) => editor.create(newTitle, creating.parent)}
          onDone={() => setCreating(null)}
        />
      )}
      {outcome.error && (
        <p role="alert" className="error">
          Not saved: {outcome.error}
        </p>
      )}
      <p role="status" className="muted">
        {outcome.done}
      </p>
    </div>
  );
}

/** The title of a new page: Enter (or Create) creates it, Escape (or Cancel) gives up. */
function NewPageForm({
  parent,
  onCreate,
  onDone,
}: {
  parent: TreeNode | null;
  onCreate: (title: string) => Promise<string | null>;
  onDone: () => void;
}) {
  const [title, setTitle] = useState('');
  const [busy, setBusy] = useState(false);
  const id = useId();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!title.trim()) return;
    setBusy(true);
    const error = await onCreate(title.trim());
    setBusy(false);
    if (!error) onDone();
  };
  return (
    <form className="tree-new" onSubmit={submit} onKeyDown={(e) => e.key === 'Escape' && onDone()}>
      <label htmlFor={id}>{parent ? `Title of the new page in “${parent.page.title || 'Untitled'}”` : 'Title of the new page'}</label>
      {/* biome-ignore lint/a11y/noAutofocus: the field appears because the person asked for a new page */}
      <input id={id} value={title} autoFocus required onChange={(e) => setTitle(e.target.value)} />
      <div className="dialog-buttons">
        <button type="submit" className="primary" disabled={busy} aria-busy={busy}>
          Create
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
