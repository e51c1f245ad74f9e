import type { CompareSideRef } from '@aioscope/spec';

/** The Compare view's path: its query is the API's (aTarget, aFrom, aTo, bTarget, bFrom, bTo). */
export const COMPARE_PATH = '/compare';

export interface CompareSides {
  a: CompareSideRef;
  b: CompareSideRef;
}

/** The query of both sides, as GET /api/compare and the view's URL read it. */
export function compareQuery({ a, b }: CompareSides): string {
  const params = new URLSearchParams({
    ...{ aTarget: a.targetId, aFrom: String(Math.round(a.from)), aTo: String(Math.round(a.to)) },
    ...{ bTarget: b.targetId, bFrom: String(Math.round(b.from)), bTo: String(Math.round(b.to)) },
  });
  return params.toString();
}

/** A link to the Compare view of two sides: what "Compare…" and a baseline's "compare with" open. */
export function compareHref(sides: CompareSides): string {
  return `${COMPARE_PATH}?${compareQuery(sides)}`;
}

/** B by default: the same length just before A (a range against the one it followed). */
export function sameLengthBefore(a: CompareSideRef): CompareSideRef {
  const length = a.to - a.from;
  return { targetId: a.targetId, from: a.from - length, to: a.from };
}

function wholeMs(text: string | null): number | null {
  return text !== null && /^\d{1,15}$/.test(text) ? Number(text) : null;
}

function sideOf(params: URLSearchParams, side: 'a' | 'b'): CompareSideRef | null {
  const targetId = params.get(`${side}Target`);
  const from = wholeMs(params.get(`${side}From`));
  const to = wholeMs(params.get(`${side}To`));
  if (targetId === null || targetId === '' || from === null || to === null || from >= to) return null;
  return { targetId, from, to };
}

/**
 * Both sides from the view's URL. A link with only side A (or a malformed B) gets B as the same
 * length just before; without a valid A there is nothing to compare (null).
 */
export function parseCompareLocation(search: string): CompareSides | null {
  const params = new URLSearchParams(search);
  const a = sideOf(params, 'a');
  if (a === null) return null;
  return { a, b: sideOf(params, 'b') ?? sameLengthBefore(a) };
}
