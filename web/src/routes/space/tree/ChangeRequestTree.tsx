import { useEffect, useMemo, useRef, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { graphql } from '../../../gql';
import type { ContentChangeInput } from '../../../gql/graphql';
import { errorMessage } from '../../../lib/client';
import { Loaded } from '../../../lib/ui';
import { editPath } from '../changes/EditButton';
import { buildTree, PageTree, type TreeEditing, type TreeNode } from '../PageTree';
import type { Placement } from './moves';
import { TreeActions } from './TreeActions';
import { DeleteDialog, MoveDialog } from './TreeDialogs';
import './tree.css';

const TreeQuery = graphql(`
  query ChangeRequestTree($spaceId: ID!, $changeRequest: String!) {
    space(id: $spaceId) {
      id
      permissions { edit }
      changeRequest(id: $changeRequest) {
        id
        number
        status
        content { id pageList { id parent path title type depth } }
      }
    }
  }
`);

const WriteTree = graphql(`
  mutation WriteChangeRequestTree($spaceId: ID!, $changeRequestId: String!, $changes: [ContentChangeInput!]!) {
    writeChangeRequestContent(spaceId: $spaceId, changeRequestId: $changeRequestId, input: { changes: $changes }) {
      revision
      changes { page object }
    }
  }
`);

/**
 * The sidebar's tree: main's pages, or inside a change request (its screen or its editor) the
 * change request's pages, whose structure can be changed there. Main is never written from the
 * app (as with Edit): structure changes go into the change request and reach main by its merge.
 */
export function SpacePageTree({
  spaceId,
  roots,
  currentPath,
  changeRequest,
}: {
  spaceId: string;
  roots: TreeNode[];
  currentPath: string | null;
  changeRequest?: string;
}) {
  if (!changeRequest) return <PageTree spaceId={spaceId} roots={roots} currentPath={currentPath} />;
  return <ChangeRequestTree key={changeRequest} spaceId={spaceId} number={changeRequest} currentPath={currentPath} main={roots} />;
}

function ChangeRequestTree({
  spaceId,
  number,
  currentPath,
  main,
}: {
  spaceId: string;
  number: string;
  currentPath: string | null;
  main: TreeNode[];
}) {
  const [{ data, error }, refetch] = useQuery({ query: TreeQuery, variables: { spaceId, changeRequest: number } });
  // Main read again (a merge, someone else's live edit): the change request may be merged now, read it again too.
  const seenMain = useRef(main);
  useEffect(() => {
    if (seenMain.current === main) return;
    seenMain.current = main;
    refetch({ requestPolicy: 'network-only' });
  }, [main, refetch]);
  const roots = useMemo(() => buildTree(data?.space.changeRequest.content.pageList ?? []), [data]);
  const cr = data?.space.changeRequest;
  const editable = !!data?.space.permissions.edit && (cr?.status === 'draft' || cr?.status === 'open');
  const editor = useTreeEditor({
    spaceId,
    changeRequestId: cr?.id ?? '',
    revision: cr?.content.id ?? '',
    roots,
    currentPath,
    reload: () => refetch({ requestPolicy: 'network-only' }),
  });
  const label = `Pages of change request #${number}`;
  return (
    <Loaded data={data} error={error}>
      {() => (
        <div className="cr-tree">
          <p className="muted">{label}</p>
          {editable && <TreeActions editor={editor} />}
          <PageTree
            spaceId={spaceId}
            roots={roots}
            currentPath={currentPath}
            label={label}
            pageHref={(page) => editPath(spaceId, number, page.path)}
            editing={editable ? editor.editing : undefined}
          />
          {editor.dialog?.kind === 'move' && (
            <MoveDialog
              roots={roots}
              node={editor.dialog.node}
              onMove={(p) => editor.move(editor.dialog!.node, p)}
              onClose={editor.closeDialog}
            />
          )}
          {editor.dialog?.kind === 'delete' && (
            <DeleteDialog node={editor.dialog.node} onDelete={() => editor.remove(editor.dialog!.node)} onClose={editor.closeDialog} />
          )}
        </div>
      )}
    </Loaded>
  );
}

export type TreeEditor = ReturnType<typeof useTreeEditor>;

/** Every page of the tree by id. */
function indexTree(roots: TreeNode[]): Map<string, TreeNode> {
  const all = new Map<string, TreeNode>();
  const walk = (nodes: TreeNode[]) => {
    for (const n of nodes) {
      all.set(n.page.id, n);
      walk(n.children);
    }
  };
  walk(roots);
  return all;
}

/** Writes one batch into the change request, then has the tree read again; keeps the outcome to show (busy, the error, what was done). */
function useTreeWrite(spaceId: string, changeRequestId: string, reload: () => void) {
  const [, write] = useMutation(WriteTree);
  const [outcome, setOutcome] = useState<{ error: string | null; done: string | null; busy: boolean }>({
    error: null,
    done: null,
    busy: false,
  });
  /** Resolves to the error (or null), the revision written and the pages the batch touched. */
  const run = async (changes: ContentChangeInput[], done: string) => {
    setOutcome({ error: null, done: null, busy: true });
    const result = await write({ spaceId, changeRequestId, changes });
    const error = result.error || !result.data ? (errorMessage(result.error) ?? 'The change could not be saved') : null;
    setOutcome({ error, done: error ? null : done, busy: false });
    if (!error) reload();
    const written = result.data?.writeChangeRequestContent;
    return { error, revision: written?.revision, pages: written?.changes.map((c) => c.page) ?? [] };
  };
  return { outcome, run };
}

/**
 * The tree's edits, each one batch written into the change request: create, rename, move, delete.
 * After each the tree is read again and the page concerned (or, after a delete, its neighbour)
 * takes the focus; what went wrong is kept to be shown.
 */
function useTreeEditor({
  spaceId,
  changeRequestId,
  revision,
  roots,
  currentPath,
  reload,
}: {
  spaceId: string;
  changeRequestId: string;
  /** The revision the tree shows. */
  revision: string;
  roots: TreeNode[];
  currentPath: string | null;
  reload: () => void;
}) {
  const { outcome, run } = useTreeWrite(spaceId, changeRequestId, reload);
  const all = useMemo(() => indexTree(roots), [roots]);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [renamingId, setRenamingId] = useState<string | null>(null);
  // A page to focus, once the tree shows the revision a write made (where a moved page now is).
  const [focusRequest, setFocusRequest] = useState<{ id: string; revision?: string } | null>(null);
  const [dialog, setDialog] = useState<{ kind: 'move' | 'delete'; node: TreeNode } | null>(null);
  const selected = (selectedId ? all.get(selectedId) : undefined) ?? [...all.values()].find((n) => n.page.path === currentPath) ?? null;
  const focus = (id: string | undefined, after?: string) => id && setFocusRequest({ id, revision: after });
  // A dialog whose action went through has already said where the focus goes; a cancelled one gives it back to its page.
  const acted = useRef(false);

  const create = async (title: string, parent: TreeNode | null) => {
    const {
      error,
      pages,
      revision: after,
    } = await run([{ operation: 'insert_page', title, into: parent?.page.id ?? null }], `Created “${title}”`);
    if (!error) focus(pages[0], after);
    return error;
  };
  const move = async (node: TreeNode, { into, at }: Placement) => {
    const { error, revision: after } = await run(
      [{ operation: 'update_page', page: node.page.id, into, at }],
      `Moved “${node.page.title}”`,
    );
    if (!error) {
      acted.current = true;
      focus(node.page.id, after);
    }
    return error;
  };
  const remove = async (node: TreeNode) => {
    const siblings = node.parent ? node.parent.children : roots;
    const i = siblings.indexOf(node);
    const { error, revision: after } = await run([{ operation: 'delete_page', page: node.page.id }], `Deleted “${node.page.title}”`);
    if (!error) {
      acted.current = true;
      focus((siblings[i + 1] ?? siblings[i - 1] ?? node.parent)?.page.id, after);
    }
    return error;
  };

  const editing: TreeEditing = {
    selectedId: selected?.page.id ?? null,
    onSelect: (node) => setSelectedId(node.page.id),
    renamingId,
    onRename: (node, title) => {
      setRenamingId(null);
      focus(node.page.id);
      void run([{ operation: 'update_page', page: node.page.id, title }], `Renamed “${node.page.title}” to “${title}”`);
    },
    onCancelRename: (how) => {
      setRenamingId(null);
      if (how === 'escape' && renamingId) focus(renamingId);
    },
    onCommand: (command, node) => {
      if (command === 'rename') return setRenamingId(node.page.id);
      acted.current = false;
      setDialog({ kind: 'delete', node });
    },
    onMove: (node, placement) => void move(node, placement),
    focusRequest: focusRequest && (!focusRequest.revision || focusRequest.revision === revision) ? focusRequest : null,
  };
  return {
    editing,
    selected,
    outcome,
    dialog,
    create,
    move,
    remove,
    rename: (node: TreeNode) => setRenamingId(node.page.id),
    openDialog: (kind: 'move' | 'delete', node: TreeNode) => {
      acted.current = false;
      setDialog({ kind, node });
    },
    closeDialog: () => {
      const node = dialog?.node;
      setDialog(null);
      if (node && !acted.current) focus(node.page.id);
      acted.current = false;
    },
  };
}
