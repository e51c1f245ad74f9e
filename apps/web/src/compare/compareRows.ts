import { BLOCKS_COUNTED_BEFORE_18, formatBytes, formatNumber, formatPercent } from '@aioscope/core';
import type { CompareFigureKey, CompareSide, SettingDifference } from '@aioscope/spec';

/** The figures' rows, in the order the sentence weighs them, each with how its value reads. */
export const FIGURE_ROWS: readonly { key: CompareFigureKey; label: string; format: (value: number) => string }[] = [
  { key: 'bytesPerRead', label: 'bytes per read', format: (value) => formatBytes(value) },
  { key: 'blocksPerRead', label: 'blocks per read', format: (value) => formatNumber(value, 1) },
  { key: 'readsInFlightMean', label: 'reads in flight, mean', format: (value) => formatNumber(value, 1) },
  { key: 'readsInFlightPeak', label: 'reads in flight, peak', format: (value) => formatNumber(value, 0) },
  { key: 'ioWorkerBusyShare', label: 'io workers busy', format: (value) => formatPercent(value) },
  { key: 'readThroughput', label: 'read throughput', format: (value) => `${formatBytes(value)}/s` },
];

/** The major version of a side ("17"), for the "cannot be measured on 17" wording. */
function majorOf(side: CompareSide): string {
  return side.versionNum === null ? 'this version' : String(Math.floor(side.versionNum / 10_000));
}

/** A figure of one side as its cell reads: the value, or why there is none (naming the version when it is that). */
export function figureText(side: CompareSide, key: CompareFigureKey, format: (value: number) => string): string {
  const figure = side.figures[key];
  if (figure === undefined) return '—';
  if (figure.value !== null) return format(figure.value);
  if (figure.reason === BLOCKS_COUNTED_BEFORE_18)
    return `cannot be measured on ${majorOf(side)}: pg_stat_io counts blocks`;
  return figure.reason ?? '—';
}

/** "pg_stat_io read_bytes / reads over the range · 1 Hz", once when both sides agree, else per side. */
export function sourceText(a: CompareSide, b: CompareSide, key: CompareFigureKey): string {
  const of = (side: CompareSide): string => {
    const figure = side.figures[key];
    return figure === undefined ? '' : `${figure.source} · ${figure.rate}`;
  };
  return of(a) === of(b) ? of(a) : `A: ${of(a)}; B: ${of(b)}`;
}

export interface SettingRow {
  name: string;
  a: string | null;
  b: string | null;
  differs: boolean;
}

/** Every setting of either side, those that differ first (as the server found them), then by name. */
export function settingRows(a: CompareSide, b: CompareSide, differ: readonly SettingDifference[]): SettingRow[] {
  const differing = new Set(differ.map((difference) => difference.name));
  const shown = (side: CompareSide): Map<string, string> =>
    new Map(side.settings.map((setting) => [setting.name, setting.display]));
  const left = shown(a);
  const right = shown(b);
  const names = [...new Set([...left.keys(), ...right.keys()])];
  return names
    .map((name) => ({ name, a: left.get(name) ?? null, b: right.get(name) ?? null, differs: differing.has(name) }))
    .sort((x, y) => Number(y.differs) - Number(x.differs) || x.name.localeCompare(y.name));
}

/** A wait event key "client backend:AioIoCompletion" as read: "AioIoCompletion (client backend)". */
export function waitText(event: string): string {
  const colon = event.indexOf(':');
  return colon < 0 ? event : `${event.slice(colon + 1)} (${event.slice(0, colon)})`;
}
