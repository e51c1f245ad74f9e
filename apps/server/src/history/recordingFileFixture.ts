import { RECORDING_FORMAT, RECORDING_VERSION, type HistoryEvent, type RecordingHeader } from '@aioscope/spec';
import { buildPayloads, overTheWire, recordedServers } from '@aioscope/core/testing';
import { MemoryHistory } from './memoryHistory.ts';
import { PRODUCER_VERSION } from './recordingFile.ts';
import type { LoadedRecording } from './recordingFileReader.ts';

/**
 * Test and bench only: a recording of any length made of frames recorded from a real PostgreSQL 18
 * (packages/core/fixtures), repeated on a steady time line, as a monitor at `rateHz` would have
 * sent them, with a pg_stat_io delta each second, a processes table at 2 Hz and two events.
 */
export interface SyntheticRecordingOptions {
  start?: number;
  durationMs?: number;
  rateHz?: number;
}

export const SYNTHETIC_START = Date.UTC(2026, 10, 29, 21, 51, 7);

/** The item at index, wrapping around: a short recording repeated to any length. */
function cycle<T>(items: readonly T[], index: number): T {
  const item = items[index % items.length];
  if (item === undefined) throw new Error('the recorded fixture has no samples');
  return item;
}

export function syntheticRecording(options: SyntheticRecordingOptions = {}): LoadedRecording {
  const { start = SYNTHETIC_START, durationMs = 10_000, rateHz = 20 } = options;
  const payloads = buildPayloads(cycle(recordedServers(), 0));
  // Through JSON as a file would carry them: numeric keys become strings, undefined disappears.
  const base = overTheWire(payloads.frames) as typeof payloads.frames;
  const baseDeltas = overTheWire(payloads.ioDeltas) as typeof payloads.ioDeltas;
  const processLists = overTheWire(payloads.processLists) as typeof payloads.processLists;
  const count = Math.floor((durationMs * rateHz) / 1000);
  const at = (index: number): number => start + Math.round((index * 10_000) / rateHz) / 10;
  const frames = Array.from({ length: count }, (_, index) => ({ ...cycle(base, index), t: at(index) }));
  const seconds = Math.floor(durationMs / 1000);
  const ioDeltas = Array.from({ length: seconds }, (_, s) => ({
    ...cycle(baseDeltas, s),
    t: start + s * 1000 + 400,
  }));
  const processes = Array.from({ length: seconds * 2 }, (_, half) => ({
    t: start + half * 500 + 10,
    processes: cycle(processLists, half).processes,
  }));
  const events: HistoryEvent[] = [
    { t: start, kind: 'connected', message: 'connected to embedded PostgreSQL 18' },
    {
      t: start + Math.floor(durationMs / 2),
      kind: 'settingsChanged',
      message: 'io_combine_limit 128kB → 8kB, "quoted"',
    },
  ];
  const header: RecordingHeader = {
    format: RECORDING_FORMAT,
    version: RECORDING_VERSION,
    producer: PRODUCER_VERSION,
    createdAt: start + durationMs + 5_000,
    target: { id: 'embedded', name: payloads.summary.name },
    server: payloads.summary.server,
    capabilities: payloads.summary.capabilities,
    sampleRateHz: rateHz,
    statRateHz: 1,
    range: { from: start, to: start + durationMs },
    counts: { frames: frames.length, ioDeltas: ioDeltas.length, processes: processes.length, events: events.length },
  };
  return { header, frames, ioDeltas, processes, events, compressedBytes: 0 };
}

/** The same recording as the live store would serve it, for the writer and the routes. */
export function syntheticHistory(targetId = 'embedded', options: SyntheticRecordingOptions = {}): MemoryHistory {
  return new MemoryHistory(targetId, syntheticRecording(options));
}
