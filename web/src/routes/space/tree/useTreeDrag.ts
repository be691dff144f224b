import { type DragEvent, useState } from 'react';
import type { TreeNode } from '../PageTree';
import { canHaveChildren, canMoveInto, type DropZone, dropPlacement, isSamePlace, type Placement, zoneAt } from './moves';

/**
 * HTML5 drag and drop on the tree's rows: a row dragged over another shows where it would land
 * (a line before or after it, or an outline when it would go inside), and a drop hands the new
 * place to `onMove`. Places the server would refuse (below itself, a group below a page, inside a
 * link) take no drop. The keyboard's way to the same moves is the "Move to…" dialog.
 */
export function useTreeDrag(roots: TreeNode[], onMove: ((moved: TreeNode, placement: Placement) => void) | undefined) {
  const [dragged, setDragged] = useState<TreeNode | null>(null);
  const [target, setTarget] = useState<{ id: string; zone: DropZone } | null>(null);

  const placementAt = (event: DragEvent<HTMLElement>, node: TreeNode) => {
    if (!dragged) return null;
    const nestable = canHaveChildren(node) && canMoveInto(dragged, node);
    const zone = zoneAt(event.currentTarget.getBoundingClientRect(), event.clientY, nestable);
    const placement = dropPlacement(roots, dragged, node, zone);
    return placement && { zone, placement };
  };
  const end = () => {
    setDragged(null);
    setTarget(null);
  };

  const rowProps = (node: TreeNode) => {
    if (!onMove) return {};
    return {
      draggable: true,
      onDragStart: (event: DragEvent<HTMLElement>) => {
        event.stopPropagation();
        event.dataTransfer.effectAllowed = 'move';
        event.dataTransfer.setData('text/plain', node.page.title);
        setDragged(node);
      },
      onDragOver: (event: DragEvent<HTMLElement>) => {
        const found = placementAt(event, node);
        if (!found) return setTarget(null);
        event.preventDefault();
        event.dataTransfer.dropEffect = 'move';
        if (target?.id !== node.page.id || target.zone !== found.zone) setTarget({ id: node.page.id, zone: found.zone });
      },
      onDragLeave: (event: DragEvent<HTMLElement>) => {
        if (event.currentTarget.contains(event.relatedTarget as Node | null)) return;
        setTarget((t) => (t?.id === node.page.id ? null : t));
      },
      onDrop: (event: DragEvent<HTMLElement>) => {
        event.preventDefault();
        const found = placementAt(event, node);
        const moved = dragged;
        end();
        if (moved && found && !isSamePlace(roots, moved, found.placement)) onMove(moved, found.placement);
      },
      onDragEnd: end,
    };
  };
  const dropClass = (node: TreeNode) => (target?.id === node.page.id ? ` drop-${target.zone}` : '');
  return { rowProps, dropClass, dragging: dragged !== null };
}
