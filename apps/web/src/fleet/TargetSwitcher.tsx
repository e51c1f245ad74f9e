import { useId, useState, type KeyboardEvent, type ReactNode } from 'react';
import type { TargetSummary } from '@aioscope/spec';
import { listboxKey, type ListboxState } from './listboxKeys.ts';
import { targetState } from './targetState.ts';

interface Choice {
  id: string;
  name: string;
  /** "live", "refused", …; null for a recording file (its group says what it is). */
  state: string | null;
  group: 'servers' | 'recordings';
}

/**
 * Moves between servers (and opened recording files) without a reload: a select-only combobox
 * (WAI-ARIA Authoring Practices). The arrow keys move a highlight and Enter, Space or a click
 * opens the highlighted server; a native select navigated on every ArrowDown, loading each server
 * in turn. Escape closes the list without moving; a link goes back to the overview.
 */
export function TargetSwitcher({
  targets,
  current,
  onOpen,
}: {
  targets: readonly TargetSummary[];
  current: string | null;
  onOpen: (id: string | null) => void;
}): ReactNode {
  const servers = targets.filter((target) => target.kind !== 'recording');
  const choices: Choice[] = [
    ...servers.map((t) => ({ id: t.id, name: t.name, state: targetState(t).label, group: 'servers' as const })),
    ...targets
      .filter((target) => target.kind === 'recording')
      .map((t) => ({ id: t.id, name: t.name, state: null, group: 'recordings' as const })),
  ];
  const baseId = useId();
  const optionId = (index: number): string => `${baseId}-option-${index}`;
  const currentIndex = Math.max(
    0,
    choices.findIndex((choice) => choice.id === current),
  );
  const [list, setList] = useState<ListboxState>({ open: false, highlight: currentIndex });
  const shown = choices[currentIndex];

  const choose = (index: number): void => {
    setList({ open: false, highlight: index });
    const chosen = choices[index];
    if (chosen !== undefined && chosen.id !== current) onOpen(chosen.id);
  };
  const highlight = (next: ListboxState): void => {
    setList(next);
    // Keep the highlighted option in view in a long list.
    requestAnimationFrame(() =>
      document.getElementById(optionId(next.highlight))?.scrollIntoView({ block: 'nearest' }),
    );
  };
  const onKeyDown = (event: KeyboardEvent): void => {
    const action = listboxKey(list, event.key, {
      count: choices.length,
      current: currentIndex,
      labels: choices.map((choice) => choice.name),
      altKey: event.altKey,
    });
    if (action.kind === 'none') return;
    // Tab closes the list and still moves focus on.
    if (event.key !== 'Tab') event.preventDefault();
    if (action.kind === 'choose') choose(action.index);
    else highlight(action.next);
  };

  const option = (choice: Choice, index: number): ReactNode => (
    <li
      key={choice.id}
      id={optionId(index)}
      role="option"
      aria-selected={index === currentIndex}
      className={`switcher-option${index === list.highlight ? ' switcher-highlight' : ''}`}
      data-testid={`switcher-option-${choice.id}`}
      // Keeps focus on the combobox, so the click is a choice and not a blur that closes the list.
      onMouseDown={(event) => event.preventDefault()}
      onClick={() => choose(index)}
    >
      {choice.name}
      {choice.state !== null ? <span className="muted"> ({choice.state})</span> : null}
    </li>
  );
  const serverChoices = choices.filter((choice) => choice.group === 'servers');
  const recordingChoices = choices.filter((choice) => choice.group === 'recordings');

  return (
    <nav className="target-switcher" aria-label="Servers">
      {servers.length > 1 ? (
        <a
          href="/"
          onClick={(event) => {
            if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
            event.preventDefault();
            onOpen(null);
          }}
        >
          ← all servers
        </a>
      ) : null}
      <div className="switcher">
        <span id={`${baseId}-label`}>server</span>
        {/* The list opens under the combobox, left-aligned with it. */}
        <div className="switcher-anchor">
          <div
            role="combobox"
            tabIndex={0}
            className="toolbar-control switcher-combobox"
            aria-labelledby={`${baseId}-label ${baseId}-value`}
            aria-haspopup="listbox"
            aria-expanded={list.open}
            aria-controls={`${baseId}-listbox`}
            aria-activedescendant={list.open ? optionId(list.highlight) : undefined}
            data-testid="target-switcher"
            onKeyDown={onKeyDown}
            onClick={() =>
              list.open ? setList({ ...list, open: false }) : highlight({ open: true, highlight: currentIndex })
            }
            onBlur={() => setList({ open: false, highlight: currentIndex })}
          >
            <span id={`${baseId}-value`}>
              {shown === undefined ? 'none' : shown.name}
              {shown !== undefined && shown.state !== null ? ` (${shown.state})` : ''}
            </span>
            <span aria-hidden="true" className="switcher-arrow">
              ▾
            </span>
          </div>
          <ul
            id={`${baseId}-listbox`}
            role="listbox"
            aria-labelledby={`${baseId}-label`}
            className="switcher-listbox"
            hidden={!list.open}
            data-testid="target-switcher-list"
          >
            {serverChoices.map((choice) => option(choice, choices.indexOf(choice)))}
            {recordingChoices.length > 0 ? (
              <li role="presentation" className="switcher-group">
                <span id={`${baseId}-recordings`} className="muted">
                  recording files
                </span>
                <ul role="group" aria-labelledby={`${baseId}-recordings`}>
                  {recordingChoices.map((choice) => option(choice, choices.indexOf(choice)))}
                </ul>
              </li>
            ) : null}
          </ul>
        </div>
      </div>
    </nav>
  );
}
