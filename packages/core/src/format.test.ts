import { describe, expect, it } from 'vitest';
import {
  formatBytes,
  formatDuration,
  formatNumber,
  formatPercent,
  KILOBYTES,
  UNIT_SPACE,
  WHOLE_MEGABYTES,
} from './format.ts';

const page = (text: string): string => text.replace(/ /g, UNIT_SPACE);

describe('formatBytes', () => {
  it('writes binary units as PostgreSQL does, whole values without decimals, a no-break space on the page', () => {
    expect(formatBytes(131072)).toBe(page('128 kB'));
    expect(formatBytes(129_434)).toBe(page('126.4 kB'));
    expect(formatBytes(512)).toBe(page('512 B'));
    expect(formatBytes(3 * 1024 ** 3, 0)).toBe(page('3 GB'));
    expect(formatBytes(null)).toBe('–');
    expect(formatBytes(Number.NaN)).toBe('–');
  });

  it('in plain text, as the lab reports and server messages write sizes', () => {
    expect(formatBytes(131072, 1, KILOBYTES)).toBe('128.0 kB');
    expect(formatBytes(8_243, 1, KILOBYTES)).toBe('8.0 kB');
    expect(formatBytes(null, 1, KILOBYTES)).toBe('–');
    expect(formatBytes(1024, 0, WHOLE_MEGABYTES)).toBe('1 kB');
    expect(formatBytes(300 * 1024, 0, WHOLE_MEGABYTES)).toBe('300 kB');
    expect(formatBytes(2 * 1024 ** 3, 0, WHOLE_MEGABYTES)).toBe('2048 MB');
    expect(formatBytes(16 * 1024, 0, { space: ' ', from: 'kB', upTo: 'kB' })).toBe('16 kB');
  });
});

describe('formatDuration', () => {
  it("'age': how long ago", () => {
    expect(formatDuration(450, 'age')).toBe(page('450 ms'));
    expect(formatDuration(2_500, 'age')).toBe(page('2.5 s'));
    expect(formatDuration(180_000, 'age')).toBe(page('3 min'));
  });

  it("'span': a range's length", () => {
    expect(formatDuration(90_000, 'span')).toBe('90 s');
    expect(formatDuration(12_800, 'span')).toBe('12.8 s');
    expect(formatDuration(15 * 60_000, 'span')).toBe('15 min');
    expect(formatDuration(6 * 3_600_000, 'span')).toBe('6 h');
    expect(formatDuration(2.5 * 3_600_000, 'span')).toBe('2 h 30 min');
  });

  it("'limit': the largest whole unit", () => {
    expect(formatDuration(15 * 60_000, 'limit')).toBe('15 min');
    expect(formatDuration(3_600_000, 'limit')).toBe('1 h');
    expect(formatDuration(86_400_000, 'limit')).toBe('1 d');
    expect(formatDuration(90_000, 'limit')).toBe('90 s');
    expect(formatDuration(1_250, 'limit')).toBe('1.3 s');
  });
});

describe('formatNumber and formatPercent', () => {
  it('write whole numbers bare and shares with their unit', () => {
    expect(formatNumber(3)).toBe('3');
    expect(formatNumber(2.345, 1)).toBe('2.3');
    expect(formatNumber(undefined)).toBe('–');
    expect(formatPercent(0.5)).toBe(page('50 %'));
    expect(formatPercent(0.016)).toBe(page('1.6 %'));
  });
});
