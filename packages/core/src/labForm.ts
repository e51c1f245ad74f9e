import {
  LAB_MAX_ROUNDS,
  LAB_MAX_TABLE_MB,
  type CacheState,
  type LabActivity,
  type LabExperimentInput,
  type LabRun,
} from '@aioscope/spec';
import { formatBytes, KILOBYTES } from './format.ts';
import { parseVariants } from './labVariants.ts';

/**
 * What people type into the lab (the page's form, the CLI's flags, a REST body) and the words the
 * lab answers with when it is wrong: the field as a person named it, never a schema path.
 */

/** "1 round", "5 rounds". */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** A whole number typed into a field, in range, or what is wrong with it. Blank is wrong, not 0. */
export function parseWholeNumber(text: string, label: string, min: number, max: number): number | { error: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { error: `${label}: enter a whole number from ${min} to ${max}` };
  if (!/^\d+$/.test(trimmed)) return { error: `${label}: "${trimmed}" is not a whole number` };
  const value = Number(trimmed);
  if (value < min || value > max) return { error: `${label}: ${value} is outside ${min}–${max}` };
  return value;
}

export interface LabFormFields {
  variants: string;
  cacheState: CacheState;
  /** As typed: a field being edited may be blank or half-typed. */
  rounds: string;
  tableMb: string;
  /** Direct I/O (debug_io_direct = data), offered on the embedded server only; absent is off. */
  directIo?: boolean;
  /** The target's name typed to confirm; null on the embedded server, which needs none. */
  confirmTarget: string | null;
}

/** The experiment the form describes, or every problem with it at once (each field's own). */
export function checkLabForm(fields: LabFormFields): { input: LabExperimentInput } | { errors: string[] } {
  const errors: string[] = [];
  const variants = parseVariants(fields.variants);
  if (typeof variants === 'string') errors.push(variants);
  else if (variants.length === 0) errors.push('add at least one variant');
  else if (new Set(variants.map((variant) => variant.name)).size !== variants.length) {
    errors.push('each variant appears once');
  }
  const rounds = parseWholeNumber(fields.rounds, 'rounds', 1, LAB_MAX_ROUNDS);
  const tableMb = parseWholeNumber(fields.tableMb, 'table MB', 16, LAB_MAX_TABLE_MB);
  for (const value of [rounds, tableMb]) if (typeof value === 'object') errors.push(value.error);
  if (errors.length > 0 || typeof variants === 'string' || typeof rounds !== 'number' || typeof tableMb !== 'number') {
    return { errors };
  }
  return {
    input: {
      tableMb,
      cacheState: fields.cacheState,
      rounds,
      variants,
      ...(fields.directIo === true ? { directIo: true } : {}),
      ...(fields.confirmTarget === null ? {} : { confirmTarget: fields.confirmTarget }),
    },
  };
}

/** The parts of a zod issue this needs; core does not depend on zod itself. */
export interface InputIssue {
  readonly code?: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly expected?: unknown;
  readonly maximum?: unknown;
  readonly minimum?: unknown;
  readonly keys?: readonly string[];
  readonly values?: readonly unknown[];
}

const FIELD_NAMES: Record<string, string> = {
  tableMb: 'table MB',
  cacheState: 'cache state',
  directIo: 'direct I/O',
  rounds: 'rounds',
  baseline: 'baseline',
  confirmTarget: 'confirmTarget',
  variants: 'variants',
};

function issueText(issue: InputIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.expected === 'int') return 'must be a whole number';
      return `must be ${/^[aeiou]/.test(String(issue.expected)) ? 'an' : 'a'} ${String(issue.expected)}`;
    case 'too_big':
      return `must be at most ${String(issue.maximum)}`;
    case 'too_small':
      return `must be at least ${String(issue.minimum)}`;
    case 'unrecognized_keys':
      return `unknown ${issue.keys?.length === 1 ? 'key' : 'keys'} ${(issue.keys ?? []).join(', ')}`;
    case 'invalid_value':
      return `must be one of ${(issue.values ?? []).map(String).join(', ')}`;
    default:
      return issue.message;
  }
}

/**
 * One line for a rejected experiment: "variant "eic=abc": effective_io_concurrency must be a
 * number", "table MB: must be at most 4096". The input is only read for the variant's name.
 */
export function describeLabInputIssue(issue: InputIssue | undefined, input: unknown): string {
  if (issue === undefined) return 'experiment: invalid';
  const [head, index, ...rest] = issue.path;
  if (head === 'variants' && typeof index === 'number') {
    const variants = (input as { variants?: unknown } | null)?.variants;
    const name = Array.isArray(variants) ? (variants[index] as { name?: unknown } | undefined)?.name : undefined;
    const label = typeof name === 'string' && name.length <= 80 ? `variant "${name}"` : `variant ${index + 1}`;
    const field = rest.filter((part) => part !== 'session' && part !== 'server').map(String);
    return `${label}${field.length > 0 ? `, ${field.join('.')}` : ''}: ${issueText(issue)}`;
  }
  if (head === undefined) return `experiment: ${issueText(issue)}`;
  const field = FIELD_NAMES[String(head)] ?? issue.path.map(String).join('.');
  return `${field}: ${issueText(issue)}`;
}

/** One progress line per finished run, the same on every path the CLI prints it. */
export function formatLabRunLine(run: LabRun): string {
  const perRead = run.bytesPerRead === null ? 'bytes/read –' : `${formatBytes(run.bytesPerRead, 1, KILOBYTES)}/read`;
  const cache = run.osResidencyBefore === null ? '' : `, OS cache ${(run.osResidencyBefore * 100).toFixed(0)} % before`;
  return `  round ${run.round} ${run.variant}: ${run.executionMs.toFixed(1)} ms, ${perRead}, io_method ${run.ioMethod ?? '?'}${cache}`;
}

/**
 * The page-wide notice while an experiment holds the lab: the server may run with the experiment's
 * settings for now (it restarted the embedded server; the header refreshes its settings every 30 s,
 * so it may show either), and the live charts show its scans.
 */
export function describeLabActivity(active: LabActivity): string {
  const settings = Object.entries(active.serverSettings)
    .map(([name, value]) => `${name} = ${value}`)
    .join(', ');
  if (active.restoring) {
    return settings === ''
      ? `Scan-lab experiment ${active.id} has ended; the lab is tidying up.`
      : `Scan-lab experiment ${active.id} has ended; the embedded server is being restarted with its own settings (it runs with ${settings} until then).`;
  }
  return settings === ''
    ? `Scan-lab experiment ${active.id} is running: the live charts show its scans.`
    : `Scan-lab experiment ${active.id} is running: it restarted the embedded server with ${settings}, which holds until the experiment ends (the settings above may show either).`;
}

/** What the form's direct I/O checkbox says it changes, in one sentence. */
export const DIRECT_IO_EXPLANATION =
  "Every read goes to the device, with no OS page cache: PostgreSQL's developer setting debug_io_direct = data, set by restarting the embedded server for the experiment and taken away afterwards.";
