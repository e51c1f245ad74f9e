import type { RollupPoint } from '@aioscope/spec';

/** How steps falling in one column of a sparkline become its one value. */
export type SparkReduce = 'max' | 'mean';

export interface SparkOptions {
  from: number;
  to: number;
  stepMs: number;
  top: number;
  width: number;
  height: number;
  /**
   * At most this many points across the width: 600 one-second steps in 120 px drew a zigzag
   * five steps to the pixel, a solid block on a busy server. Steps are grouped into equal
   * columns of time and each column reduced to one value (peaks: max, shares and sizes: mean).
   */
  columns?: number;
  reduce?: SparkReduce;
}

/** A sparkline's SVG path over [from, to): one point per step (or column) with a value, gaps where none. */
export function sparklinePath(
  points: readonly RollupPoint[],
  value: (point: RollupPoint) => number | null,
  options: SparkOptions,
): string {
  const { from, to, stepMs, top, width, height } = options;
  const span = Math.max(1, to - from);
  const y = (v: number): string => (height - (Math.min(v, top) / (top || 1)) * (height - 2) - 1).toFixed(1);
  const steps = span / stepMs;
  if (options.columns !== undefined && steps > options.columns) {
    return columnPath(points, value, { ...options, columns: options.columns }, y);
  }
  const runs: Vertex[][] = [];
  let previous = -Infinity;
  for (const point of points) {
    const v = value(point);
    if (v === null || point.t < from || point.t >= to) {
      previous = -Infinity;
      continue;
    }
    const x = ((point.t + stepMs / 2 - from) / span) * width;
    if (point.t - previous > stepMs * 1.5) runs.push([]);
    runs.at(-1)?.push({ x, y: y(v) });
    previous = point.t;
  }
  return pathOf(runs);
}

interface Vertex {
  x: number;
  y: string;
}

/**
 * The path of runs of vertices, each run a line of its own. A run of one vertex (one step between
 * gaps, or a server's first step) is a 2 px tick: a bare "M" draws nothing.
 */
function pathOf(runs: readonly Vertex[][]): string {
  let d = '';
  for (const run of runs) {
    const [first] = run;
    if (first === undefined) continue;
    if (run.length === 1) {
      d += `M${(first.x - 1).toFixed(1)},${first.y}h2`;
      continue;
    }
    run.forEach((vertex, i) => {
      d += `${i === 0 ? 'M' : 'L'}${vertex.x.toFixed(1)},${vertex.y}`;
    });
  }
  return d;
}

function columnPath(
  points: readonly RollupPoint[],
  value: (point: RollupPoint) => number | null,
  options: SparkOptions & { columns: number },
  y: (v: number) => string,
): string {
  const { from, to, width, columns } = options;
  const columnMs = (to - from) / columns;
  const sums = new Array<number>(columns).fill(0);
  const counts = new Array<number>(columns).fill(0);
  const maxima = new Array<number>(columns).fill(-Infinity);
  for (const point of points) {
    const v = value(point);
    if (v === null || point.t < from || point.t >= to) continue;
    const column = Math.min(columns - 1, Math.floor((point.t - from) / columnMs));
    sums[column] = (sums[column] ?? 0) + v;
    counts[column] = (counts[column] ?? 0) + 1;
    maxima[column] = Math.max(maxima[column] ?? -Infinity, v);
  }
  const runs: Vertex[][] = [];
  let drawnBefore = false;
  for (let column = 0; column < columns; column++) {
    const count = counts[column] ?? 0;
    if (count === 0) {
      drawnBefore = false;
      continue;
    }
    const v = options.reduce === 'max' ? (maxima[column] ?? 0) : (sums[column] ?? 0) / count;
    if (!drawnBefore) runs.push([]);
    runs.at(-1)?.push({ x: ((column + 0.5) / columns) * width, y: y(v) });
    drawnBefore = true;
  }
  return pathOf(runs);
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
