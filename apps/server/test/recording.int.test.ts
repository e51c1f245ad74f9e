import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { historyFramesSchema, targetListSchema } from '@aioscope/spec';
import { SYNTHETIC_START, syntheticHistory } from '../src/history/recordingFileFixture.ts';
import { readRecording } from '../src/history/recordingFileReader.ts';
import { writeRecordingFile } from '../src/history/recordingFileWriter.ts';
import { runCli, type CliRun } from './support/cliProcess.ts';
import { connectViewer, joinAs } from './support/liveViewer.ts';

/**
 * `open FILE` as a user runs it: the real command line in a child process, no database anywhere.
 * The recording is made of frames recorded from a real PostgreSQL 18 (packages/core/fixtures).
 */
const DURATION_MS = 60_000;
const range = { from: SYNTHETIC_START, to: SYNTHETIC_START + DURATION_MS };
let folder: string;
let file: string;

/** Waits for the "recording FILE at URL" line and returns the URL. */
async function waitForRecordingUrl(run: CliRun, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const match = /recording \S+ at (http:\/\/\S+)/.exec(run.stdout());
    if (match?.[1] !== undefined) return match[1];
    if (run.child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`aioscope open did not start:\n${run.stdout()}\n${run.stderr()}`);
}

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'aioscope-open-test-'));
  file = path.join(folder, 'cold-scan.aioscope.gz');
  await writeRecordingFile(syntheticHistory('embedded', { durationMs: DURATION_MS }), range, file);
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('npm start -- open FILE', () => {
  it('serves the recording with no database: listed as a target, the same frames as the file', async () => {
    // No PG* variables (runCli strips them) and no --db: any database access would fail loudly.
    const run = runCli(['open', file, '--port', '0']);
    try {
      const url = new URL(await waitForRecordingUrl(run));
      const targets = targetListSchema.parse(await (await fetch(new URL('/api/targets', url))).json());
      expect(targets.map((target) => [target.kind, target.recording])).toEqual([
        ['recording', { ...range, fileName: 'cold-scan.aioscope.gz' }],
      ]);
      const id = targets[0]?.id ?? 'missing';
      const response = await fetch(new URL(`/api/targets/${id}/history/frames?from=${range.from}&to=${range.to}`, url));
      const served = historyFramesSchema.parse(await response.json());
      const inFile = await readRecording(await readFile(file));
      expect(served.frames).toEqual(inFile.frames);
      expect(served.frames.length).toBe(1_200);

      const viewer = await connectViewer(url.origin);
      try {
        const { reply } = await joinAs(viewer, id);
        expect(reply).toEqual({
          ok: false,
          error: expect.stringContaining('is a recording file: it has no live stream'),
        });
      } finally {
        viewer.close();
      }
      expect(run.stderr()).not.toMatch(/postgres/i);
    } finally {
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
    }
  });

  it('refuses a corrupt file: exit 2 with the reader’s message, nothing served', async () => {
    const truncated = path.join(folder, 'cut.aioscope.gz');
    const bytes = await readFile(file);
    await writeFile(truncated, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    const run = runCli(['open', truncated, '--port', '0']);
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toContain(`aioscope open: ${truncated}: truncated: the compressed data ends mid-stream`);
    expect(run.stdout()).not.toMatch(/http:\/\//);

    const foreign = path.join(folder, 'notes.txt');
    await writeFile(foreign, 'just some notes\n');
    const second = runCli(['open', foreign]);
    expect(await second.exited).toBe(2);
    expect(second.stderr()).toContain('not an aioscope recording: it is not gzip-compressed');
  });

  it('says how to use it', async () => {
    const help = runCli(['open', '--help']);
    expect(await help.exited).toBe(0);
    expect(help.stdout()).toMatch(/Usage: npm start -- open FILE/);
    const missing = runCli(['open']);
    expect(await missing.exited).toBe(2);
    expect(missing.stderr()).toContain('open takes one FILE');
  });
});
