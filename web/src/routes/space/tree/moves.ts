import type { TreeNode } from '../PageTree';

/** Where a dragged page lands relative to the row it is dropped on. */
export type DropZone = 'before' | 'after' | 'inside';

/** A page's new place as the content API takes it: its parent (null: the top level) and its index among the other siblings. */
export interface Placement {
  into: string | null;
  at: number;
}

/** Whether `node` is `ancestor` or below it. */
export function isWithin(node: TreeNode | null, ancestor: TreeNode): boolean {
  for (let n = node; n; n = n.parent) if (n === ancestor) return true;
  return false;
}

/** The server's rules: link and computed pages have no children; group pages stay at the top level. */
export const canHaveChildren = (node: TreeNode) => node.page.type !== 'link' && node.page.type !== 'computed';

/** Whether `moved` may go below `parent` (null: the top level). */
export function canMoveInto(moved: TreeNode, parent: TreeNode | null): boolean {
  if (!parent) return true;
  return canHaveChildren(parent) && moved.page.type !== 'group' && !isWithin(parent, moved);
}

/** The pages beside which a page placed below `parent` would sit (itself left out). */
export function siblingsAt(roots: TreeNode[], parent: TreeNode | null, moved: TreeNode): TreeNode[] {
  return (parent ? parent.children : roots).filter((n) => n !== moved);
}

/** The placement a drop on `target` means, or null when the server would refuse it. */
export function dropPlacement(roots: TreeNode[], moved: TreeNode, target: TreeNode, zone: DropZone): Placement | null {
  if (isWithin(target, moved)) return null;
  const parent = zone === 'inside' ? target : target.parent;
  if (!canMoveInto(moved, parent)) return null;
  const siblings = siblingsAt(roots, parent, moved);
  const at = zone === 'inside' ? siblings.length : siblings.indexOf(target) + (zone === 'after' ? 1 : 0);
  return { into: parent?.page.id ?? null, at };
}

/** Whether a placement leaves the page where it is (nothing to write). */
export function isSamePlace(roots: TreeNode[], moved: TreeNode, placement: Placement): boolean {
  const siblings = moved.parent ? moved.parent.children : roots;
  return (moved.parent?.page.id ?? null) === placement.into && siblings.indexOf(moved) === placement.at;
}

/** The zone under the pointer: the top and bottom quarters of a row mean beside it, the middle inside (when it can hold pages). */
export function zoneAt(rect: DOMRect, clientY: number, nestable: boolean): DropZone {
  const y = (clientY - rect.top) / Math.max(rect.height, 1);
  if (!nestable) return y < 0.5 ? 'before' : 'after';
  return y < 0.25 ? 'before' : y > 0.75 ? 'after' : 'inside';
}

/** Every page below `node`, in tree order. */
export function descendants(node: TreeNode): TreeNode[] {
  return node.children.flatMap((child) => [child, ...descendants(child)]);
}
