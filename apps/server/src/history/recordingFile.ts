import { formatBytes, WHOLE_MEGABYTES } from '@aioscope/core';
import { MAX_RECORDING_FILE_BYTES, RECORDING_EXTENSION } from '@aioscope/spec';
import serverPackage from '../../package.json' with { type: 'json' };

/**
 * What the recording file's writer and reader share: the producer's version, the limits a file is
 * read under and the one error a bad file is refused with.
 */

/** The aioscope version written into every file header (bundled into dist/cli.js by esbuild). */
export const PRODUCER_VERSION = `aioscope ${serverPackage.version}`;

export interface RecordingLimits {
  /** Compressed bytes: what an upload or a file on disk may weigh. */
  maxCompressedBytes: number;
  /**
   * Decompressed bytes: a small gzip can expand a thousandfold, and everything read is kept in
   * memory, so this bounds what one opened recording costs (an hour at 100 Hz is ~0.5 GB of JSON).
   */
  maxUncompressedBytes: number;
  /** One record; a frame with its scan map is a few kB, so a longer line is not ours. */
  maxLineBytes: number;
  /** Records of all kinds (an hour at 100 Hz holds ~372,000). */
  maxRecords: number;
}

export const DEFAULT_RECORDING_LIMITS: RecordingLimits = {
  maxCompressedBytes: MAX_RECORDING_FILE_BYTES,
  maxUncompressedBytes: 1024 * 1024 * 1024,
  maxLineBytes: 4 * 1024 * 1024,
  maxRecords: 500_000,
};

/** A recording file refused: the message says what was wrong, in words a user acts on. */
export class RecordingFileError extends Error {
  override readonly name = 'RecordingFileError';
}

/** A size limit in a message (core's formatBytes, whole kB or MB), as every refusal of a file writes it. */
export const formatMegabytes = (bytes: number): string => formatBytes(bytes, 0, WHOLE_MEGABYTES);

/** "aioscope-embedded-2026-11-29T21-51-07Z.aioscope.gz": the target and the range's start. */
export function recordingFileName(targetName: string, from: number, extension = RECORDING_EXTENSION): string {
  const slug =
    targetName
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'target';
  const stamp = new Date(from)
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/:/g, '-');
  return `aioscope-${slug}-${stamp}${extension}`;
}
