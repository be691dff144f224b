import { diffArrays } from 'diff';

/**
 * A page's three versions (base, main, change request) cut into diff3-style segments: lines kept
 * by both sides, lines changed by one side only (taken from it), and conflicts, where both sides
 * changed the same base lines differently and a person picks one. Lines are split on "\n" exactly
 * as the server's merge splits them, so a result joined back is the text the server would store.
 */
export type Segment =
  | { kind: 'same'; lines: string[] }
  | { kind: 'one-side'; side: Side; lines: string[] }
  | { kind: 'conflict'; base: string[]; main: string[]; change: string[] };
export type Side = 'main' | 'change';

/** One side's edit: base lines [start, end) replaced by `lines`. */
interface Edit {
  side: Side;
  start: number;
  end: number;
  lines: string[];
}

const linesOf = (text: string) => text.split('\n');

function editsOf(base: string[], other: string[], side: Side): Edit[] {
  const edits: Edit[] = [];
  let at = 0;
  let open: Edit | null = null;
  for (const part of diffArrays(base, other)) {
    if (!part.added && !part.removed) {
      open = null;
      at += part.value.length;
      continue;
    }
    if (!open) {
      open = { side, start: at, end: at, lines: [] };
      edits.push(open);
    }
    if (part.removed) {
      at += part.value.length;
      open.end = at;
    } else open.lines.push(...part.value);
  }
  return edits;
}

/** Base lines [start, end) with a side's edits (all inside that range) applied. */
function apply(base: string[], start: number, end: number, edits: Edit[]): string[] {
  const out: string[] = [];
  let at = start;
  for (const e of edits) {
    out.push(...base.slice(at, e.start), ...e.lines);
    at = e.end;
  }
  out.push(...base.slice(at, end));
  return out;
}

const sameLines = (a: string[], b: string[]) => a.length === b.length && a.every((line, i) => line === b[i]);

export function segments(baseText: string, mainText: string, changeText: string): Segment[] {
  const base = linesOf(baseText);
  const edits = [...editsOf(base, linesOf(mainText), 'main'), ...editsOf(base, linesOf(changeText), 'change')].sort(
    (a, b) => a.start - b.start || a.end - b.end,
  );
  const out: Segment[] = [];
  let at = 0;
  let i = 0;
  while (i < edits.length) {
    // A group: edits whose base ranges overlap or touch (touching edits of both sides conflict, as in diff3).
    const group = [edits[i]!];
    let end = edits[i]!.end;
    for (i++; i < edits.length && edits[i]!.start <= end; i++) {
      group.push(edits[i]!);
      end = Math.max(end, edits[i]!.end);
    }
    const start = group[0]!.start;
    if (start > at) out.push({ kind: 'same', lines: base.slice(at, start) });
    const main = apply(
      base,
      start,
      end,
      group.filter((e) => e.side === 'main'),
    );
    const change = apply(
      base,
      start,
      end,
      group.filter((e) => e.side === 'change'),
    );
    const sides = new Set(group.map((e) => e.side));
    if (sides.size === 1) out.push({ kind: 'one-side', side: group[0]!.side, lines: group[0]!.side === 'main' ? main : change });
    else if (sameLines(main, change)) out.push({ kind: 'one-side', side: 'main', lines: main });
    else out.push({ kind: 'conflict', base: base.slice(start, end), main, change });
    at = end;
  }
  if (at < base.length) out.push({ kind: 'same', lines: base.slice(at) });
  return out;
}

/** The page's text with each conflict taking the chosen side (null: undecided, shown with markers). */
export function compose(parts: Segment[], choices: (Side | null)[]): string {
  const lines: string[] = [];
  let n = 0;
  for (const part of parts) {
    if (part.kind !== 'conflict') {
      lines.push(...part.lines);
      continue;
    }
    const choice = choices[n++] ?? null;
    if (choice) lines.push(...part[choice]);
    else lines.push('<<<<<<< main', ...part.main, '=======', ...part.change, '>>>>>>> change request');
  }
  return lines.join('\n');
}

export const conflictCount = (parts: Segment[]) => parts.filter((p) => p.kind === 'conflict').length;

/** Whether a text still holds the markers compose() writes for an undecided conflict. */
export const hasMarkers = (text: string) => /^(<<<<<<< |=======$|>>>>>>> )/m.test(text);
