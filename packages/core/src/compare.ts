import {
  MAX_RAW_RANGE_MS,
  type Capabilities,
  type CompareFigure,
  type CompareFigureKey,
  type CompareSide,
  type CompareWait,
  type HistoryEvent,
  type LiveFrame,
  type RollupPoint,
  type ServerInfo,
} from '@aioscope/spec';
import { scansOfRange } from './compareScans.ts';
import { formatBytes, formatDuration, formatNumber } from './format.ts';
import { AIO_VERSION_NUM } from './settings.ts';

/** Wait events listed per side, most common first. */
export const COMPARE_TOP_WAITS = 5;

/** Fewer pg_stat_io reads than this say nothing of a read size: a few 8 kB catalog reads, not a scan. */
export const MIN_STAT_READS = 64;
/**
 * pg_stat_io counts a statement's reads when it ends (at most once a second while idle): when the
 * scan map saw this much more than pg_stat_io counted (and at least UNCOUNTED_MIN_BYTES more), the
 * range holds scans whose reads were not counted yet, and its throughput would be too low.
 */
export const UNCOUNTED_SCAN_RATIO = 1.5;
const UNCOUNTED_MIN_BYTES = 8 * 1024 * 1024;

/** Said of a figure on a server older than 18: pg_stat_io's `reads` counts blocks there (reference doc). */
export const BLOCKS_COUNTED_BEFORE_18 = 'cannot be measured before 18: pg_stat_io counts blocks';

/** What one side of a Compare is made of, as the history routes read it. */
export interface CompareSideInput {
  targetId: string;
  from: number;
  to: number;
  about: {
    target: { name: string };
    server: ServerInfo | null;
    capabilities: Capabilities | null;
    sampleRateHz: number;
    statRateHz: number;
  };
  /** Roll-ups of the range, summed; stepMs is their step. */
  points: readonly RollupPoint[];
  stepMs: number;
  /** Raw frames of the range; null when the range is longer than raw frames are served for. */
  raw: { frames: readonly LiveFrame[]; scansBefore: LiveFrame | null } | null;
  /** Why the settings may not be the range's own (settingsCaveatOf); null when they are. */
  settingsCaveat: string | null;
}

/** The range's roll-ups added up: sums, and means weighted by the frames they are over. */
interface RangeTotals {
  frames: number;
  inflightFrames: number;
  readsInFlightSum: number;
  readsInFlightPeak: number;
  workerSamples: number;
  workerBusy: number;
  waitSums: Map<string, number>;
  statReads: number;
  statReadBytes: number;
  /** Roll-up steps holding at least one sample. */
  sampledSteps: number;
}

function totalsOf(points: readonly RollupPoint[]): RangeTotals {
  const totals: RangeTotals = {
    ...{ frames: 0, inflightFrames: 0, readsInFlightSum: 0, readsInFlightPeak: 0 },
    ...{ workerSamples: 0, workerBusy: 0, waitSums: new Map(), statReads: 0, statReadBytes: 0, sampledSteps: 0 },
  };
  for (const point of points) {
    totals.frames += point.frames;
    if (point.inflightKnown) {
      totals.inflightFrames += point.frames;
      totals.readsInFlightSum += point.readsInFlight.mean * point.frames;
      totals.readsInFlightPeak = Math.max(totals.readsInFlightPeak, point.readsInFlight.max);
    }
    totals.workerSamples += point.workerSamples;
    totals.workerBusy += point.workerBusy;
    for (const [event, mean] of Object.entries(point.waits)) {
      totals.waitSums.set(event, (totals.waitSums.get(event) ?? 0) + mean * point.frames);
    }
    totals.statReads += point.statReads;
    totals.statReadBytes += point.statReadBytes;
    if (point.frames > 0) totals.sampledSteps++;
  }
  return totals;
}

function hz(rate: number): string {
  return `${formatNumber(rate)} Hz`;
}

function measured(value: number, source: string, rate: string): CompareFigure {
  return { value, reason: null, source, rate };
}

function notMeasured(reason: string, source: string, rate: string): CompareFigure {
  return { value: null, reason, source, rate };
}

/** Figures a server of this version cannot report at all, whatever the role or the range. */
export function unavailableOnVersion(versionNum: number | null): CompareSide['unavailable'] {
  if (versionNum === null || versionNum >= AIO_VERSION_NUM) return [];
  const noAios = 'pg_aios exists from PostgreSQL 18';
  return [
    { figure: 'bytesPerRead', reason: BLOCKS_COUNTED_BEFORE_18 },
    { figure: 'blocksPerRead', reason: BLOCKS_COUNTED_BEFORE_18 },
    { figure: 'readsInFlightMean', reason: noAios },
    { figure: 'readsInFlightPeak', reason: noAios },
    { figure: 'ioWorkerBusyShare', reason: 'io workers exist from PostgreSQL 18' },
  ];
}

function figuresOf(
  input: CompareSideInput,
  totals: RangeTotals,
  scanBytes: number | null,
): Record<CompareFigureKey, CompareFigure> {
  const { server, capabilities, sampleRateHz, statRateHz } = input.about;
  const unavailable = new Map(unavailableOnVersion(server?.versionNum ?? null).map((u) => [u.figure, u.reason]));
  const statRate = hz(statRateHz);
  const fastRate = hz(sampleRateHz);
  const nothing = totals.frames === 0 && totals.statReads === 0 ? 'nothing was recorded in the range' : null;
  const never = server === null ? 'the server was never read (no version, no settings)' : null;

  const tooFewReads =
    totals.statReads === 0
      ? 'pg_stat_io counted no reads'
      : totals.statReads < MIN_STAT_READS
        ? `pg_stat_io counted only ${totals.statReads} reads: too few to tell a read size (a statement's reads are counted when it ends)`
        : null;
  const uncounted =
    scanBytes !== null &&
    scanBytes > totals.statReadBytes * UNCOUNTED_SCAN_RATIO &&
    scanBytes - totals.statReadBytes >= UNCOUNTED_MIN_BYTES
      ? `scans read ${formatBytes(scanBytes, 1, { space: ' ' })} but pg_stat_io counted ${formatBytes(totals.statReadBytes, 1, { space: ' ' })}: a statement's reads are counted when it ends; choose a range that includes the scans' end`
      : null;
  const perRead = (key: CompareFigureKey, source: string, divisor: number): CompareFigure => {
    const reason = unavailable.get(key) ?? never ?? nothing ?? tooFewReads;
    return reason === null
      ? measured(totals.statReadBytes / totals.statReads / divisor, source, statRate)
      : notMeasured(reason, source, statRate);
  };

  const inflightSource = 'pg_aios readv rows at each sample';
  const inflightReason =
    unavailable.get('readsInFlightMean') ??
    never ??
    nothing ??
    (totals.inflightFrames === 0
      ? capabilities?.canReadPgAios === false
        ? 'pg_aios could not be read: the role lacks pg_read_all_stats'
        : 'pg_aios was not read in the range'
      : null);
  const inflight = (value: number, source: string): CompareFigure =>
    inflightReason === null ? measured(value, source, fastRate) : notMeasured(inflightReason, source, fastRate);

  const busySource = 'io workers in pg_stat_activity not idle in IoWorkerMain, share of samples';
  const busyReason =
    unavailable.get('ioWorkerBusyShare') ??
    never ??
    nothing ??
    (totals.workerSamples === 0
      ? server?.ioMethod !== 'worker'
        ? `no io workers: io_method = ${server?.ioMethod ?? 'unknown'}`
        : 'no io worker was sampled'
      : null);

  // Over the time the range was recorded (steps with samples): a range that began before recording
  // did, or spans a gap, would otherwise read as slow.
  const rangeSeconds = (input.to - input.from) / 1000;
  const recordedSeconds = (totals.sampledSteps * input.stepMs) / 1000;
  const seconds = recordedSeconds > 0 ? Math.min(rangeSeconds, recordedSeconds) : rangeSeconds;
  const throughputSource = 'pg_stat_io read bytes over the recorded time of the range (reads × op_bytes before 18)';
  return {
    bytesPerRead: perRead('bytesPerRead', 'pg_stat_io read_bytes / reads over the range', 1),
    blocksPerRead: perRead('blocksPerRead', 'pg_stat_io read_bytes / reads / block_size', server?.blockSize ?? 8192),
    readsInFlightMean: inflight(
      totals.inflightFrames > 0 ? totals.readsInFlightSum / totals.inflightFrames : 0,
      `${inflightSource}, mean`,
    ),
    readsInFlightPeak: inflight(totals.readsInFlightPeak, `${inflightSource}, peak`),
    ioWorkerBusyShare:
      busyReason === null
        ? measured(totals.workerBusy / totals.workerSamples, busySource, fastRate)
        : notMeasured(busyReason, busySource, fastRate),
    readThroughput: ((reason) =>
      reason === null
        ? measured(totals.statReadBytes / seconds, throughputSource, statRate)
        : notMeasured(reason, throughputSource, statRate))(never ?? nothing ?? uncounted),
  };
}

function waitsOf(totals: RangeTotals): CompareWait[] {
  let all = 0;
  for (const sum of totals.waitSums.values()) all += sum;
  if (all <= 0) return [];
  return [...totals.waitSums.entries()]
    .filter(([, sum]) => sum > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, COMPARE_TOP_WAITS)
    .map(([event, sum]) => ({ event, share: sum / all }));
}

function clock(t: number): string {
  return new Date(t).toISOString().slice(0, 19).replace('T', ' ');
}

/** "reporting, 2026-12-02 03:10:00 → 03:25:00 UTC (15 min)": the day is left out of the end when it is the same. */
export function sideLabel(name: string, from: number, to: number): string {
  const start = clock(from);
  const end = clock(to);
  const endShown = end.slice(0, 10) === start.slice(0, 10) ? end.slice(11) : end;
  return `${name}, ${start} → ${endShown} UTC (${formatDuration(to - from, 'span')})`;
}

/**
 * A side is described as its target was at the range's start (HistoryReader.describeAt): a restart
 * or a settings change inside the range means its later part may have run with other settings.
 */
export function settingsCaveatOf(eventsInRange: readonly HistoryEvent[]): string | null {
  const change = eventsInRange.find((event) => event.kind === 'serverRestarted' || event.kind === 'settingsChanged');
  if (change === undefined) return null;
  const what = change.kind === 'serverRestarted' ? 'the server restarted' : 'its settings changed';
  return `${what} during this range (${clock(change.t)} UTC): settings are shown as they were at its start`;
}

/** One side of a Compare: its figures, waits, scans and settings, from what the history routes read. */
export function compareSide(input: CompareSideInput): CompareSide {
  const { server } = input.about;
  const totals = totalsOf(input.points);
  let scans: CompareSide['scans'] = null;
  let scansReason: string | null = null;
  if (input.raw === null) {
    scansReason = `scans come from raw frames, kept for ranges of at most ${formatDuration(MAX_RAW_RANGE_MS, 'limit')}`;
  } else if (server === null) {
    scansReason = 'the block size is unknown: the server was never read';
  } else {
    scans = scansOfRange(input.raw.frames, input.raw.scansBefore, input, server.blockSize);
  }
  return {
    targetId: input.targetId,
    from: input.from,
    to: input.to,
    label: sideLabel(input.about.target.name, input.from, input.to),
    targetName: input.about.target.name,
    serverVersion: server?.version ?? null,
    versionNum: server?.versionNum ?? null,
    ioMethod: server?.ioMethod ?? null,
    unavailable: unavailableOnVersion(server?.versionNum ?? null),
    sampleRateHz: input.about.sampleRateHz,
    statRateHz: input.about.statRateHz,
    frames: totals.frames,
    statReads: totals.statReads,
    figures: figuresOf(input, totals, scans === null ? null : scans.reduce((sum, scan) => sum + scan.bytes, 0)),
    waits: waitsOf(totals),
    scans,
    scansReason,
    settings: server?.settings ?? [],
    settingsCaveat: input.settingsCaveat,
  };
}
