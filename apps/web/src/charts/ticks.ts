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

const CLOCK_STEPS_MS = [
  10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000,
  1_800_000, 3_600_000, 7_200_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000,
];

/**
 * Ticks at round times of day (every 5 min, every hour…) inside [from, to], about `wanted` of
 * them: the axis of a past range, where "-3600 s" would mean nothing. Rounded in local time.
 */
export function clockTicks(from: number, to: number, wanted: number): number[] {
  const span = to - from;
  if (!(span > 0)) return [];
  const step = CLOCK_STEPS_MS.find((candidate) => span / candidate <= wanted) ?? 86_400_000;
  const offset = new Date(from).getTimezoneOffset() * 60_000;
  const ticks: number[] = [];
  for (let t = Math.ceil((from - offset) / step) * step + offset; t <= to; t += step) ticks.push(t);
  return ticks;
}

/** Width of a character of an axis label (11 px system-ui digits are about 6 px), with room to spare. */
const LABEL_CHAR_PX = 6.5;
/** Space between two labels. */
const LABEL_GAP_PX = 12;

/**
 * Clock ticks for an axis `widthPx` wide: at most `wanted`, as few as their labels need not to run
 * into each other (six labels of 22:28:40 ran together at 420 px), and none whose label would stick
 * out of the right end (the plot leaves `rightRoomPx` there; a label is centred on its tick, so a
 * tick near the end was drawn "20:34:3").
 */
export function fittedClockTicks(from: number, to: number, widthPx: number, rightRoomPx: number, wanted = 6): number[] {
  const span = to - from;
  if (!(span > 0) || !(widthPx > 0)) return [];
  const pxPerMs = widthPx / span;
  let ticks: number[] = [];
  let labelPx = 0;
  for (let count = wanted; count >= 1; count--) {
    ticks = clockTicks(from, to, count);
    labelPx = Math.max(0, ...formatClockTicks(ticks).map((label) => label.length)) * LABEL_CHAR_PX;
    const spacingPx = ticks.length > 1 ? ((ticks[1] as number) - (ticks[0] as number)) * pxPerMs : Infinity;
    if (spacingPx >= labelPx + LABEL_GAP_PX) break;
  }
  return ticks.filter((t) => (to - t) * pxPerMs + rightRoomPx >= labelPx / 2);
}

/** Labels of clock ticks: as short as their spacing allows (12:05, 12:05:30, 12:05:30.250). */
export function formatClockTicks(ticks: readonly number[]): string[] {
  const step = ticks.length > 1 ? (ticks[1] as number) - (ticks[0] as number) : 60_000;
  return ticks.map((t) => {
    const d = new Date(t);
    const hm = `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
    if (step >= 60_000) return hm;
    const s = `${hm}:${String(d.getSeconds()).padStart(2, '0')}`;
    return step >= 1_000 ? s : `${s}.${String(d.getMilliseconds()).padStart(3, '0')}`;
  });
}
