import {
  AUDIT_SETTING_NAMES,
  ScanTracker,
  auditSettings,
  buildLiveFrame,
  buildProcessViews,
  diffIoCounters,
  parseCapabilities,
  parseFastTickRow,
  parseProcessDetails,
  parseServerInfo,
  parseStatIoRows,
  unsupportedVersionMessage,
  withDetails,
  type FastTickQueryRow,
  type ProcessDetails,
  type ProcessDetailsQueryRow,
  type ServerInfoQueryRow,
  type SettingQueryRow,
  type StatIoQueryRow,
} from '../index.ts';
import { loadFixture } from '../testFixtures.ts';
import type {
  AuditReport,
  IoStatDelta,
  LiveFrame,
  LiveSnapshot,
  ProcessDetail,
  ProcessView,
  TargetStatus,
  TargetSummary,
} from '@aioscope/spec';

/**
 * Test-only: the payloads the server would send for the servers recorded in packages/core/fixtures,
 * built with the same core functions the sampler uses and passed through JSON as on the wire.
 * Reached as `@aioscope/core/testing`, never from the package's main entry.
 */

/** What the browser receives: JSON turns numeric keys into strings and drops undefined. */
export function overTheWire<T>(value: T): unknown {
  return JSON.parse(JSON.stringify(value));
}

/** A query the recorded server refused (servers/README.md). */
interface Refused {
  error: string;
  code: string;
}

type Recorded<T> = T | Refused;

function isRefused<T>(value: Recorded<T>): value is Refused {
  return typeof value === 'object' && value !== null && 'error' in value && 'code' in value;
}

function rowsOf<T>(value: Recorded<T[]>): T[] {
  return isRefused(value) ? [] : value;
}

/** One recorded server, in the shape every fixture is normalised to. */
export interface RecordedServer {
  name: string;
  /** null when SERVER_INFO_SQL was refused (before pg_stat_io existed). */
  info: ServerInfoQueryRow | null;
  settings: SettingQueryRow[];
  ticks: FastTickQueryRow[];
  details: ProcessDetailsQueryRow[];
  statBefore: StatIoQueryRow[];
  statAfter: StatIoQueryRow[];
}

interface ServerRecordingFile {
  server: string;
  serverInfo: Recorded<ServerInfoQueryRow[]>;
  settings: Recorded<SettingQueryRow[]>;
  statIo18: Recorded<StatIoQueryRow[]>;
  idleTick: Recorded<FastTickQueryRow[]>;
  idleTickWithoutAios: Recorded<FastTickQueryRow[]>;
  ticksDuringColdScan: Recorded<FastTickQueryRow[]>;
  statIoAfter: Recorded<StatIoQueryRow[]>;
}

function fromServerRecording(file: string): RecordedServer {
  const recording = loadFixture<ServerRecordingFile>(`servers/${file}`);
  return {
    name: recording.server,
    info: rowsOf(recording.serverInfo)[0] ?? null,
    settings: rowsOf(recording.settings),
    ticks: [
      ...rowsOf(recording.idleTick),
      ...rowsOf(recording.idleTickWithoutAios),
      ...rowsOf(recording.ticksDuringColdScan),
    ],
    details: [],
    statBefore: rowsOf(recording.statIo18),
    statAfter: rowsOf(recording.statIoAfter),
  };
}

function embeddedPg18(): RecordedServer {
  const ticks = loadFixture<{
    idle: FastTickQueryRow;
    duringScan: (FastTickQueryRow & { details?: ProcessDetailsQueryRow[] })[];
    withoutAios: FastTickQueryRow;
  }>('pg18-fast-tick.json');
  const info = loadFixture<{ info: ServerInfoQueryRow; settings: SettingQueryRow[] }>('pg18-server-info.json');
  const stat = loadFixture<{ before: StatIoQueryRow[]; afterScan: StatIoQueryRow[] }>('pg18-stat-io.json');
  return {
    name: 'pg18.4-embedded-worker',
    info: info.info,
    settings: info.settings,
    ticks: [ticks.idle, ...ticks.duringScan, ticks.withoutAios],
    details: ticks.duringScan.flatMap((tick) => tick.details ?? []),
    statBefore: stat.before,
    statAfter: stat.afterScan,
  };
}

/** Every recording from a real server (the hand-written pg16/17/19 fixtures are left out). */
export function recordedServers(): RecordedServer[] {
  return [
    embeddedPg18(),
    fromServerRecording('pg18.6-io_uring.json'),
    fromServerRecording('pg18.6-io_uring-no-grants.json'),
    fromServerRecording('pg19beta3-worker.json'),
    fromServerRecording('pg15.18.json'),
  ];
}

/** What the server would send about one recorded server, typed as the server types it. */
export interface RecordedPayloads {
  frames: LiveFrame[];
  ioDeltas: IoStatDelta[];
  status: TargetStatus;
  /** The processes list of every sample (the server sends it at 2 Hz). */
  processLists: { t: number; processes: ProcessView[] }[];
  processes: ProcessView[];
  summary: TargetSummary;
  audit: AuditReport;
  processDetails: ProcessDetail[];
  snapshot: LiveSnapshot;
}

/**
 * The details of each process of the newest sample as GET …/processes/:pid builds them; the
 * per-backend rows stand in with the server's pg_stat_io rows of that backend type (same columns).
 */
function processDetailsOf(processes: ProcessView[], versionNum: number, stat: StatIoQueryRow[]): ProcessDetail[] {
  return processes.map((process) => {
    if (versionNum < 180000) {
      const backendIoUnavailable = 'pg_stat_get_backend_io() exists from PostgreSQL 18.';
      return { pid: process.pid, backendType: process.backendType, query: null, backendIo: null, backendIoUnavailable };
    }
    if (process.backendType === 'io worker') {
      const backendIoUnavailable = 'PostgreSQL keeps no per-backend I/O statistics for io workers.';
      return { pid: process.pid, backendType: process.backendType, query: '', backendIo: null, backendIoUnavailable };
    }
    const backendIo = stat
      .filter((row) => row.backend_type === process.backendType && Number(row.reads ?? 0) > 0)
      .map((row) => ({
        object: row.object,
        context: row.context,
        reads: Number(row.reads ?? 0),
        readBytes: Number(row.read_bytes ?? 0),
        readTimeMs: Number(row.read_time ?? 0),
      }));
    return {
      pid: process.pid,
      backendType: process.backendType,
      query: process.queryPreview,
      backendIo,
      backendIoUnavailable: null,
    };
  });
}

/** The server-side objects built from one recording, before they go over the wire. */
export function buildPayloads(server: RecordedServer, targetId = 'recorded'): RecordedPayloads {
  const serverInfo = server.info === null ? null : parseServerInfo(server.info, server.settings);
  const capabilities = server.info === null ? null : parseCapabilities(server.info);
  const setting = (name: string): number | null =>
    serverInfo?.settings.find((candidate) => candidate.name === name)?.value ?? null;
  const details = new Map<number, ProcessDetails>();
  for (const row of server.details) {
    const parsed = parseProcessDetails(row);
    if (parsed !== null) details.set(parsed.pid, parsed);
  }

  const scans = new ScanTracker();
  let previousIoKeys = new Set<string>();
  const processLists: RecordedPayloads['processLists'] = [];
  const frames = server.ticks.map((row, index) => {
    const sample = parseFastTickRow(row);
    const built = buildLiveFrame(sample, {
      previousIoKeys,
      sampleMs: 1.234,
      skippedTicks: index % 7 === 3 ? 1 : 0,
      ioMethod: serverInfo?.ioMethod ?? null,
    });
    previousIoKeys = built.ioKeys;
    if (sample.aios !== null) {
      const map = scans.update({
        t: sample.t,
        aios: sample.aios,
        activityByPid: new Map(),
        queryStartByPid: new Map(sample.processes.map((p) => [p.pid, p.queryStart])),
        // As on the server, a relation's name and size arrive a few samples after its first reads.
        resolve: () => (index >= 8 ? { name: 'aioscope_demo.scan_me', blocks: 121_280 } : undefined),
        blockSize: serverInfo?.blockSize ?? 8192,
      });
      // The map rides on some frames only (SCANS_PER_SECOND); absent means unchanged.
      if (index % 4 === 0) built.frame.scans = map;
    }
    processLists.push({
      t: sample.t,
      processes: buildProcessViews(withDetails(sample.processes, details), built.frame.byProcess, {
        effectiveIoConcurrency: setting('effective_io_concurrency'),
        maintenanceIoConcurrency: setting('maintenance_io_concurrency'),
        ioMaxConcurrency: setting('io_max_concurrency'),
      }),
    });
    return built.frame;
  });

  const before = parseStatIoRows(server.statBefore);
  const after = parseStatIoRows(server.statAfter);
  const ioDeltas =
    before === null || after === null
      ? []
      : [diffIoCounters(before, after), diffIoCounters(after, { ...before, t: after.t + 1000 })];

  const newest = frames[frames.length - 1];
  const refusal = serverInfo === null ? unsupportedVersionMessage('15.18', 150018) : null;
  const status: TargetStatus = {
    state: refusal === null ? 'live' : 'error',
    message: refusal,
    since: 1_796_039_000_000,
    lastFrameAt: newest?.t ?? null,
    skippedTicks: 3,
  };
  const processes = processLists[processLists.length - 1]?.processes ?? [];
  const summary: TargetSummary = {
    id: targetId,
    name: server.name,
    kind: 'external',
    status,
    server: serverInfo,
    capabilities,
    sampleRateHz: 20,
    statRateHz: 1,
    demoWorkload: false,
    recording: null,
  };
  const audit = {
    targetId,
    checkedAt: newest?.t ?? 0,
    findings: auditSettings({
      versionNum: Number(server.info?.version_num ?? 150018),
      settings: server.settings
        .filter((row) => AUDIT_SETTING_NAMES.includes(row.name))
        .map((row) => ({ ...row, sourceline: null, boot_val: row.setting, reset_val: row.setting })),
      tablespaces: [],
      configure: null,
    }),
  };
  return {
    frames,
    ioDeltas,
    status,
    processLists,
    processes,
    summary,
    audit,
    processDetails: processDetailsOf(processes, serverInfo?.versionNum ?? 150018, server.statAfter),
    snapshot: { targetId, frames, ioDeltas, status, processes },
  };
}
