import type { ReactNode } from 'react';
import type { TargetSummary } from '@aioscope/spec';

/**
 * Moves between servers (and opened recording files) without a reload: a native select, so the
 * keyboard and screen readers get it for free, and a link back to the overview.
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
  const recordings = targets.filter((target) => target.kind === 'recording');
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
      <label>
        server{' '}
        <select
          className="toolbar-control"
          value={current ?? ''}
          data-testid="target-switcher"
          onChange={(event) => onOpen(event.target.value === '' ? null : event.target.value)}
        >
          {servers.map((target) => (
            <option key={target.id} value={target.id}>
              {target.name} ({target.status.state})
            </option>
          ))}
          {recordings.length > 0 ? (
            <optgroup label="recording files">
              {recordings.map((target) => (
                <option key={target.id} value={target.id}>
                  {target.name}
                </option>
              ))}
            </optgroup>
          ) : null}
        </select>
      </label>
    </nav>
  );
}
