import type { ReactNode } from 'react';

/** A datetime-local input's value for an epoch ms, in the browser's time zone, to the second. */
export function toLocalInput(t: number): string {
  return new Date(t - new Date(t).getTimezoneOffset() * 60_000).toISOString().slice(0, 19);
}

/** The range two datetime-local values name, or what is wrong with them, in words. */
export function readRangeFields(from: string, to: string): { from: number; to: number } | { error: string } {
  const start = new Date(from).getTime();
  const end = new Date(to).getTime();
  if (!Number.isFinite(start) || !Number.isFinite(end)) return { error: 'Both times are needed.' };
  if (start >= end) return { error: '"from" must be before "to".' };
  return { from: start, to: end };
}

/** The "from" and "to" inputs of a range, to the second: the time bar's custom range and Compare's side B. */
export function RangeFields({
  from,
  to,
  onFrom,
  onTo,
}: {
  from: string;
  to: string;
  onFrom: (value: string) => void;
  onTo: (value: string) => void;
}): ReactNode {
  return (
    <>
      <label>
        from{' '}
        <input
          className="toolbar-control"
          type="datetime-local"
          step={1}
          value={from}
          onChange={(event) => onFrom(event.target.value)}
        />
      </label>
      <label>
        to{' '}
        <input
          className="toolbar-control"
          type="datetime-local"
          step={1}
          value={to}
          onChange={(event) => onTo(event.target.value)}
        />
      </label>
    </>
  );
}
