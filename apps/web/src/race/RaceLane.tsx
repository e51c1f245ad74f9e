import type { ReactNode } from 'react';
import type { RaceLane } from '@aioscope/spec';
import { formatBytes, formatNumber } from '../format.ts';
import { RaceBar } from './RaceBar.tsx';
import type { LaneMoment } from './raceTimeline.ts';
import type { Replay } from './useReplay.ts';

export interface RaceLaneProps {
  lane: RaceLane;
  moment: LaneMoment;
  /** Where the lane placed once finished: "finished first", "+62 ms", or null while running. */
  placing: string | null;
  /** The replay's draw subscription: the bar moves between the text's refreshes. */
  replay: Pick<Replay, 'subscribe' | 'drawnMs'>;
}

/** One lane: the scan's progress bar and the figures at this instant of the replay. */
export function RaceLaneView({ lane, moment, placing, replay }: RaceLaneProps): ReactNode {
  const percent = Math.round(moment.progress * 100);
  return (
    <section className="race-lane" aria-label={`lane ${lane.variant}`} data-testid="race-lane">
      <header className="race-lane-head">
        <h4>{lane.variant}</h4>
        <span className="race-lane-round">round {lane.round}</span>
        {/* Held in place, hidden until the lane finishes: its appearing then changes no layout. */}
        <span
          className={`race-lane-placing${placing === 'finished first' ? ' first' : ''}${moment.finished ? '' : ' pending'}`}
          aria-live="polite"
        >
          {placing ?? 'finished'}
        </span>
      </header>
      <RaceBar lane={lane} subscribe={replay.subscribe} drawnMs={replay.drawnMs} percent={percent} />
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
