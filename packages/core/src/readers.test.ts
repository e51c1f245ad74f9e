import { describe, expect, it } from 'vitest';
import type { LiveFrame, ProcessesSnapshot, ProcessView } from '@aioscope/spec';
import { buildPayloads, recordedServers, type RecordedPayloads } from './testing/index.ts';
import { medianFrameInterval, mergeIntoIntervals, readersOfRange, RUNNING } from './readers.ts';
import { busyShare, emptyTally, tallyFrame } from './workerBusy.ts';

const BLOCK_SIZE = 8192;

function recorded(name: string): RecordedPayloads {
  const server = recordedServers().find((candidate) => candidate.name === name);
  if (server === undefined) throw new Error(`no recording ${name}`);
  return buildPayloads(server);
}

function readersOf(payloads: RecordedPayloads): ReturnType<typeof readersOfRange> {
  return readersOfRange({ frames: payloads.frames, processes: payloads.processLists, blockSize: BLOCK_SIZE });
}

function framesReading(frames: readonly LiveFrame[], pids: readonly number[]): LiveFrame[] {
  return frames.filter((frame) => pids.some((pid) => (frame.byProcess[pid]?.[0] ?? 0) > 0));
}

describe('readersOfRange over recorded scans', () => {
  it('names the demo scan of the embedded PostgreSQL 18 with its pg_aios and scan map figures', () => {
    const payloads = recorded('pg18.4-embedded-worker');
    const answer = readersOf(payloads);
    expect(answer.rows).toHaveLength(1);
    const [row] = answer.rows;
    const reading = framesReading(payloads.frames, [15824]);
    expect(row?.queryText).toBe('SELECT count(*) FROM aioscope_demo.scan_me');
    expect(row?.pids).toEqual([15824]);
    expect(row?.executions).toBe(1);
    expect(row?.samples).toBe(reading.length);
    expect(row?.sampleSeconds).toBeCloseTo((reading.length * (answer.sampleIntervalMs ?? 0)) / 1000, 9);
    expect(row?.firstReadAt).toBe(reading[0]?.t);
    expect(row?.readsInFlightPeak).toBe(5);
    // Every read the recording caught in flight was 16 blocks (io_combine_limit 128 kB).
    expect(row?.bytesPerReadInFlight).toBe(131072);
    const done = payloads.frames.flatMap((frame) => (frame.scans ?? []).map((scan) => scan.blocksDone));
    expect(row?.scanBytes).toBe((Math.max(...done) - Math.min(...done)) * BLOCK_SIZE);
    expect(row?.relations).toEqual(['aioscope_demo.scan_me']);
    expect(row?.waits[0]?.event).toBe('IO:AioIoCompletion');
    // io workers are not statements: they are counted apart, as the worker panel counts them.
    const tally = emptyTally();
    for (const frame of payloads.frames) tallyFrame(tally, frame);
    expect(answer.ioWorkers).toEqual({ samples: tally.samples, busyShare: busyShare(tally) });
    expect(row?.pids).not.toContain(15813);
  });

  it('puts the parallel workers of a parallel scan in their leader’s statement (io_uring, PostgreSQL 18.6)', () => {
    const payloads = recorded('pg18.6-io_uring');
    const answer = readersOf(payloads);
    expect(answer.rows).toHaveLength(1);
    const [row] = answer.rows;
    expect(row?.pids).toEqual([20674, 20675, 20676]);
    expect(row?.backendTypes).toEqual(['client backend', 'parallel worker']);
    expect(row?.executions).toBe(1);
    expect(row?.samples).toBe(framesReading(payloads.frames, [20674, 20675, 20676]).length);
    expect(answer.ioWorkers.busyShare).toBeNull();
  });

  it('answers nothing, not zero, where pg_aios could not be read (no grants)', () => {
    const answer = readersOf(recorded('pg18.6-io_uring-no-grants'));
    expect(answer.rows).toEqual([]);
    expect(answer.framesWithInflight).toBe(0);
  });
});

function process(pid: number, overrides: Partial<ProcessView> = {}): ProcessView {
  return {
    pid,
    backendType: 'client backend',
    database: 'app',
    user: 'app',
    state: 'active',
    queryStart: pid,
    queryPreview: 'SELECT * FROM orders',
    waitEventType: 'IO',
    waitEvent: 'DataFileRead',
    readsInFlight: 1,
    bytesInFlight: 8192,
    limit: { name: 'effective_io_concurrency', value: 16 },
    ioMaxConcurrency: 64,
    activity: 'SELECT',
    ...overrides,
  };
}

function frameAt(t: number, byProcess: Record<number, [number, number]>): LiveFrame {
  const template = recorded('pg18.4-embedded-worker').frames[1];
  if (template === undefined) throw new Error('no frame');
  return { ...template, t, byProcess, scans: undefined, ioWorkers: [] };
}

describe('readersOfRange grouping', () => {
  const processes: ProcessesSnapshot[] = [
    { t: 0, processes: [process(11), process(12), process(13, { queryPreview: 'VACUUM orders', waitEvent: null })] },
    {
      t: 500,
      processes: [
        process(11),
        process(12),
        process(13, { queryPreview: 'VACUUM orders', waitEvent: null }),
        process(14, { backendType: 'io worker' }),
      ],
    },
  ];
  const frames = [
    frameAt(100, { 11: [2, 16384], 13: [1, 8192] }),
    frameAt(150, { 11: [1, 8192], 12: [3, 24576], 99: [1, 8192] }),
    frameAt(600, { 12: [1, 8192], 14: [4, 32768] }),
  ];
  const answer = readersOfRange({ frames, processes, blockSize: null });

  it('lists one row per query text with its executions, and a process no table named by its pid', () => {
    const text = answer.rows.map((row) => [row.queryText, row.executions, row.pids, row.samples]);
    expect(text).toEqual([
      ['SELECT * FROM orders', 2, [11, 12], 3],
      ['VACUUM orders', 1, [13], 1],
      [null, 1, [99], 1],
    ]);
    const orders = answer.rows[0];
    // Frame 150 holds 1 + 3 reads of the text: per-frame sums, not per-process.
    expect(orders?.readsInFlightPeak).toBe(4);
    expect(orders?.readsInFlightMean).toBeCloseTo(7 / 3, 9);
    expect(orders?.bytesPerReadInFlight).toBe(8192);
    expect(orders?.scanBytes).toBeNull();
    expect(orders?.waits).toEqual([{ event: 'IO:DataFileRead', share: 1 }]);
    expect(answer.rows[1]?.waits).toEqual([{ event: RUNNING, share: 1 }]);
  });

  it('names an execution by its text even in the tables read before its text was', () => {
    const late = readersOfRange({
      frames: [frameAt(100, { 21: [1, 8192] }), frameAt(600, { 21: [1, 8192] })],
      processes: [
        { t: 0, processes: [process(21, { queryPreview: null })] },
        { t: 500, processes: [process(21, { queryPreview: 'SELECT * FROM lines' })] },
      ],
      blockSize: null,
    });
    expect(late.rows.map((row) => [row.queryText, row.executions, row.samples])).toEqual([
      ['SELECT * FROM lines', 1, 2],
    ]);
  });

  it('takes a statement from a later row only when it had begun by the frame, and an earlier row for 1 s', () => {
    const session = readersOfRange({
      frames: [800, 1_200, 1_800].map((t) => frameAt(t, { 31: [1, 8192] })),
      processes: [
        { t: 0, processes: [process(31, { queryStart: 0, queryPreview: 'SELECT a' })] },
        { t: 2_000, processes: [process(31, { queryStart: 1_500, queryPreview: 'SELECT b' })] },
      ],
      blockSize: null,
    });
    // At 1,200 the row at 0 is too old and the one at 2,000 began later: nobody is named for it.
    expect(session.rows.map((row) => [row.queryText, row.firstReadAt])).toEqual([
      ['SELECT a', 800],
      [null, 1_200],
      ['SELECT b', 1_800],
    ]);
  });

  it('leaves io workers out of the statements', () => {
    expect(answer.rows.flatMap((row) => row.pids)).not.toContain(14);
  });

  it('multiplies samples by the median frame spacing', () => {
    expect(answer.sampleIntervalMs).toBe(medianFrameInterval(frames));
    expect(answer.rows[0]?.sampleSeconds).toBeCloseTo((3 * (answer.sampleIntervalMs ?? 0)) / 1000, 9);
  });
});

describe('mergeIntoIntervals', () => {
  it('merges samples closer than the gap and widens the gap to stay under the cap', () => {
    expect(mergeIntoIntervals([0, 50, 100, 400, 450], 150, 10)).toEqual([
      [0, 100],
      [400, 450],
    ]);
    const spread = Array.from({ length: 1_000 }, (_, index) => index * 1_000);
    expect(mergeIntoIntervals(spread, 100, 200).length).toBeLessThanOrEqual(200);
  });
});
