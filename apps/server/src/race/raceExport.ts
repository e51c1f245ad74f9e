import {
  RACE_CAPTURE_HZ,
  RECORDING_FORMAT,
  RECORDING_VERSION,
  type Capabilities,
  type HistoryEvent,
  type LiveFrame,
  type ServerInfo,
} from '@aioscope/spec';
import { MemoryHistory } from '../history/memoryHistory.ts';
import { PRODUCER_VERSION } from '../history/recordingFile.ts';
import { prepareRecording, type PreparedRecording } from '../history/recordingFileWriter.ts';
import type { StoredCapture } from './raceLanes.ts';

export interface RaceExportSource {
  raceId: string;
  target: { id: string; name: string };
  server: ServerInfo | null;
  capabilities: Capabilities | null;
  captures: readonly StoredCapture[];
}

/** The events that mark where each lane (each captured run) starts and ends on the time line. */
export function laneEvents(captures: readonly StoredCapture[]): HistoryEvent[] {
  return captures
    .filter((capture) => capture.frames.length > 0)
    .flatMap((capture): HistoryEvent[] => [
      { t: capture.startT, kind: 'labRunStarted', message: `race lane ${capture.variant}, round ${capture.round}` },
      {
        t: capture.endT,
        kind: 'labRunEnded',
        message: `race lane ${capture.variant}, round ${capture.round} ended (${capture.frames.length} frames)`,
      },
    ])
    .sort((a, b) => a.t - b.t);
}

/**
 * A race as a recording file in the history format, unchanged: the lanes ran one after another on
 * the same server, so their frames already have one time order, and the file holds them as one
 * target's past with labRunStarted / labRunEnded events at each lane's ends. `open FILE` shows the
 * runs in sequence on the time line; no lane is dropped and no new record kind is needed.
 */
export async function prepareRaceRecording(source: RaceExportSource): Promise<PreparedRecording | null> {
  const frames: LiveFrame[] = source.captures.flatMap((capture) => capture.frames).sort((a, b) => a.t - b.t);
  const first = frames[0];
  const last = frames[frames.length - 1];
  if (first === undefined || last === undefined) return null;
  const range = { from: Math.floor(first.t), to: Math.floor(last.t) + 1 };
  const target = { id: source.target.id, name: `${source.target.name}, race ${source.raceId}` };
  const history = new MemoryHistory(target.id, {
    header: {
      format: RECORDING_FORMAT,
      version: RECORDING_VERSION,
      producer: PRODUCER_VERSION,
      createdAt: Date.now(),
      target,
      server: source.server,
      capabilities: source.capabilities,
      sampleRateHz: RACE_CAPTURE_HZ,
      statRateHz: 1,
      range,
      counts: { frames: frames.length, ioDeltas: 0, processes: 0, events: 0 },
    },
    frames,
    ioDeltas: [],
    processes: [],
    events: laneEvents(source.captures),
    compressedBytes: 0,
  });
  return prepareRecording(history, range);
}
