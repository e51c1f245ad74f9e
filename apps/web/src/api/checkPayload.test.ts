import { describe, expect, it } from 'vitest';
import { frameEventSchema, statusEventSchema } from '@aioscope/spec';
import { PayloadChecker, WARN_EVERY_MS } from './checkPayload.ts';

const status = { state: 'live', message: null, since: 1, lastFrameAt: 2, skippedTicks: 0 };

function checker(): { checker: PayloadChecker; warnings: string[]; advance: (ms: number) => void } {
  const warnings: string[] = [];
  let now = 1_000_000;
  return {
    checker: new PayloadChecker({ warn: (message) => warnings.push(message), now: () => now }),
    warnings,
    advance: (ms) => {
      now += ms;
    },
  };
}

describe('PayloadChecker', () => {
  it('hands on a payload that matches, as parsed', () => {
    const { checker: check, warnings } = checker();
    expect(check.check('status', statusEventSchema, { targetId: 't', status })).toEqual({ targetId: 't', status });
    expect(warnings).toEqual([]);
  });

  it('drops one that does not, warning with the event and where the first issue is', () => {
    const { checker: check, warnings } = checker();
    const broken = { targetId: 't', status: { ...status, state: 'sleeping' } };
    expect(check.check('status', statusEventSchema, broken)).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^aioscope: dropped a "status" payload: .* at status\.state: /);
  });

  it('names array indexes and record keys in the path', () => {
    const { checker: check, warnings } = checker();
    const frame = { t: 1, sampleMs: 1, skippedTicks: 0, inflight: null, newReads: null, ioWorkers: [], waits: {} };
    check.check('frame', frameEventSchema, { targetId: 't', frame: { ...frame, byProcess: { 42: [1] } } });
    check.check('snapshot', frameEventSchema, {
      targetId: 't',
      frame: { ...frame, byProcess: {}, ioWorkers: [{ pid: 1, busy: 'yes' }] },
    });
    expect(warnings[0]).toContain('at frame.byProcess.42: ');
    expect(warnings[1]).toContain('at frame.ioWorkers[0].busy: ');
  });

  it('warns at most once per event per period, then says how many were dropped', () => {
    const { checker: check, warnings, advance } = checker();
    const broken = { targetId: 't' };
    for (let i = 0; i < 100; i++) {
      check.check('status', statusEventSchema, broken);
      advance(10);
    }
    expect(warnings).toHaveLength(1);
    check.check('processes', statusEventSchema, broken);
    expect(warnings).toHaveLength(2);
    advance(WARN_EVERY_MS);
    check.check('status', statusEventSchema, broken);
    expect(warnings).toHaveLength(3);
    expect(warnings[2]).toMatch(/^aioscope: dropped 100 "status" payloads since the last warning/);
  });
});
