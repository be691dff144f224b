import { type ReactNode, type RefObject, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { blocksOf, findBlock, type PageBlock, topElementAt } from './blocks';
import { type BlockSelection, CommentsPanel } from './CommentsPanel';
import './comments.css';

/** How long the page may change (typing in the editor) before its blocks are read again. */
const REREAD_MS = 300;

/** The page's blocks, read again when the page below `root` changes (throttled) or resizes. */
function usePageBlocks(root: RefObject<HTMLDivElement | null>, bodySelector: string) {
  const [blocks, setBlocks] = useState<PageBlock[]>([]);
  const [layout, setLayout] = useState(0);
  useEffect(() => {
    const element = root.current;
    if (!element) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = () => {
      timer = undefined;
      setBlocks(blocksOf(element.querySelector(bodySelector)));
      setLayout((n) => n + 1);
    };
    const later = () => {
      timer ??= setTimeout(read, REREAD_MS);
    };
    read();
    const mutations = new MutationObserver(later);
    mutations.observe(element, { childList: true, subtree: true, characterData: true });
    const sizes = new ResizeObserver(later);
    sizes.observe(element);
    return () => {
      clearTimeout(timer);
      mutations.disconnect();
      sizes.disconnect();
    };
  }, [root, bodySelector]);
  return { blocks, layout };
}

/**
 * A page (the rendered page, or the editor) with its comments beside it. Clicking in a block, or
 * putting the caret in it, picks it for a new comment; the picked block and the block of the thread
 * in focus are highlighted. `bodySelector` finds the element whose children are the page's blocks.
 */
export function CommentedPage({
  spaceId,
  changeRequest = null,
  pageId,
  bodySelector,
  children,
}: {
  spaceId: string;
  changeRequest?: { id: string; number: number } | null;
  pageId: string;
  bodySelector: string;
  children: ReactNode;
}) {
  const root = useRef<HTMLDivElement>(null);
  const { blocks, layout } = usePageBlocks(root, bodySelector);
  // The picked block by its element: its key (its text) changes as it is typed in.
  const [selected, setSelected] = useState<Element | null>(null);
  const [active, setActive] = useState<{ comment: string; node: string | null } | null>(null);

  const pick = useCallback(
    (node: Node | null) => {
      const top = topElementAt(root.current?.querySelector(bodySelector) ?? null, node);
      if (top) {
        setSelected(top);
        setActive(null);
      }
    },
    [bodySelector],
  );
  useEffect(() => {
    const onSelection = () => pick(document.getSelection()?.anchorNode ?? null);
    document.addEventListener('selectionchange', onSelection);
    return () => document.removeEventListener('selectionchange', onSelection);
  }, [pick]);

  const selectedBlock = blocks.find((b) => b.element === selected);
  const selection: BlockSelection = useMemo(
    () => ({
      blocks,
      selected: selectedBlock?.key ?? null,
      select: (key) => setSelected(blocks.find((b) => b.key === key)?.element ?? null),
      active: active?.comment ?? null,
      activate: (comment, node) => setActive(comment ? { comment, node } : null),
    }),
    [blocks, selectedBlock, active],
  );
  const highlighted = active?.node ? findBlock(blocks, active.node) : selectedBlock;
  return (
    <div className="commented-page">
      <div className="commented-content" ref={root} onClickCapture={(e) => pick(e.target as Node)}>
        {children}
        <Highlight root={root} block={highlighted} layout={layout} />
      </div>
      <CommentsPanel spaceId={spaceId} changeRequest={changeRequest} pageId={pageId} selection={selection} />
    </div>
  );
}

/** A mark over a block (beside the page's own markup, which the editor owns). */
function Highlight({ root, block, layout }: { root: RefObject<HTMLDivElement | null>; block?: PageBlock; layout: number }) {
  const [box, setBox] = useState<{ top: number; height: number } | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `layout` changes when the page moved under the mark: measure again.
  useLayoutEffect(() => {
    if (!block || !root.current || !block.element.isConnected) return setBox(null);
    const outer = root.current.getBoundingClientRect();
    const inner = block.element.getBoundingClientRect();
    setBox({ top: inner.top - outer.top, height: inner.height });
  }, [root, block, layout]);
  if (!box) return null;
  return <div className="block-highlight" aria-hidden="true" style={{ top: box.top - 4, height: box.height + 8 }} />;
}
