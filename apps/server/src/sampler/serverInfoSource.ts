import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import {
  IO_SETTING_NAMES,
  SERVER_INFO_SQL,
  SERVER_VERSION_SQL,
  SETTINGS_SQL,
  isDue,
  parseCapabilities,
  parseServerInfo,
  settingsRefreshIntervalMs,
  unsupportedVersionMessage,
  type ConcurrencySettings,
  type ServerInfoQueryRow,
  type SettingQueryRow,
} from '@aioscope/core';
import type { Capabilities, ServerInfo } from '@aioscope/spec';

/**
 * What a target is: version, I/O settings with their sources, and what this role may read. Read
 * on connect, re-read every 30 s (5 s while degraded by a missing privilege), forgotten when the
 * connection breaks, since whatever answers next may be another server.
 */
export class ServerInfoSource {
  server: ServerInfo | null = null;
  capabilities: Capabilities | null = null;
  /** Why this server cannot be watched (its version), once read; null when it can be. */
  private refused: string | null = null;
  /** server_version as answered, kept for a refused server too (its info is never read). */
  private answeredVersion: string | null = null;
  private readAt = -Infinity;
  private readonly listeners = new Set<(server: ServerInfo, capabilities: Capabilities) => void>();

  get known(): boolean {
    return this.refused !== null || (this.server !== null && this.capabilities !== null);
  }

  refreshDue(): boolean {
    return isDue(performance.now(), this.readAt, settingsRefreshIntervalMs(this.capabilities));
  }

  async read(client: pg.Client): Promise<void> {
    const version = (await client.query<{ version: string; version_num: number }>(SERVER_VERSION_SQL)).rows[0];
    if (version === undefined) throw new Error('version query returned no row');
    this.answeredVersion = version.version;
    this.refused = unsupportedVersionMessage(version.version, Number(version.version_num));
    this.readAt = performance.now();
    if (this.refused !== null) return;
    const info = await client.query<ServerInfoQueryRow>(SERVER_INFO_SQL);
    const settings = await client.query<SettingQueryRow>(SETTINGS_SQL, [IO_SETTING_NAMES]);
    const row = info.rows[0];
    if (row === undefined) throw new Error('server info query returned no row');
    this.server = parseServerInfo(row, settings.rows);
    this.capabilities = parseCapabilities(row);
    this.readAt = performance.now();
    for (const listener of this.listeners) listener(this.server, this.capabilities);
  }

  /** Called with every (re-)read; the monitor turns it into a serverInfo event. */
  onRead(listener: (server: ServerInfo, capabilities: Capabilities) => void): void {
    this.listeners.add(listener);
  }

  /** Privileges may have changed: read them again on the next tick. */
  invalidateCapabilities(): void {
    this.capabilities = null;
  }

  /** The connection broke: the next server may be another version with other settings. */
  forget(): void {
    this.server = null;
    this.capabilities = null;
    this.refused = null;
    this.answeredVersion = null;
  }

  /** server_version as the server answered it, also when refused; null before it answered. */
  version(): string | null {
    return this.answeredVersion;
  }

  /** Why this server cannot be watched (its version), or null. */
  refusal(): string | null {
    return this.refused;
  }

  setting(name: string): number | null {
    return this.server?.settings.find((setting) => setting.name === name)?.value ?? null;
  }

  concurrencySettings(): ConcurrencySettings {
    return {
      effectiveIoConcurrency: this.setting('effective_io_concurrency'),
      maintenanceIoConcurrency: this.setting('maintenance_io_concurrency'),
      ioMaxConcurrency: this.setting('io_max_concurrency'),
    };
  }
}
