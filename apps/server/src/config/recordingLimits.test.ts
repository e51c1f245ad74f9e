import { describe, expect, it } from 'vitest';
import { parseByteSize, parseDuration } from './recordingLimits.ts';

describe('parseDuration', () => {
  it.each([
    ['24h', 86_400_000],
    ['30d', 30 * 86_400_000],
    ['90m', 5_400_000],
    ['1.5h', 5_400_000],
    [' 2 D ', 2 * 86_400_000],
    ['60s', 60_000],
  ])('reads %s', (text, ms) => {
    expect(parseDuration(text)).toEqual({ ok: true, value: ms });
  });

  it.each(['', '24', 'h', '24hours', '-1h', '1w', '1h30m'])('refuses %j with the accepted form', (text) => {
    const parsed = parseDuration(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toContain('e.g. 24h');
  });

  it('refuses less than a minute', () => {
    expect(parseDuration('30s')).toEqual({ ok: false, error: '"30s" is too short: at least 1m' });
  });
});

describe('parseByteSize', () => {
  it.each([
    ['1GB', 1024 ** 3],
    ['500MB', 500 * 1024 ** 2],
    ['2gb', 2 * 1024 ** 3],
    ['750 MB', 750 * 1024 ** 2],
    ['0.5GB', 512 * 1024 ** 2],
  ])('reads %s', (text, bytes) => {
    expect(parseByteSize(text)).toEqual({ ok: true, value: bytes });
  });

  it.each(['', '1G', 'GB', 'lots', '-1GB', '1 PB'])('refuses %j', (text) => {
    const parsed = parseByteSize(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toContain('e.g. 1GB');
  });

  it('refuses a cap too small to hold anything', () => {
    expect(parseByteSize('1MB')).toEqual({ ok: false, error: '"1MB" is too small: at least 16MB' });
  });
});
