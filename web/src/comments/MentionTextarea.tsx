import { type KeyboardEvent, type ReactNode, useId, useLayoutEffect, useRef, useState } from 'react';

export interface Mentionable {
  id: string;
  displayName: string;
}

const MAX_SUGGESTIONS = 6;
/** The "@name" being typed just before the caret (a mention starts at the text's start or after a space). */
const TYPING_MENTION = /(?:^|\s)@([^\s@]{0,40})$/;

/**
 * A comment's text box: typing @ offers the organization's members (arrow keys and Enter, or a
 * click) and inserts "@Their Name", which the thread shows as a mention.
 */
export function MentionTextarea({
  label,
  value,
  onChange,
  members,
  rows = 3,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  members: Mentionable[];
  rows?: number;
}) {
  const id = useId();
  const area = useRef<HTMLTextAreaElement>(null);
  const [caret, setCaret] = useState(0);
  const [active, setActive] = useState(0);
  const [closed, setClosed] = useState(false);
  const typing = TYPING_MENTION.exec(value.slice(0, caret));
  const query = typing?.[1]?.toLowerCase() ?? null;
  const suggestions =
    query === null || closed
      ? []
      : members
          .filter((m) =>
            m.displayName
              ?.toLowerCase()
              .split(/\s+/)
              .some((word) => word.startsWith(query)),
          )
          .slice(0, MAX_SUGGESTIONS);

  // The caret after a picked mention, placed when the new text is committed: placed a frame later,
  // it jumped back over whatever was typed in between (a quick typist's next words landed inside them).
  const pendingCaret = useRef<number | null>(null);
  useLayoutEffect(() => {
    const at = pendingCaret.current;
    if (at === null || !area.current) return;
    pendingCaret.current = null;
    area.current.focus();
    area.current.setSelectionRange(at, at);
  });

  const pick = (member: Mentionable) => {
    const before = value.slice(0, caret).replace(/@[^\s@]*$/, `@${member.displayName} `);
    const next = before + value.slice(caret);
    pendingCaret.current = before.length;
    onChange(next);
    setCaret(before.length);
    setActive(0);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (!suggestions.length) return;
    const chosen = suggestions[Math.min(active, suggestions.length - 1)];
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((active + step + suggestions.length) % suggestions.length);
    } else if ((event.key === 'Enter' || event.key === 'Tab') && chosen) {
      event.preventDefault();
      pick(chosen);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      setClosed(true);
    }
  };

  return (
    <div className="mention-input">
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        ref={area}
        rows={rows}
        value={value}
        aria-describedby={`${id}-hint`}
        onChange={(e) => {
          onChange(e.target.value);
          setCaret(e.target.selectionStart);
          setClosed(false);
        }}
        onSelect={(e) => setCaret(e.currentTarget.selectionStart)}
        onKeyDown={onKeyDown}
      />
      <span id={`${id}-hint`} className="visually-hidden">
        Type @ to mention a member.
      </span>
      {suggestions.length > 0 && (
        <ul role="listbox" aria-label="Members to mention" className="mention-list">
          {suggestions.map((member, i) => (
            // biome-ignore lint/a11y/useKeyWithClickEvents: the keyboard picks from the text box (arrows, Enter), which keeps the focus.
            <li
              key={member.id}
              role="option"
              aria-selected={i === active}
              onMouseDown={(e) => e.preventDefault()}
              onClick={() => pick(member)}
            >
              {member.displayName}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A comment's text as text (React escapes it), its mentions of known members set apart. */
export function CommentText({ text, members }: { text: string; members: Mentionable[] }) {
  const names = [...new Set(members.map((m) => m.displayName).filter(Boolean))].sort((a, b) => b.length - a.length);
  if (!names.length) return <p className="comment-text">{text}</p>;
  const mention = new RegExp(`(@(?:${names.map(escapeRegExp).join('|')}))`, 'g');
  const parts: ReactNode[] = text.split(mention).map((part, i) =>
    i % 2 === 1 ? (
      <span key={`${i}-${part}`} className="mention">
        {part}
      </span>
    ) : (
      part
    ),
  );
  return <p className="comment-text">{parts}</p>;
}
