import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HistoryStore } from '../src/history/historyStore.ts';
import { DuckDbStoreEngine } from '../src/history/duckdbStoreEngine.ts';
import {
  DEFAULT_MAX_BYTES,
  DEFAULT_RAW_RETENTION_MS,
  DEFAULT_ROLLUP_RETENTION_MS,
} from '../src/config/recordingLimits.ts';
import { STORE_FILE } from '../src/history/storeFile.ts';
import type { EmbeddedPostgresServer } from '../src/postgres/embeddedPostgres.ts';
import { freshDataDir, historyConfig, present, startWatching } from './support/historyTarget.ts';
import { waitUntil } from './support/polling.ts';
import { startTestPostgres } from './support/testPostgres.ts';

const LIMITS = { rawMs: DEFAULT_RAW_RETENTION_MS, rollupMs: DEFAULT_ROLLUP_RETENTION_MS, maxBytes: DEFAULT_MAX_BYTES };

/** A tiny tmpfs really runs out of space; mounting one needs root (CAP_SYS_ADMIN). */
function mountTmpfs(dir: string, size: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('history recording faults on a real PostgreSQL 18', () => {
  let server: EmbeddedPostgresServer;

  beforeAll(async () => {
    server = await startTestPostgres('history-faults');
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('pauses with the reason while the history folder cannot be made, the live view goes on, then resumes', async () => {
    const dataDir = await freshDataDir('history-unwritable');
    await mkdir(dataDir, { recursive: true });
    // Root ignores chmod; a file where the folder must go fails for everyone.
    await writeFile(path.join(dataDir, 'history'), 'not a folder');
    const { running, history } = await startWatching(historyConfig(server, dataDir));
    try {
      const paused = await history.extent();
      expect(paused.recording.state).toBe('paused');
      expect(paused.recording.reason).toMatch(/EEXIST|not a directory/i);
      const monitor = present([...running.monitors.values()][0], 'a monitor');
      await waitUntil(() => monitor.currentStatus().state === 'live', 10_000, 'the live view');
      expect(monitor.summary().status.state).toBe('live');

      await rm(path.join(dataDir, 'history'));
      await waitUntil(
        async () => (await history.extent()).recording.state === 'recording',
        10_000,
        'recording to resume',
      );
      await waitUntil(async () => (await history.extent()).raw !== null, 10_000, 'frames after resuming');
      const kinds = async (): Promise<string[]> =>
        (await history.events({ from: 0, to: Date.now() + 60_000 })).map((event) => event.kind);
      await waitUntil(async () => (await kinds()).includes('recordingResumed'), 10_000, 'the recordingResumed event');
      // Written once the store opened: the pause is on the time line where it began.
      expect(await kinds()).toContain('recordingPaused');
    } finally {
      await running.close();
    }
  });

  it('pauses on a full disk and resumes once space is freed, the frames written before still readable', async (context) => {
    const dataDir = await freshDataDir('history-full');
    const historyDir = path.join(dataDir, 'history');
    await mkdir(historyDir, { recursive: true });
    if (!mountTmpfs(historyDir, '8m'))
      context.skip('mounting a tmpfs needs root; the folder test above covers pausing');
    const { running, history } = await startWatching(historyConfig(server, dataDir));
    try {
      await waitUntil(async () => (await history.extent()).raw !== null, 10_000, 'frames in the store');
      const before = present((await history.extent()).raw, 'raw frames in the store');
      // Fill what is left of the 8 MB: the next WAL append fails with ENOSPC.
      try {
        execFileSync('dd', ['if=/dev/zero', `of=${path.join(historyDir, 'filler')}`, 'bs=64k'], { stdio: 'ignore' });
      } catch {
        // dd stops with "No space left on device": that is the point.
      }
      await waitUntil(async () => (await history.extent()).recording.state === 'paused', 20_000, 'recording to pause');
      expect((await history.extent()).recording.reason).toMatch(/disk full/);
      expect(present([...running.monitors.values()][0], 'a monitor').currentStatus().state).toBe('live');

      await rm(path.join(historyDir, 'filler'));
      await waitUntil(
        async () => (await history.extent()).recording.state === 'recording',
        20_000,
        'recording to resume',
      );
      const frames = await history.frames({ from: before.from, to: before.to + 1 });
      expect(frames.frames.length).toBeGreaterThan(0);
      await waitUntil(
        async () =>
          (await history.events({ from: 0, to: Date.now() + 60_000 })).some((e) => e.kind === 'recordingResumed'),
        10_000,
        'the recordingResumed event',
      );
    } finally {
      await running.close();
      execFileSync('umount', [historyDir]);
    }
  });

  it('moves a store it cannot read aside and starts a new one', async () => {
    const dir = path.join(await freshDataDir('history-corrupt'), 'history');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, STORE_FILE), 'this is not a DuckDB database'.repeat(1000));
    const warnings: string[] = [];
    const store = await HistoryStore.start({
      engine: new DuckDbStoreEngine(dir),
      limits: LIMITS,
      log: { info: () => undefined, warn: (m) => warnings.push(m) },
    });
    try {
      expect(store.recordingStatus()).toEqual({ state: 'recording', reason: null });
      expect(warnings.join('\n')).toMatch(/history store could not be read; moved aside to .*\.corrupt-/);
      const files = await readdir(dir);
      expect(files.some((file) => file.startsWith(`${STORE_FILE}.corrupt-`))).toBe(true);
      expect(existsSync(path.join(dir, STORE_FILE))).toBe(true);
    } finally {
      await store.close();
    }
  });
});
