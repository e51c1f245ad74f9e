import { describe, expect, it } from 'vitest';
import { compareQuerySchema } from './compare.ts';

const good = { aTarget: 'a', aFrom: '1000', aTo: '2000', bTarget: 'b', bFrom: '0', bTo: '1000' };

function messageOf(query: Record<string, unknown>): string | undefined {
  const parsed = compareQuerySchema.safeParse(query);
  return parsed.success ? undefined : parsed.error.issues[0]?.message;
}

describe('compareQuerySchema', () => {
  it('reads the six parameters of a query string as numbers and ids', () => {
    expect(compareQuerySchema.parse(good)).toEqual({
      aTarget: 'a',
      aFrom: 1000,
      aTo: 2000,
      bTarget: 'b',
      bFrom: 0,
      bTo: 1000,
    });
  });

  it('names the parameter that is missing or malformed', () => {
    expect(messageOf({ ...good, bTarget: undefined })).toMatch(/^bTarget is missing/);
    expect(messageOf({ ...good, aFrom: 'yesterday' })).toBe('aFrom must be a number (epoch ms)');
    expect(messageOf({ ...good, bTo: '1.5' })).toBe('bTo must be whole ms');
    // An empty value is missing, not 0 (a range in 1970).
    expect(messageOf({ ...good, aFrom: '' })).toBe('aFrom must be a number (epoch ms)');
    expect(messageOf({ ...good, aFrom: ' ' })).toBe('aFrom must be a number (epoch ms)');
    expect(messageOf({ ...good, aFrom: '-5' })).toBe('aFrom must not be negative');
    expect(messageOf({ ...good, bTo: '1e300' })).toMatch(/^bTo is past the last date/);
    expect(messageOf({ ...good, bTo: ['1000', '2000'] })).toBe('bTo must be a number (epoch ms)');
  });

  it('refuses a side whose range ends before it starts, naming that side', () => {
    expect(messageOf({ ...good, aTo: '1000' })).toBe('aFrom must be before aTo');
    expect(messageOf({ ...good, bFrom: '5000' })).toBe('bFrom must be before bTo');
  });
});
