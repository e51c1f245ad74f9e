import type { MouseEvent, ReactNode } from 'react';
import type { TargetSummary } from '@aioscope/spec';
import { targetState } from './targetState.ts';

/**
 * /t/<id> for an id aioscope does not know (mistyped, or a target of another aioscope): said in
 * so many words, with the servers it does know, instead of silently showing another one.
 */
export function UnknownTarget({
  id,
  targets,
  onOpen,
}: {
  id: string;
  targets: readonly TargetSummary[];
  onOpen: (id: string | null) => void;
}): ReactNode {
  const follow =
    (to: string | null) =>
    (event: MouseEvent): void => {
      if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
      event.preventDefault();
      onOpen(to);
    };
  const watched = targets.filter((target) => target.kind !== 'recording' && target.unwatchedSince === undefined);
  return (
    <main className="overview-page unknown-target" id="live" tabIndex={-1} data-testid="unknown-target">
      <h2>No such server: “{id}”</h2>
      <p>
        aioscope watches no server with the id <code>{id}</code>, and has no recording of one. Ids are the names of the
        targets file as slugs (<code>Orders (primary)</code> → <code>orders-primary</code>).
      </p>
      {targets.length > 0 ? (
        <>
          <p>
            The servers it knows
            {watched.length > 1 ? (
              <>
                {' '}
                (or the{' '}
                <a href="/" onClick={follow(null)}>
                  overview of all servers
                </a>
                )
              </>
            ) : null}
            :
          </p>
          <ul className="unknown-target-list">
            {targets.map((target) => (
              <li key={target.id}>
                <a href={`/t/${target.id}`} onClick={follow(target.id)}>
                  {target.name}
                </a>{' '}
                <span className="muted">
                  ({target.id}, {targetState(target).label})
                </span>
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p className="muted">It watches no server at the moment.</p>
      )}
    </main>
  );
}
