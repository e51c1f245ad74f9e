import type { ReactNode } from 'react';
import type { Theme } from '../theme.ts';

/** The header's theme switch: it names the theme it switches to, not the one shown. */
export function ThemeToggle({ theme, onToggle }: { theme: Theme; onToggle: () => void }): ReactNode {
  return (
    <button type="button" className="theme-toggle" onClick={onToggle}>
      {theme === 'dark' ? 'light theme' : 'dark theme'}
    </button>
  );
}
