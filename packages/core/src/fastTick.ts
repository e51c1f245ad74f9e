import { AIO_STATES, type AioState, type CountAndBytes, type IoWorkerSample, type LiveFrame } from '@aioscope/spec';

/** One pg_aios row as the fast tick selects it (see FAST_TICK_SQL for the column order). */
export interface AioRow {
  pid: number;
  ioId: number;
  ioGeneration: number;
  state: AioState;
  operation: string | null;
  length: number | null;
  blocks: number | null;
  fSync: boolean | null;
  fLocalmem: boolean | null;
  targetDesc: string | null;
}

/** One process as the fast tick reads it (see FAST_TICK_SQL): what a frame and the scan map need. */
export interface ProcessSample {
  pid: number;
  backendType: string;
  waitEventType: string | null;
  waitEvent: string | null;
  /** Server clock, epoch ms. */
  queryStart: number | null;
}

/** What PROCESS_DETAILS_SQL adds for the processes table, read at 2 Hz. */
export interface ProcessDetails {
  pid: number;
  databaseOid: number | null;
  database: string | null;
  user: string | null;
  state: string | null;
  queryPreview: string | null;
  /** pg_stat_activity.leader_pid: the parallel leader when this process is a parallel worker. */
  leaderPid: number | null;
}

/** A process with its details, when they were read (null fields until then). */
export type ProcessRow = ProcessSample & Omit<ProcessDetails, 'pid'>;

export interface FastTickSample {
  /** Server clock, epoch ms. */
  t: number;
  /** null when pg_aios was not read (not available or not permitted). */
  aios: AioRow[] | null;
  processes: ProcessSample[];
}

export interface FastTickQueryRow {
  t: number;
  aios: unknown;
  procs: unknown;
  /** FAST_TICK_WITH_DETAILS_SQL's JSON array of PROCESS_DETAILS_SQL rows; absent from the plain tick. */
  details?: unknown;
}

const STATE_SET = new Set<string>(AIO_STATES);

function asNumber(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '') {
    const parsed = Number(value);
    return Number.isFinite(parsed) ? parsed : null;
  }
  return null;
}

function asString(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function asBoolean(value: unknown): boolean | null {
  return typeof value === 'boolean' ? value : null;
}

/** Parses one `[pid, io_id, io_generation, state, operation, length, handle_data_len, f_sync, f_localmem, target_desc]`. */
export function parseAioRow(raw: unknown): AioRow | null {
  if (!Array.isArray(raw)) return null;
  const pid = asNumber(raw[0]);
  const ioId = asNumber(raw[1]);
  const ioGeneration = asNumber(raw[2]);
  const state = asString(raw[3]);
  if (pid === null || ioId === null || ioGeneration === null || state === null || !STATE_SET.has(state)) {
    return null;
  }
  return {
    pid,
    ioId,
    ioGeneration,
    state: state as AioState,
    operation: asString(raw[4]),
    length: asNumber(raw[5]),
    blocks: asNumber(raw[6]),
    fSync: asBoolean(raw[7]),
    fLocalmem: asBoolean(raw[8]),
    targetDesc: asString(raw[9]),
  };
}

/** Parses one `[pid, backend_type, wait_event_type, wait_event, query_start]`. */
export function parseProcessSample(raw: unknown): ProcessSample | null {
  if (!Array.isArray(raw)) return null;
  const pid = asNumber(raw[0]);
  const backendType = asString(raw[1]);
  if (pid === null || backendType === null) return null;
  return {
    pid,
    backendType,
    waitEventType: asString(raw[2]),
    waitEvent: asString(raw[3]),
    queryStart: asNumber(raw[4]),
  };
}

/** One row of PROCESS_DETAILS_SQL. */
export interface ProcessDetailsQueryRow {
  pid: unknown;
  datid: unknown;
  datname: unknown;
  usename: unknown;
  state: unknown;
  query: unknown;
  /** Absent from rows recorded before leader_pid was read. */
  leader_pid?: unknown;
}

export function parseProcessDetails(row: ProcessDetailsQueryRow): ProcessDetails | null {
  const pid = asNumber(row.pid);
  if (pid === null) return null;
  return {
    pid,
    databaseOid: asNumber(row.datid),
    database: asString(row.datname),
    user: asString(row.usename),
    state: asString(row.state),
    queryPreview: asString(row.query),
    leaderPid: asNumber(row.leader_pid),
  };
}

/** The rows of a tick's `details` column (FAST_TICK_WITH_DETAILS_SQL); entries that are not objects are dropped. */
export function parseDetailsColumn(raw: unknown): ProcessDetailsQueryRow[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter((item): item is ProcessDetailsQueryRow => typeof item === 'object' && item !== null);
}

/** The tick's processes with the details last read for them (null fields for a pid not yet read). */
export function withDetails(
  processes: readonly ProcessSample[],
  detailsByPid: ReadonlyMap<number, ProcessDetails>,
): ProcessRow[] {
  return processes.map((process) => {
    const details = detailsByPid.get(process.pid);
    return {
      ...process,
      databaseOid: details?.databaseOid ?? null,
      database: details?.database ?? null,
      user: details?.user ?? null,
      state: details?.state ?? null,
      queryPreview: details?.queryPreview ?? null,
      leaderPid: details?.leaderPid ?? null,
    };
  });
}

function parseList<T>(raw: unknown, parse: (item: unknown) => T | null): T[] {
  if (!Array.isArray(raw)) return [];
  const out: T[] = [];
  for (const item of raw) {
    const parsed = parse(item);
    if (parsed !== null) out.push(parsed);
  }
  return out;
}

export function parseFastTickRow(row: FastTickQueryRow): FastTickSample {
  const t = asNumber(row.t);
  if (t === null) throw new Error('fast tick row has no server time');
  return {
    t,
    aios: row.aios === null || row.aios === undefined ? null : parseList(row.aios, parseAioRow),
    processes: parseList(row.procs, parseProcessSample),
  };
}

/** Identity of one I/O across samples: the generation grows each time a handle is reused. */
export function ioKey(row: Pick<AioRow, 'pid' | 'ioId' | 'ioGeneration'>): string {
  return `${row.pid}:${row.ioId}:${row.ioGeneration}`;
}

export function isRead(row: AioRow): boolean {
  return row.operation === 'readv';
}

export interface FrameContext {
  /** Keys of the reads in flight in the previous sample of this target. */
  previousIoKeys: ReadonlySet<string>;
  sampleMs: number;
  skippedTicks: number;
  /**
   * The server's io_method. The worker backlog is counted only under `worker`: under io_uring a
   * SUBMITTED read is in the kernel, and no io worker will ever run it.
   */
  ioMethod: string | null;
}

export interface BuiltFrame {
  frame: LiveFrame;
  ioKeys: Set<string>;
}

/** Turns one fast-tick sample into a frame, counting each distinct read once across samples. */
export function buildLiveFrame(sample: FastTickSample, context: FrameContext): BuiltFrame {
  const ioKeys = new Set<string>();
  let inflight: LiveFrame['inflight'] = null;
  let newReads: LiveFrame['newReads'] = null;
  const byProcess: LiveFrame['byProcess'] = {};

  if (sample.aios !== null) {
    const total: CountAndBytes = { count: 0, bytes: 0 };
    const byState: Partial<Record<AioState, CountAndBytes>> = {};
    let workerBacklog = 0;
    newReads = { count: 0, bytes: 0, blocksHistogram: {} };
    for (const row of sample.aios) {
      if (!isRead(row)) continue;
      const bytes = row.length ?? 0;
      total.count += 1;
      total.bytes += bytes;
      const bucket = (byState[row.state] ??= { count: 0, bytes: 0 });
      bucket.count += 1;
      bucket.bytes += bytes;
      if (row.state === 'SUBMITTED' && row.fSync !== true && row.fLocalmem !== true) workerBacklog += 1;
      const perProcess = (byProcess[row.pid] ??= [0, 0]);
      perProcess[0] += 1;
      perProcess[1] += bytes;

      const key = ioKey(row);
      ioKeys.add(key);
      if (!context.previousIoKeys.has(key)) {
        newReads.count += 1;
        newReads.bytes += bytes;
        if (row.blocks !== null) {
          newReads.blocksHistogram[row.blocks] = (newReads.blocksHistogram[row.blocks] ?? 0) + 1;
        }
      }
    }
    inflight = { total, byState, workerBacklog: context.ioMethod === 'worker' ? workerBacklog : null };
  }

  const ioWorkers: IoWorkerSample[] = [];
  const waits: Record<string, number> = {};
  for (const process of sample.processes) {
    if (process.backendType === 'io worker') {
      const busy = process.waitEvent !== 'IoWorkerMain';
      ioWorkers.push(busy ? { pid: process.pid, busy, waitEvent: process.waitEvent } : { pid: process.pid, busy });
    }
    if (process.waitEvent !== null) {
      const key = `${process.backendType}:${process.waitEvent}`;
      waits[key] = (waits[key] ?? 0) + 1;
    }
  }
  ioWorkers.sort((a, b) => a.pid - b.pid);

  return {
    frame: {
      // 0.1 ms and 0.01 ms are finer than anything drawn or measured, and keep frames short.
      t: Math.round(sample.t * 10) / 10,
      sampleMs: Math.round(context.sampleMs * 100) / 100,
      skippedTicks: context.skippedTicks,
      inflight,
      newReads,
      ioWorkers,
      waits,
      byProcess,
    },
    ioKeys,
  };
}
