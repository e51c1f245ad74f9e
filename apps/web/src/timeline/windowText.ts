import { createContext, useContext } from 'react';
import { formatDuration } from '../format.ts';
import { describeRange, type TimeView } from './timeView.ts';

/** How figures and captions name the window they summarise: "60 s" live, the range otherwise. */
export interface WindowText {
  /** After a figure's label: "peak, 60 s", "peak, range". */
  short: string;
  /** In sentences: "the last 60 s", "12:03:10–12:08:10". */
  long: string;
  /** For screen readers, units spelled out: "the last 60 seconds". */
  spoken: string;
}

export const LIVE_WINDOW_TEXT: WindowText = { short: '60 s', long: 'the last 60 s', spoken: 'the last 60 seconds' };

export const WindowTextContext = createContext<WindowText>(LIVE_WINDOW_TEXT);

export function useWindowText(): WindowText {
  return useContext(WindowTextContext);
}

export function windowTextOf(view: TimeView, past: { domain: [number, number] } | null): WindowText {
  if (view.mode === 'live') return LIVE_WINDOW_TEXT;
  if (view.speed !== null && past !== null) {
    const length = formatDuration(past.domain[1] - past.domain[0], 'span');
    return {
      short: length,
      long: `the ${length} before the replayed moment`,
      spoken: `the ${length} before the replayed moment`,
    };
  }
  const range = `the range ${describeRange(view.from, view.to)}`;
  return { short: 'range', long: range, spoken: range };
}

export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
