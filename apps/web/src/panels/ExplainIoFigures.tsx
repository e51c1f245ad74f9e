import { useMemo, type ReactNode } from 'react';
import type { LabExperiment } from '@aioscope/spec';
import { Explain } from './Panel.tsx';
import { explainIoViewOfExperiment, roundsText, type ExplainIoColumn, type ExplainIoView } from './explainIoView.ts';
import './ExplainIoFigures.css';

/**
 * More columns than this do not fit side by side on a laptop: their figures stack, as on a phone.
 * (A table that scrolls sideways would cut off the explanations of its last rows.)
 */
const MAX_SIDE_BY_SIDE = 4;

/**
 * One table per figure set: a row per figure (its meaning behind the (i), reachable by keyboard),
 * a column per variant or per parallel worker, then the sentence each column supports.
 */
function FiguresTable({ caption, columns }: { caption: string; columns: readonly ExplainIoColumn[] }): ReactNode {
  const first = columns[0];
  if (first === undefined) return null;
  // Said once in the caption when every column has the same rounds (a phone's layout hides the header row).
  const sameRounds = columns.every((column) => column.rounds === first.rounds);
  return (
    <>
      <div className={columns.length > MAX_SIDE_BY_SIDE ? 'explain-io-box explain-io-many' : 'explain-io-box'}>
        <table className="explain-io-table">
          <caption>
            {caption}
            {sameRounds ? ` · ${roundsText(first.rounds)}` : ''}
          </caption>
          <thead>
            <tr>
              <th scope="col">figure</th>
              {columns.map((column) => (
                <th scope="col" className="num" key={column.heading}>
                  {column.heading}
                  {sameRounds ? null : <span className="explain-io-rounds">{roundsText(column.rounds)}</span>}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {first.rows.map((row, index) => (
              <tr key={row.key}>
                <th scope="row">
                  {row.label} <Explain label={row.label}>{row.meaning}</Explain>
                </th>
                {columns.map((column) => (
                  // The column's name, for a phone's layout where each figure's values stack under it.
                  <td className="num" key={column.heading} data-column={column.heading}>
                    {column.rows[index]?.value ?? '–'}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ul className="explain-io-sentences">
        {columns.flatMap((column) =>
          column.sentence === null ? [] : [<li key={column.heading}>{column.sentence}</li>],
        )}
      </ul>
    </>
  );
}

/** What EXPLAIN IO said, as a view already shaped: also for a page that has no experiment (a fixture). */
export function ExplainIoFiguresView({ view }: { view: ExplainIoView }): ReactNode {
  if (view.kind === 'none') return null;
  return (
    // Not a landmark: the lab's results and the race of the same experiment may show it twice at once.
    <div className="explain-io" data-testid="explain-io">
      <h4>
        Per scan node: EXPLAIN IO{' '}
        <Explain label="EXPLAIN IO">
          PostgreSQL 19&apos;s EXPLAIN (ANALYZE, IO): what each scan&apos;s read stream did, as the server counted it.
          Each figure is the median of the variant&apos;s rounds, on its own.
        </Explain>
      </h4>
      {view.kind === 'message' ? (
        <p className="caveat" data-testid="explain-io-message">
          {view.message}
        </p>
      ) : (
        view.nodes.map((node) => (
          <div className="explain-io-node" key={node.key}>
            <FiguresTable caption={node.title} columns={node.columns} />
            {node.workers.map((parallel) => (
              <FiguresTable
                key={parallel.variant}
                caption={`${node.title}, ${parallel.variant}: per parallel worker`}
                columns={parallel.columns}
              />
            ))}
          </div>
        ))
      )}
    </div>
  );
}

/** The EXPLAIN IO figures of a lab experiment (the lab's results, the race): medians across rounds. */
export function ExplainIoFigures({
  experiment,
}: {
  experiment: Pick<LabExperiment, 'definition' | 'runs'>;
}): ReactNode {
  const view = useMemo(() => explainIoViewOfExperiment(experiment), [experiment]);
  return <ExplainIoFiguresView view={view} />;
}
