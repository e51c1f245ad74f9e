import { useEffect, useRef, type ReactNode } from 'react';
import { plural } from '@aioscope/core';
import type { Race } from '@aioscope/spec';
import { formatBytes, formatNumber, formatPercent } from '../format.ts';
import { ExplainIoFigures } from '../panels/ExplainIoFigures.tsx';
import { PresentButton } from '../present/PresentButton.tsx';
import { useRace } from './raceApi.ts';
import { RaceReplay } from './RaceReplay.tsx';
import { raceProblem } from './raceTimeline.ts';
import './RaceView.css';

/** The medians of every round under the race: one lucky run is never the message. */
function RaceMedians({ race }: { race: Race }): ReactNode {
  const { experiment } = race;
  return (
    <table className="race-medians" data-testid="race-medians">
      <caption>
        All {plural(experiment.definition.rounds, 'round')}, cold, {experiment.definition.tableMb} MB (the race shows
        the run nearest each median)
      </caption>
      <thead>
        <tr>
          <th>variant</th>
          <th className="num">median</th>
          <th className="num">min–max</th>
          <th className="num">bytes / read</th>
          <th className="num">captured</th>
        </tr>
      </thead>
      <tbody>
        {experiment.summary.map((row) => {
          const lane = race.lanes.find((candidate) => candidate.variant === row.variant);
          return (
            <tr key={row.variant}>
              <td>{row.variant}</td>
              <td className="num">{formatNumber(row.medianMs, 1)} ms</td>
              <td className="num">
                {formatNumber(row.minMs, 1)}–{formatNumber(row.maxMs, 1)} ms
              </td>
              <td className="num">{formatBytes(row.medianBytesPerRead)}</td>
              <td className="num">
                {lane === undefined
                  ? '–'
                  : `${lane.frames.length} frames, ${formatPercent(lane.seenShare)} of reads seen`}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

export interface RaceViewProps {
  raceId: string;
  /** Closes the race view (and takes the race out of the URL). */
  onClose: () => void;
  /** Scroll the view into sight once it has drawn: the race came from the URL (a reload, a link). */
  reveal?: boolean;
}

/** The race of one experiment: while it runs, how far it got; then the replay, or why there is none. */
export function RaceView({ raceId, onClose, reveal = false }: RaceViewProps): ReactNode {
  const race = useRace(raceId);
  const root = useRef<HTMLDivElement>(null);
  const revealed = useRef(false);
  const loaded = race.data !== undefined || race.isError;
  useEffect(() => {
    if (!reveal || !loaded || revealed.current) return;
    revealed.current = true;
    root.current?.scrollIntoView({ block: 'start' });
  }, [reveal, loaded]);
  const close = (
    <button type="button" className="link race-close" onClick={onClose}>
      close the race
    </button>
  );
  if (race.isError) {
    return (
      <div className="race-view" ref={root} id={`race-${raceId}`} data-testid="race-view">
        <p className="form-error" role="alert">
          {race.error.message}
        </p>
        {close}
      </div>
    );
  }
  if (race.data === undefined) return <p className="race-status">loading the race …</p>;
  const { experiment } = race.data;
  const problem = raceProblem(race.data);
  return (
    <div className="race-view" ref={root} id={`race-${raceId}`} data-testid="race-view">
      <h3 className="race-title">
        Race {experiment.id}: {experiment.definition.variants.map((variant) => variant.name).join(' vs ')}
        {experiment.status === 'done' ? <PresentButton race={race.data} /> : null}
        {close}
      </h3>
      {experiment.status === 'running' ? (
        <p className="race-status" role="status">
          Racing: run {Math.min(experiment.runs.length + 1, experiment.plannedRuns)} of {experiment.plannedRuns}, each
          captured at {race.data.captureHz} Hz. The replay starts when every round has run.
        </p>
      ) : problem !== null ? (
        <p className="race-problem" role="alert">
          {problem}
        </p>
      ) : (
        <RaceReplay race={race.data} />
      )}
      {experiment.summary.length > 0 ? <RaceMedians race={race.data} /> : null}
      <ExplainIoFigures experiment={experiment} />
      {experiment.status === 'done' && race.data.lanes.length > 0 ? (
        <p className="race-export">
          <a href={`/api/race/${experiment.id}/export`} download>
            Download as a recording file
          </a>{' '}
          (opens anywhere with <code>npm start -- open FILE</code>; the runs follow one another on its time line)
        </p>
      ) : null}
    </div>
  );
}
