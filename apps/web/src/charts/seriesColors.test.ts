import { describe, expect, it } from 'vitest';
import { SERIES_PALETTE, SeriesColors } from './seriesColors.ts';

describe('SeriesColors: a series keeps its colour for the life of the page', () => {
  it('keeps "io worker · DataFileRead" in its colour when another series sorts before it', () => {
    const colors = new SeriesColors();
    const before = colors.colorOf('io worker:DataFileRead');
    // A client backend starts waiting: its key sorts first, which used to shift every colour.
    const keys = ['client backend:AioIoCompletion', 'io worker:DataFileRead'].sort();
    const after = new Map(keys.map((key) => [key, colors.colorOf(key)]));
    expect(after.get('io worker:DataFileRead')).toBe(before);
    expect(after.get('client backend:AioIoCompletion')).not.toBe(before);
  });

  it('keeps a colour after its series left the window and came back', () => {
    const colors = new SeriesColors();
    const first = colors.colorOf('a');
    colors.colorOf('b');
    colors.colorOf('c');
    expect(colors.colorOf('a')).toBe(first);
  });

  it('hands out every palette colour once before any is shared, then shares them in turn', () => {
    const colors = new SeriesColors();
    const handed = SERIES_PALETTE.map((_, index) => colors.colorOf(`key-${index}`));
    expect(new Set(handed).size).toBe(SERIES_PALETTE.length);
    expect(colors.colorOf('one more')).toBe(SERIES_PALETTE[0]);
    expect(colors.colorOf('and another')).toBe(SERIES_PALETTE[1]);
  });

  it('gives CSS variables, which each theme resolves to its own colour', () => {
    expect(new SeriesColors().colorOf('x')).toMatch(/^var\(--series-\d\)$/);
  });
});
