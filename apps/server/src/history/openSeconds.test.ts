import { emptyAccumulator } from '@aioscope/core';
import { describe, expect, it } from 'vitest';
import { OPEN_SECOND_LIMIT_MS, OpenSeconds } from './openSeconds.ts';
import { RAW_KIND, type PendingRow, type RawKind } from './storeEngine.ts';

const S = 1_800_000_000_000; // a whole second
const raw = (target: string, t: number, kind: RawKind = RAW_KIND.frame): PendingRow => ({
  table: 'raw',
  target,
  kind,
  t,
  hasScans: false,
  body: `${target}@${String(t)}`,
});
const bodies = (rows: readonly PendingRow[]): string[] =>
  rows.map((row) => (row.table === 'raw' ? row.body : row.table));

/** Enqueues `rows` as a sampler would, one at `now`. */
function noted(open: OpenSeconds, rows: readonly PendingRow[], now: number): PendingRow[] {
  for (const row of rows) open.note(row, now);
  return [...rows];
}

describe('OpenSeconds', () => {
  it('holds the second each target is still sampling and lets the ended ones through, in order', () => {
    const open = new OpenSeconds();
    const pending = noted(open, [raw('a', S + 900), raw('b', S + 920), raw('a', S + 950), raw('a', S + 1_000)], 0);
    const { ready, held } = open.split(pending, 100);
    // a's second S ended when its sample of S+1 arrived; b's S and a's S+1 are still open.
    expect(bodies(ready)).toEqual([`a@${String(S + 900)}`, `a@${String(S + 950)}`]);
    expect(bodies(held)).toEqual([`b@${String(S + 920)}`, `a@${String(S + 1_000)}`]);
  });

  it('tells kinds apart: the one-a-second deltas do not close the frames’ second', () => {
    const open = new OpenSeconds();
    const pending = noted(open, [raw('a', S + 500), raw('a', S + 1_100, RAW_KIND.ioDelta)], 0);
    const { ready, held } = open.split(pending, 100);
    expect(ready).toEqual([]);
    expect(held).toHaveLength(2);
  });

  it('writes an open second once its first sample is OPEN_SECOND_LIMIT_MS old: a stalled sampler keeps nothing back', () => {
    const open = new OpenSeconds();
    const pending = noted(open, [raw('a', S + 100)], 10_000);
    expect(open.split(pending, 10_000 + OPEN_SECOND_LIMIT_MS - 1).held).toHaveLength(1);
    expect(open.split(pending, 10_000 + OPEN_SECOND_LIMIT_MS).ready).toHaveLength(1);
  });

  it('never holds roll-ups, events or descriptions', () => {
    const open = new OpenSeconds();
    const rows: PendingRow[] = [
      raw('a', S + 100),
      { table: 'rollup', target: 'a', acc: emptyAccumulator(S) },
      { table: 'target', target: 'a', t: S, description: '{}' },
    ];
    const { ready, held } = open.split(noted(open, rows, 0), 1);
    expect(bodies(ready)).toEqual(['rollup', 'target']);
    expect(held).toHaveLength(1);
  });

  it('takes the clock of its arrivals, not the rows’ own times (a watched server’s clock may be skewed)', () => {
    const open = new OpenSeconds();
    // Rows stamped an hour ahead of this process: still open while their samples keep arriving.
    const pending = noted(open, [raw('a', S + 3_600_000 + 200)], S);
    expect(open.split(pending, S + 300).held).toHaveLength(1);
  });
});
