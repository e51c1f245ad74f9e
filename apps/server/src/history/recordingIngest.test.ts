import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordingRecord } from './recordingFileReader.ts';
import { syntheticHistory, syntheticRecording } from './recordingFileFixture.ts';
import { writeRecordingFile } from './recordingFileWriter.ts';
import { RECORDING_TARGET, bodyBytes, ingestRecording } from './recordingIngest.ts';
import { RecordingDatabases } from './recordingDatabases.ts';
import { checkRecordedBody } from './recordedBodyCheck.ts';
import { SamplesFile } from './recordingSamples.ts';
import { StoreHistoryReader } from './storeReader.ts';

const source = syntheticRecording({ durationMs: 2_000 });
const frame = source.frames[1];
if (frame === undefined) throw new Error('the fixture has no frames');
const record: Exclude<RecordingRecord, { k: 'event' }> = { k: 'frame', v: frame };

describe('bodyBytes', () => {
  const body = (line: string | null): string =>
    bodyBytes(record, line === null ? null : Buffer.from(line)).toString('utf8');

  it("slices v out of a line in the writer's own layout", () => {
    expect(body(JSON.stringify(record))).toBe(JSON.stringify(frame));
  });

  it('encodes v again for a line with other keys (the reader passes none) or another layout', () => {
    const encoded = JSON.stringify(frame);
    expect(body(null)).toBe(encoded);
    expect(body(`{"k":"frame","v":${encoded}}\r`)).toBe(encoded);
    expect(body(`{"v":${encoded},"k":"frame"}`)).toBe(encoded);
  });

  it('keeps JSON whitespace inside the slice: the body is stored as text and parses to v', () => {
    const encoded = JSON.stringify(frame);
    expect(JSON.parse(body(`{"k":"frame","v":\t${encoded}}`))).toEqual(frame);
  });
});

describe('ingestRecording', { timeout: 60_000 }, () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'aioscope-ingest-test-'));
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  /** The writer's file of the fixture's 2 s, as lines to edit. */
  async function writtenLines(): Promise<string[]> {
    const written = path.join(folder, `written-${Math.random()}.aioscope.gz`);
    await writeRecordingFile(syntheticHistory('embedded', { durationMs: 2_000 }), source.header.range, written);
    return gunzipSync(await readFile(written))
      .toString('utf8')
      .trimEnd()
      .split('\n');
  }

  /** Ingests `lines` and reads them back through the reader an opened recording gets. */
  async function opened(lines: string[]): Promise<{ reader: StoreHistoryReader; close: () => Promise<void> }> {
    const file = path.join(folder, `edited-${Math.random()}.aioscope.gz`);
    await writeFile(file, gzipSync(`${lines.join('\n')}\n`));
    const ingested = await ingestRecording(file, await mkdtemp(path.join(folder, 'db-')));
    const databases = new RecordingDatabases();
    const span = source.header.range.to - source.header.range.from;
    const attached = await databases.attach(ingested.database, {
      limits: { rawMs: span, rollupMs: span, maxBytes: 0 },
    });
    const samples = new SamplesFile(ingested.samplesFile);
    const reader = new StoreHistoryReader('r', attached, () => ({ ...source.header }), {
      storedAs: RECORDING_TARGET,
      parseBody: checkRecordedBody,
      samples,
    });
    return {
      reader,
      close: async () => {
        await attached.detach();
        await samples.close();
        databases.close();
      },
    };
  }

  /** The file as version 1 wrote it: no roll-ups, so every sample is parsed and rolled up at open. */
  function withoutRollups(lines: string[]): string[] {
    const header = JSON.parse(lines[0] ?? '') as { counts: Record<string, number> };
    const counts = { ...header.counts, rollups: undefined };
    const end = JSON.parse(lines.at(-1) ?? '') as { counts: Record<string, number> };
    return [
      JSON.stringify({ ...header, version: 1, counts }),
      ...lines.slice(1, -1).filter((line) => !line.startsWith('{"k":"rollup"')),
      JSON.stringify({ ...end, counts: { ...end.counts, rollups: undefined } }),
    ];
  }

  it("serves a file's own roll-ups exactly as one rolled up at open (version 1), and the same samples", async () => {
    const lines = await writtenLines();
    const own = await opened(lines);
    const rolledUp = await opened(withoutRollups(lines));
    try {
      const { range } = source.header;
      const points = await own.reader.rollups(range, 1_000);
      expect(points.length).toBe(2);
      expect(points).toStrictEqual(await rolledUp.reader.rollups(range, 1_000));
      expect(await own.reader.frames(range)).toStrictEqual(await rolledUp.reader.frames(range));
      expect((await own.reader.frames(range)).frames).toEqual(source.frames);
      expect(await own.reader.extent()).toStrictEqual(await rolledUp.reader.extent());
    } finally {
      await own.close();
      await rolledUp.close();
    }
  });

  it('opens a file that rolls itself up without checking its samples, and refuses the read of a bad one', async () => {
    const lines = await writtenLines();
    const bad = lines.findIndex((line, index) => index > 20 && line.startsWith('{"k":"frame"'));
    const badT = (JSON.parse(lines[bad] ?? '') as { v: { t: number } }).v.t;
    lines[bad] = (lines[bad] ?? '').replace(/"sampleMs":[0-9.]+/, '"sampleMs":"slow"');
    // Version 1 checks every line at open: the file is refused, naming the line.
    await expect(opened(withoutRollups(lines))).rejects.toThrow(
      new RegExp(`^corrupted: line ${bad + 1}: v.sampleMs: `),
    );
    const { reader, close } = await opened(lines);
    try {
      const before = await reader.frames({ from: source.header.range.from, to: badT });
      expect(before.frames.length).toBeGreaterThan(0);
      await expect(reader.frames(source.header.range)).rejects.toMatchObject({
        statusCode: 422,
        message: `corrupted: the recording's frame at ${new Date(badT).toISOString()} is not a valid record (sampleMs: Invalid input: expected number, received string; the file was edited or damaged)`,
      });
    } finally {
      await close();
    }
  });

  it('keeps every body readable whatever the layout of its line: extra keys, tabs between tokens', async () => {
    const written = path.join(folder, 'written.aioscope.gz');
    await writeRecordingFile(syntheticHistory('embedded', { durationMs: 2_000 }), source.header.range, written);
    const lines = gunzipSync(await readFile(written))
      .toString('utf8')
      .trimEnd()
      .split('\n');
    // Valid JSON a hand-edited or foreign writer may produce: the reader accepts it (unknown keys
    // are dropped by the schemas), and a slice of such a line is not v.
    const edited = lines.map((line, index) => {
      if (index === 0 || !line.startsWith('{"k":"frame"')) return line;
      return index % 2 === 0 ? `${line.slice(0, -1)},"note":"}"}` : line.replace('"v":', '"v":\t');
    });
    const file = path.join(folder, 'edited.aioscope.gz');
    await writeFile(file, gzipSync(`${edited.join('\n')}\n`));
    const databaseFolder = await mkdtemp(path.join(folder, 'db-'));
    const ingested = await ingestRecording(file, databaseFolder);
    expect(ingested.counts).toEqual({ ...source.header.counts, rollups: 2 });

    const databases = new RecordingDatabases();
    try {
      const span = source.header.range.to - source.header.range.from;
      const attached = await databases.attach(ingested.database, {
        limits: { rawMs: span, rollupMs: span, maxBytes: 0 },
      });
      const reader = new StoreHistoryReader('r', attached, () => ({ ...source.header }), {
        storedAs: RECORDING_TARGET,
        samples: new SamplesFile(ingested.samplesFile),
      });
      const read = await reader.frames(source.header.range);
      expect(read.frames).toEqual(source.frames);
      expect(read.processes).toEqual(source.processes);
      await attached.detach();
    } finally {
      databases.close();
    }
  });
});
