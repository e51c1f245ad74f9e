import { describe, expect, it } from 'vitest';
import { samplesAfter, summarizeProfile, type CpuProfile, type ProfileNode } from './cpuProfile.ts';

/** root → idle, root → work: one sample every `stepMs`, work from `workFromMs` on. */
function profile(samples: number, stepMs: number, workFromMs: number): CpuProfile {
  const nodes: ProfileNode[] = [
    { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, children: [2, 3] },
    { id: 2, callFrame: { functionName: '(idle)', url: '', lineNumber: -1 } },
    { id: 3, callFrame: { functionName: 'tick', url: 'file:///repo/apps/server/src/tick.ts', lineNumber: 1 } },
  ];
  const ids = Array.from({ length: samples }, (_, index) => (index * stepMs >= workFromMs ? 3 : 2));
  return {
    nodes,
    samples: ids,
    timeDeltas: ids.map(() => stepMs * 1000),
    startTime: 0,
    endTime: samples * stepMs * 1000,
  };
}

const moduleOf = (node: ProfileNode): string => (node.callFrame.url === '' ? '(native)' : 'apps/server/src/tick.ts');

describe('samplesAfter', () => {
  it('keeps only the samples of the window, so start-up before it is not counted', () => {
    // 10 s at 1 ms: idle for the first 4 s (start-up stands in), busy after.
    const whole = profile(10_000, 1, 4_000);
    const steady = samplesAfter(whole, 5_000, 3_000);
    const summary = summarizeProfile(steady, moduleOf);
    expect(summary.sampledMs).toBeGreaterThanOrEqual(2_998);
    expect(summary.sampledMs).toBeLessThanOrEqual(3_001);
    expect(summary.idleShare).toBe(0);
    expect(summarizeProfile(whole, moduleOf).idleShare).toBeCloseTo(0.4, 2);
  });

  it('gives each kept sample its own duration', () => {
    const whole = profile(100, 10, 0);
    const steady = samplesAfter(whole, 200, 300);
    expect(steady.samples.length).toBe(steady.timeDeltas.length - 1);
    expect(steady.samples.every((id) => id === 3)).toBe(true);
    expect(summarizeProfile(steady, moduleOf).selfByModule[0]).toMatchObject({ name: 'apps/server/src/tick.ts' });
  });
});
