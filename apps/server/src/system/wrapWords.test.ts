import { describe, expect, it } from 'vitest';
import { wrapWords } from './wrapWords.ts';

describe('wrapWords', () => {
  it('fills each line up to the width and breaks only between words', () => {
    expect(wrapWords('one two three four', 9)).toEqual(['one two', 'three', 'four']);
    expect(wrapWords('one two', 7)).toEqual(['one two']);
  });

  it('gives a word longer than the width a line of its own, and nothing for no text', () => {
    expect(wrapWords('a postgresql://very-long-url b', 10)).toEqual(['a', 'postgresql://very-long-url', 'b']);
    expect(wrapWords('', 10)).toEqual([]);
  });
});
