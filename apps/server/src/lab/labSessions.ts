import type pg from 'pg';
import type { ClientConfig } from 'pg';
import { LAB_BACKEND_PID_SQL, LAB_CANCEL_BACKENDS_SQL } from '@aioscope/core';
import { closeSession, openSession } from '../postgres/sessions.ts';

/** A cancel has to reach the server quickly or not at all: it is what the user is waiting for. */
const CANCEL_TIMEOUT_MS = 2_000;
const CONNECT_TIMEOUT_MS = 10_000;

export interface LabSession {
  client: pg.Client;
  /** The session's backend, as pg_stat_activity and pg_cancel_backend know it. */
  pid: number;
}

/**
 * The database sessions of one experiment. Each is one of the project's polite sessions
 * (application_name, statement_timeout, a client-side timeout behind it) and is remembered by its
 * backend pid, so a cancel can stop whatever statement any of them runs from a session of its own:
 * the busy session's connection is occupied by the very statement to be stopped.
 */
export class LabSessions {
  private readonly open = new Map<pg.Client, number>();

  constructor(private readonly config: ClientConfig) {}

  /** Opens a session whose statements may each run statementTimeoutMs. */
  async openSession(statementTimeoutMs: number): Promise<LabSession> {
    const client = await openSession(this.config, { statementTimeoutMs, connectTimeoutMs: CONNECT_TIMEOUT_MS });
    try {
      const pid = (await client.query<{ pid: number }>(LAB_BACKEND_PID_SQL)).rows[0]?.pid;
      if (pid === undefined) throw new Error('no backend pid');
      this.open.set(client, pid);
      return { client, pid };
    } catch (error) {
      await closeSession(client);
      throw error;
    }
  }

  async close(session: LabSession | null): Promise<void> {
    if (session === null) return;
    this.open.delete(session.client);
    await closeSession(session.client);
  }

  /** Backends of the sessions open now. */
  pids(): number[] {
    return [...this.open.values()];
  }

  /**
   * Cancels the statement every open session runs, from a new short-lived session. An idle backend
   * ignores a cancel, so cancelling all of them is safe. Returns the pids that were signalled.
   */
  async cancelAll(): Promise<number[]> {
    const pids = this.pids();
    if (pids.length === 0) return [];
    const canceller = await openSession(this.config, {
      statementTimeoutMs: CANCEL_TIMEOUT_MS,
      connectTimeoutMs: CANCEL_TIMEOUT_MS,
    });
    try {
      const rows = (await canceller.query<{ pid: number; cancelled: boolean }>(LAB_CANCEL_BACKENDS_SQL, [pids])).rows;
      return rows.filter((row) => row.cancelled).map((row) => row.pid);
    } finally {
      await closeSession(canceller);
    }
  }

  async closeAll(): Promise<void> {
    const clients = [...this.open.keys()];
    this.open.clear();
    await Promise.all(clients.map((client) => closeSession(client)));
  }
}
