import { useState } from 'react';

/**
 * A page's title edited in its tree row: Enter saves (an empty or unchanged title saves nothing),
 * Escape cancels, and so does leaving the field. Keys and clicks stay in the field: the tree's own
 * keys (arrows, Home, End, Enter) must not act while the person types.
 */
export function RenameInput({
  title,
  onSave,
  onCancel,
}: {
  title: string;
  onSave: (title: string) => void;
  onCancel: (how: 'escape' | 'blur') => void;
}) {
  const [value, setValue] = useState(title);
  return (
    <input
      className="tree-rename"
      aria-label={`New title for ${title}`}
      value={value}
      // biome-ignore lint/a11y/noAutofocus: the field appears because the person asked to rename; it must take the focus
      autoFocus
      onFocus={(e) => e.currentTarget.select()}
      onChange={(e) => setValue(e.target.value)}
      onClick={(e) => e.stopPropagation()}
      onKeyDown={(e) => {
        e.stopPropagation();
        if (e.key === 'Escape') {
          e.preventDefault();
          onCancel('escape');
        } else if (e.key === 'Enter') {
          e.preventDefault();
          const next = value.trim();
          if (next && next !== title) onSave(next);
          else onCancel('escape');
        }
      }}
      onBlur={() => onCancel('blur')}
    />
  );
}
