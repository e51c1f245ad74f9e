import { describe, expect, it } from 'vitest';
import { bytesPerReadSeries } from '@aioscope/core';
import { csvRow } from '../http/csv.ts';
import { buildPayloads, recordedServers } from '@aioscope/core/testing';
import { MemoryHistory } from '../history/memoryHistory.ts';
import { SYNTHETIC_START, syntheticRecording } from '../history/recordingFileFixture.ts';
import { FRAME_CSV_HEADER, ROLLUP_CSV_HEADER, csvOfRange, frameRow, waitCells } from './historyCsv.ts';

describe('CSV rows of frames', () => {
  it('has one cell per header column: server, ISO time, epoch ms, then the series', () => {
    const [frame] = syntheticRecording({ durationMs: 1_000 }).frames;
    if (frame === undefined) throw new Error('no frame');
    const row = frameRow('db1', frame, 131_017);
    expect(row).toHaveLength(FRAME_CSV_HEADER.length);
    expect(row.slice(0, 3)).toEqual(['db1', new Date(SYNTHETIC_START).toISOString(), SYNTHETIC_START]);
    expect(row[FRAME_CSV_HEADER.findIndex((name) => name.startsWith('bytes per read, exact'))]).toBe(131_017);
    expect(row.at(-1)).toBe(frame.sampleMs);
  });

  it("names the fast tick query's round trip so it is not taken for a time of day", () => {
    for (const header of [FRAME_CSV_HEADER, ROLLUP_CSV_HEADER]) {
      expect(header.join('|')).not.toMatch(/sample time/);
      expect(header.filter((name) => name.startsWith('sample query round trip'))).toHaveLength(1);
    }
  });

  it('counts processes per AIO wait event over backend types, idle io workers left out', () => {
    const server = recordedServers().find((candidate) => candidate.name === 'pg19beta3-worker');
    if (server === undefined) throw new Error('no pg19beta3-worker recording');
    const { frames } = buildPayloads(server);
    const frame = frames.find((f) => Object.keys(f.waits).some((key) => key !== 'io worker:IoWorkerMain'));
    if (frame === undefined) throw new Error('recording has no AIO wait');
    expect(frame.waits).toHaveProperty(['io worker:IoWorkerMain']);
    const cells = waitCells(frame.waits);
    const names = FRAME_CSV_HEADER.filter((name) => name.startsWith('waiting in '));
    expect(cells).toHaveLength(names.length);
    expect(names.join('|')).not.toContain('IoWorkerMain');
    const notIdle = Object.entries(frame.waits).filter(([key]) => !key.endsWith(':IoWorkerMain'));
    expect(cells.reduce((a, b) => a + b, 0)).toBe(notIdle.reduce((sum, [, count]) => sum + count, 0));
    for (const [key, count] of notIdle) {
      const column = names.findIndex((name) => name.startsWith(`waiting in ${key.split(':')[1]} `));
      if (column >= 0) expect(cells[column]).toBeGreaterThanOrEqual(count);
    }
  });

  it('leaves a series empty when the frame could not tell (pg_aios unreadable)', () => {
    const [recorded] = syntheticRecording({ durationMs: 1_000 }).frames;
    if (recorded === undefined) throw new Error('no frame');
    const frame = {
      ...recorded,
      inflight: null,
      newReads: null,
      ioWorkers: [],
    };
    const row = frameRow('db1', frame, null);
    const cell = (name: string): unknown => row[FRAME_CSV_HEADER.indexOf(name)];
    for (const name of [
      'reads in flight (count)',
      'bytes in flight (bytes)',
      'new reads (count)',
      'new read bytes (bytes)',
      'io worker busy share (0-1)',
    ])
      expect(cell(name), name).toBeNull();
  });
});

describe('CSV of a range', () => {
  /** Recorded frames over 150 s (three chunks), with pg_stat_io deltas of changing read sizes. */
  function history(): { reader: MemoryHistory; deltas: ReturnType<typeof syntheticRecording>['ioDeltas'] } {
    const recording = syntheticRecording({ durationMs: 150_000 });
    const real = recording.ioDeltas.find((delta) => !delta.reset && delta.reads > 0);
    if (real === undefined) throw new Error('recording has no reads');
    // Every second a delta: big combined reads, and every third second 8 kB ones, so the 10 s
    // window holds three or four of those and the weighting shows.
    const deltas = recording.ioDeltas.map((delta, s) => {
      const reads = s % 3 !== 0 ? real.reads : real.reads * 4;
      const readBytes = s % 3 !== 0 ? real.readBytes : reads * 8192;
      return { ...real, t: delta.t, reads, readBytes, bytesPerRead: readBytes / reads };
    });
    return { reader: new MemoryHistory('db1', { ...recording, ioDeltas: deltas }), deltas };
  }

  /** The header line and the data rows (numbers and a plain server name: no quoting to undo). */
  async function rowsOf(generator: AsyncGenerator<string>): Promise<[string, ...string[][]]> {
    let text = '';
    for await (const piece of generator) text += piece;
    const [header = '', ...lines] = text.split('\r\n').filter(Boolean);
    return [header, ...lines.map((line) => line.split(','))];
  }

  it('gives every frame its server and the exact bytes per read of the 10 s before it, across chunks', async () => {
    const { reader, deltas } = history();
    const range = { from: SYNTHETIC_START + 20_000, to: SYNTHETIC_START + 140_000 };
    const [header, ...rows] = await rowsOf(csvOfRange(reader, range, 'db1'));
    expect(header).toBe(csvRow(FRAME_CSV_HEADER).trimEnd());
    expect(rows).toHaveLength(120 * 20);
    const series = bytesPerReadSeries(deltas);
    const exactColumn = FRAME_CSV_HEADER.findIndex((name) => name.startsWith('bytes per read, exact'));
    for (const row of rows) {
      expect(row).toHaveLength(FRAME_CSV_HEADER.length);
      expect(row[0]).toBe('db1');
      const t = Number(row[2]);
      const expected = series.filter((point) => point.t <= t).at(-1)?.weighted ?? null;
      expect(Number(row[exactColumn]), `at ${t}`).toBeCloseTo(expected ?? NaN, 3);
    }
    // The weighting mixes the two read sizes (three or four 8 kB seconds in each window): neither alone.
    const exact = new Set(rows.map((row) => Number(row[exactColumn])));
    expect(exact.size).toBe(2);
    for (const value of exact) expect(value).toBeGreaterThan(8192);
    expect(Math.max(...exact)).toBeLessThan(deltas[1]?.bytesPerRead ?? 0);
  });

  it('gives each roll-up step its pg_stat_io reads, bytes and exact bytes per read', async () => {
    const { reader, deltas } = history();
    const range = { from: SYNTHETIC_START - 3_600_000, to: SYNTHETIC_START + 150_000 };
    const [header, ...rows] = await rowsOf(csvOfRange(reader, range, 'db1'));
    expect(header).toBe(csvRow(ROLLUP_CSV_HEADER).trimEnd());
    const column = (name: string): number => ROLLUP_CSV_HEADER.indexOf(name);
    const reads = rows.reduce((sum, row) => sum + Number(row[column('pg_stat_io reads (count in step)')]), 0);
    expect(reads).toBe(deltas.reduce((sum, delta) => sum + delta.reads, 0));
    for (const row of rows.filter((r) => Number(r[column('pg_stat_io reads (count in step)')]) > 0)) {
      expect(row[0]).toBe('db1');
      const ratio =
        Number(row[column('pg_stat_io read bytes (bytes in step)')]) /
        Number(row[column('pg_stat_io reads (count in step)')]);
      expect(Number(row[column('bytes per read, exact (pg_stat_io, bytes, reads of the step)')])).toBeCloseTo(ratio, 3);
    }
  });
});
