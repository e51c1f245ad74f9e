/** Round tick steps (1, 2, 5 × 10^k) covering [0, max] in about `count` steps. */
export function niceTicks(max: number, count = 4): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((candidate) => candidate >= raw) ?? raw;
  const ticks: number[] = [];
  for (let value = 0; value <= max + step * 1e-9; value += step) ticks.push(Number(value.toPrecision(12)));
  if ((ticks[ticks.length - 1] ?? 0) < max) ticks.push(Number((ticks.length * step).toPrecision(12)));
  return ticks;
}

/**
 * Byte-axis ticks at power-of-two steps (32 kB, 256 kB, 1 MB …), at most `maxIntervals` + 1 of them, so labels
 * read as round sizes instead of 683.6 kB.
 */
export function byteTicks(max: number, minStep = 8 * 1024, maxIntervals = 5): number[] {
  if (!(max > 0)) return [0];
  const step = Math.max(minStep, 2 ** Math.ceil(Math.log2(max / maxIntervals)));
  const ticks: number[] = [];
  for (let value = 0; value <= max + step / 2; value += step) ticks.push(value);
  return ticks;
}

/**
 * Time ticks every `stepMs` counted back from the right edge `to`, oldest first, so the labels of a
 * moving window read "-60 s … now" and stay where they are while the window moves.
 */
export function ticksBackFrom(to: number, from: number, stepMs: number): number[] {
  const ticks: number[] = [];
  if (!(stepMs > 0)) return ticks;
  // 1 ms of slack: the window's left edge is a tick too, whatever the rounding of from and to.
  for (let t = to; t >= from - 1; t -= stepMs) ticks.push(t);
  return ticks.reverse();
}
