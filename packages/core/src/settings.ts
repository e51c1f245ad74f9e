import type { Capabilities, ServerInfo, ServerSetting } from '@aioscope/spec';

/** PostgreSQL 16 introduced pg_stat_io; anything older has nothing aioscope can show. */
export const MIN_SUPPORTED_VERSION_NUM = 160000;
/** PostgreSQL 18 introduced asynchronous I/O and pg_aios. */
export const AIO_VERSION_NUM = 180000;

export interface SettingQueryRow {
  name: string;
  setting: string;
  unit: string | null;
  source: string;
  sourcefile: string | null;
}

export interface ServerInfoQueryRow {
  version: string;
  version_num: number;
  has_pg_aios: boolean;
  can_read_pg_aios: boolean;
  stat_io_has_bytes: boolean;
  can_see_all_activity: boolean;
  /** pg_postmaster_start_time() in epoch ms; absent in fixtures recorded before it was read. */
  started_at_ms?: number | null;
}

const SIZE_UNITS: Record<string, number> = { B: 1, kB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4 };

/** Bytes per unit of a pg_settings unit such as "8kB" or "MB"; null for non-size units. */
export function bytesPerSettingUnit(unit: string | null): number | null {
  if (unit === null) return null;
  const match = /^(\d*)(B|kB|MB|GB|TB)$/.exec(unit);
  if (match === null) return null;
  const multiplier = match[1] === '' || match[1] === undefined ? 1 : Number(match[1]);
  return multiplier * (SIZE_UNITS[match[2] as string] as number);
}

/** Formats a byte count the way PostgreSQL's SHOW does (largest exact unit). */
export function formatBytesLikePostgres(bytes: number): string {
  for (const unit of ['TB', 'GB', 'MB', 'kB'] as const) {
    const size = SIZE_UNITS[unit] as number;
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return `${bytes}B`;
}

export function parseSetting(row: SettingQueryRow): ServerSetting {
  const unitBytes = bytesPerSettingUnit(row.unit);
  const numeric = /^-?\d+(\.\d+)?$/.test(row.setting) ? Number(row.setting) : null;
  const value = numeric !== null && unitBytes !== null ? numeric * unitBytes : numeric;
  let display = row.setting;
  if (numeric !== null && unitBytes !== null && numeric >= 0) display = formatBytesLikePostgres(numeric * unitBytes);
  else if (numeric !== null && row.unit !== null) display = `${row.setting}${row.unit}`;
  return { name: row.name, display, value, source: row.source, sourcefile: row.sourcefile };
}

export function parseServerInfo(info: ServerInfoQueryRow, settingRows: readonly SettingQueryRow[]): ServerInfo {
  const settings = settingRows.map(parseSetting);
  const byName = new Map(settings.map((setting) => [setting.name, setting]));
  return {
    version: info.version,
    versionNum: Number(info.version_num),
    ioMethod: byName.get('io_method')?.display ?? null,
    ioCombineLimitBytes: byName.get('io_combine_limit')?.value ?? null,
    ioMaxCombineLimitBytes: byName.get('io_max_combine_limit')?.value ?? null,
    blockSize: byName.get('block_size')?.value ?? 8192,
    startedAt: info.started_at_ms === undefined || info.started_at_ms === null ? null : Number(info.started_at_ms),
    settings,
  };
}

export function parseCapabilities(info: ServerInfoQueryRow): Capabilities {
  return {
    hasPgAios: info.has_pg_aios,
    canReadPgAios: info.has_pg_aios && info.can_read_pg_aios,
    statIoHasBytes: info.stat_io_has_bytes,
    canSeeAllActivity: info.can_see_all_activity,
  };
}

/** A refusal message for servers aioscope cannot watch, or null when the version is supported. */
export function unsupportedVersionMessage(version: string, versionNum: number): string | null {
  if (versionNum >= MIN_SUPPORTED_VERSION_NUM) return null;
  return `PostgreSQL ${version} is not supported: aioscope needs PostgreSQL 16 or newer (pg_stat_io), and 18 or newer for asynchronous I/O.`;
}

/** The GRANT that lets a role read pg_aios and every session's wait state. */
export function pgAiosGrantHint(role: string): string {
  return `GRANT pg_read_all_stats TO ${role};  -- or GRANT pg_monitor, which includes it`;
}
