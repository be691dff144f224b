/**
 * The app's conflict hunks (web/src/routes/space/changes/conflicts/hunks.ts): a page's base, main
 * and change-request texts cut into lines both kept, lines one side changed, and conflicts; the
 * result composed from a choice per conflict. Properties over generated texts (fast-check), and the
 * case the browser journey shows.
 */
import fc from 'fast-check';
import { merge as diff3 } from 'node-diff3';
import { describe, expect, it } from 'vitest';
import { compose, conflictCount, hasMarkers, segments, type Side } from '../../web/src/routes/space/changes/conflicts/hunks.js';

/** Short texts over few distinct lines, so edits of both sides often touch the same lines. */
const text = fc.array(fc.constantFrom('a', 'b', 'c', 'd', ''), { maxLength: 8 }).map((lines) => lines.join('\n'));
const choose = (n: number, side: Side) => Array<Side>(n).fill(side);

describe('conflict hunks', () => {
  it('cuts two paragraphs edited on both sides into two conflicts around the line both kept', () => {
    const base = 'One.\n\nMiddle.\n\nTwo.\n';
    const parts = segments(base, 'One, main.\n\nMiddle.\n\nTwo, main.\n', 'One, change.\n\nMiddle.\n\nTwo, change.\n');
    expect(conflictCount(parts)).toBe(2);
    expect(compose(parts, ['change', 'main'])).toBe('One, change.\n\nMiddle.\n\nTwo, main.\n');
    expect(hasMarkers(compose(parts, ['change', null]))).toBe(true);
  });

  it('keeps every line of the base when neither side changed it, and one side’s text when only it changed', () => {
    fc.assert(
      fc.property(text, text, (base, other) => {
        expect(compose(segments(base, base, base), [])).toBe(base);
        const mainOnly = segments(base, other, base);
        expect(conflictCount(mainOnly)).toBe(0);
        expect(compose(mainOnly, [])).toBe(other);
        expect(compose(segments(base, base, other), [])).toBe(other);
        expect(compose(segments(base, other, other), [])).toBe(other);
      }),
    );
  });

  it('gives main’s whole text when every conflict keeps main and the change only edited where main did', () => {
    fc.assert(
      fc.property(text, text, text, (base, main, change) => {
        const parts = segments(base, main, change);
        const n = conflictCount(parts);
        if (parts.every((p) => p.kind !== 'one-side' || p.side === 'main')) expect(compose(parts, choose(n, 'main'))).toBe(main);
        if (parts.every((p) => p.kind !== 'one-side' || p.side === 'change')) expect(compose(parts, choose(n, 'change'))).toBe(change);
        expect(hasMarkers(compose(parts, choose(n, 'main')))).toBe(false);
      }),
    );
  });

  it('finds a conflict wherever the server’s line merge (diff3) does', () => {
    fc.assert(
      fc.property(text, text, text, (base, main, change) => {
        const server = diff3(change.split('\n'), base.split('\n'), main.split('\n'));
        if (server.conflict) expect(conflictCount(segments(base, main, change))).toBeGreaterThan(0);
      }),
    );
  });
});
