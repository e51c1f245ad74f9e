import {
  BACKEND_IO_SQL,
  PROCESS_ACTIVITY_SQL,
  isConnectionLevelError,
  type UpgradeTargetVersion,
} from '@aioscope/core';
import type { AuditReport, ProcessDetail } from '@aioscope/spec';
import type { TargetDefinition } from '../targets/target.ts';
import { readAudit } from './auditRead.ts';
import { MonitoringSession } from './monitoringSession.ts';
import type { ServerInfoSource } from './serverInfoSource.ts';

const INSPECT_STATEMENT_TIMEOUT_MS = 5_000;

interface BackendIoRow {
  object: string;
  context: string;
  reads: number | null;
  read_bytes: number | null;
  read_time: number | null;
}

/**
 * Reads a person asks for (a process's detail, the settings audit) on a session of their own, so
 * a slow audit never delays the stat tick's pg_stat_io. One read at a time: a queue, so a burst
 * of clicks cannot open a burst of queries on the target.
 */
export class TargetInspector {
  private readonly session: MonitoringSession;
  private queue: Promise<unknown> = Promise.resolve();
  /** Once closing, reads are refused: one queued behind the close would open a new session that nobody closes. */
  private closed = false;

  constructor(
    private readonly targetId: string,
    definition: TargetDefinition,
    private readonly serverInfo: ServerInfoSource,
  ) {
    this.session = new MonitoringSession(definition, INSPECT_STATEMENT_TIMEOUT_MS);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.queue.catch(() => undefined);
    await this.session.close();
  }

  /** The full query text and per-backend I/O counters of one process; null when it is gone. */
  processDetail(pid: number): Promise<ProcessDetail | null> {
    return this.enqueue(async () => {
      const client = await this.session.require();
      const activity = await client.query<{ query: string | null; backend_type: string }>(PROCESS_ACTIVITY_SQL, [pid]);
      const row = activity.rows[0];
      if (row === undefined) return null;
      let backendIo: ProcessDetail['backendIo'] = null;
      let backendIoUnavailable: string | null = null;
      if ((this.serverInfo.server?.versionNum ?? 0) < 180000) {
        backendIoUnavailable = 'pg_stat_get_backend_io() exists from PostgreSQL 18.';
      } else if (row.backend_type === 'io worker') {
        backendIoUnavailable = 'PostgreSQL keeps no per-backend I/O statistics for io workers.';
      } else {
        const io = await client.query<BackendIoRow>(BACKEND_IO_SQL, [pid]);
        backendIo = io.rows.map((r) => ({
          object: r.object,
          context: r.context,
          reads: Number(r.reads ?? 0),
          readBytes: Number(r.read_bytes ?? 0),
          readTimeMs: Number(r.read_time ?? 0),
        }));
      }
      return { pid, query: row.query, backendType: row.backend_type, backendIo, backendIoUnavailable };
    });
  }

  /** The settings audit and the pre-upgrade check for `targetVersion` (auditRead.ts). */
  audit(targetVersion?: UpgradeTargetVersion): Promise<AuditReport> {
    return this.enqueue(async () => readAudit(await this.session.require(), this.targetId, targetVersion));
  }

  /** Runs reads one after another; a broken connection is dropped so the next read reconnects. */
  private enqueue<T>(read: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the monitor of this target has stopped'));
    const run = this.queue.then(read, read).catch(async (error: unknown) => {
      if (isConnectionLevelError(error)) await this.session.discard();
      throw error;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}
