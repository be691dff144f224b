import { useState } from 'react';
import { currentTheme, setTheme, type Theme } from './theme';

/** A switch between light and dark (starts from the system's preference). */
export function ThemeToggle() {
  const [theme, setState] = useState<Theme>(currentTheme);
  const dark = theme === 'dark';
  return (
    <button
      type="button"
      aria-pressed={dark}
      onClick={() => {
        const next = dark ? 'light' : 'dark';
        setTheme(next);
        setState(next);
      }}
    >
      Dark mode
    </button>
  );
}
