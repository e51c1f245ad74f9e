/**
 * The keyboard of a select-only combobox (WAI-ARIA Authoring Practices, "Select-Only Combobox"):
 * arrows move a highlight through the list and only Enter (or Space, or a click) chooses. A native
 * select changes its value on every ArrowDown, and the server switcher navigated on each, loading
 * every server in turn.
 */
export interface ListboxState {
  open: boolean;
  /** Index of the highlighted option while open. */
  highlight: number;
}

export type ListboxAction =
  | { kind: 'none' }
  /** The key was handled (preventDefault) and the state is `next`. */
  | { kind: 'move'; next: ListboxState }
  /** Choose the option at `index` and close. */
  | { kind: 'choose'; index: number; next: ListboxState }
  /** Close without choosing. */
  | { kind: 'close'; next: ListboxState };

const clamp = (index: number, count: number): number => Math.max(0, Math.min(count - 1, index));

/**
 * What `key` does, given the state, the number of options, the index of the current value and the
 * option labels (for type-ahead: a printable character highlights the next label starting with it).
 */
export function listboxKey(
  state: ListboxState,
  key: string,
  options: { count: number; current: number; labels: readonly string[]; altKey?: boolean },
): ListboxAction {
  const { count, current } = options;
  if (count === 0) return { kind: 'none' };
  const closed = { open: false, highlight: state.highlight };
  const openAt = (index: number): ListboxAction => ({
    kind: 'move',
    next: { open: true, highlight: clamp(index, count) },
  });
  if (!state.open) {
    switch (key) {
      case 'ArrowDown':
      case 'ArrowUp':
      case 'Enter':
      case ' ':
        return openAt(current);
      case 'Home':
        return openAt(0);
      case 'End':
        return openAt(count - 1);
      default: {
        const typed = typeAhead(key, current, options.labels);
        return typed === null ? { kind: 'none' } : openAt(typed);
      }
    }
  }
  switch (key) {
    case 'ArrowDown':
      return openAt(state.highlight + 1);
    case 'ArrowUp':
      if (options.altKey === true) return { kind: 'choose', index: state.highlight, next: closed };
      return openAt(state.highlight - 1);
    case 'Home':
    case 'PageUp':
      return openAt(key === 'Home' ? 0 : state.highlight - 10);
    case 'End':
    case 'PageDown':
      return openAt(key === 'End' ? count - 1 : state.highlight + 10);
    case 'Enter':
    case ' ':
      return { kind: 'choose', index: state.highlight, next: closed };
    case 'Escape':
    case 'Tab':
      return { kind: 'close', next: closed };
    default: {
      const typed = typeAhead(key, state.highlight, options.labels);
      return typed === null ? { kind: 'none' } : openAt(typed);
    }
  }
}

/** The next label after `from` (wrapping) that starts with the typed character; null for other keys. */
function typeAhead(key: string, from: number, labels: readonly string[]): number | null {
  if (key.length !== 1 || key === ' ') return null;
  const wanted = key.toLowerCase();
  for (let step = 1; step <= labels.length; step++) {
    const index = (from + step) % labels.length;
    if (labels[index]?.toLowerCase().startsWith(wanted) === true) return index;
  }
  return null;
}
