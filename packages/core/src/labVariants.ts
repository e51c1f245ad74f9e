import { IO_METHODS, labServerSettingsSchema, labSessionSettingsSchema, type LabVariant } from '@aioscope/spec';

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

/** Whole-number ranges, read from the experiment schema so the form and the server cannot disagree. */
const WHOLE_NUMBER_RANGES: Record<string, { min: number; max: number }> = Object.fromEntries(
  Object.entries({ ...labSessionSettingsSchema.shape, io_workers: labServerSettingsSchema.shape.io_workers }).map(
    ([name, field]) => {
      const number = field.unwrap();
      return [name, { min: number.minValue ?? 0, max: number.maxValue ?? Number.MAX_SAFE_INTEGER }];
    },
  ),
);

/** The value of one setting, or what is wrong with it in words a person can act on. */
function settingValue(assignment: string, name: string, raw: string): number | string | { error: string } {
  if (name === 'io_method') {
    return (IO_METHODS as readonly string[]).includes(raw)
      ? raw
      : { error: `${assignment}: io_method is ${IO_METHODS.join(', ')}` };
  }
  const range = WHOLE_NUMBER_RANGES[name];
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (range === undefined) return { error: `${assignment}: unknown setting ${name}` };
  if (!Number.isInteger(value) || value < range.min || value > range.max) {
    return { error: `${assignment}: ${name} takes a whole number from ${range.min} to ${range.max}` };
  }
  return value;
}

/**
 * Parses "eic=1;eic=16" into variants: ";" between variants, "," between settings of one
 * ("eic=16,icl=1" is one variant setting both). Each value is checked against the experiment
 * schema's range here, so a typo is reported next to what was typed, not as a schema path.
 */
export function parseVariants(spec: string): LabVariant[] | string {
  const variants: LabVariant[] = [];
  for (const part of spec
    .split(';')
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    const variant: LabVariant = { name: part, session: {}, server: {} };
    const seen = new Set<string>();
    for (const assignment of part.split(',').map((a) => a.trim())) {
      const match = /^([a-z_]+)=([a-z_0-9]+)$/.exec(assignment);
      const name = match === null ? undefined : SETTING_ALIASES[match[1] ?? ''];
      if (match === null || name === undefined) {
        return `unknown setting "${assignment}" in the variants (use eic, mic, icl, io_method, io_workers)`;
      }
      if (seen.has(name)) return `"${part}" sets ${name} twice`;
      seen.add(name);
      const value = settingValue(assignment, name, match[2] ?? '');
      if (typeof value === 'object') return value.error;
      const target = (SERVER_SETTINGS.has(name) ? variant.server : variant.session) as Record<string, unknown>;
      target[name] = value;
    }
    variants.push(variant);
  }
  return variants;
}

/** What `lab` runs without --variants, and the first preset: effective_io_concurrency's range. */
export const DEFAULT_LAB_VARIANTS = 'eic=1;eic=16;eic=64';

/** The drills people run by hand, one click each. */
export const LAB_PRESETS: { label: string; variants: string; embeddedOnly: boolean }[] = [
  { label: 'effective_io_concurrency 1 / 16 / 64', variants: DEFAULT_LAB_VARIANTS, embeddedOnly: false },
  { label: 'io_combine_limit 1 vs 16 (read combining)', variants: 'icl=1;icl=16', embeddedOnly: false },
  { label: 'io_method sync vs worker', variants: 'io_method=sync;io_method=worker', embeddedOnly: true },
  { label: 'io_workers 1 vs 3', variants: 'io_workers=1;io_workers=3', embeddedOnly: true },
];
