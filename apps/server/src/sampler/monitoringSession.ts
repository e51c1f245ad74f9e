import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { RECONNECT_BACKOFF, attemptDue, backoffAfterFailure, initialBackoff, type BackoffState } from '@aioscope/core';
import type { TargetDefinition } from '../targets/target.ts';
import { closeSession, openSession } from '../postgres/sessions.ts';

const CONNECT_TIMEOUT_MS = 5_000;

/**
 * One monitoring connection to a target that reconnects with backoff: each source (fast tick,
 * stat tick, on-demand reads) owns one, so a slow query on one never delays another.
 */
export class MonitoringSession {
  private client: pg.Client | null = null;
  private backoff: BackoffState = initialBackoff(RECONNECT_BACKOFF);

  constructor(
    private readonly definition: TargetDefinition,
    private readonly statementTimeoutMs: number,
  ) {}

  /** The open client, or null when a reconnection is not due yet. Throws when connecting fails. */
  async get(): Promise<pg.Client | null> {
    if (this.client !== null) return this.client;
    if (!attemptDue(this.backoff, performance.now())) return null;
    try {
      this.client = await openSession(this.definition.clientConfig, {
        statementTimeoutMs: this.statementTimeoutMs,
        connectTimeoutMs: CONNECT_TIMEOUT_MS,
      });
      this.backoff = initialBackoff(RECONNECT_BACKOFF);
      return this.client;
    } catch (error) {
      this.backoff = backoffAfterFailure(this.backoff, performance.now(), RECONNECT_BACKOFF);
      throw error;
    }
  }

  /** The open client or an error saying why there is none: for reads a person asked for. */
  async require(): Promise<pg.Client> {
    const client = await this.get();
    if (client === null) throw new Error('not connected (reconnecting)');
    return client;
  }

  /** Drops a broken connection; the next get() reconnects after the backoff. */
  async discard(): Promise<void> {
    const client = this.client;
    this.client = null;
    this.backoff = backoffAfterFailure(this.backoff, performance.now(), RECONNECT_BACKOFF);
    await closeSession(client);
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    await closeSession(client);
  }
}
