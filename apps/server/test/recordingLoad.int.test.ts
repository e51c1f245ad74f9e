/**
 * Large recording files opened at once in a process watching a real PostgreSQL 18: the process
 * stays up and samples at its rate while they open. The process runs with a small JS heap
 * (--max-old-space-size=192): four of these files held in the heap, as opened files were before,
 * ended it with "JavaScript heap out of memory".
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmbeddedPostgresServer } from '../src/postgres/embeddedPostgres.ts';
import { SYNTHETIC_START, syntheticHistory } from '../src/history/recordingFileFixture.ts';
import { writeRecordingFile } from '../src/history/recordingFileWriter.ts';
import { runCli, waitForUrl, type CliRun } from './support/cliProcess.ts';
import { connectViewer, joinAs, type Viewer } from './support/liveViewer.ts';
import { startTestPostgres } from './support/testPostgres.ts';

const RATE_HZ = 20;
/** 20 minutes at 100 Hz: 120,000 frames, ~75 MB of JSON, ~1.5 MB of gzip. */
const FILE_MS = 20 * 60_000;
const UPLOADS = 4;
const HEAP_MB = 192;

interface Upload {
  status: number;
  body: { targetId?: string; error?: string };
  busyAnswers: number;
}

/** POSTs the file as the page does: on 503 waits as Retry-After says and tries again. */
async function uploadWhenFree(base: string, bytes: Buffer, name: string): Promise<Upload> {
  let busyAnswers = 0;
  for (;;) {
    const response = await fetch(new URL(`/api/recordings?name=${name}`, base), {
      method: 'POST',
      headers: { 'content-type': 'application/gzip' },
      body: bytes,
    });
    const body = (await response.json()) as Upload['body'];
    if (response.status !== 503) return { status: response.status, body, busyAnswers };
    busyAnswers++;
    expect(body.error).toMatch(/another recording file is being opened/);
    const retryAfter = Number(response.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('opening several large recording files at once while watching a real server', () => {
  let postgres: EmbeddedPostgresServer;
  let run: CliRun;
  let base: string;
  let viewer: Viewer;
  let folder: string;
  let file: Buffer;

  beforeAll(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'aioscope-load-'));
    const filePath = path.join(folder, 'large.aioscope.gz');
    const range = { from: SYNTHETIC_START, to: SYNTHETIC_START + FILE_MS };
    await writeRecordingFile(syntheticHistory('embedded', { durationMs: FILE_MS, rateHz: 100 }), range, filePath);
    file = await readFile(filePath);
    postgres = await startTestPostgres('recording-load');
    const { user, password, port } = postgres.connectionConfig;
    const url = `postgres://${String(user)}:${String(password)}@127.0.0.1:${String(port)}/postgres`;
    run = runCli(['--db', url, '--port', '0', '--rate', String(RATE_HZ), '--no-record', '--data-dir', folder], {
      NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}`,
    });
    base = await waitForUrl(run);
    viewer = await connectViewer(base);
    expect((await joinAs(viewer, 'server')).reply).toMatchObject({ ok: true });
  }, 300_000);

  afterAll(async () => {
    viewer?.close();
    run?.child.kill('SIGTERM');
    await run?.exited;
    await postgres?.stop();
    if (folder !== undefined) await rm(folder, { recursive: true, force: true });
  }, 60_000);

  it('stays up, opens every file one at a time, and keeps sampling at its rate meanwhile', async () => {
    const started = Date.now();
    const framesBefore = viewer.frames.length;
    const uploads = await Promise.all(
      Array.from({ length: UPLOADS }, (_, index) => uploadWhenFree(base, file, `large-${index}.aioscope.gz`)),
    );
    const elapsedMs = Date.now() - started;

    expect(run.child.exitCode, run.stderr()).toBeNull();
    expect(run.stderr()).not.toMatch(/heap out of memory/i);
    expect(uploads.map((upload) => upload.status)).toEqual(Array(UPLOADS).fill(201));
    // One at a time: all but the first were told to wait at least once.
    expect(uploads.filter((upload) => upload.busyAnswers > 0).length).toBeGreaterThanOrEqual(UPLOADS - 1);
    const ids = uploads.map((upload) => upload.body.targetId);
    expect(new Set(ids).size).toBe(UPLOADS);

    // Sampling went on: frames kept coming at close to the rate, with no long silence.
    const during = viewer.frames.slice(framesBefore).map((entry) => entry.frame.t);
    expect(during.length).toBeGreaterThan(((elapsedMs / 1000) * RATE_HZ) / 2);
    const gaps = during.slice(1).map((t, index) => t - (during[index] ?? t));
    expect(Math.max(...gaps)).toBeLessThan(1_000);

    // Every opened file serves its frames by range.
    const last = ids.at(-1) ?? 'missing';
    const frames = await fetch(
      new URL(`/api/targets/${last}/history/frames?from=${SYNTHETIC_START}&to=${SYNTHETIC_START + 60_000}`, base),
    );
    expect(frames.status).toBe(200);
    expect(((await frames.json()) as { frames: unknown[] }).frames).toHaveLength(6_000);
  }, 300_000);
});
