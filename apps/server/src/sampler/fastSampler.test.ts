import { describe, expect, it } from 'vitest';
import { PROCESSES_INTERVAL_MS, processesDueNext } from './fastSampler.ts';

describe('processesDueNext (details in the tick that finds the processes table due)', () => {
  const sentAt = 10_000;

  it('asks for details in the first tick, which always finds the table due', () => {
    expect(processesDueNext(-Infinity, Number.NaN, -Infinity)).toBe(true);
  });

  it('does not ask while the next sample cannot be due', () => {
    expect(processesDueNext(sentAt + 300, 50, sentAt)).toBe(false);
    expect(processesDueNext(sentAt + PROCESSES_INTERVAL_MS - 80, 50, sentAt)).toBe(false);
  });

  it('asks when the next sample, at the last spacing, is due or within half a spacing of it', () => {
    expect(processesDueNext(sentAt + PROCESSES_INTERVAL_MS - 50, 50, sentAt)).toBe(true);
    expect(processesDueNext(sentAt + PROCESSES_INTERVAL_MS - 74, 50, sentAt)).toBe(true);
  });

  it('follows the rate: at 100 Hz the tick before the due one does not ask yet', () => {
    expect(processesDueNext(sentAt + PROCESSES_INTERVAL_MS - 20, 10, sentAt)).toBe(false);
    expect(processesDueNext(sentAt + PROCESSES_INTERVAL_MS - 10, 10, sentAt)).toBe(true);
  });
});
