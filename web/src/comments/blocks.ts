/**
 * Blocks of a page as the screen shows them (the rendered page's or the editor's top-level
 * elements), and the anchor a comment keeps for one: `block:<hash of its text>:<index>`. A comment's
 * `node` is opaque to the server, so the key is derived here from what both screens show: the text
 * (whitespace ignored, a heading's "#" link left out), so the read view and the editor agree, and
 * the anchor follows its block when blocks are added above it.
 */
export interface PageBlock {
  key: string;
  index: number;
  excerpt: string;
  element: HTMLElement;
}

const EXCERPT = 60;

function hash(text: string): string {
  // FNV-1a, 32 bits: short and stable, not a secret.
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}

function textOf(element: HTMLElement): string {
  const clone = element.cloneNode(true) as HTMLElement;
  for (const anchor of clone.querySelectorAll('a.anchor')) anchor.remove();
  return clone.textContent ?? '';
}

export function excerptOf(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > EXCERPT ? `${flat.slice(0, EXCERPT - 1)}…` : flat;
}

/** The blocks under `container` (its element children with some text or an image), in order. */
export function blocksOf(container: Element | null): PageBlock[] {
  if (!container) return [];
  const blocks: PageBlock[] = [];
  for (const child of container.children) {
    if (!(child instanceof HTMLElement)) continue;
    const text = textOf(child);
    const compact = text.replace(/\s+/g, '');
    if (!compact && !child.querySelector('img')) continue;
    const index = blocks.length;
    blocks.push({ key: `block:${hash(compact)}:${index}`, index, excerpt: excerptOf(text) || 'Image', element: child });
  }
  return blocks;
}

/** The block an anchor names: the one with its text (the nearest to its index when several), else none. */
export function findBlock(blocks: PageBlock[], anchor: string | null | undefined): PageBlock | undefined {
  const match = /^block:([0-9a-f]{8}):(\d+)$/.exec(anchor ?? '');
  if (!match) return undefined;
  const index = Number(match[2]);
  const same = blocks.filter((b) => b.key.startsWith(`block:${match[1]}:`));
  return same.sort((a, b) => Math.abs(a.index - index) - Math.abs(b.index - index))[0];
}

/** The top-level element of `container` holding `node` (a click's target, a selection's anchor). */
export function topElementAt(container: Element | null, node: Node | null): Element | undefined {
  if (!container || !node || !container.contains(node) || node === container) return undefined;
  let top: Node = node;
  while (top.parentNode && top.parentNode !== container) top = top.parentNode;
  return top instanceof Element ? top : undefined;
}
