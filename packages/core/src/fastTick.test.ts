import { describe, expect, it } from 'vitest';
import { ioKey, parseAioRow, parseFastTickRow, type FastTickQueryRow } from './fastTick.ts';
import { summarizeLiveWindow } from './window.ts';
import { framesOfRows, loadFixture } from './testFixtures.ts';

const fixture = loadFixture<{ idle: FastTickQueryRow; duringScan: FastTickQueryRow[]; withoutAios: FastTickQueryRow }>(
  'pg18-fast-tick.json',
);

const framesOf = (rows: FastTickQueryRow[]): ReturnType<typeof framesOfRows> => framesOfRows(rows);

describe('parseFastTickRow (recorded on PostgreSQL 18)', () => {
  it('reads an idle server: no reads, every io worker idle in IoWorkerMain', () => {
    const sample = parseFastTickRow(fixture.idle);
    expect(sample.aios).toEqual([]);
    const workers = sample.processes.filter((p) => p.backendType === 'io worker');
    expect(workers).toHaveLength(3);
    expect(workers.every((w) => w.waitEvent === 'IoWorkerMain')).toBe(true);
  });

  it('reads pg_aios rows during a cold scan', () => {
    const sample = parseFastTickRow(fixture.duringScan[1] as FastTickQueryRow);
    expect(sample.aios?.length).toBeGreaterThan(0);
    const row = sample.aios?.[0];
    expect(row?.operation).toBe('readv');
    expect(row?.length).toBe((row?.blocks ?? 0) * 8192);
  });

  it('keeps aios null (not empty) when pg_aios was not read', () => {
    const sample = parseFastTickRow(fixture.withoutAios);
    expect(sample.aios).toBeNull();
    expect(sample.processes.length).toBeGreaterThan(0);
  });

  it('rejects a row without server time', () => {
    expect(() => parseFastTickRow({ t: null as unknown as number, aios: [], procs: [] })).toThrow(/server time/);
  });

  it('skips malformed pg_aios entries instead of failing the tick', () => {
    expect(parseAioRow(['x', 1, 1, 'SUBMITTED'])).toBeNull();
    expect(parseAioRow([1, 1, 1, 'NOT_A_STATE'])).toBeNull();
    expect(parseAioRow('junk')).toBeNull();
  });
});

describe('buildLiveFrame', () => {
  it('counts reads in flight by state and bytes', () => {
    const [frame] = framesOf([fixture.duringScan[1] as FastTickQueryRow]);
    const total = frame?.inflight?.total;
    expect(total?.count).toBeGreaterThan(0);
    const stateCount = Object.values(frame?.inflight?.byState ?? {}).reduce((sum, s) => sum + s.count, 0);
    expect(stateCount).toBe(total?.count);
  });

  it('counts an I/O seen in consecutive samples once', () => {
    const row = fixture.duringScan[1] as FastTickQueryRow;
    const frames = framesOf([row, row]);
    expect(frames[0]?.newReads?.count).toBeGreaterThan(0);
    expect(frames[1]?.newReads?.count).toBe(0);
    expect(frames[1]?.inflight?.total.count).toBe(frames[0]?.inflight?.total.count);
  });

  it('sees 128 kB combined reads and busy io workers during the recorded scan', () => {
    const frames = framesOf(fixture.duringScan);
    const summary = summarizeLiveWindow(frames);
    const sixteenBlockReads = frames.reduce((sum, f) => sum + (f.newReads?.blocksHistogram[16] ?? 0), 0);
    expect(sixteenBlockReads).toBeGreaterThan(0);
    expect(summary.liveBytesPerRead).toBeGreaterThan(64 * 1024);
    expect(summary.workerBusyFraction).toBeGreaterThan(0);
    expect(summary.perWorkerBusyFraction).toHaveLength(3);
  });

  it('lists io workers sorted by pid and counts AIO waits by backend type', () => {
    const [frame] = framesOf([fixture.duringScan[1] as FastTickQueryRow]);
    const pids = frame?.ioWorkers.map((w) => w.pid) ?? [];
    expect(pids).toEqual([...pids].sort((a, b) => a - b));
    expect(Object.keys(frame?.waits ?? {}).some((key) => key.startsWith('io worker:'))).toBe(true);
  });

  it('has no inflight figures when pg_aios was not read', () => {
    const [frame] = framesOf([fixture.withoutAios]);
    expect(frame?.inflight).toBeNull();
    expect(frame?.newReads).toBeNull();
    expect(frame?.ioWorkers.length).toBe(3);
  });

  it('identifies an I/O by pid, io_id and generation', () => {
    expect(ioKey({ pid: 1, ioId: 2, ioGeneration: 3 })).not.toBe(ioKey({ pid: 1, ioId: 2, ioGeneration: 4 }));
  });
});
