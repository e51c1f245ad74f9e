import type { HistoryReaders, LiveFrame, ProcessesSnapshot, ProcessView, ReaderRow, ReaderWait } from '@aioscope/spec';
import { busyShare, emptyTally, tallyFrame } from './workerBusy.ts';

/** Most intervals one row carries: the strip draws a few hundred marks at most. */
export const MAX_READER_INTERVALS = 200;
/** A row with no wait event: on CPU, as the processes table says it. A CPU-bound scan shows mostly this. */
export const RUNNING = 'running (no wait)';
/** Wait events listed per row. */
const TOP_WAITS = 3;
/** Samples this many intervals apart or closer belong to one stretch of reading. */
const MERGE_GAP_SAMPLES = 3;

/** Who a process was reading for at one instant: its statement and the row it is listed in. */
interface Reader {
  /** One execution: the (leader's) pid and its query start. */
  execution: string;
  row: string;
  queryText: string | null;
  backendType: string | null;
}

interface RowTally {
  queryText: string | null;
  executions: Set<string>;
  pids: Set<number>;
  backendTypes: Set<string>;
  /** Reads and bytes in flight per frame time: several processes of one row add up per frame. */
  byFrame: Map<number, { count: number; bytes: number }>;
  /** Per scan key: the lowest and highest blocksDone seen in the range. */
  scanBlocks: Map<string, { low: number; high: number }>;
  /** Per scan key: the relation's name once resolved, else its relfilenode. */
  relations: Map<string, string>;
  waits: Map<string, number>;
  waitRows: number;
}

export interface ReadersInput {
  frames: readonly LiveFrame[];
  processes: readonly ProcessesSnapshot[];
  /** The processes table in force at the range's start (recorded before it). */
  processesBefore?: ProcessesSnapshot | null;
  /** Block size of the server, for the scan map's blocks; null when unknown. */
  blockSize: number | null;
}

/** Median spacing of the frames, ms: the interval one sample stands for. null with fewer than 2. */
export function medianFrameInterval(frames: readonly LiveFrame[]): number | null {
  const gaps: number[] = [];
  for (let index = 1; index < frames.length; index++) {
    const gap = (frames[index]?.t ?? 0) - (frames[index - 1]?.t ?? 0);
    if (gap > 0) gaps.push(gap);
  }
  if (gaps.length === 0) return null;
  gaps.sort((a, b) => a - b);
  return gaps[Math.floor(gaps.length / 2)] ?? null;
}

/** Sorted instants merged into [from, to] stretches; the gap allowed grows until at most `max` remain. */
export function mergeIntoIntervals(times: readonly number[], gapMs: number, max: number): [number, number][] {
  let gap = gapMs;
  for (;;) {
    const intervals: [number, number][] = [];
    for (const t of times) {
      const last = intervals.at(-1);
      if (last !== undefined && t - last[1] <= gap) last[1] = t;
      else intervals.push([t, t]);
    }
    if (intervals.length <= max || gap <= 0) return intervals;
    gap *= 2;
  }
}

/** A processes table, by pid, with the leaders of parallel queries by their query start. */
interface Table {
  byPid: Map<number, ProcessView>;
  /** A parallel worker's query_start is its leader's: the leader when the scan map did not name it. */
  leaderByStart: Map<number, number>;
}

function tableOf(snapshot: ProcessesSnapshot | null | undefined): Table {
  const byPid = new Map<number, ProcessView>();
  const leaderByStart = new Map<number, number>();
  for (const process of snapshot?.processes ?? []) {
    byPid.set(process.pid, process);
    if (process.queryStart !== null && process.backendType === 'client backend') {
      leaderByStart.set(process.queryStart, process.pid);
    }
  }
  return { byPid, leaderByStart };
}

/** One process as one processes table showed it. */
interface Sighting {
  t: number;
  process: ProcessView;
}

/** What the range's tables tell about processes, beyond any one table. */
interface KnownAcrossRange {
  /** Every table's row of each pid, oldest first. */
  sightings: ReadonlyMap<number, readonly Sighting[]>;
  leaders: ReadonlyMap<number, number>;
  /** Query text by execution: the text is read apart from the tick, so a new statement's first rows lack it. */
  texts: ReadonlyMap<string, string>;
}

/**
 * How long a table's row stands for its process when no later row proves it: two tables (2 Hz).
 * A table lists only the processes doing I/O at its instant, so a reading process is often absent.
 */
const EARLIER_ROW_TRUSTED_MS = 1_000;

function sightingsOf(snapshots: readonly (ProcessesSnapshot | null | undefined)[]): Map<number, Sighting[]> {
  const byPid = new Map<number, Sighting[]>();
  for (const snapshot of snapshots) {
    if (snapshot === null || snapshot === undefined) continue;
    for (const process of snapshot.processes) {
      const list = byPid.get(process.pid) ?? [];
      list.push({ t: snapshot.t, process });
      byPid.set(process.pid, list);
    }
  }
  for (const list of byPid.values()) list.sort((a, b) => a.t - b.t);
  return byPid;
}

/**
 * The process as it was at t. A later row whose query_start is at or before t proves it: the
 * statement ran from its start to that row, so through t. Else the last row before t, if recent.
 */
function processAt(pid: number, t: number, known: KnownAcrossRange): ProcessView | undefined {
  const list = known.sightings.get(pid);
  if (list === undefined) return undefined;
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((list[middle]?.t ?? Infinity) < t) low = middle + 1;
    else high = middle;
  }
  const later = list[low];
  if (later !== undefined && later.process.queryStart !== null && later.process.queryStart <= t) return later.process;
  const earlier = list[low - 1];
  if (earlier !== undefined && t - earlier.t <= EARLIER_ROW_TRUSTED_MS) return earlier.process;
  return later !== undefined && later.t === t ? later.process : undefined;
}

function textsOf(tables: readonly Table[]): Map<string, string> {
  const texts = new Map<string, string>();
  for (const table of tables) {
    for (const process of table.byPid.values()) {
      const key = `${process.pid}:${process.queryStart ?? '?'}`;
      if (process.queryPreview !== null && process.queryStart !== null && !texts.has(key)) {
        texts.set(key, process.queryPreview);
      }
    }
  }
  return texts;
}

/**
 * Parallel workers' leaders over the whole range: the scan map's leaderPid, else the client backend
 * whose query_start a worker shares (a worker reports its leader's). Learned from every table first,
 * because a table lists only processes doing I/O at its instant and often holds a worker alone.
 */
function leadersOf(frames: readonly LiveFrame[], tables: readonly Table[]): Map<number, number> {
  const leaders = new Map<number, number>();
  for (const table of tables) {
    for (const process of table.byPid.values()) {
      if (process.backendType !== 'parallel worker' || process.queryStart === null) continue;
      const leader = table.leaderByStart.get(process.queryStart);
      if (leader !== undefined) leaders.set(process.pid, leader);
    }
  }
  for (const frame of frames) {
    for (const scan of frame.scans ?? []) if (scan.leaderPid !== null) leaders.set(scan.pid, scan.leaderPid);
  }
  return leaders;
}

/**
 * The statement a process read for at t (processAt). A parallel worker reads for its leader's
 * statement, an io worker for nobody (it runs other processes' reads), and a process no table
 * named is listed alone by its pid.
 */
function readerOf(pid: number, t: number, known: KnownAcrossRange): Reader | null {
  const process = processAt(pid, t, known);
  if (process?.backendType === 'io worker') return null;
  const leaderPid = known.leaders.get(pid);
  const leader = leaderPid === undefined ? undefined : processAt(leaderPid, t, known);
  const owner = leader ?? process;
  if (owner === undefined) {
    return { execution: `${pid}:?`, row: `pid:${pid}`, queryText: null, backendType: null };
  }
  const ownerPid = leaderPid ?? pid;
  // A worker's query_start is its leader's: with or without the leader in view, one execution.
  const execution = `${ownerPid}:${owner.queryStart ?? '?'}`;
  const queryText = owner.queryPreview ?? process?.queryPreview ?? known.texts.get(execution) ?? null;
  return {
    execution,
    row: queryText === null ? `pid:${ownerPid}` : `text:${queryText}`,
    queryText,
    backendType: process?.backendType ?? null,
  };
}

function tallyFor(rows: Map<string, RowTally>, reader: Reader): RowTally {
  let tally = rows.get(reader.row);
  if (tally === undefined) {
    tally = {
      queryText: reader.queryText,
      executions: new Set(),
      pids: new Set(),
      backendTypes: new Set(),
      byFrame: new Map(),
      scanBlocks: new Map(),
      relations: new Map(),
      waits: new Map(),
      waitRows: 0,
    };
    rows.set(reader.row, tally);
  }
  return tally;
}

function topWaits(tally: RowTally): ReaderWait[] {
  if (tally.waitRows === 0) return [];
  return [...tally.waits.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, TOP_WAITS)
    .map(([event, rows]) => ({ event, share: rows / tally.waitRows }));
}

function rowOf(tally: RowTally, intervalMs: number, blockSize: number | null): ReaderRow {
  const times = [...tally.byFrame.keys()].sort((a, b) => a - b);
  let count = 0;
  let bytes = 0;
  let peak = 0;
  for (const sample of tally.byFrame.values()) {
    count += sample.count;
    bytes += sample.bytes;
    peak = Math.max(peak, sample.count);
  }
  let blocks = 0;
  for (const scan of tally.scanBlocks.values()) blocks += scan.high - scan.low;
  return {
    queryText: tally.queryText,
    executions: tally.executions.size,
    pids: [...tally.pids].sort((a, b) => a - b),
    backendTypes: [...tally.backendTypes].sort(),
    sampleSeconds: (times.length * intervalMs) / 1000,
    samples: times.length,
    readsInFlightMean: times.length === 0 ? 0 : count / times.length,
    readsInFlightPeak: peak,
    bytesPerReadInFlight: count === 0 ? null : bytes / count,
    scanBytes: blockSize === null ? null : blocks * blockSize,
    relations: [...new Set(tally.relations.values())].sort(),
    waits: topWaits(tally),
    firstReadAt: times[0] ?? 0,
    intervals: mergeIntoIntervals(times, intervalMs * MERGE_GAP_SAMPLES, MAX_READER_INTERVALS),
  };
}

/**
 * The statements that had reads in flight over a recorded range, one row per query text (several
 * executions and processes of one text in one row), most sample-seconds first. Reads in flight are
 * pg_aios at each frame (byProcess), attributed through the processes table in force at the frame
 * (2 Hz) and the scan map's leaderPid (5 Hz); scan bytes are the scan map's blocksDone advance.
 * pg_stat_io cannot say which statement read what, so no figure here comes from it.
 */
export function readersOfRange(input: ReadersInput): Omit<HistoryReaders, 'targetId' | 'from' | 'to'> {
  const { frames, processes, blockSize } = input;
  const intervalMs = medianFrameInterval(frames);
  const allTables = [input.processesBefore, ...processes].map(tableOf);
  const known: KnownAcrossRange = {
    sightings: sightingsOf([input.processesBefore, ...processes]),
    leaders: leadersOf(frames, allTables),
    texts: textsOf(allTables),
  };
  const rows = new Map<string, RowTally>();
  const workers = emptyTally();
  let framesWithInflight = 0;

  for (const frame of frames) {
    tallyFrame(workers, frame);
    if (frame.inflight !== null) framesWithInflight++;
    for (const [pidText, [count, bytes]] of Object.entries(frame.byProcess)) {
      if (count <= 0) continue;
      const pid = Number(pidText);
      const reader = readerOf(pid, frame.t, known);
      if (reader === null) continue;
      const tally = tallyFor(rows, reader);
      tally.executions.add(reader.execution);
      tally.pids.add(pid);
      if (reader.backendType !== null) tally.backendTypes.add(reader.backendType);
      const sample = tally.byFrame.get(frame.t) ?? { count: 0, bytes: 0 };
      sample.count += count;
      sample.bytes += bytes;
      tally.byFrame.set(frame.t, sample);
    }
    for (const scan of frame.scans ?? []) {
      const reader = readerOf(scan.pid, frame.t, known);
      const tally = reader === null ? undefined : rows.get(reader.row);
      if (tally === undefined) continue;
      const blocks = tally.scanBlocks.get(scan.key);
      if (blocks === undefined) tally.scanBlocks.set(scan.key, { low: scan.blocksDone, high: scan.blocksDone });
      else {
        blocks.low = Math.min(blocks.low, scan.blocksDone);
        blocks.high = Math.max(blocks.high, scan.blocksDone);
      }
      if (scan.relation.name !== null) tally.relations.set(scan.key, scan.relation.name);
      else if (!tally.relations.has(scan.key))
        tally.relations.set(scan.key, `relfilenode ${scan.relation.relfilenode}`);
    }
  }

  // Waits from the processes tables of the range: the frames' waits are counted by backend type only.
  const from = frames[0]?.t ?? Infinity;
  const to = frames.at(-1)?.t ?? -Infinity;
  for (const snapshot of processes) {
    if (snapshot.t < from || snapshot.t > to) continue;
    for (const process of snapshot.processes) {
      const reader = readerOf(process.pid, snapshot.t, known);
      const tally = reader === null ? undefined : rows.get(reader.row);
      if (tally === undefined) continue;
      tally.waitRows++;
      const event = process.waitEvent === null ? RUNNING : `${process.waitEventType ?? '?'}:${process.waitEvent}`;
      tally.waits.set(event, (tally.waits.get(event) ?? 0) + 1);
    }
  }

  const listed = [...rows.values()]
    .map((tally) => rowOf(tally, intervalMs ?? 0, blockSize))
    .sort((a, b) => b.sampleSeconds - a.sampleSeconds || a.firstReadAt - b.firstReadAt);
  return {
    frames: frames.length,
    sampleIntervalMs: intervalMs,
    framesWithInflight,
    rows: listed,
    ioWorkers: { samples: workers.samples, busyShare: busyShare(workers) },
  };
}
