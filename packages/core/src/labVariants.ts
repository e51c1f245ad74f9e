import type { LabVariant } from '@aioscope/spec';

/** Short names people type for the lab's settings (CLI --variants and the UI's variant field). */
const SETTING_ALIASES: Record<string, string> = {
  eic: 'effective_io_concurrency',
  effective_io_concurrency: 'effective_io_concurrency',
  mic: 'maintenance_io_concurrency',
  maintenance_io_concurrency: 'maintenance_io_concurrency',
  icl: 'io_combine_limit',
  io_combine_limit: 'io_combine_limit',
  io_method: 'io_method',
  io_workers: 'io_workers',
};
const SERVER_SETTINGS = new Set(['io_method', 'io_workers']);

/**
 * Parses "eic=1;eic=16" into variants: ";" between variants, "," between settings of one.
 * Values are checked by the experiment schema afterwards.
 */
export function parseVariants(spec: string): LabVariant[] | string {
  const variants: LabVariant[] = [];
  for (const part of spec
    .split(';')
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    const variant: LabVariant = { name: part, session: {}, server: {} };
    for (const assignment of part.split(',').map((a) => a.trim())) {
      const match = /^([a-z_]+)=([a-z_0-9]+)$/.exec(assignment);
      const name = match === null ? undefined : SETTING_ALIASES[match[1] ?? ''];
      if (match === null || name === undefined) {
        return `unknown setting "${assignment}" in the variants (use eic, mic, icl, io_method, io_workers)`;
      }
      const raw = match[2] ?? '';
      const value = /^\d+$/.test(raw) ? Number(raw) : raw;
      const target = (SERVER_SETTINGS.has(name) ? variant.server : variant.session) as Record<string, unknown>;
      target[name] = value;
    }
    variants.push(variant);
  }
  return variants;
}

/** The drills people run by hand, one click each. */
export const LAB_PRESETS: { label: string; variants: string; embeddedOnly: boolean }[] = [
  { label: 'effective_io_concurrency 1 / 16 / 64', variants: 'eic=1;eic=16;eic=64', embeddedOnly: false },
  { label: 'io_combine_limit 1 vs 16 (read combining)', variants: 'icl=1;icl=16', embeddedOnly: false },
  { label: 'io_method sync vs worker', variants: 'io_method=sync;io_method=worker', embeddedOnly: true },
  { label: 'io_workers 1 vs 3', variants: 'io_workers=1;io_workers=3', embeddedOnly: true },
];
