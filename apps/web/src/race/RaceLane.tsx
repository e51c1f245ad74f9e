import type { ReactNode } from 'react';
import type { RaceLane } from '@aioscope/spec';
import { formatBytes, formatNumber } from '../format.ts';
import type { LaneMoment } from './raceTimeline.ts';

export interface RaceLaneProps {
  lane: RaceLane;
  moment: LaneMoment;
  /** Where the lane placed once finished: "finished first", "+62 ms", or null while running. */
  placing: string | null;
}

/** One lane: the scan's progress bar and the figures at this instant of the replay. */
export function RaceLaneView({ lane, moment, placing }: RaceLaneProps): ReactNode {
  const percent = Math.round(moment.progress * 100);
  return (
    <section className="race-lane" aria-label={`lane ${lane.variant}`} data-testid="race-lane">
      <header className="race-lane-head">
        <h4>{lane.variant}</h4>
        <span className="race-lane-round">round {lane.round}</span>
        <span className={`race-lane-placing${placing === 'finished first' ? ' first' : ''}`} aria-live="polite">
          {moment.finished ? (placing ?? 'finished') : ''}
        </span>
      </header>
      <div
        className="race-bar"
        role="progressbar"
        aria-label={`${lane.variant}: table read`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
      >
        <span className="race-bar-fill" style={{ width: `${percent}%` }} />
      </div>
      {/* Beside the bar, not on it: text over a moving fill edge loses contrast in one theme or the other. */}
      <span className="race-bar-label">{percent} % of the table read</span>
      <dl className="race-figures">
        <div>
          <dt>reads in flight</dt>
          <dd data-testid="race-inflight">{moment.readsInFlight}</dd>
        </div>
        <div>
          <dt>bytes / read</dt>
          <dd>{formatBytes(moment.bytesPerRead)}</dd>
        </div>
        <div>
          <dt>blocks / read</dt>
          <dd>{formatNumber(moment.blocksPerRead, 1)}</dd>
        </div>
        <div>
          <dt>elapsed</dt>
          <dd data-testid="race-elapsed">{formatNumber(moment.elapsedMs, 0)} ms</dd>
        </div>
      </dl>
    </section>
  );
}
