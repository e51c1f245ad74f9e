/** What the browser may know about a monitored server. Never a connection string or a password. */

export type TargetKind = 'embedded' | 'external';

export type ConnectionState = 'connecting' | 'live' | 'reconnecting' | 'error';

export interface TargetStatus {
  state: ConnectionState;
  /** Human-readable reason for the state, e.g. the error that ended the last sample. */
  message: string | null;
  /** Epoch ms (aioscope's clock) when the state began. */
  since: number;
  /** Server clock of the newest live frame, epoch ms. */
  lastFrameAt: number | null;
  skippedTicks: number;
}

export interface ServerSetting {
  name: string;
  /** Value with its unit as PostgreSQL shows it, e.g. "128kB", "worker". */
  display: string;
  /** Numeric value in base units (bytes for sizes), when numeric. */
  value: number | null;
  source: string;
  sourcefile: string | null;
}

export interface ServerInfo {
  version: string;
  versionNum: number;
  ioMethod: string | null;
  ioCombineLimitBytes: number | null;
  ioMaxCombineLimitBytes: number | null;
  blockSize: number;
  settings: ServerSetting[];
}

export interface Capabilities {
  /** pg_aios exists (PostgreSQL 18+). */
  hasPgAios: boolean;
  /** The role may execute pg_get_aios() (superuser or pg_read_all_stats). */
  canReadPgAios: boolean;
  /** pg_stat_io has *_bytes columns (18+); older servers use op_bytes. */
  statIoHasBytes: boolean;
  /** The role sees other sessions' wait events (pg_read_all_stats). */
  canSeeAllActivity: boolean;
}

export interface TargetSummary {
  id: string;
  name: string;
  kind: TargetKind;
  status: TargetStatus;
  server: ServerInfo | null;
  capabilities: Capabilities | null;
  /** Fast tick rate (pg_aios and wait events), samples per second. */
  sampleRateHz: number;
  /** Stat tick rate (pg_stat_io), samples per second. */
  statRateHz: number;
  /** Whether a demo workload is running on this target. */
  demoWorkload: boolean;
}
