import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp } from '../../apps/server/src/app.ts';
import { OpenedRecordings } from '../../apps/server/src/history/memoryHistoryCatalog.ts';
import { SYNTHETIC_START, syntheticHistory } from '../../apps/server/src/history/recordingFileFixture.ts';
import { readRecording } from '../../apps/server/src/history/recordingFileReader.ts';
import { writeRecordingFile } from '../../apps/server/src/history/recordingFileWriter.ts';
import { log, verdict, writeResult, type BenchOptions, type TableRow } from './common.ts';
import { fmtSummary, summarize } from './stats.ts';

/** Issue 12's goal: a 10-minute recording opens and shows its frames within 2 s. */
const GOAL_MS = 2_000;
const DURATION_MS = 10 * 60_000;
const RATE_HZ = 20;

/**
 * `recording-open`: a 10-minute 20 Hz recording file (recorded frames repeated on a steady time
 * line) is read and checked whole, opened as a target, and its whole range asked for as raw frames,
 * as the page does first. Timed in this process: the CLI's own start-up (tsx) is not the file's cost.
 */
export async function runRecordingOpen(options: BenchOptions): Promise<TableRow[]> {
  const folder = await mkdtemp(path.join(tmpdir(), 'aioscope-bench-recording-'));
  try {
    const file = path.join(folder, 'ten-minutes.aioscope.gz');
    const range = { from: SYNTHETIC_START, to: SYNTHETIC_START + DURATION_MS };
    const counts = await writeRecordingFile(
      syntheticHistory('embedded', { durationMs: DURATION_MS, rateHz: RATE_HZ }),
      range,
      file,
    );
    const bytes = (await stat(file)).size;
    log(`recording-open: ${counts.frames} frames, ${(bytes / 1e6).toFixed(2)} MB compressed`);
    const rounds = options.quick ? 3 : Math.round(7 * options.roundsScale);
    const loads: number[] = [];
    const firsts: number[] = [];
    const totals: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const started = performance.now();
      const recordings = new OpenedRecordings();
      const { targetId } = recordings.add(await readRecording(createReadStream(file)), 'ten-minutes.aioscope.gz');
      const { app } = await buildApp({ monitors: new Map(), recordings, webRoot: '/nonexistent' });
      const loaded = performance.now();
      const response = await app.inject({
        method: 'GET',
        url: `/api/targets/${targetId}/history/frames?from=${range.from}&to=${range.to}`,
      });
      const answered = performance.now();
      if (response.statusCode !== 200)
        throw new Error(`frames: HTTP ${response.statusCode} ${response.body.slice(0, 200)}`);
      await app.close();
      loads.push(loaded - started);
      firsts.push(answered - loaded);
      totals.push(answered - started);
    }
    const total = summarize(totals);
    writeResult('recording-open', { counts, bytes, rounds, loadsMs: loads, firstFramesMs: firsts, totalsMs: totals });
    return [
      {
        measurement: 'recording-open',
        condition: `10 min at ${RATE_HZ} Hz (${counts.frames} frames, ${(bytes / 1e6).toFixed(1)} MB file)`,
        result:
          `${fmtSummary(total, 0)} ms to loaded + first frames; load ${fmtSummary(summarize(loads), 0)} ms, ` +
          `first /history/frames ${fmtSummary(summarize(firsts), 0)} ms`,
        target: `≤ ${GOAL_MS / 1000} s`,
        verdict: verdict(total.median <= GOAL_MS),
      },
    ];
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
