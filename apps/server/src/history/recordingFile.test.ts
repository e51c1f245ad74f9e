import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { RollupAccumulator } from '@aioscope/core';
import { RECORDING_VERSION, recordingHeaderSchema, type LiveFrame, type RecordingRollup } from '@aioscope/spec';
import { RecordingFileError, recordingFileName } from './recordingFile.ts';
import { SYNTHETIC_START, syntheticHistory, syntheticRecording } from './recordingFileFixture.ts';
import { readRecording } from './recordingFileReader.ts';
import { writeRecordingFile } from './recordingFileWriter.ts';
import { SecondRollups } from './secondRollups.ts';

const DURATION_MS = 130_000; // more than two of the writer's one-minute chunks
const source = syntheticRecording({ durationMs: DURATION_MS });
const range = source.header.range;
let folder: string;
let file: Buffer;

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'aioscope-recording-test-'));
  const filePath = path.join(folder, 'round-trip.aioscope.gz');
  await writeRecordingFile(syntheticHistory('embedded', { durationMs: DURATION_MS }), range, filePath);
  file = await readFile(filePath);
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** The file's lines, to be edited into a bad file and compressed again. */
function lines(): string[] {
  return gunzipSync(file).toString('utf8').trimEnd().split('\n');
}
const gzipLines = (edited: string[]): Buffer => gzipSync(`${edited.join('\n')}\n`);

async function refusal(bytes: Buffer): Promise<string> {
  const error = await readRecording(bytes).then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(RecordingFileError);
  return (error as Error).message;
}

/** What the recorder rolls the source's frames and deltas up to, second by second. */
function expectedRollups(): RollupAccumulator[] {
  const rollups = new SecondRollups();
  for (const frame of source.frames) rollups.addFrame(frame);
  for (const delta of source.ioDeltas) rollups.addIoDelta(delta);
  return rollups.takeAll().sort((a, b) => a.t - b.t);
}

describe('recording file round trip', () => {
  it('reads back every record as written, in the same order', async () => {
    const loaded = await readRecording(file);
    expect(loaded.frames).toEqual(source.frames);
    expect(loaded.ioDeltas).toEqual(source.ioDeltas);
    expect(loaded.processes).toEqual(source.processes);
    expect(loaded.events).toEqual(source.events);
    expect(loaded.frames.length).toBe(2_600);
  });

  it('describes itself in its header: producer, server, settings, capabilities, rate, range, counts', async () => {
    const header = recordingHeaderSchema.parse(JSON.parse(lines()[0] ?? ''));
    expect(header.version).toBe(RECORDING_VERSION);
    expect(header.producer).toMatch(/^aioscope \d+\.\d+\.\d+/);
    expect(header.server?.settings.length).toBeGreaterThan(0);
    expect(header.capabilities).toEqual(source.header.capabilities);
    expect(header.sampleRateHz).toBe(20);
    expect(header.range).toEqual(range);
    const counts = { ...source.header.counts, rollups: expectedRollups().length };
    expect(header.counts).toEqual(counts);
    expect(JSON.parse(lines().at(-1) ?? '')).toEqual({ k: 'end', counts });
  });

  it("carries its own 1 s roll-ups after the records: the recorder's accumulators over what it holds", async () => {
    const loaded = await readRecording(file);
    // The file's schema is core's accumulator, field for field (checked by tsc).
    expectTypeOf<RecordingRollup>().toEqualTypeOf<RollupAccumulator>();
    expect(loaded.rollups).toEqual(expectedRollups());
    expect(loaded.rollups?.length).toBe(DURATION_MS / 1000);
    const kinds = lines()
      .slice(1, -1)
      .map((line) => (JSON.parse(line) as { k: string }).k);
    expect(kinds.indexOf('rollup')).toBe(kinds.length - DURATION_MS / 1000);
  });

  it('starts a file cut from the middle with the scan map in force there, not with none', async () => {
    // Recorded frames carry the scan map on every fourth sample; cut where the first frame has none
    // and the map in force is not empty.
    let mapInForce: LiveFrame['scans'];
    const start = source.frames.find((frame) => {
      if (frame.scans === undefined) return (mapInForce?.length ?? 0) > 0;
      mapInForce = frame.scans;
      return false;
    });
    if (start === undefined) throw new Error('the fixture never has a scan in progress');
    const before = { scans: mapInForce };
    const cutPath = path.join(folder, 'cut.aioscope.gz');
    const cut = { from: start.t, to: start.t + 2_000 };
    await writeRecordingFile(syntheticHistory('embedded', { durationMs: DURATION_MS }), cut, cutPath);

    const loaded = await readRecording(await readFile(cutPath));
    expect(loaded.frames[0]?.t).toBe(start.t);
    expect(loaded.frames[0]?.scans).toEqual(before.scans);
    // Only the first frame is completed: the others are written as they were kept.
    const kept = source.frames.filter((frame) => frame.t >= cut.from && frame.t < cut.to);
    expect(loaded.frames.slice(1)).toEqual(kept.slice(1));
  });

  it('describes the target as it was when the range began, not as it is now', async () => {
    const history = syntheticHistory('embedded', { durationMs: DURATION_MS });
    const now = await history.describe();
    const asked: number[] = [];
    // A store that kept an older server version for the range's start (an upgrade came since).
    const before = { ...now, server: now.server === null ? null : { ...now.server, version: '17.6' } };
    const upgraded: typeof history = Object.assign(Object.create(history) as typeof history, {
      describeAt: (t: number) => {
        asked.push(t);
        return Promise.resolve(before);
      },
    });
    const filePath = path.join(folder, 'before-upgrade.aioscope.gz');
    const cut = { from: range.from + 1_000, to: range.from + 3_000 };
    await writeRecordingFile(upgraded, cut, filePath);
    const loaded = await readRecording(await readFile(filePath));
    expect(asked).toEqual([cut.from]);
    expect(loaded.header.server?.version).toBe('17.6');
    expect(now.server?.version).not.toBe('17.6');
  });

  it('names files after the target and the range start', () => {
    expect(recordingFileName('embedded PostgreSQL 18', SYNTHETIC_START)).toBe(
      'aioscope-embedded-postgresql-18-2026-11-29T21-51-07Z.aioscope.gz',
    );
  });
});

describe('recording file refusals', () => {
  it('refuses a file that is not gzip', async () => {
    expect(await refusal(Buffer.from(lines().join('\n')))).toMatch(
      /not an aioscope recording: it is not gzip-compressed/,
    );
  });

  it('refuses a foreign gzip and foreign JSON', async () => {
    expect(await refusal(gzipSync('col1,col2\n1,2\n'))).toMatch(
      /not an aioscope recording: its first line is not JSON/,
    );
    expect(await refusal(gzipSync('{"format":"pgcenter","version":1}\n'))).toMatch(
      /not an aioscope recording: its first line is not a recording header/,
    );
    expect(await refusal(gzipSync(Buffer.alloc(5 * 1024 * 1024, 0x41)))).toMatch(/not an aioscope recording/);
  });

  it('refuses a file written by a newer format version, naming both versions', async () => {
    const edited = lines();
    edited[0] = JSON.stringify({
      ...(JSON.parse(edited[0] ?? '') as object),
      version: RECORDING_VERSION + 1,
      somethingNew: true,
    });
    expect(await refusal(gzipLines(edited))).toBe(
      `written by a newer aioscope (format v${RECORDING_VERSION + 1}); this one reads v${RECORDING_VERSION}: update aioscope to open it`,
    );
  });

  it('refuses a gzip cut short', async () => {
    expect(await refusal(file.subarray(0, Math.floor(file.length / 2)))).toMatch(
      /^truncated: the compressed data ends/,
    );
  });

  it('refuses a file without its end record, or whose counts differ', async () => {
    const withoutEnd = lines().slice(0, -1);
    expect(await refusal(gzipLines(withoutEnd))).toMatch(/^truncated: no end record after line \d+/);
    const missingFrame = lines().filter((_, index) => index !== 5);
    expect(await refusal(gzipLines(missingFrame))).toMatch(/^truncated or edited: the end record counts 2600 frames/);
  });

  it('refuses a corrupted line, saying which line and what was wrong', async () => {
    const notJson = lines();
    notJson[9] = '{"k":"frame","v":{"t":';
    expect(await refusal(gzipLines(notJson))).toBe('corrupted: line 10 is not JSON');
    const wrongField = lines();
    const record = JSON.parse(wrongField[9] ?? '') as { v: Record<string, unknown> };
    wrongField[9] = JSON.stringify({ ...record, v: { ...record.v, sampleMs: 'slow' } });
    expect(await refusal(gzipLines(wrongField))).toMatch(/^corrupted: line 10: v\.sampleMs: /);
    const damaged = Buffer.from(file);
    const middle = Math.floor(damaged.length / 2);
    damaged[middle] = (damaged[middle] ?? 0) ^ 0xff;
    expect(await refusal(damaged)).toMatch(/^(corrupted|truncated)/);
  });

  it('refuses records out of time order or outside the range', async () => {
    const swapped = lines();
    swapped.splice(3, 2, swapped[4] ?? '', swapped[3] ?? '');
    expect(await refusal(gzipLines(swapped))).toMatch(/^corrupted: line 5: time .* is before the previous record's/);
    const outside = lines();
    const header = JSON.parse(outside[0] ?? '') as { range: { from: number; to: number } };
    outside[0] = JSON.stringify({ ...header, range: { from: header.range.from, to: header.range.from + 1_000 } });
    expect(await refusal(gzipLines(outside))).toMatch(/outside the file's range/);
  });

  it('refuses roll-ups out of order, in a file that counts none, or that are not roll-ups', async () => {
    const all = lines();
    const first = all.findIndex((line) => line.startsWith('{"k":"rollup"'));
    const swapped = [...all];
    swapped.splice(first, 2, all[first + 1] ?? '', all[first] ?? '');
    expect(await refusal(gzipLines(swapped))).toMatch(
      new RegExp(`^corrupted: line ${first + 2}: roll-up .* is not after the previous one's`),
    );
    const uncounted = [...all];
    const header = JSON.parse(all[0] ?? '') as { counts: Record<string, number> };
    const counts = { ...header.counts, rollups: undefined };
    uncounted[0] = JSON.stringify({ ...header, counts });
    expect(await refusal(gzipLines(uncounted))).toBe(
      `corrupted: line ${first + 1} is a roll-up, but the header counts none`,
    );
    const broken = [...all];
    broken[first] = (all[first] ?? '').replace('"frames":', '"frames":"many","was":');
    expect(await refusal(gzipLines(broken))).toMatch(new RegExp(`^corrupted: line ${first + 1}: v.frames: `));
  });

  it('refuses a file over the size limits before reading all of it', async () => {
    const limits = { maxCompressedBytes: 1_000, maxUncompressedBytes: 1e9, maxLineBytes: 1e6, maxRecords: 1e6 };
    expect(await readRecording(file, limits).catch((error: Error) => error.message)).toBe(
      'too large: over the 1 kB limit',
    );
    const fewRecords = { ...limits, maxCompressedBytes: 1e9, maxRecords: 100 };
    expect(await readRecording(file, fewRecords).catch((error: Error) => error.message)).toBe(
      'too large: more than 100 records',
    );
  });
});
