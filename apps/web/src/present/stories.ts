import { busyShare, emptyTally, tallyFrame, type LiveWindowSummary } from '@aioscope/core';
import type { LiveFrame, Race } from '@aioscope/spec';
import { formatBytes, formatNumber, formatPercent } from '../format.ts';

/**
 * Presentation mode tells one story per screen, in large type. Live stories read the dashboard's
 * newest frames; without them (a race opened from the lab) they tell the race's captured runs.
 */

export interface StoryFigure {
  label: string;
  value: string;
}

export interface Story {
  id: 'inflight' | 'combining' | 'workers' | 'race';
  title: string;
  /** live: the dashboard's newest frames; replayed: the race's captured runs. */
  source: 'live' | 'replayed';
  figures: StoryFigure[];
  caption: string;
}

export interface StoryInputs {
  /** The dashboard's frames, newest last (the live window). */
  frames?: readonly LiveFrame[] | undefined;
  summary?: LiveWindowSummary | undefined;
  race?: Race | undefined;
}

const BLOCK = 8192;

function maxInflight(frames: readonly LiveFrame[]): number {
  return frames.reduce((max, frame) => Math.max(max, frame.inflight?.total.count ?? 0), 0);
}

function liveStories(frames: readonly LiveFrame[], summary: LiveWindowSummary | undefined): Story[] {
  const latest = frames[frames.length - 1];
  const workers = latest?.ioWorkers ?? [];
  const perRead = summary?.liveBytesPerRead ?? null;
  return [
    {
      id: 'inflight',
      title: 'Reads in flight',
      source: 'live',
      figures: [
        { label: 'now', value: formatNumber(latest?.inflight?.total.count ?? null, 0) },
        { label: 'bytes in flight', value: formatBytes(latest?.inflight?.total.bytes ?? null) },
        { label: 'mean over the window', value: formatNumber(summary?.meanInflightReads ?? null, 1) },
      ],
      caption: 'Reads the server has asked for and not yet got back (pg_aios): asynchronous I/O at work.',
    },
    {
      id: 'combining',
      title: 'Read combining',
      source: 'live',
      figures: [
        { label: 'bytes per read', value: formatBytes(perRead) },
        { label: 'blocks per read', value: formatNumber(perRead === null ? null : perRead / BLOCK, 1) },
      ],
      caption: 'Neighbouring 8 kB blocks travel as one read, up to io_combine_limit: fewer, larger reads.',
    },
    {
      id: 'workers',
      title: 'io workers',
      source: 'live',
      figures: [
        { label: 'busy now', value: `${workers.filter((worker) => worker.busy).length} of ${workers.length}` },
        { label: 'busy share', value: formatPercent(summary?.workerBusyFraction ?? null) },
      ],
      caption:
        workers.length === 0
          ? 'No io workers: io_method is sync or io_uring, so backends issue their own reads.'
          : 'Under io_method = worker, these processes run the reads backends hand them.',
    },
  ];
}

function replayedStories(race: Race): Story[] {
  const lanes = race.lanes;
  const per = (value: (lane: Race['lanes'][number]) => string): StoryFigure[] =>
    lanes.map((lane) => ({ label: lane.variant, value: value(lane) }));
  return [
    {
      id: 'inflight',
      title: 'Reads in flight, at most',
      source: 'replayed',
      figures: per((lane) => formatNumber(maxInflight(lane.frames), 0)),
      caption: 'The most reads each run had in flight at once (pg_aios, 100 Hz).',
    },
    {
      id: 'combining',
      title: 'Read combining',
      source: 'replayed',
      figures: per((lane) => `${formatNumber(lane.blocksPerRead, 1)} blocks`),
      caption: 'Blocks per read of each run: shared read blocks / reads (pg_stat_get_backend_io).',
    },
    {
      id: 'workers',
      title: 'io workers busy',
      source: 'replayed',
      figures: per((lane) => {
        const tally = emptyTally();
        for (const frame of lane.frames) tallyFrame(tally, frame);
        return formatPercent(busyShare(tally));
      }),
      caption: 'Share of samples in which io workers were busy during each run (– when there are none).',
    },
  ];
}

/** The stories in order: reads in flight, read combining, io workers, then the race when there is one. */
export function buildStories(inputs: StoryInputs): Story[] {
  const { frames, summary, race } = inputs;
  const stories =
    frames !== undefined && frames.length > 0
      ? liveStories(frames, summary)
      : race !== undefined && race.lanes.length > 0
        ? replayedStories(race)
        : [];
  if (race !== undefined && race.lanes.length > 0) {
    stories.push({ id: 'race', title: 'The race', source: 'replayed', figures: [], caption: '' });
  }
  return stories;
}
