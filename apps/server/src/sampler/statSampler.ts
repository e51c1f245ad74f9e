import type pg from 'pg';
import {
  diffIoCounters,
  isConnectionLevelError,
  parseStatIoRows,
  statIoSql,
  type IoCounters,
  type StatIoQueryRow,
} from '@aioscope/core';
import type { IoStatDelta } from '@aioscope/spec';
import type { TargetDefinition } from '../targets/target.ts';
import { MonitoringSession } from './monitoringSession.ts';
import type { ServerInfoSource } from './serverInfoSource.ts';

export const STAT_INTERVAL_MS = 1_000;
const STAT_STATEMENT_TIMEOUT_MS = 5_000;

/**
 * The stat tick of one target (1 Hz): pg_stat_io read counters, diffed over the server's clock.
 * It also keeps the server info fresh (settings refresh), since it runs slowly and on its own
 * session. Connection state is the fast sampler's to report.
 */
export class StatSampler {
  private readonly session: MonitoringSession;
  private previousCounters: IoCounters | null = null;

  constructor(
    definition: TargetDefinition,
    private readonly serverInfo: ServerInfoSource,
    private readonly onDelta: (delta: IoStatDelta) => void,
  ) {
    this.session = new MonitoringSession(definition, STAT_STATEMENT_TIMEOUT_MS);
  }

  async close(): Promise<void> {
    await this.session.close();
  }

  async tick(): Promise<void> {
    let client: pg.Client | null;
    try {
      client = await this.session.get();
    } catch {
      return; // the fast tick reports connection state
    }
    if (client === null) return;
    try {
      if (this.serverInfo.refreshDue()) await this.serverInfo.read(client);
      const server = this.serverInfo.server;
      if (server === null || this.serverInfo.refusal() !== null) return;
      const result = await client.query<StatIoQueryRow>({
        name: `aioscope_stat_io_${server.versionNum >= 180000 ? 18 : 16}`,
        text: statIoSql(server.versionNum),
      });
      const counters = parseStatIoRows(result.rows);
      if (counters === null) return;
      const previous = this.previousCounters;
      this.previousCounters = counters;
      if (previous !== null) this.onDelta(diffIoCounters(previous, counters));
    } catch (error) {
      if (isConnectionLevelError(error)) {
        // Counters after a reconnection may belong to a restarted server: never diff across it.
        this.previousCounters = null;
        await this.session.discard();
      }
    }
  }
}
