import { describe, expect, it } from 'vitest';
import { compareHref, parseCompareLocation, sameLengthBefore } from './compareLink.ts';

const a = { targetId: 'embedded', from: 1_000_000, to: 1_060_000 };
const b = { targetId: 'rec-1', from: 10, to: 20 };

describe('compare links', () => {
  it('names both sides by target id and range, and reads them back', () => {
    const href = compareHref({ a, b });
    expect(href).toBe('/compare?aTarget=embedded&aFrom=1000000&aTo=1060000&bTarget=rec-1&bFrom=10&bTo=20');
    expect(parseCompareLocation(href.slice(href.indexOf('?')))).toEqual({ a, b });
  });

  it('takes B as the same length just before A when the link names A only', () => {
    expect(sameLengthBefore(a)).toEqual({ targetId: 'embedded', from: 940_000, to: 1_000_000 });
    expect(parseCompareLocation('?aTarget=embedded&aFrom=1000000&aTo=1060000&bFrom=x')).toEqual({
      a,
      b: sameLengthBefore(a),
    });
  });

  it('has nothing to compare without a valid side A', () => {
    expect(parseCompareLocation('')).toBeNull();
    expect(parseCompareLocation('?aTarget=embedded&aFrom=5&aTo=5')).toBeNull();
  });
});
