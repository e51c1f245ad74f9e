/**
 * How much history is kept: the defaults that fit a laptop, and the parsing of the --record-* flags.
 * Pure, so config.ts can validate the flags before anything starts.
 */

/** The defaults as --record-raw, --record-rollups and --record-max take them (and --help shows them). */
export const DEFAULT_RAW_RETENTION = '24h';
export const DEFAULT_ROLLUP_RETENTION = '30d';
export const DEFAULT_MAX_SIZE = '1GB';
/** Below this the store cannot hold even one chunk of raw frames plus its own overhead. */
export const MIN_MAX_BYTES = 16 * 1024 ** 2;
/** Below a minute, retention would delete what the dashboard is drawing. */
export const MIN_RETENTION_MS = 60_000;

export interface RecordingLimits {
  rawMs: number;
  rollupMs: number;
  maxBytes: number;
}

const DURATION_UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const SIZE_UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3, tb: 1024 ** 4 };

export type Parsed = { ok: true; value: number } | { ok: false; error: string };

/** "24h", "30d", "90m", "45s", "1.5h": a number and one unit, whitespace allowed between them. */
export function parseDuration(text: string): Parsed {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([smhd])\s*$/i.exec(text);
  const unit = match?.[2]?.toLowerCase();
  if (match?.[1] === undefined || unit === undefined) {
    return { ok: false, error: `"${text}" is not a duration: use a number and s, m, h or d, e.g. 24h or 30d` };
  }
  const value = Number(match[1]) * (DURATION_UNITS[unit] ?? NaN);
  if (value < MIN_RETENTION_MS) return { ok: false, error: `"${text}" is too short: at least 1m` };
  return { ok: true, value: Math.round(value) };
}

/** "1GB", "500MB", "2gb", "750 MB": binary units (1 GB = 1024³ bytes), as du and df -h count. */
export function parseByteSize(text: string): Parsed {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?b)\s*$/i.exec(text);
  const unit = match?.[2]?.toLowerCase();
  if (match?.[1] === undefined || unit === undefined) {
    return { ok: false, error: `"${text}" is not a size: use a number and B, kB, MB, GB or TB, e.g. 1GB` };
  }
  const value = Math.round(Number(match[1]) * (SIZE_UNITS[unit] ?? NaN));
  if (value < MIN_MAX_BYTES) return { ok: false, error: `"${text}" is too small: at least 16MB` };
  return { ok: true, value };
}

function parsedDefault(parsed: Parsed): number {
  if (!parsed.ok) throw new Error(`a default of the --record-* flags does not parse: ${parsed.error}`);
  return parsed.value;
}

// The same defaults as numbers, read from the texts above so the two cannot disagree.
export const DEFAULT_RAW_RETENTION_MS = parsedDefault(parseDuration(DEFAULT_RAW_RETENTION));
export const DEFAULT_ROLLUP_RETENTION_MS = parsedDefault(parseDuration(DEFAULT_ROLLUP_RETENTION));
export const DEFAULT_MAX_BYTES = parsedDefault(parseByteSize(DEFAULT_MAX_SIZE));
