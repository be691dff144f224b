import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useNavigate } from 'react-router';
import type { Placement } from './tree/moves';
import { RenameInput } from './tree/RenameInput';
import { useFocusRequest } from './tree/useFocusRequest';
import { useTreeDrag } from './tree/useTreeDrag';

export interface TreePage {
  id: string;
  parent?: string | null;
  path: string;
  title: string;
  type: string;
  depth: number;
}

export interface TreeNode {
  page: TreePage;
  children: TreeNode[];
  parent: TreeNode | null;
}

/** The flat page list (pageList: tree order, each with its parent) as a tree. */
export function buildTree(pages: readonly TreePage[]): TreeNode[] {
  const byId = new Map<string, TreeNode>();
  const roots: TreeNode[] = [];
  for (const page of pages) byId.set(page.id, { page, children: [], parent: null });
  for (const page of pages) {
    const node = byId.get(page.id)!;
    const parent = page.parent ? byId.get(page.parent) : undefined;
    if (parent) {
      node.parent = parent;
      parent.children.push(node);
    } else roots.push(node);
  }
  return roots;
}

/** What a tree whose structure may be changed (in a change request) adds to reading it. */
export interface TreeEditing {
  /** The page the actions apply to: the one last focused (aria-selected). */
  selectedId: string | null;
  onSelect: (node: TreeNode) => void;
  /** The page whose title is being edited in place, if any. */
  renamingId: string | null;
  onRename: (node: TreeNode, title: string) => void;
  /** Escape gives the focus back to the row; leaving the field leaves it where it went. */
  onCancelRename: (how: 'escape' | 'blur') => void;
  /** F2 renames, Delete deletes (after a confirmation). */
  onCommand: (command: 'rename' | 'delete', node: TreeNode) => void;
  onMove: (moved: TreeNode, placement: Placement) => void;
  /** A page to focus once the tree holds it (one just created, renamed or moved). */
  focusRequest: { id: string } | null;
}

function visibleNodes(roots: TreeNode[], expanded: Set<string>): TreeNode[] {
  const out: TreeNode[] = [];
  const walk = (nodes: TreeNode[]) => {
    for (const n of nodes) {
      out.push(n);
      if (n.children.length && expanded.has(n.page.id)) walk(n.children);
    }
  };
  walk(roots);
  return out;
}

/**
 * The space's pages as an ARIA tree (the WAI-ARIA tree pattern): one tab stop (roving tabindex);
 * ↑/↓ move, → expands or goes to the first child, ← collapses or goes to the parent, Home/End,
 * Enter (or a click) opens the page; the open page is marked aria-current and its ancestors start
 * expanded. A group page (a heading without a body) opens and closes instead. With `editing`, the
 * focused page is the selected one (the actions' target), F2 and Delete act on it, and rows can be
 * dragged to another place.
 */
export function PageTree({
  spaceId,
  roots,
  currentPath,
  label = 'Pages',
  pageHref = (page) => `/s/${spaceId}/${page.path}`,
  editing,
}: {
  spaceId: string;
  roots: TreeNode[];
  currentPath: string | null;
  label?: string;
  pageHref?: (page: TreePage) => string;
  editing?: TreeEditing;
}) {
  const navigate = useNavigate();
  const all = useMemo(() => {
    const m = new Map<string, TreeNode>();
    const walk = (nodes: TreeNode[]) => nodes.forEach((n) => (m.set(n.page.id, n), walk(n.children)));
    walk(roots);
    return m;
  }, [roots]);
  const current = useMemo(() => [...all.values()].find((n) => n.page.path === currentPath) ?? null, [all, currentPath]);
  const [expanded, setExpanded] = useState<Set<string>>(() => new Set());
  const [focusedId, setFocusedId] = useState<string | null>(null);
  const refs = useRef(new Map<string, HTMLDivElement>());
  const drag = useTreeDrag(roots, editing?.onMove);

  // The open page's ancestors are expanded (kept as the person navigates elsewhere).
  useEffect(() => {
    if (!current) return;
    setExpanded((prev) => {
      const next = new Set(prev);
      for (let p = current.parent; p; p = p.parent) next.add(p.page.id);
      return next;
    });
  }, [current]);

  useFocusRequest(editing?.focusRequest ?? null, all, refs.current, setExpanded);

  const visible = visibleNodes(roots, expanded);
  const tabStop = (focusedId && visible.some((n) => n.page.id === focusedId) ? focusedId : null) ?? current?.page.id ?? visible[0]?.page.id;

  const focus = (node: TreeNode | undefined) => {
    if (!node) return;
    setFocusedId(node.page.id);
    refs.current.get(node.page.id)?.focus();
  };
  const toggle = (node: TreeNode, open: boolean) =>
    setExpanded((prev) => {
      const next = new Set(prev);
      if (open) next.add(node.page.id);
      else next.delete(node.page.id);
      return next;
    });
  const open = (node: TreeNode) => {
    if (node.page.type === 'group' && node.children.length) toggle(node, !expanded.has(node.page.id));
    else if (node.page.type !== 'link') navigate(pageHref(node.page));
  };

  function onKeyDown(event: KeyboardEvent, node: TreeNode) {
    if (event.target !== event.currentTarget) return; // keys typed in a title being edited
    const index = visible.indexOf(node);
    const isOpen = expanded.has(node.page.id);
    const handled: Record<string, () => void> = {
      ArrowDown: () => focus(visible[index + 1]),
      ArrowUp: () => focus(visible[index - 1]),
      Home: () => focus(visible[0]),
      End: () => focus(visible[visible.length - 1]),
      ArrowRight: () => (node.children.length ? (isOpen ? focus(node.children[0]) : toggle(node, true)) : undefined),
      ArrowLeft: () => (node.children.length && isOpen ? toggle(node, false) : focus(node.parent ?? undefined)),
      Enter: () => open(node),
      ' ': () => open(node),
      ...(editing && { F2: () => editing.onCommand('rename', node), Delete: () => editing.onCommand('delete', node) }),
    };
    const action = handled[event.key];
    if (!action) return;
    event.preventDefault();
    event.stopPropagation();
    action();
  }

  if (!roots.length) return <p className="muted">No pages.</p>;
  return (
    <ul role="tree" aria-label={label} className={drag.dragging ? 'page-tree dragging' : 'page-tree'}>
      <TreeItems
        nodes={roots}
        level={1}
        tree={{ expanded, current, tabStop, refs: refs.current, onKeyDown, open, toggle, setFocusedId, editing, drag }}
      />
    </ul>
  );
}

/** What each row of the tree needs of the tree's state. */
interface TreeState {
  expanded: Set<string>;
  current: TreeNode | null;
  tabStop: string | undefined;
  refs: Map<string, HTMLDivElement>;
  onKeyDown: (event: KeyboardEvent, node: TreeNode) => void;
  open: (node: TreeNode) => void;
  toggle: (node: TreeNode, open: boolean) => void;
  setFocusedId: (id: string) => void;
  editing: TreeEditing | undefined;
  drag: ReturnType<typeof useTreeDrag>;
}

/**
 * One level of the tree, in the APG's navigation-tree shape: each treeitem is its own row, named
 * by its title alone; its children's group is a sibling it owns (aria-owns), so their titles are
 * not part of its name.
 */
function TreeItems({ nodes, level, tree }: { nodes: TreeNode[]; level: number; tree: TreeState }) {
  return nodes.map((node, i) => {
    const hasChildren = node.children.length > 0;
    const isOpen = tree.expanded.has(node.page.id);
    const isCurrent = node === tree.current;
    const editing = tree.editing;
    const renaming = editing?.renamingId === node.page.id;
    const groupId = `tree-group-${node.page.id}`;
    return (
      <li key={node.page.id} role="none">
        <div
          role="treeitem"
          aria-level={level}
          aria-setsize={nodes.length}
          aria-posinset={i + 1}
          aria-expanded={hasChildren ? isOpen : undefined}
          aria-owns={hasChildren && isOpen ? groupId : undefined}
          aria-current={isCurrent ? 'page' : undefined}
          aria-selected={editing ? editing.selectedId === node.page.id : isCurrent}
          aria-keyshortcuts={editing ? 'F2 Delete' : undefined}
          tabIndex={node.page.id === tree.tabStop ? 0 : -1}
          ref={(el) => {
            if (el) tree.refs.set(node.page.id, el);
            else tree.refs.delete(node.page.id);
          }}
          onKeyDown={(e) => tree.onKeyDown(e, node)}
          onFocus={(e) => {
            if (e.target !== e.currentTarget) return;
            tree.setFocusedId(node.page.id);
            editing?.onSelect(node);
          }}
          onClick={() => {
            tree.setFocusedId(node.page.id);
            tree.open(node);
          }}
          className={(isCurrent ? 'tree-row current' : 'tree-row') + tree.drag.dropClass(node)}
          {...(renaming ? {} : tree.drag.rowProps(node))}
        >
          <span
            className="tree-twisty"
            aria-hidden="true"
            onClick={(e) => {
              if (!hasChildren) return;
              e.stopPropagation();
              tree.toggle(node, !isOpen);
            }}
          >
            {hasChildren ? (isOpen ? '▾' : '▸') : ''}
          </span>
          {renaming && editing ? (
            <RenameInput title={node.page.title} onSave={(title) => editing.onRename(node, title)} onCancel={editing.onCancelRename} />
          ) : (
            <span className={node.page.type === 'group' ? 'tree-label group' : 'tree-label'}>{node.page.title || 'Untitled'}</span>
          )}
        </div>
        {hasChildren && isOpen && (
          <ul role="group" id={groupId}>
            <TreeItems nodes={node.children} level={level + 1} tree={tree} />
          </ul>
        )}
      </li>
    );
  });
}
