import { rollup, stepStart } from '@aioscope/core';
import type { HistoryEvent, HistoryExtent, HistoryFrames, HistoryRange, LiveFrame, RollupPoint } from '@aioscope/spec';
import type { HistoryReader } from './historyReader.ts';
import type { LoadedRecording } from './recordingFileReader.ts';

/** Index of the first item with t >= at, in a list sorted by t (the file guarantees the order). */
export function firstAtOrAfter(items: readonly { t: number }[], at: number): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((items[middle]?.t ?? Infinity) < at) low = middle + 1;
    else high = middle;
  }
  return low;
}

function within<T extends { t: number }>(items: readonly T[], range: HistoryRange): T[] {
  return items.slice(firstAtOrAfter(items, range.from), firstAtOrAfter(items, range.to));
}

/**
 * A HistoryReader over a recording file loaded in memory: the history routes serve it exactly as
 * they serve the recorder's store. Roll-ups are computed from the raw frames with core's rollup(),
 * the one definition the store uses too, so both give the same figures for the same frames.
 */
export class MemoryHistory implements HistoryReader {
  /** Frames that carry a scan map, for scansBefore without walking back through every frame. */
  private readonly framesWithScans: LiveFrame[];

  constructor(
    readonly targetId: string,
    private readonly recording: LoadedRecording,
  ) {
    this.framesWithScans = recording.frames.filter((frame) => frame.scans !== undefined);
  }

  extent(): Promise<HistoryExtent> {
    const { frames, header } = this.recording;
    const first = frames[0];
    const last = frames[frames.length - 1];
    const span = header.range.to - header.range.from;
    return Promise.resolve({
      targetId: this.targetId,
      recording: { state: 'off', reason: 'a recording file: nothing new is recorded' },
      raw: first !== undefined && last !== undefined ? { from: first.t, to: last.t } : null,
      rollups: first !== undefined && last !== undefined ? { from: stepStart(first.t), to: stepStart(last.t) } : null,
      // Nothing ages out of a file: its own span is what is kept.
      retention: { rawMs: span, rollupMs: span, maxBytes: this.recording.compressedBytes },
      bytesOnDisk: 0,
    });
  }

  frames(range: HistoryRange): Promise<HistoryFrames> {
    const { frames, ioDeltas, processes } = this.recording;
    const scansIndex = firstAtOrAfter(this.framesWithScans, range.from);
    const processesIndex = firstAtOrAfter(processes, range.from);
    return Promise.resolve({
      targetId: this.targetId,
      from: range.from,
      to: range.to,
      frames: within(frames, range),
      ioDeltas: within(ioDeltas, range),
      processes: within(processes, range),
      scansBefore: this.framesWithScans[scansIndex - 1] ?? null,
      processesBefore: processes[processesIndex - 1] ?? null,
    });
  }

  rollups(range: HistoryRange, stepMs: number): Promise<RollupPoint[]> {
    const { frames, ioDeltas } = this.recording;
    return Promise.resolve(rollup(within(frames, range), within(ioDeltas, range), range.from, range.to, stepMs));
  }

  events(range: HistoryRange): Promise<HistoryEvent[]> {
    return Promise.resolve(within(this.recording.events, range));
  }

  /** One description for all of it, as a recording file's header. */
  describeAt(): ReturnType<HistoryReader['describe']> {
    return this.describe();
  }

  describe(): ReturnType<HistoryReader['describe']> {
    const { target, server, capabilities, sampleRateHz, statRateHz } = this.recording.header;
    return Promise.resolve({ target, server, capabilities, sampleRateHz, statRateHz });
  }

  get header(): LoadedRecording['header'] {
    return this.recording.header;
  }
}
