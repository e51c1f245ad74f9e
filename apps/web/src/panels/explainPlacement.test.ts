import { describe, expect, it } from 'vitest';
import { explainShift } from './explainPlacement.ts';

const SCREEN = { left: 0, right: 420 };

describe('explainShift', () => {
  it('leaves a text that fits where it is', () => {
    expect(explainShift({ left: 100, right: 300 }, SCREEN, 8)).toBe(0);
  });

  it('slides a text past the right edge back inside, by its margin', () => {
    expect(explainShift({ left: 300, right: 500 }, SCREEN, 8)).toBe(-88);
  });

  it('slides a text past the left edge right', () => {
    expect(explainShift({ left: -40, right: 160 }, SCREEN, 8)).toBe(48);
  });

  it('keeps the text inside a clipping table narrower than the screen', () => {
    // The processes table's wrapper ends at 500 px on a 1440 px screen: its header's (i) near there.
    expect(explainShift({ left: 380, right: 700 }, { left: 20, right: 500 }, 8)).toBe(-208);
  });

  it('starts a text wider than its room at the room’s left edge', () => {
    expect(explainShift({ left: 50, right: 450 }, { left: 100, right: 400 }, 8)).toBe(58);
  });
});
