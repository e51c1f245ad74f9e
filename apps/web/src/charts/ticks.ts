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
