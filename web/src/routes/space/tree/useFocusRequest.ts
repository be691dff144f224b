import { type Dispatch, type SetStateAction, useEffect, useLayoutEffect, useRef } from 'react';
import type { TreeNode } from '../PageTree';

/**
 * A page the tree is asked to focus (one created, renamed or moved): once the tree holds it, its
 * ancestors open and it takes the focus as soon as its row is rendered. Each request is acted on
 * once, so a later reading of the tree does not take the focus back.
 */
export function useFocusRequest(
  request: { id: string } | null,
  all: Map<string, TreeNode>,
  rows: Map<string, HTMLElement>,
  setExpanded: Dispatch<SetStateAction<Set<string>>>,
) {
  const handled = useRef<object | null>(null);
  const pending = useRef<string | null>(null);
  useEffect(() => {
    const node = request && handled.current !== request && all.get(request.id);
    if (!node) return;
    handled.current = request;
    pending.current = node.page.id;
    setExpanded((prev) => {
      const next = new Set(prev);
      for (let p = node.parent; p; p = p.parent) next.add(p.page.id);
      return next;
    });
  }, [request, all, setExpanded]);
  useLayoutEffect(() => {
    const row = pending.current && rows.get(pending.current);
    if (!row) return;
    pending.current = null;
    row.focus();
  });
}
