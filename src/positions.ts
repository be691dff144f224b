/**
 * Fractional positions: siblings (pages, spaces and collections, site sections…) are ordered by a
 * float `position`, ties broken by id, so an insertion or a move usually writes one row: the
 * midpoint of its two neighbours. Repeated insertions at one place halve the same gap until a float
 * has no room left (after about 50); then a few neighbours around the place are spread out again
 * (`renumber`), never the whole list when a small window suffices. Pure: callers write the result.
 */

/**
 * A position as it survives storage: 15 significant digits. The database driver does not keep a
 * double's last digits (measured: 1 + 2^-52 is stored as 1, so two "different" midpoints came back
 * equal), and every 15-digit decimal survives a round trip through a double exactly.
 */
const stored = (x: number) => Number(x.toPrecision(15));

/** An item ordered among its siblings. */
export interface Positioned {
  id: string;
  position: number;
}

export const byPosition = (a: Positioned, b: Positioned) => a.position - b.position || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export interface Placement<T extends Positioned> {
  /** The position for the item placed. */
  position: number;
  /** Siblings that must move to make room (empty unless the gap ran out), with their new positions. */
  renumber: { item: T; position: number }[];
}

/** The midpoint (or one past an end) for a slot at `index`; null when no float fits strictly between. */
function between(siblings: readonly Positioned[], index: number): number | null {
  const previous = siblings[index - 1];
  const next = siblings[index];
  if (previous && next) {
    const mid = stored((previous.position + next.position) / 2);
    return mid > previous.position && mid < next.position ? mid : null;
  }
  if (previous) return stored(previous.position + 1);
  if (next) return stored(next.position - 1);
  return 0;
}

/**
 * Evenly spaced positions for `count` slots strictly between `low` and `high` (null: open end,
 * steps of 1 there), or null when the spacing would leave too little room for further midpoints
 * (at least ~20 more halvings are wanted, so a renumbering is rare, not every few inserts).
 */
function spread(low: number | null, high: number | null, count: number): number[] | null {
  if (low === null && high === null) return Array.from({ length: count }, (_, j) => j + 1);
  const step = low !== null && high !== null ? (high - low) / (count + 1) : 1;
  const start = low ?? high! - step * (count + 1);
  const slots = Array.from({ length: count }, (_, j) => stored(start + step * (j + 1)));
  const magnitude = Math.max(1, Math.abs(low ?? 0), Math.abs(high ?? 0));
  if (!(step > magnitude * 2 ** -32)) return null;
  const bounded = [low ?? -Infinity, ...slots, high ?? Infinity];
  return bounded.every((p, j) => j === 0 || p > bounded[j - 1]!) ? slots : null;
}

/**
 * Where to put an item at `index` among `siblings` (sorted by `byPosition`, the item itself left
 * out; `index` = siblings.length: the end). When its neighbours have no float left between them,
 * the smallest window of siblings around `index` (doubling) that can be spread out with room to
 * spare is renumbered; at worst, all of them as 1, 2, 3, …
 */
export function placeAt<T extends Positioned>(siblings: readonly T[], index: number): Placement<T> {
  const direct = between(siblings, index);
  if (direct !== null) return { position: direct, renumber: [] };
  for (let size = 1; ; size *= 2) {
    const lo = Math.max(0, index - size);
    const hi = Math.min(siblings.length, index + size);
    const slots = spread(lo > 0 ? siblings[lo - 1]!.position : null, hi < siblings.length ? siblings[hi]!.position : null, hi - lo + 1);
    if (!slots) continue; // the whole list (both ends open) always succeeds
    const position = slots[index - lo]!;
    const renumber = siblings.slice(lo, hi).map((item, j) => ({ item, position: slots[j < index - lo ? j : j + 1]! }));
    return { position, renumber };
  }
}

/**
 * The index at which an item goes among sorted `siblings` for a `before`/`after` pointer resolved
 * by `matches` (-1 when no sibling matches), or the end when there is no pointer.
 */
export function indexFor<T>(siblings: readonly T[], pointer: { after: boolean; matches: (item: T) => boolean } | null): number {
  if (!pointer) return siblings.length;
  const at = siblings.findIndex(pointer.matches);
  return at < 0 ? -1 : pointer.after ? at + 1 : at;
}
