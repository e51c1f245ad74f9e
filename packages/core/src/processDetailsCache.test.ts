import { describe, expect, it } from 'vitest';
import type { FastTickSample, ProcessDetailsQueryRow, ProcessSample } from './fastTick.ts';
import {
  PROCESS_DETAILS_KEEP_MS,
  PROCESS_DETAILS_MIN_INTERVAL_MS,
  ProcessDetailsCache,
} from './processDetailsCache.ts';

const process = (pid: number, queryStart: number | null = 1_000): ProcessSample => ({
  pid,
  backendType: 'client backend',
  waitEventType: null,
  waitEvent: null,
  queryStart,
});
const sample = (t: number, processes: ProcessSample[]): FastTickSample => ({ t, aios: [], processes });
const row = (pid: number, query: string): ProcessDetailsQueryRow => ({
  pid,
  datid: 5,
  datname: 'postgres',
  usename: 'postgres',
  state: 'active',
  query,
});

describe('ProcessDetailsCache', () => {
  it('reads when the processes table is due, when a pid is new or started a statement, never more often than its minimum', () => {
    const cache = new ProcessDetailsCache();
    const first = sample(0, [process(10)]);
    expect(cache.needsRead(first, false)).toBe(true); // new pid
    cache.store(first, [row(10, 'SELECT 1')]);
    expect(cache.needsRead(sample(PROCESS_DETAILS_MIN_INTERVAL_MS, [process(10)]), false)).toBe(false);
    expect(cache.needsRead(sample(PROCESS_DETAILS_MIN_INTERVAL_MS, [process(10)]), true)).toBe(true);
    const newStatement = sample(PROCESS_DETAILS_MIN_INTERVAL_MS - 1, [process(10, 2_000)]);
    expect(cache.needsRead(newStatement, false)).toBe(false); // too soon after the last read
    expect(cache.needsRead(sample(PROCESS_DETAILS_MIN_INTERVAL_MS, [process(10, 2_000)]), false)).toBe(true);
    expect(cache.needsRead(sample(500, []), true)).toBe(false); // nothing to read
  });

  it('remembers a pid that ended between the two queries as read, with no details', () => {
    const cache = new ProcessDetailsCache();
    const s = sample(0, [process(10), process(11)]);
    cache.store(s, [row(10, 'SELECT 1')]);
    expect(cache.get(10)?.queryPreview).toBe('SELECT 1');
    expect(cache.get(11)).toMatchObject({ pid: 11, queryPreview: null });
    expect(cache.needsRead(sample(PROCESS_DETAILS_MIN_INTERVAL_MS, [process(11)]), false)).toBe(false);
  });

  it('keeps details of a pid absent from the ticks for a while, then forgets them', () => {
    const cache = new ProcessDetailsCache();
    cache.store(sample(0, [process(10)]), [row(10, 'SELECT count(*) FROM t')]);
    cache.noteSeen(sample(PROCESS_DETAILS_KEEP_MS, []));
    expect(cache.get(10)).toBeDefined();
    cache.noteSeen(sample(PROCESS_DETAILS_KEEP_MS + 1, []));
    expect(cache.get(10)).toBeUndefined();
  });

  it('after a failed read, waits its minimum before trying again and keeps what it had', () => {
    const cache = new ProcessDetailsCache();
    cache.store(sample(0, [process(10)]), [row(10, 'SELECT 1')]);
    cache.readFailed(sample(1_000, [process(10, 5)]));
    expect(cache.get(10)?.queryPreview).toBe('SELECT 1');
    expect(cache.needsRead(sample(1_050, [process(10, 5)]), false)).toBe(false);
    expect(cache.needsRead(sample(1_100, [process(10, 5)]), false)).toBe(true);
  });

  it('forgets everything on clear (a reconnection may reach another server)', () => {
    const cache = new ProcessDetailsCache();
    cache.store(sample(0, [process(10)]), [row(10, 'SELECT 1')]);
    cache.clear();
    expect(cache.details.size).toBe(0);
    expect(cache.needsRead(sample(1, [process(10)]), false)).toBe(true);
  });
});
