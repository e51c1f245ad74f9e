import { describe, expect, it } from 'vitest';
import { listboxKey, type ListboxAction, type ListboxState } from './listboxKeys.ts';

const labels = ['orders primary', 'reports', 'old', 'billing'];
const options = { count: labels.length, current: 1, labels };
const closed: ListboxState = { open: false, highlight: 0 };

/** Presses keys in order from `state`, returning every action. */
function press(state: ListboxState, keys: readonly string[]): ListboxAction[] {
  const actions: ListboxAction[] = [];
  let now = state;
  for (const key of keys) {
    const action = listboxKey(now, key, options);
    actions.push(action);
    if (action.kind !== 'none') now = action.next;
  }
  return actions;
}

describe('the switcher keyboard (select-only combobox)', () => {
  it('moves a highlight on arrow keys and chooses nothing until Enter', () => {
    const actions = press(closed, ['ArrowDown', 'ArrowDown', 'ArrowDown', 'ArrowUp']);
    // The first ArrowDown opens the list on the current server; the others move the highlight.
    expect(actions.map((a) => a.kind)).toEqual(['move', 'move', 'move', 'move']);
    expect(actions.map((a) => (a.kind === 'none' ? null : a.next.highlight))).toEqual([1, 2, 3, 2]);
    const [chosen] = press({ open: true, highlight: 2 }, ['Enter']);
    expect(chosen).toEqual({ kind: 'choose', index: 2, next: { open: false, highlight: 2 } });
  });

  it('stops at the ends, jumps with Home and End, and closes on Escape without choosing', () => {
    expect(press({ open: true, highlight: 3 }, ['ArrowDown'])[0]).toMatchObject({ next: { highlight: 3 } });
    expect(press({ open: true, highlight: 0 }, ['ArrowUp'])[0]).toMatchObject({ next: { highlight: 0 } });
    expect(press(closed, ['End'])[0]).toMatchObject({ next: { open: true, highlight: 3 } });
    expect(press({ open: true, highlight: 3 }, ['Home'])[0]).toMatchObject({ next: { highlight: 0 } });
    expect(press({ open: true, highlight: 3 }, ['Escape'])[0]).toEqual({
      kind: 'close',
      next: { open: false, highlight: 3 },
    });
  });

  it('highlights the next server starting with a typed letter', () => {
    expect(press({ open: true, highlight: 0 }, ['o'])[0]).toMatchObject({ next: { highlight: 2 } });
    expect(press({ open: true, highlight: 2 }, ['o'])[0]).toMatchObject({ next: { highlight: 0 } });
    expect(press({ open: true, highlight: 0 }, ['z'])[0]).toEqual({ kind: 'none' });
  });
});
