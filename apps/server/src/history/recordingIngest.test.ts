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

  it('encodes v again for a line with other keys (the reader passes none), tabs or another layout', () => {
    const encoded = JSON.stringify(frame);
    expect(body(null)).toBe(encoded);
    expect(body(`{"k":"frame","v":\t${encoded}}`)).toBe(encoded);
    expect(body(`{"k":"frame","v":${encoded}}\r`)).toBe(encoded);
    expect(body(`{"v":${encoded},"k":"frame"}`)).toBe(encoded);
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
    expect(ingested.counts).toEqual(source.header.counts);

    const databases = new RecordingDatabases();
    try {
      const span = source.header.range.to - source.header.range.from;
      const attached = await databases.attach(ingested.database, {
        rawChunks: ingested.rawChunks,
        limits: { rawMs: span, rollupMs: span, maxBytes: 0 },
      });
      const reader = new StoreHistoryReader('r', attached, () => ({ ...source.header }), RECORDING_TARGET);
      const read = await reader.frames(source.header.range);
      expect(read.frames).toEqual(source.frames);
      expect(read.processes).toEqual(source.processes);
      await attached.detach();
    } finally {
      databases.close();
    }
  });
});
