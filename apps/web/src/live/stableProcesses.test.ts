import { describe, expect, it } from 'vitest';
import { buildPayloads, recordedServers } from '@aioscope/core/testing';
import { PROCESS_KEEP_MS, stableProcessRows, type ProcessRow } from './stableProcesses.ts';

// Process lists built the way the server builds them, from the servers recorded in shared/fixtures.
const lists = recordedServers()
  .map((server) => buildPayloads(server).processLists)
  .find((candidate) => candidate.some((list) => list.processes.length >= 2));

describe('stableProcessRows (recorded process lists)', () => {
  it('has recorded lists with several processes to work on', () => {
    expect(lists).toBeDefined();
  });

  it('keeps each process in the place it first took, whatever order the server sends', () => {
    const list = lists?.find((candidate) => candidate.processes.length >= 2);
    const processes = list?.processes ?? [];
    const first = stableProcessRows([], processes, 1_000);
    const reversed = stableProcessRows(first, [...processes].reverse(), 1_500);
    expect(reversed.map((row) => row.process.pid)).toEqual(first.map((row) => row.process.pid));
  });

  it('keeps a process that left, dimmed, for a few seconds, then drops it; new ones join at the end', () => {
    const processes = lists?.find((candidate) => candidate.processes.length >= 2)?.processes ?? [];
    const [leaving, ...staying] = processes;
    let rows: ProcessRow[] = stableProcessRows([], processes, 0);
    rows = stableProcessRows(rows, staying, 500);
    const kept = rows.find((row) => row.process.pid === leaving?.pid);
    expect(kept?.gone).toBe(true);
    expect(rows[0]?.process.pid).toBe(leaving?.pid); // still in its place
    rows = stableProcessRows(rows, staying, PROCESS_KEEP_MS);
    expect(rows.some((row) => row.process.pid === leaving?.pid)).toBe(true);
    rows = stableProcessRows(rows, staying, PROCESS_KEEP_MS + 1);
    expect(rows.some((row) => row.process.pid === leaving?.pid)).toBe(false);
    // It comes back (a new statement): at the end, live again.
    rows = stableProcessRows(rows, processes, PROCESS_KEEP_MS + 2);
    expect(rows[rows.length - 1]?.process.pid).toBe(leaving?.pid);
    expect(rows.every((row) => !row.gone)).toBe(true);
  });
});
