import type { ClientConfig } from 'pg';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { MAX_SAMPLE_RATE_HZ, MIN_SAMPLE_RATE_HZ } from '../config/commandFlags.ts';
import { checkConnectionUrl } from '../config/config.ts';
import { clientConfigFromUrl, withSslFromEnvironment } from '../postgres/libpqSsl.ts';
import { withPasswordLookup } from './passwordLookup.ts';
import type { TargetDefinition } from './target.ts';

/** A fast-tick rate: a fixed number of samples a second, or 'auto' (the cost budget picks it). */
export type RateSetting = number | 'auto';

/** One server of the fleet: how to reach it (server side only), its labels and its own rate. */
export interface FleetTarget {
  definition: TargetDefinition;
  labels: Record<string, string>;
  /** null: the process-wide --rate. */
  rate: RateSetting | null;
}

const KEYS = ['name', 'url', 'host', 'port', 'user', 'database', 'labels', 'rate'] as const;
const FIELD_KEYS = ['host', 'port', 'user', 'database'] as const;
/** Prometheus's label name rule, so labels can go on metrics as they are. */
const LABEL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_ID_LENGTH = 48;

/** A targets file that cannot be used: the message names the file, the line and the target. */
export class TargetsFileError extends Error {}

/** "Orders (primary)" → "orders-primary": what /api/targets/:id and /t/:id accept. */
export function slugOf(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_ID_LENGTH)
    .replace(/-+$/, '');
}

/**
 * Reads a targets file: a YAML list of servers. Passwords never belong in it (it is the kind of
 * file kept in a repository or a config map): a URL with one is refused, and node-postgres finds
 * the password in PGPASSWORD or ~/.pgpass (PGPASSFILE) as psql does.
 */
export function parseTargetsFile(text: string, file: string): FleetTarget[] {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const lineOf = (node: unknown): number => {
    const range = (node as Node | null | undefined)?.range;
    return range ? lines.linePos(range[0]).line : 1;
  };
  const fail = (line: number, message: string): never => {
    throw new TargetsFileError(`${file}:${line}: ${message}`);
  };
  const syntax = doc.errors[0];
  if (syntax !== undefined) fail(lines.linePos(syntax.pos[0]).line, syntax.message.split('\n')[0] ?? 'invalid YAML');
  const root = doc.contents;
  if (!isSeq(root)) return fail(lineOf(root), 'expected a list of targets (- name: …, url: …)');
  if (root.items.length === 0) fail(lineOf(root), 'the list of targets is empty');

  const targets: FleetTarget[] = [];
  const seen = new Map<string, { name: string; line: number }>();
  for (const item of root.items) {
    const itemLine = lineOf(item);
    if (!isMap(item)) return fail(itemLine, 'each target is a mapping with name and url (or host, port, …)');
    const fields = new Map<string, { value: unknown; line: number }>();
    for (const pair of item.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : '';
      const line = lineOf(pair.key);
      fields.set(key, { value: (pair.value as Node | null)?.toJSON() ?? null, line });
    }
    const nameField = fields.get('name');
    if (typeof nameField?.value !== 'string' || nameField.value.trim() === '')
      return fail(nameField?.line ?? itemLine, 'a target needs a name');
    const name = nameField.value.trim();
    const where = (line: number, message: string): never => fail(line, `target "${name}": ${message}`);
    for (const [key, { line }] of fields) {
      if (!(KEYS as readonly string[]).includes(key))
        where(line, `unknown key "${key}" (known: ${KEYS.join(', ')}; passwords go in PGPASSWORD or ~/.pgpass)`);
    }
    const id = slugOf(name);
    if (id === '') where(nameField.line, 'the name needs a letter or digit (it makes the target id)');
    const earlier = seen.get(id);
    if (earlier !== undefined) {
      where(
        nameField.line,
        earlier.name === name
          ? `duplicate name (first at line ${earlier.line})`
          : `its id "${id}" is taken by "${earlier.name}" (line ${earlier.line}); rename one`,
      );
    }
    seen.set(id, { name, line: nameField.line });
    targets.push({
      definition: {
        id,
        name,
        kind: 'external',
        clientConfig: withPasswordLookup(clientConfigOf(fields, where, itemLine)),
      },
      labels: labelsOf(fields.get('labels'), where),
      rate: rateOf(fields.get('rate'), where),
    });
  }
  return targets;
}

type Fields = Map<string, { value: unknown; line: number }>;
type Where = (line: number, message: string) => never;

function clientConfigOf(fields: Fields, where: Where, itemLine: number): ClientConfig {
  const url = fields.get('url');
  const split = FIELD_KEYS.filter((key) => fields.has(key));
  if (url !== undefined) {
    if (split.length > 0) where(url.line, `give url or ${FIELD_KEYS.join('/')}, not both (${split.join(', ')})`);
    if (typeof url.value !== 'string') return where(url.line, 'url must be a string');
    const problem = checkConnectionUrl(url.value);
    if (problem !== null) where(url.line, `url ${problem}`);
    if ((clientConfigFromUrl(url.value, {}).password ?? '') !== '')
      where(url.line, 'the url holds a password: put it in PGPASSWORD or ~/.pgpass (PGPASSFILE) instead');
    return clientConfigFromUrl(url.value);
  }
  const host = fields.get('host');
  if (host === undefined) return where(itemLine, 'needs url, or host (with port, user, database as needed)');
  const config: ClientConfig = {};
  for (const key of ['host', 'user', 'database'] as const) {
    const field = fields.get(key);
    if (field === undefined) continue;
    if (typeof field.value !== 'string' || field.value === '') where(field.line, `${key} must be a non-empty string`);
    config[key] = field.value as string;
  }
  const port = fields.get('port');
  if (port !== undefined) {
    const value = Number(port.value);
    if (!Number.isInteger(value) || value < 1 || value > 65535) where(port.line, 'port must be 1-65535');
    config.port = value;
  }
  return withSslFromEnvironment(config);
}

function labelsOf(field: { value: unknown; line: number } | undefined, where: Where): Record<string, string> {
  if (field === undefined || field.value === null) return {};
  if (typeof field.value !== 'object' || Array.isArray(field.value))
    return where(field.line, 'labels must be a mapping, e.g. { env: prod }');
  const labels: Record<string, string> = {};
  for (const [key, value] of Object.entries(field.value as Record<string, unknown>)) {
    if (!LABEL_NAME.test(key)) where(field.line, `label "${key}" must be letters, digits and _ (not first a digit)`);
    if (!['string', 'number', 'boolean'].includes(typeof value))
      where(field.line, `label "${key}" must have a plain value`);
    labels[key] = String(value);
  }
  return labels;
}

function rateOf(field: { value: unknown; line: number } | undefined, where: Where): RateSetting | null {
  if (field === undefined) return null;
  if (field.value === 'auto') return 'auto';
  const hz = Number(field.value);
  if (typeof field.value !== 'number' || hz < MIN_SAMPLE_RATE_HZ || hz > MAX_SAMPLE_RATE_HZ)
    return where(field.line, `rate must be auto or ${MIN_SAMPLE_RATE_HZ}-${MAX_SAMPLE_RATE_HZ}`);
  return hz;
}
