import { describe, expect, it } from 'vitest';
import type { TargetSummary } from '@aioscope/spec';
import type { FleetTarget } from '../targets/targetsFile.ts';
import { MAX_UNWATCHED } from './monitorRegistry.ts';
import { TargetsLeftTheFile } from './targetsLeftTheFile.ts';

const target = (name: string): FleetTarget => ({
  definition: { id: name, name: `${name}@db:5432/postgres`, kind: 'external', clientConfig: { host: 'db' } },
  labels: {},
  rate: null,
});

/** A monitor's last summary as a replica that sampled the target keeps it. */
const sampled = (id: string, unwatchedSince: number): TargetSummary => ({
  id,
  name: id,
  kind: 'external',
  status: { state: 'live', message: null, since: 1, lastFrameAt: 2, skippedTicks: 0 },
  server: null,
  capabilities: null,
  sampleRateHz: 20,
  statRateHz: 1,
  demoWorkload: false,
  recording: null,
  unwatchedSince,
});

describe('TargetsLeftTheFile', () => {
  it('lists the targets a reload dropped, not the kept or added ones, and forgets one listed again', () => {
    const left = new TargetsLeftTheFile();
    left.follow([target('a'), target('b'), target('c')], [target('a'), target('d')], 1_000);
    expect(left.summaries([]).map((t) => [t.id, t.name, t.unwatchedSince])).toEqual([
      ['b', 'b@db:5432/postgres', 1_000],
      ['c', 'c@db:5432/postgres', 1_000],
    ]);
    left.follow([target('a'), target('d')], [target('a'), target('b')], 2_000);
    expect(left.summaries([]).map((t) => [t.id, t.unwatchedSince])).toEqual([
      ['c', 1_000],
      ['d', 2_000],
    ]);
  });

  it("prefers the summary of the replica that sampled it, then its owner's last relayed one", () => {
    const left = new TargetsLeftTheFile();
    left.follow([target('a'), target('b'), target('c')], [], 5_000);
    const relayed = { ...sampled('b', 0), unwatchedSince: undefined, replica: 'r2' };
    const summaries = left.summaries([sampled('a', 4_999)], (id) => (id === 'b' ? relayed : undefined));
    expect(summaries.map((t) => [t.id, t.status.state, t.unwatchedSince, t.replica])).toEqual([
      ['a', 'live', 4_999, undefined],
      ['b', 'live', 5_000, 'r2'],
      ['c', 'error', 5_000, undefined],
    ]);
    // Known from the file only: it says so, with no rate or server it cannot know.
    expect(summaries[2]?.status.message).toMatch(/its last state is not known here/);
    expect(summaries[2]?.sampleRateHz).toBe(0);
  });

  it('keeps the newest MAX_UNWATCHED, as the registry does', () => {
    const left = new TargetsLeftTheFile();
    const many = Array.from({ length: MAX_UNWATCHED + 5 }, (_, i) => target(`t${i}`));
    left.follow(many, []);
    const ids = left.summaries([]).map((t) => t.id);
    expect(ids).toHaveLength(MAX_UNWATCHED);
    expect(ids[0]).toBe('t5');
  });
});
