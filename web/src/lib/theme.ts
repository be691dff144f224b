/**
 * Light or dark: the system's preference (prefers-color-scheme, in the CSS) unless the person chose
 * one with the toggle, remembered in this browser (`data-theme` on <html> overrides the media query).
 */
export type Theme = 'light' | 'dark';
const KEY = 'lectern-theme';

export function applyStoredTheme() {
  const stored = localStorage.getItem(KEY);
  if (stored === 'light' || stored === 'dark') document.documentElement.dataset.theme = stored;
}

export function currentTheme(): Theme {
  const chosen = document.documentElement.dataset.theme;
  if (chosen === 'light' || chosen === 'dark') return chosen;
  return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

export function setTheme(theme: Theme) {
  localStorage.setItem(KEY, theme);
  document.documentElement.dataset.theme = theme;
}
