import { createContext, useContext, useState } from 'react';

export type Theme = 'dark' | 'light';
const THEME_KEY = 'aioscope.theme';

/** The saved theme, else the system's preference. */
export function initialTheme(): Theme {
  const saved = localStorage.getItem(THEME_KEY);
  if (saved === 'dark' || saved === 'light') return saved;
  return window.matchMedia('(prefers-color-scheme: light)').matches ? 'light' : 'dark';
}

/**
 * Applies a theme to the document at once, before React commits: canvas charts read their colours
 * from the computed CSS variables in their effects, which run before a parent's effects would.
 */
export function applyTheme(theme: Theme): void {
  document.documentElement.dataset.theme = theme;
  localStorage.setItem(THEME_KEY, theme);
}

/** The current theme, for canvas charts that must redraw when it changes. */
export const ThemeContext = createContext<Theme>('dark');

export function useTheme(): Theme {
  return useContext(ThemeContext);
}

/** A page's theme, applied at once from the saved or system choice, and the toggle that flips and saves it. */
export function useThemeChoice(): [Theme, () => void] {
  const [theme, setTheme] = useState<Theme>(() => {
    const chosen = initialTheme();
    applyTheme(chosen);
    return chosen;
  });
  const toggle = (): void => {
    const next = theme === 'dark' ? 'light' : 'dark';
    applyTheme(next);
    setTheme(next);
  };
  return [theme, toggle];
}
