import type { RollupPoint } from '@aioscope/spec';

/** A sparkline's SVG path over [from, to): one point per step with a value, gaps where none. */
export function sparklinePath(
  points: readonly RollupPoint[],
  value: (point: RollupPoint) => number | null,
  options: { from: number; to: number; stepMs: number; top: number; width: number; height: number },
): string {
  const { from, to, stepMs, top, width, height } = options;
  const span = Math.max(1, to - from);
  let d = '';
  let previous = -Infinity;
  for (const point of points) {
    const v = value(point);
    if (v === null || point.t < from || point.t >= to) {
      previous = -Infinity;
      continue;
    }
    const x = (((point.t + stepMs / 2 - from) / span) * width).toFixed(1);
    const y = (height - (Math.min(v, top) / (top || 1)) * (height - 2) - 1).toFixed(1);
    d += `${point.t - previous > stepMs * 1.5 ? 'M' : 'L'}${x},${y}`;
    previous = point.t;
  }
  return d;
}

/** The newest value of a series, for the figure beside its sparkline. */
export function newestValue(
  points: readonly RollupPoint[],
  value: (point: RollupPoint) => number | null,
): number | null {
  for (let i = points.length - 1; i >= 0; i--) {
    const v = value(points[i] as RollupPoint);
    if (v !== null) return v;
  }
  return null;
}

/** Labels as "key=value" chips, and whether a row passes a filter such as "env=prod" or "prod". */
export function matchesLabelFilter(labels: Record<string, string>, name: string, filter: string): boolean {
  const wanted = filter.trim().toLowerCase();
  if (wanted === '') return true;
  const haystack = [name, ...Object.entries(labels).map(([key, value]) => `${key}=${value}`)].map((text) =>
    text.toLowerCase(),
  );
  return wanted.split(/\s+/).every((term) => haystack.some((text) => text.includes(term)));
}
