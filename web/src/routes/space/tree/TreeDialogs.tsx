import { type FormEvent, type ReactNode, useEffect, useId, useMemo, useRef, useState } from 'react';
import type { TreeNode } from '../PageTree';
import { canMoveInto, descendants, isSamePlace, type Placement, siblingsAt } from './moves';

/** An action of a dialog: resolves to the error to show, or null when it went through (the dialog then closes). */
type Action = () => Promise<string | null>;

/** A modal dialog (the platform's: focus kept inside, Escape closes) with a title, a form and its outcome. */
function TreeDialog({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const el = dialog.current;
    if (el && !el.open) el.showModal();
    return () => el?.close();
  }, []);
  return (
    <dialog ref={dialog} className="tree-dialog" aria-labelledby={titleId} onClose={onClose} onCancel={onClose}>
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  );
}

/** Runs a dialog's action once at a time, keeping its error. */
function useAction(onClose: () => void) {
  const [state, setState] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });
  const run = async (action: Action) => {
    setState({ busy: true, error: null });
    const error = await action();
    if (error) setState({ busy: false, error });
    else onClose();
  };
  return { ...state, run };
}

function Outcome({ error }: { error: string | null }) {
  return error ? (
    <p role="alert" className="error">
      {error}
    </p>
  ) : null;
}

/** The confirmation of a delete, naming the page and the pages below it, which the server deletes with it. */
export function DeleteDialog({ node, onDelete, onClose }: { node: TreeNode; onDelete: Action; onClose: () => void }) {
  const { busy, error, run } = useAction(onClose);
  const below = descendants(node);
  const title = node.page.title || 'Untitled';
  return (
    <TreeDialog title={`Delete “${title}”?`} onClose={onClose}>
      <p>
        “{title}” is deleted from this change request
        {below.length > 0 && (
          <>
            , with {below.length === 1 ? 'the page below it' : `the ${below.length} pages below it`}:{' '}
            {below.map((n) => `“${n.page.title || 'Untitled'}”`).join(', ')}
          </>
        )}
        . Main changes only when the change request is merged.
      </p>
      <Outcome error={error} />
      <div className="dialog-buttons">
        <button type="button" className="danger" disabled={busy} aria-busy={busy} onClick={() => run(onDelete)}>
          Delete
        </button>
        {/* biome-ignore lint/a11y/noAutofocus: a destructive dialog starts on its harmless choice */}
        <button type="button" autoFocus onClick={onClose}>
          Cancel
        </button>
      </div>
    </TreeDialog>
  );
}

/** Every page in tree order, with its depth (0: the top level). */
function flatten(nodes: TreeNode[], depth = 0): { node: TreeNode; depth: number }[] {
  return nodes.flatMap((node) => [{ node, depth }, ...flatten(node.children, depth + 1)]);
}

/**
 * "Move to…": the keyboard's way to what dragging does. A new parent (the top level or any page
 * that may hold this one) and a position among that parent's pages, both native selects.
 */
export function MoveDialog({
  roots,
  node,
  onMove,
  onClose,
}: {
  roots: TreeNode[];
  node: TreeNode;
  onMove: (placement: Placement) => Promise<string | null>;
  onClose: () => void;
}) {
  const { busy, error, run } = useAction(onClose);
  const parents = useMemo(() => flatten(roots).filter(({ node: n }) => canMoveInto(node, n)), [roots, node]);
  const [parentId, setParentId] = useState(node.parent?.page.id ?? '');
  const parent = parents.find(({ node: n }) => n.page.id === parentId)?.node ?? null;
  const siblings = siblingsAt(roots, parent, node);
  const [at, setAt] = useState(() => (node.parent ? node.parent.children : roots).indexOf(node));
  const ids = useId();
  const title = node.page.title || 'Untitled';

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const placement = { into: parent?.page.id ?? null, at: Math.min(at, siblings.length) };
    if (isSamePlace(roots, node, placement)) return onClose();
    void run(() => onMove(placement));
  };
  return (
    <TreeDialog title={`Move “${title}”`} onClose={onClose}>
      <form className="stack" onSubmit={submit}>
        <div className="field">
          <label htmlFor={`${ids}-parent`}>New parent</label>
          <select
            id={`${ids}-parent`}
            value={parentId}
            onChange={(e) => {
              const next = parents.find(({ node: n }) => n.page.id === e.target.value)?.node ?? null;
              setParentId(e.target.value);
              setAt(siblingsAt(roots, next, node).length);
            }}
          >
            <option value="">Top level</option>
            {parents.map(({ node: n, depth }) => (
              <option key={n.page.id} value={n.page.id}>
                {'\u2003'.repeat(depth)}
                {n.page.title || 'Untitled'}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${ids}-position`}>Position</label>
          <select id={`${ids}-position`} value={Math.min(at, siblings.length)} onChange={(e) => setAt(Number(e.target.value))}>
            {[...siblings, null].map((sibling, i) => (
              <option key={sibling?.page.id ?? 'end'} value={i}>
                {positionLabel(siblings, i)}
              </option>
            ))}
          </select>
        </div>
        <Outcome error={error} />
        <div className="dialog-buttons">
          <button type="submit" className="primary" disabled={busy} aria-busy={busy}>
            Move
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </TreeDialog>
  );
}

/** Index `i` among `siblings` in words: before the first, else after the one before it. */
function positionLabel(siblings: TreeNode[], i: number): string {
  if (!siblings.length) return 'Only page there';
  if (i === 0) return `First, before “${siblings[0]!.page.title || 'Untitled'}”`;
  return `After “${siblings[i - 1]!.page.title || 'Untitled'}”`;
}
