/** A horizontal extent on screen, in CSS pixels. */
export interface Span {
  left: number;
  right: number;
}

/**
 * How far to move an explanation centred on its (i) so that it lies inside `room` (the screen,
 * narrowed by whatever clips it: a table that scrolls sideways), `margin` from its edges: past the
 * right edge it slides left, past the left edge right. Wider than the room, it starts at the room's
 * left edge, where a text is read from.
 */
export function explainShift(text: Span, room: Span, margin: number): number {
  const overRight = text.right - (room.right - margin);
  const overLeft = room.left + margin - text.left;
  if (overRight > 0) return Math.max(-overRight, overLeft);
  return overLeft > 0 ? overLeft : 0;
}
