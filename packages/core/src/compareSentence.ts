import type { CompareFigureKey, CompareResult, CompareSide, SettingDifference } from '@aioscope/spec';
import { UNIT_SPACE, formatBytes, formatPercent } from './format.ts';
import { AIO_VERSION_NUM } from './settings.ts';

/**
 * What counts as "differs" in the sentence. Each figure is sampled or summed over a range, so two
 * runs of one workload never agree exactly: below these, a difference is noise, not news.
 */
export const COMPARE_THRESHOLDS = {
  /** Bytes per read and read throughput: one side at least 1.25× the other. */
  sizeRatio: 1.25,
  /** Mean reads in flight: at least 1.5× the other and at least half a read apart. */
  inflightRatio: 1.5,
  inflightMinDifference: 0.5,
  /** io worker busy share: at least 15 points apart. */
  busyShareDifference: 0.15,
} as const;

/** Settings the sentence names at most (the table lists them all). */
const SETTINGS_NAMED = 3;
/** Settings the sentence speaks of on their own (io method and io workers), not in the settings list. */
const IO_WORKER_SETTINGS = ['io_method', 'io_workers', 'io_min_workers', 'io_max_workers'];
export const NO_DIFFERENCE = 'no difference that matters';
const SAME_IO_WORKERS = 'same io workers';

const plain = { space: ' ' } as const;

function ratioText(ratio: number): string {
  return ratio >= 10 ? String(Math.round(ratio)) : String(Math.round(ratio * 10) / 10);
}

function countText(value: number): string {
  return value >= 10 ? String(Math.round(value)) : String(Math.round(value * 10) / 10);
}

function percentText(share: number): string {
  return formatPercent(share).replace(UNIT_SPACE, ' ');
}

function valueOf(side: CompareSide, key: CompareFigureKey): number | null {
  return side.figures[key]?.value ?? null;
}

/** Every setting whose shown value differs, by name (a setting one side lacks shows as null). */
export function settingsThatDiffer(a: CompareSide, b: CompareSide): SettingDifference[] {
  const shown = (side: CompareSide): Map<string, string> =>
    new Map(side.settings.map((setting) => [setting.name, setting.display]));
  const left = shown(a);
  const right = shown(b);
  const names = [...new Set([...left.keys(), ...right.keys()])].sort();
  return names
    .map((name) => ({ name, a: left.get(name) ?? null, b: right.get(name) ?? null }))
    .filter((difference) => difference.a !== difference.b);
}

function major(versionNum: number): number {
  return Math.floor(versionNum / 10_000);
}

/** "reads 16× larger: 128 kB instead of 8 kB", or why bytes per read cannot be compared. */
function bytesPerReadPart(a: CompareSide, b: CompareSide): string | null {
  const older = [a, b].find((side) => side.versionNum !== null && side.versionNum < AIO_VERSION_NUM);
  const newer = [a, b].find((side) => side.versionNum !== null && side.versionNum >= AIO_VERSION_NUM);
  if (older !== undefined && newer !== undefined && older.versionNum !== null) {
    return `bytes per read cannot be compared: ${major(older.versionNum)} counts blocks in pg_stat_io, not reads`;
  }
  const left = valueOf(a, 'bytesPerRead');
  const right = valueOf(b, 'bytesPerRead');
  if (left === null || right === null || left <= 0 || right <= 0) return null;
  const both = `${formatBytes(left, 1, plain)} instead of ${formatBytes(right, 1, plain)}`;
  if (left / right >= COMPARE_THRESHOLDS.sizeRatio) return `reads ${ratioText(left / right)}× larger: ${both}`;
  if (right / left >= COMPARE_THRESHOLDS.sizeRatio) return `reads ${ratioText(right / left)}× smaller: ${both}`;
  return null;
}

function inflightPart(a: CompareSide, b: CompareSide): string | null {
  const left = valueOf(a, 'readsInFlightMean');
  const right = valueOf(b, 'readsInFlightMean');
  if (left === null || right === null) return null;
  const { inflightRatio, inflightMinDifference } = COMPARE_THRESHOLDS;
  const apart = Math.abs(left - right) >= inflightMinDifference;
  const ratio = Math.max(left, right) / Math.max(Math.min(left, right), Number.MIN_VALUE);
  if (!apart || ratio < inflightRatio) return null;
  return `${countText(left)} in flight instead of ${countText(right)}`;
}

function ioWorkersPart(a: CompareSide, b: CompareSide, differ: readonly SettingDifference[]): string | null {
  // Before 18 there is no io_method: the version part already says what differs.
  const method = differ.find((difference) => difference.name === 'io_method' && isOnBothSides(difference));
  if (method !== undefined) return `io_method ${method.a ?? ''} instead of ${method.b ?? ''}`;
  if (a.ioMethod !== 'worker' || b.ioMethod !== 'worker') return null;
  const parts = differ
    .filter((difference) => IO_WORKER_SETTINGS.includes(difference.name) && isOnBothSides(difference))
    .map((difference) => `${difference.name} ${difference.a ?? ''} instead of ${difference.b ?? ''}`);
  const left = valueOf(a, 'ioWorkerBusyShare');
  const right = valueOf(b, 'ioWorkerBusyShare');
  if (left !== null && right !== null && Math.abs(left - right) >= COMPARE_THRESHOLDS.busyShareDifference) {
    parts.push(`io workers busy ${percentText(left)} instead of ${percentText(right)}`);
  }
  return parts.length > 0 ? parts.join(', ') : SAME_IO_WORKERS;
}

function throughputPart(a: CompareSide, b: CompareSide): string | null {
  const left = valueOf(a, 'readThroughput');
  const right = valueOf(b, 'readThroughput');
  if (left === null || right === null || left <= 0 || right <= 0) return null;
  const both = `${formatBytes(left, 1, plain)}/s instead of ${formatBytes(right, 1, plain)}/s`;
  if (left / right >= COMPARE_THRESHOLDS.sizeRatio)
    return `read throughput ${ratioText(left / right)}× higher: ${both}`;
  if (right / left >= COMPARE_THRESHOLDS.sizeRatio) return `read throughput ${ratioText(right / left)}× lower: ${both}`;
  return null;
}

function waitName(event: string): string {
  return event.slice(event.indexOf(':') + 1);
}

function waitsPart(a: CompareSide, b: CompareSide): string | null {
  const left = a.waits[0];
  const right = b.waits[0];
  if (left === undefined || right === undefined) return null;
  if (waitName(left.event) === waitName(right.event)) return null;
  return `waits mostly on ${waitName(left.event)} instead of ${waitName(right.event)}`;
}

/**
 * A setting only one side lists was not read on the other (an older version or recording), which
 * is not a difference of value: the table shows it, the sentence leaves it out.
 */
function isOnBothSides(difference: SettingDifference): boolean {
  return difference.a !== null && difference.b !== null;
}

function settingsPart(differ: readonly SettingDifference[]): string | null {
  const others = differ.filter(
    (difference) => !IO_WORKER_SETTINGS.includes(difference.name) && isOnBothSides(difference),
  );
  if (others.length === 0) return null;
  const named = others
    .slice(0, SETTINGS_NAMED)
    .map((difference) => `${difference.name} ${difference.a ?? ''} instead of ${difference.b ?? ''}`);
  const more = others.length - named.length;
  return more > 0 ? `${named.join(', ')} (and ${more} more settings)` : named.join(', ');
}

function versionPart(a: CompareSide, b: CompareSide): string | null {
  if (a.serverVersion === null || b.serverVersion === null || a.serverVersion === b.serverVersion) return null;
  return `PostgreSQL ${a.serverVersion} instead of ${b.serverVersion}`;
}

function emptyPart(a: CompareSide, b: CompareSide): string | null {
  const empty = [a, b].filter((side) => side.frames === 0 && side.statReads === 0);
  if (empty.length === 0) return null;
  return empty.map((side) => `nothing was recorded in ${side === a ? 'A' : 'B'} (${side.label})`).join('; ');
}

/**
 * Two sides and the plain sentence of how A differs from B: only what passes the thresholds, a
 * ratio only when both sides measured the figure, and never a 17-against-18 "16× larger" (17
 * counts blocks in pg_stat_io, so its 8 kB is the counting unit, not a read size).
 */
export function compareSides(a: CompareSide, b: CompareSide): CompareResult {
  const settingsDiffer = settingsThatDiffer(a, b);
  const parts = [
    emptyPart(a, b),
    versionPart(a, b),
    bytesPerReadPart(a, b),
    inflightPart(a, b),
    ioWorkersPart(a, b, settingsDiffer),
    throughputPart(a, b),
    waitsPart(a, b),
    settingsPart(settingsDiffer),
  ].filter((part): part is string => part !== null);
  // "same io workers" is worth saying beside other differences only, after them: alone it is no difference.
  const others = parts.filter((part) => part !== SAME_IO_WORKERS);
  const differences = others.length === 0 ? [] : others.length < parts.length ? [...others, SAME_IO_WORKERS] : others;
  return {
    a,
    b,
    settingsDiffer,
    differences,
    sentence: differences.length > 0 ? differences.join('; ') : NO_DIFFERENCE,
  };
}
