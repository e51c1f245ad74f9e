import { describe, expect, it } from 'vitest';
import { withContextAttributes } from './contextAttributes.ts';

/** Stands in for HTMLCanvasElement.prototype: records the options of each getContext call. */
function fakeCanvasPrototype(): { getContext: (id: string, options?: unknown) => unknown; calls: unknown[][] } {
  const calls: unknown[][] = [];
  return {
    calls,
    getContext(id: string, options?: unknown): unknown {
      calls.push([id, options]);
      return { id };
    },
  };
}

describe('withContextAttributes', () => {
  it('adds the attributes to 2D contexts asked for inside, the caller’s options first', () => {
    const prototype = fakeCanvasPrototype();
    const result = withContextAttributes(
      { desynchronized: true, alpha: true },
      () => {
        prototype.getContext('2d');
        prototype.getContext('2d', { alpha: false });
        prototype.getContext('webgl', { antialias: true });
        return 'made';
      },
      prototype,
    );
    expect(result).toBe('made');
    expect(prototype.calls).toEqual([
      ['2d', { desynchronized: true, alpha: true }],
      ['2d', { desynchronized: true, alpha: false }],
      ['webgl', { antialias: true }],
    ]);
  });

  it('restores getContext afterwards, also when the constructor throws', () => {
    const prototype = fakeCanvasPrototype();
    const original = prototype.getContext;
    expect(() =>
      withContextAttributes(
        { desynchronized: true },
        () => {
          throw new Error('no canvas');
        },
        prototype,
      ),
    ).toThrow('no canvas');
    expect(prototype.getContext).toBe(original);
    prototype.getContext('2d');
    expect(prototype.calls).toEqual([['2d', undefined]]);
  });

  it('leaves an inherited getContext inherited', () => {
    const base = fakeCanvasPrototype();
    const prototype = Object.create(base) as typeof base;
    withContextAttributes({ desynchronized: true }, () => prototype.getContext('2d'), prototype);
    expect(Object.prototype.hasOwnProperty.call(prototype, 'getContext')).toBe(false);
    expect(base.calls).toEqual([['2d', { desynchronized: true }]]);
  });
});
