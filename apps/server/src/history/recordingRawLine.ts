import { isUtf8 } from 'node:buffer';

/**
 * A sample's line read without parsing it: when a recording file carries its own roll-ups, opening
 * it needs of a frame, a pg_stat_io delta or a processes table only its kind, its time and whether
 * it holds a scan map, plus its value's JSON text to store as it is. The writer lays such a line
 * out as `{"k":"frame","v":{"t":1795989067000,…}}`; those fields are read off the bytes here. A line
 * laid out any other way is not guessed at (null): the reader parses and checks it as before.
 *
 * The value's body is checked when it is read back (storeReader.ts, an opened file's `checkBody`),
 * where it is parsed anyway to be served: parsing every frame at open took most of its time.
 */

export type RawSampleKind = 'frame' | 'ioDelta' | 'processes';

export interface RawSample {
  kind: RawSampleKind;
  t: number;
  /** A frame holding a scan map (the "scans" key): the reader looks for the newest one before a range. */
  hasScans: boolean;
  /** The value's JSON text: a view of the line's bytes, valid while the line is. */
  body: Buffer;
}

const PREFIXES: readonly { kind: RawSampleKind; value: Buffer; time: Buffer }[] = (
  ['frame', 'ioDelta', 'processes'] as const
).map((kind) => ({
  kind,
  value: Buffer.from(`{"k":"${kind}","v":`),
  time: Buffer.from(`{"k":"${kind}","v":{"t":`),
}));
/** As JSON writes a number (RFC 8259): what Number() would also accept ('0x1f', ' 1', '') is not. */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const COMMA = 0x2c;
const CLOSING_BRACE = 0x7d;
/** Inside a JSON string a quote is escaped, so these bytes can only be an object's key. */
const SCANS_KEY = Buffer.from('"scans":');
/** A number longer than this is not a time the writer wrote. */
const MAX_TIME_CHARS = 32;

/**
 * The value's text of a sample line known to hold nothing but "k" and "v" (parsed and checked), as
 * a view of the line when it is the writer's `{"k":…,"v":…}`, else null (the caller encodes the
 * value again).
 */
export function sliceValue(kind: RawSampleKind, line: Buffer): Buffer | null {
  const prefix = PREFIXES.find((candidate) => candidate.kind === kind)?.value;
  if (
    prefix === undefined ||
    line.length <= prefix.length ||
    line.compare(prefix, 0, prefix.length, 0, prefix.length) !== 0
  ) {
    return null;
  }
  return line[line.length - 1] === CLOSING_BRACE ? line.subarray(prefix.length, -1) : null;
}

/** The sample in `line`, or null when the line is not a sample in the writer's layout. */
export function rawSampleOf(line: Buffer): RawSample | null {
  const prefix = PREFIXES.find(
    ({ time }) => line.length > time.length && line.compare(time, 0, time.length, 0, time.length) === 0,
  );
  if (prefix === undefined) return null;
  if (line[line.length - 1] !== CLOSING_BRACE || line[line.length - 2] !== CLOSING_BRACE) return null;
  const timeStart = prefix.time.length;
  const timeEnd = line.indexOf(COMMA, timeStart);
  if (timeEnd < 0 || timeEnd - timeStart > MAX_TIME_CHARS) return null;
  const timeText = line.toString('latin1', timeStart, timeEnd);
  if (!JSON_NUMBER.test(timeText)) return null;
  // Not UTF-8: parsed as text by the reader, which decodes as it always has.
  if (!isUtf8(line)) return null;
  return {
    kind: prefix.kind,
    t: Number(timeText),
    hasScans: prefix.kind === 'frame' && line.includes(SCANS_KEY, timeEnd),
    body: line.subarray(prefix.value.length, -1),
  };
}
