import { recordingLineSchema } from '@aioscope/spec';
import { RecordingFileError } from './recordingFile.ts';
import { isCertainlyValidLine } from './recordingLineCheck.ts';
import { RAW_KIND, type RawKind } from './storeEngine.ts';

/**
 * The check of an opened recording's samples as they are read back: a file that carries its own
 * roll-ups is stored without parsing its samples (recordingRawLine.ts), so each body meets the
 * spec's schema here, where the reader parses it anyway to serve it. A body that fails refuses the
 * read (422, the record named), not the process, and nothing is served from it.
 */

/** A read of an opened file that met a record the file should not hold. */
export class RecordedBodyError extends RecordingFileError {
  readonly statusCode = 422;
}

const LINE_KIND: Record<RawKind, 'frame' | 'ioDelta' | 'processes'> = {
  [RAW_KIND.frame]: 'frame',
  [RAW_KIND.ioDelta]: 'ioDelta',
  [RAW_KIND.processes]: 'processes',
};
const KIND_WORDS: Record<RawKind, string> = {
  [RAW_KIND.frame]: 'frame',
  [RAW_KIND.ioDelta]: 'pg_stat_io delta',
  [RAW_KIND.processes]: 'processes table',
};

/** The body's value as the schema gives it back (zod's output where the fast check cannot vouch). */
export function checkRecordedBody(kind: RawKind, t: number, body: string): unknown {
  const at = `the recording's ${KIND_WORDS[kind]} at ${new Date(t).toISOString()}`;
  let value: unknown;
  try {
    value = JSON.parse(body) as unknown;
  } catch {
    throw new RecordedBodyError(`corrupted: ${at} is not JSON (the file was edited or damaged)`);
  }
  const line = { k: LINE_KIND[kind], v: value };
  if (isCertainlyValidLine(line)) return value;
  const parsed = recordingLineSchema.safeParse(line);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const what = issue === undefined ? 'invalid' : `${issue.path.slice(1).join('.') || 'v'}: ${issue.message}`;
    throw new RecordedBodyError(`corrupted: ${at} is not a valid record (${what}; the file was edited or damaged)`);
  }
  return parsed.data.k === 'end' ? value : parsed.data.v;
}
