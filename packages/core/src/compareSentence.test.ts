import { describe, expect, it } from 'vitest';
import type { CompareSide, RollupPoint } from '@aioscope/spec';
import { sideOf17, sideOfRecording } from '@aioscope/core/testing';
import { compareSide, type CompareSideInput } from './compare.ts';
import { COMPARE_THRESHOLDS, NO_DIFFERENCE, compareSides, settingsThatDiffer } from './compareSentence.ts';

const worker18 = (): CompareSideInput => sideOfRecording('pg18.4-embedded-worker');

/** The recorded 18 side with its pg_stat_io bytes scaled: the same scan as if reads were `factor` × as large. */
function withReadBytesScaled(input: CompareSideInput, factor: number): CompareSideInput {
  const points = input.points.map((point): RollupPoint => ({ ...point, statReadBytes: point.statReadBytes * factor }));
  return { ...input, points };
}

/** The recorded side with one setting shown differently. */
function withSetting(side: CompareSide, name: string, display: string): CompareSide {
  return {
    ...side,
    settings: side.settings.map((setting) => (setting.name === name ? { ...setting, display } : setting)),
  };
}

describe('compareSides', () => {
  it('finds no difference that matters between a range and itself', () => {
    const side = compareSide(worker18());
    const result = compareSides(side, side);
    expect(result.sentence).toBe(NO_DIFFERENCE);
    expect(result.differences).toEqual([]);
    expect(result.settingsDiffer).toEqual([]);
  });

  it('17 against 18: no "16× larger", but why bytes per read cannot be compared', () => {
    const result = compareSides(compareSide(worker18()), compareSide(sideOf17()));
    expect(result.sentence).not.toMatch(/×\s*larger|×\s*smaller/);
    expect(result.sentence).toContain('PostgreSQL 18.4 instead of 17.10');
    expect(result.sentence).toContain('bytes per read cannot be compared: 17 counts blocks in pg_stat_io');
    expect(result.settingsDiffer.map((difference) => difference.name)).toContain('io_combine_limit');
    // 17 has no io_method, and its recording did not read block_size: neither is a difference of value.
    expect(result.sentence).not.toMatch(/io_method|block_size/);
    expect(result.sentence).toContain('io_combine_limit 128kB instead of 256kB');
  });

  it('names read sizes 16× apart with both sizes, larger or smaller by the side looked at', () => {
    const small = compareSide(withReadBytesScaled(worker18(), 1 / 16));
    const large = compareSide(worker18());
    expect(compareSides(large, small).sentence).toMatch(/^reads 16× larger: 124\.6 kB instead of 7\.8 kB/);
    expect(compareSides(small, large).sentence).toMatch(/^reads 16× smaller: 7\.8 kB instead of 124\.6 kB/);
  });

  it(`counts read sizes as different from ${COMPARE_THRESHOLDS.sizeRatio}× on, not below`, () => {
    const base = compareSide(worker18());
    const below = compareSide(withReadBytesScaled(worker18(), COMPARE_THRESHOLDS.sizeRatio - 0.05));
    const above = compareSide(withReadBytesScaled(worker18(), COMPARE_THRESHOLDS.sizeRatio + 0.05));
    expect(compareSides(below, base).sentence).not.toMatch(/reads .*× larger/);
    expect(compareSides(above, base).sentence).toMatch(/^reads 1\.3× larger/);
  });

  it('says io_method differs between the worker and io_uring recordings', () => {
    const result = compareSides(compareSide(sideOfRecording('pg18.6-io_uring')), compareSide(worker18()));
    expect(result.differences).toContain('io_method io_uring instead of worker');
  });

  it('says "same io workers" beside other differences of two worker ranges, and names a changed setting', () => {
    const base = compareSide(worker18());
    const changed = withSetting(compareSide(withReadBytesScaled(worker18(), 16)), 'effective_io_concurrency', '1');
    const result = compareSides(changed, base);
    expect(result.differences.at(-1)).toBe('same io workers');
    expect(result.differences).toContain('effective_io_concurrency 1 instead of 16');
    expect(compareSides(withSetting(base, 'io_workers', '8'), base).differences).toContain('io_workers 8 instead of 3');
  });

  it(`counts reads in flight as different from ${COMPARE_THRESHOLDS.inflightRatio}× and half a read apart`, () => {
    const base = compareSide(worker18());
    const figure = base.figures.readsInFlightMean;
    if (figure?.value === null || figure?.value === undefined) throw new Error('the recording has reads in flight');
    const scaled = (factor: number): CompareSide => ({
      ...base,
      figures: { ...base.figures, readsInFlightMean: { ...figure, value: (figure.value ?? 0) * factor } },
    });
    expect(compareSides(scaled(1.4), base).sentence).not.toMatch(/in flight/);
    expect(compareSides(scaled(3), base).sentence).toMatch(/ in flight instead of /);
  });
});

describe('settingsThatDiffer', () => {
  it('lists a setting one side lacks as null on that side', () => {
    const a = compareSide(worker18());
    const b = { ...a, settings: a.settings.filter((setting) => setting.name !== 'io_workers') };
    expect(settingsThatDiffer(a, b)).toEqual([{ name: 'io_workers', a: '3', b: null }]);
  });
});
