import type { z } from 'zod';
import { recordingLineSchema, type RecordingLine } from '@aioscope/spec';

/**
 * A fast "certainly valid" check of a recording line, built from the spec's own zod schemas at
 * start: the schema stays the single source of truth, this only runs it cheaper. Checking an
 * hour at 100 Hz with zod took ~1.9 s of the ~7 s an open took; this takes a fraction of it.
 *
 * It answers true only for a value zod accepts *and returns unchanged* (no key zod would strip, no
 * numeric record key zod would rewrite): the value can then be used as zod's output. Anything else
 * (false) goes to zod, whose verdict and message stand, so a bad file is refused exactly as before.
 * A schema construct not handled here (a refinement, a check, a default…) is never guessed at: that
 * record kind simply has no fast check and is parsed by zod (recordingLineCheck.test.ts asserts
 * that the kinds an hour is made of keep theirs).
 *
 * Values come from JSON.parse: plain objects and arrays, no undefined, no symbols.
 */

type Check = (value: unknown) => boolean;
type Schema = z.core.$ZodType;

class UnsupportedSchema extends Error {}

/** The numeric strings zod retries as numbers (zod/v4/core regexes.number). */
const NUMERIC_KEY = /^-?\d+(?:\.\d+)?$/;

/**
 * The check is generated as JavaScript source, one function per object, array and record of the
 * schema: fixed property reads (`v["sampleMs"]`) keep V8's inline caches hot, which closures
 * walking a field list could not (they read keys by variable, ~4× slower measured on an hour).
 */
class CheckSource {
  private readonly functions: string[] = [];
  /** Values the generated code refers to: sets of literals and enum members. */
  readonly constants: unknown[] = [];

  /** A JavaScript expression, true when the value of `value` (a local name) passes `schema`. */
  test(schema: Schema, value: string): string {
    const def = schema._zod.def;
    switch (def.type) {
      case 'string':
        this.noChecks(schema);
        return `typeof ${value} === "string"`;
      case 'number':
        this.noChecks(schema);
        // As zod: NaN and ±Infinity (JSON.parse reads 1e999 as Infinity) are not numbers.
        return `(typeof ${value} === "number" && Number.isFinite(${value}))`;
      case 'boolean':
        return `typeof ${value} === "boolean"`;
      case 'literal':
        return `c[${this.constant(new Set((def as z.core.$ZodLiteralDef<z.core.util.Literal>).values))}].has(${value})`;
      case 'enum':
        return `c[${this.constant(new Set(Object.values((def as z.core.$ZodEnumDef).entries)))}].has(${value})`;
      case 'nullable':
        return `(${value} === null || ${this.test((def as z.core.$ZodNullableDef).innerType, value)})`;
      case 'tuple':
        return this.tuple(def as z.core.$ZodTupleDef, value);
      case 'array':
        this.noChecks(schema);
        return `${this.array(def as z.core.$ZodArrayDef)}(${value})`;
      case 'object':
        return `${this.object(def as z.core.$ZodObjectDef)}(${value})`;
      case 'record':
        return `${this.record(def as z.core.$ZodRecordDef)}(${value})`;
      default:
        throw new UnsupportedSchema(def.type);
    }
  }

  /** The generated source: every function, then `return <entry>`. */
  source(entry: string): string {
    return `${this.functions.join('\n')}\nreturn ${entry};`;
  }

  private noChecks(schema: Schema): void {
    if ((schema._zod.def.checks?.length ?? 0) > 0) throw new UnsupportedSchema(`${schema._zod.def.type} with checks`);
  }

  private constant(value: unknown): number {
    this.constants.push(value);
    return this.constants.length - 1;
  }

  private add(body: string): string {
    const name = `f${this.functions.length}`;
    this.functions.push(`function ${name}(v) {\n${body}\n}`);
    return name;
  }

  private tuple({ items, rest }: z.core.$ZodTupleDef, value: string): string {
    if (rest !== null) throw new UnsupportedSchema('tuple with a rest');
    const tests = items.map((item, index) => {
      if (item._zod.def.type === 'optional') throw new UnsupportedSchema('tuple with an optional item');
      return this.test(item, `${value}[${index}]`);
    });
    return `(Array.isArray(${value}) && ${value}.length === ${items.length} && ${tests.join(' && ')})`;
  }

  private array({ element }: z.core.$ZodArrayDef): string {
    const test = this.test(element, 'e');
    return this.add(
      `if (!Array.isArray(v)) return false;\nfor (let i = 0; i < v.length; i++) { const e = v[i]; if (!(${test})) return false; }\nreturn true;`,
    );
  }

  private object({ shape, catchall }: z.core.$ZodObjectDef): string {
    // A catchall (strictObject, looseObject) changes what extra keys do: not handled.
    if (catchall !== undefined) throw new UnsupportedSchema('object with a catchall');
    const lines = ['if (typeof v !== "object" || v === null || Array.isArray(v)) return false;', 'let n = 0;'];
    Object.entries(shape).forEach(([key, field], index) => {
      if (key in Object.prototype) throw new UnsupportedSchema(`object key ${key}`);
      const name = `a${index}`;
      lines.push(`const ${name} = v[${JSON.stringify(key)}];`);
      if (field._zod.def.type === 'optional') {
        const inner = (field._zod.def as z.core.$ZodOptionalDef).innerType;
        lines.push(`if (${name} !== undefined) { if (!(${this.test(inner, name)})) return false; n++; }`);
      } else lines.push(`if (!(${this.test(field, name)})) return false;`, 'n++;');
    });
    // zod strips keys its shape lacks: only a value without any is returned by zod unchanged.
    lines.push('let keys = 0;', 'for (const _ in v) keys++;', 'return keys === n;');
    return this.add(lines.join('\n'));
  }

  private record(def: z.core.$ZodRecordDef): string {
    const { mode, partial } = def as { mode?: unknown; partial?: boolean };
    const keyType = def.keyType as Schema;
    // A loose record keeps keys its key schema refuses; one over an enum that is not partial requires
    // every key: neither is handled.
    if (mode !== undefined) throw new UnsupportedSchema('record mode');
    if (keyType._zod.def.type === 'enum' && partial !== true) throw new UnsupportedSchema('exhaustive record');
    const value = this.test(def.valueType as Schema, 'e');
    // zod skips a "__proto__" key: the value it returns would lack it.
    return this.add(
      `if (typeof v !== "object" || v === null || Array.isArray(v)) return false;\n` +
        `for (const k in v) { if (k === "__proto__" || !(${this.key(keyType)})) return false; const e = v[k]; if (!(${value})) return false; }\n` +
        'return true;',
    );
  }

  /** A record's key `k` as zod reads it: true when zod accepts it and writes it back unchanged. */
  private key(schema: Schema): string {
    const def = schema._zod.def;
    this.noChecks(schema);
    if (def.type === 'string') return 'true';
    // zod retries a numeric string key as Number(key) and writes the number back: "007" becomes "7".
    if (def.type === 'number') return `(c[${this.constant(NUMERIC_KEY)}].test(k) && String(Number(k)) === k)`;
    if (def.type === 'enum') return this.test(schema, 'k');
    throw new UnsupportedSchema(`record key ${def.type}`);
  }
}

function compile(schema: Schema): Check {
  const source = new CheckSource();
  const entry = source.test(schema, 'v');
  // Generated from the spec's schema alone, never from input.
  const make = new Function('c', source.source(`(v) => ${entry}`)) as (constants: unknown[]) => Check;
  return make(source.constants);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The fast check of any schema, or null when it uses a construct not handled here. */
export function fastCheckOf(schema: Schema): Check | null {
  try {
    return compile(schema);
  } catch (error) {
    if (error instanceof UnsupportedSchema) return null;
    throw error;
  }
}

/** One check per record kind ("k") of the line schema; a kind whose schema is not handled has none. */
function lineChecks(): Map<unknown, Check> {
  const checks = new Map<unknown, Check>();
  const { discriminator, options } = recordingLineSchema._zod.def as z.core.$ZodDiscriminatedUnionDef;
  for (const option of options) {
    const kind = (option._zod.def as z.core.$ZodObjectDef).shape[discriminator];
    if (kind?._zod.def.type !== 'literal') continue;
    const values = (kind._zod.def as z.core.$ZodLiteralDef<z.core.util.Literal>).values;
    if (values.length !== 1) continue;
    const check = fastCheckOf(option);
    if (check !== null) checks.set(values[0], check);
  }
  return checks;
}

const LINE_CHECKS = lineChecks();

/** Record kinds with a fast check, for the test that keeps them. */
export const FAST_CHECKED_KINDS: readonly unknown[] = [...LINE_CHECKS.keys()];

/**
 * True when zod would accept `json` as a recording line and return it as it is; false means "ask
 * zod" (it may still be valid).
 */
export function isCertainlyValidLine(json: unknown): json is RecordingLine {
  if (!isObject(json)) return false;
  const check = LINE_CHECKS.get(json.k);
  return check !== undefined && check(json);
}
