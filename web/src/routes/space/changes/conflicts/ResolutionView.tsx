import { useId, useMemo, useState } from 'react';
import { useMutation } from 'urql';
import { errorMessage } from '../../../../lib/client';
import { UpdateFromMain } from './documents';
import { compose, conflictCount, hasMarkers, type Segment, type Side, segments } from './hunks';

export interface PageConflict {
  page?: string | null;
  title: string;
  reasons: string[];
  resolvable: boolean;
  base?: string | null;
  main?: string | null;
  change?: string | null;
}

/** A page's resolution: a side per conflict (null: not chosen yet), or the whole result as edited. */
interface Resolution {
  choices: (Side | null)[];
  edited: string | null;
}

/** The page's resolved text, or why it is not resolved yet. */
function resolvedText(parts: Segment[], r: Resolution): { markdown: string } | { missing: string } {
  if (r.edited !== null) return hasMarkers(r.edited) ? { missing: 'its edited result still has conflict markers' } : { markdown: r.edited };
  const open = r.choices.filter((c) => !c).length;
  return open ? { missing: `${open} conflict(s) without a choice` } : { markdown: compose(parts, r.choices) };
}

/** The conflicting pages, each with its hunks, and "Resolve", which updates the change request from main with the results. */
export function ResolutionView({
  spaceId,
  changeRequestId,
  conflicts,
  onResolved,
}: {
  spaceId: string;
  changeRequestId: string;
  conflicts: PageConflict[];
  onResolved: () => void;
}) {
  const pages = useMemo(
    () =>
      conflicts
        .filter((c) => c.resolvable && c.page)
        .map((c) => ({ conflict: c, parts: segments(c.base ?? '', c.main ?? '', c.change ?? '') })),
    [conflicts],
  );
  const blocking = conflicts.filter((c) => !c.resolvable);
  const [resolutions, setResolutions] = useState<Record<string, Resolution>>(() =>
    Object.fromEntries(pages.map((p) => [p.conflict.page!, { choices: Array(conflictCount(p.parts)).fill(null), edited: null }])),
  );
  const [problem, setProblem] = useState<string | null>(null);
  const [sent, send] = useMutation(UpdateFromMain);

  const resolve = async () => {
    const results = pages.map((p) => ({ p, text: resolvedText(p.parts, resolutions[p.conflict.page!]!) }));
    const missing = results.filter((r) => 'missing' in r.text);
    if (missing.length) {
      setProblem(
        `Not resolved yet: ${missing.map((r) => `${r.p.conflict.title} (${(r.text as { missing: string }).missing})`).join('; ')}.`,
      );
      return;
    }
    setProblem(null);
    const list = results.map((r) => ({ pageId: r.p.conflict.page!, markdown: (r.text as { markdown: string }).markdown }));
    const result = await send({ spaceId, changeRequestId, resolutions: list });
    if (result.data) onResolved();
  };

  return (
    <section aria-labelledby="conflicts-heading" className="conflicts">
      <h3 id="conflicts-heading">Conflicts with main</h3>
      <p>
        Main and this change request changed the same lines of {conflicts.length === 1 ? 'this page' : 'these pages'}. For each conflict,
        keep main’s version or this change request’s, or edit the page’s result; then resolve.
      </p>
      {blocking.map((c) => (
        <p key={`${c.page}:${c.reasons.join()}`} className="error">
          {c.title || 'The space'}: {c.reasons.join('; ')}. This cannot be resolved here: change the page in this change request so it
          agrees with main.
        </p>
      ))}
      {pages.map(({ conflict, parts }) => (
        <PageResolution
          key={conflict.page!}
          conflict={conflict}
          parts={parts}
          value={resolutions[conflict.page!]!}
          onChange={(r) => setResolutions((all) => ({ ...all, [conflict.page!]: r }))}
        />
      ))}
      <button type="button" className="primary" onClick={resolve} disabled={sent.fetching || blocking.length > 0} aria-busy={sent.fetching}>
        Resolve
      </button>
      {(problem || sent.error) && (
        <p role="alert" className="error">
          {problem ?? `Not resolved: ${errorMessage(sent.error)}`}
        </p>
      )}
    </section>
  );
}

/** One page: its lines kept by both sides, taken from one side, and each conflict with its two choices; or its whole result to edit. */
function PageResolution({
  conflict,
  parts,
  value,
  onChange,
}: {
  conflict: PageConflict;
  parts: Segment[];
  value: Resolution;
  onChange: (r: Resolution) => void;
}) {
  const id = useId();
  const total = conflictCount(parts);
  const choose = (n: number, side: Side) => onChange({ ...value, choices: value.choices.map((c, i) => (i === n ? side : c)) });
  let n = 0;
  return (
    <section aria-labelledby={`${id}-title`} className="conflict-page">
      <h4 id={`${id}-title`}>{conflict.title}</h4>
      {value.edited === null ? (
        parts.map((part, i) => {
          if (part.kind !== 'conflict') return <Lines key={i} lines={part.lines} note={part.kind === 'one-side' ? part.side : null} />;
          const index = n++;
          return (
            <Hunk
              key={i}
              label={`Conflict ${index + 1} of ${total} in ${conflict.title}`}
              part={part}
              choice={value.choices[index] ?? null}
              onChoose={(side) => choose(index, side)}
            />
          );
        })
      ) : (
        <>
          <label htmlFor={`${id}-edit`}>Result of {conflict.title}</label>
          <textarea
            id={`${id}-edit`}
            className="conflict-edit"
            rows={Math.min(30, value.edited.split('\n').length + 2)}
            value={value.edited}
            onChange={(e) => onChange({ ...value, edited: e.target.value })}
          />
        </>
      )}
      <button
        type="button"
        aria-pressed={value.edited !== null}
        onClick={() => onChange({ ...value, edited: value.edited === null ? compose(parts, value.choices) : null })}
      >
        {value.edited === null ? `Edit the result of ${conflict.title}` : `Back to the conflicts of ${conflict.title}`}
      </button>
    </section>
  );
}

const NOTES = { main: 'From main', change: 'From this change request' } as const;

function Lines({ lines, note }: { lines: string[]; note: Side | null }) {
  if (!lines.some((l) => l.trim())) return null;
  return (
    <div className={note ? 'conflict-lines one-side' : 'conflict-lines'}>
      {note && <span className="muted">{NOTES[note]}</span>}
      <pre>{lines.join('\n')}</pre>
    </div>
  );
}

/** One conflict: what main has and what the change request has there, and which to keep. */
function Hunk({
  label,
  part,
  choice,
  onChoose,
}: {
  label: string;
  part: Extract<Segment, { kind: 'conflict' }>;
  choice: Side | null;
  onChoose: (side: Side) => void;
}) {
  const id = useId();
  const side = (which: Side, title: string, button: string) => (
    <div className={choice === which ? 'conflict-side chosen' : 'conflict-side'}>
      <h5>{title}</h5>
      <pre>{part[which].join('\n') || '(nothing)'}</pre>
      <button type="button" aria-pressed={choice === which} onClick={() => onChoose(which)}>
        {button}
      </button>
    </div>
  );
  return (
    <div role="group" aria-labelledby={`${id}-label`} className="conflict-hunk">
      <p id={`${id}-label`} className="conflict-label">
        {label}
        {choice ? ` — keeping ${choice === 'main' ? 'main' : 'the change'}` : ' — not chosen yet'}
      </p>
      <div className="conflict-sides">
        {side('main', 'Main', 'Keep main')}
        {side('change', 'This change request', 'Keep change')}
      </div>
      {part.base.some((l) => l.trim()) && (
        <details>
          <summary>Before both changes</summary>
          <pre>{part.base.join('\n')}</pre>
        </details>
      )}
    </div>
  );
}
