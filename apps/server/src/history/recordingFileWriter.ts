import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip, gzipSync } from 'node:zlib';
import {
  RECORDING_FORMAT,
  RECORDING_VERSION,
  type HistoryRange,
  type LiveFrame,
  type RecordingCounts,
  type RecordingHeader,
  type RecordingLine,
} from '@aioscope/spec';
import type { HistoryReader } from './historyReader.ts';
import { PRODUCER_VERSION } from './recordingFile.ts';
import { SecondRollups } from './secondRollups.ts';

/**
 * Writes a range of a target's history as a recording file: gzip of NDJSON, header first, records
 * in time order, an 'end' trailer with the counts.
 *
 * The header carries the counts too, but they are known only once every record is written, and an
 * hour at 100 Hz must not be held in memory. So the records are compressed into a temporary file
 * as they are read (one minute of the store at a time), and the file is served as three gzip
 * members: header, that body, trailer. gunzip reads concatenated members as one stream.
 *
 * After the records come the 1 s roll-ups of what was written ('rollup' lines, in time order),
 * built by the same accumulators the recorder uses: a running aioscope opening the file then
 * stores its frames' bodies as they are, unparsed, instead of parsing every frame to roll it up
 * (an hour at 100 Hz is 360,000 frames; parsing them was most of an open's time).
 */

/** How much of the store is read at once: bounded memory whatever the rate. */
const CHUNK_MS = 60_000;

type Timed = { t: number; line: RecordingLine };

/** The records of [from, to) in time order, chunk by chunk, counting them as they go. */
async function* recordLines(
  reader: HistoryReader,
  range: HistoryRange,
  counts: RecordingCounts,
): AsyncGenerator<string> {
  let firstFrameWritten = false;
  const rollups = new SecondRollups();
  for (let from = range.from; from < range.to; from += CHUNK_MS) {
    const chunk = { from, to: Math.min(range.to, from + CHUNK_MS) };
    const [past, events] = await Promise.all([reader.frames(chunk), reader.events(chunk)]);
    const frames: LiveFrame[] = firstFrameWritten ? past.frames : withScanMapAtStart(past.frames, past.scansBefore);
    firstFrameWritten ||= frames.length > 0;
    const timed: Timed[] = [
      ...frames.map((v): Timed => ({ t: v.t, line: { k: 'frame', v } })),
      ...past.ioDeltas.map((v): Timed => ({ t: v.t, line: { k: 'ioDelta', v } })),
      ...past.processes.map((v): Timed => ({ t: v.t, line: { k: 'processes', v } })),
      ...events.map((v): Timed => ({ t: v.t, line: { k: 'event', v } })),
    ];
    // Sources are each in order; the merge makes the file's single time order (stable for ties).
    const inRange = timed.filter((item) => item.t >= chunk.from && item.t < chunk.to).sort((a, b) => a.t - b.t);
    let text = '';
    for (const { line } of inRange) {
      if (line.k === 'frame') {
        counts.frames++;
        rollups.addFrame(line.v);
      } else if (line.k === 'ioDelta') {
        counts.ioDeltas++;
        rollups.addIoDelta(line.v);
      } else if (line.k === 'processes') counts.processes++;
      else if (line.k === 'event') counts.events++;
      text += `${JSON.stringify(line)}\n`;
    }
    if (text !== '') yield text;
  }
  // An hour holds 3,600 seconds: kept until the end, so each second is one line, late deltas included.
  const seconds = rollups.takeAll().sort((a, b) => a.t - b.t);
  counts.rollups = seconds.length;
  let text = '';
  for (const v of seconds) text += `${JSON.stringify({ k: 'rollup', v } satisfies RecordingLine)}\n`;
  if (text !== '') yield text;
}

/**
 * Frames carry the scan map only when it changed ("absent" means unchanged), so a file cut out of
 * the middle of a history would show no scan map until the next frame that carries one: after a
 * scan ended, possibly never (its finished scans no longer change). The first frame of the file
 * gets the map in force at its time, from the newest earlier frame that carried one.
 */
function withScanMapAtStart(frames: LiveFrame[], scansBefore: LiveFrame | null): LiveFrame[] {
  const [first, ...rest] = frames;
  if (first === undefined || first.scans !== undefined || scansBefore?.scans === undefined) return frames;
  return [{ ...first, scans: scansBefore.scans }, ...rest];
}

/** A recording whose records are written and counted, ready to be streamed once. */
export interface PreparedRecording {
  header: RecordingHeader;
  counts: RecordingCounts;
  /** The whole file as a byte stream; the temporary body is removed when it ends or is destroyed. */
  stream(): Readable;
  /** Removes the temporary body (when the stream is never taken). Idempotent. */
  dispose(): Promise<void>;
}

export async function prepareRecording(
  reader: HistoryReader,
  range: HistoryRange,
  createdAt: number = Date.now(),
): Promise<PreparedRecording> {
  const folder = await mkdtemp(path.join(tmpdir(), 'aioscope-export-'));
  const dispose = (): Promise<void> => rm(folder, { recursive: true, force: true });
  const bodyPath = path.join(folder, 'body.gz');
  const counts: RecordingCounts = { frames: 0, ioDeltas: 0, processes: 0, events: 0, rollups: 0 };
  let header: RecordingHeader;
  try {
    await pipeline(Readable.from(recordLines(reader, range, counts)), createGzip(), createWriteStream(bodyPath));
    header = {
      format: RECORDING_FORMAT,
      version: RECORDING_VERSION,
      producer: PRODUCER_VERSION,
      createdAt,
      // As the target was when the range began, not as it is now (another server version since?).
      ...(await reader.describeAt(range.from)),
      range: { from: range.from, to: range.to },
      counts,
    };
  } catch (error) {
    await dispose();
    throw error;
  }
  const trailer: RecordingLine = { k: 'end', counts };
  async function* parts(): AsyncGenerator<Buffer> {
    yield gzipSync(`${JSON.stringify(header)}\n`);
    for await (const chunk of createReadStream(bodyPath)) yield chunk as Buffer;
    yield gzipSync(`${JSON.stringify(trailer)}\n`);
  }
  return {
    header,
    counts,
    stream: () => {
      const stream = Readable.from(parts(), { objectMode: false });
      stream.once('close', () => void dispose());
      return stream;
    },
    dispose,
  };
}

/** Writes [from, to) of a target's history to a file (tests, the bench, a future CLI export). */
export async function writeRecordingFile(
  reader: HistoryReader,
  range: HistoryRange,
  filePath: string,
): Promise<RecordingCounts> {
  const prepared = await prepareRecording(reader, range);
  try {
    await pipeline(prepared.stream(), createWriteStream(filePath));
    return prepared.counts;
  } finally {
    await prepared.dispose();
  }
}
