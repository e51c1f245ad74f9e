import { describe, expect, it } from 'vitest';
import { momentKeyMove } from './momentKeys.ts';

describe('keys on the moment slider', () => {
  it('steps one sample per arrow key, in the direction the arrow points', () => {
    expect(momentKeyMove('ArrowRight')).toEqual({ by: 'sample', direction: 1 });
    expect(momentKeyMove('ArrowUp')).toEqual({ by: 'sample', direction: 1 });
    expect(momentKeyMove('ArrowLeft')).toEqual({ by: 'sample', direction: -1 });
    expect(momentKeyMove('ArrowDown')).toEqual({ by: 'sample', direction: -1 });
  });

  it('moves a second per PageUp/PageDown and leaves other keys (Home, End, Tab) to the browser', () => {
    expect(momentKeyMove('PageUp')).toEqual({ by: 'time', ms: 1_000 });
    expect(momentKeyMove('PageDown')).toEqual({ by: 'time', ms: -1_000 });
    for (const key of ['Home', 'End', 'Tab', 'a']) expect(momentKeyMove(key)).toBeNull();
  });
});
