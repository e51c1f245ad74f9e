import { describe, expect, it } from 'vitest';
import { nextShown, type Shown } from './useThrottledValue.ts';

const sameLength = (a: number[], b: number[]): boolean => a.length === b.length;

describe('nextShown', () => {
  it('takes a new value once the interval has passed, not before', () => {
    const shown: Shown<number[]> = { value: [1], at: 1_000 };
    expect(nextShown(shown, [2, 2], 1_999, 1_000, sameLength)).toBe(shown);
    expect(nextShown(shown, [2, 2], 2_000, 1_000, sameLength)).toEqual({ value: [2, 2], at: 2_000 });
  });

  it('keeps the shown value, identity included, while the new ones are the same, then takes a different one at once', () => {
    const shown: Shown<number[]> = { value: [1], at: 1_000 };
    const kept = nextShown(shown, [7], 5_000, 1_000, sameLength);
    expect(kept).toBe(shown);
    expect(nextShown(kept, [7, 7], 5_001, 1_000, sameLength)).toEqual({ value: [7, 7], at: 5_001 });
  });
});
