/**
 * What a key does on the moment slider. The native range input moves 1 ms per arrow key (its
 * step: the URL keeps whole ms) and a tenth of the range per PageUp/PageDown, neither of which a
 * person can use to look through samples: an arrow key steps one sample, PageUp/PageDown one
 * second. Home and End keep their native meaning (the range's start and end).
 */
export type MomentKeyMove = { by: 'sample'; direction: -1 | 1 } | { by: 'time'; ms: number } | null;

/** One second per PageUp/PageDown. */
export const MOMENT_PAGE_MS = 1_000;

export function momentKeyMove(key: string): MomentKeyMove {
  switch (key) {
    case 'ArrowRight':
    case 'ArrowUp':
      return { by: 'sample', direction: 1 };
    case 'ArrowLeft':
    case 'ArrowDown':
      return { by: 'sample', direction: -1 };
    case 'PageUp':
      return { by: 'time', ms: MOMENT_PAGE_MS };
    case 'PageDown':
      return { by: 'time', ms: -MOMENT_PAGE_MS };
    default:
      return null;
  }
}
