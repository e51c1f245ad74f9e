import { describe, expect, it } from 'vitest';
import { readRangeFields, toLocalInput } from './RangeFields.tsx';

describe('range fields', () => {
  it('round-trips an instant to the second through the input value', () => {
    const t = Date.UTC(2026, 11, 2, 3, 10, 5);
    expect(readRangeFields(toLocalInput(t), toLocalInput(t + 60_000))).toEqual({ from: t, to: t + 60_000 });
  });

  it('says what is wrong with a range', () => {
    expect(readRangeFields('', '2026-12-02T03:10:05')).toEqual({ error: 'Both times are needed.' });
    expect(readRangeFields('2026-12-02T03:10:05', '2026-12-02T03:10:05')).toEqual({
      error: '"from" must be before "to".',
    });
  });
});
