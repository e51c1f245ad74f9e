import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { BENCH_DATA_DIR, BenchUsageError } from './common.ts';

const LOCK_FILE = path.join(BENCH_DATA_DIR, 'bench.lock');

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * One bench run at a time: every run uses the same cluster (.aioscope/bench/pg18), and starting it
 * stops a "stale" postmaster, which would be another run's live one. Returns the release function.
 */
export function acquireBenchLock(): () => void {
  mkdirSync(BENCH_DATA_DIR, { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(LOCK_FILE, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      const release = (): void => {
        try {
          if (readFileSync(LOCK_FILE, 'utf8').trim() === String(process.pid)) rmSync(LOCK_FILE, { force: true });
        } catch {
          // already gone
        }
      };
      process.once('exit', release);
      return release;
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(LOCK_FILE, 'utf8').trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
        throw new BenchUsageError(
          `another npm run bench (pid ${holder}) is running: runs share .aioscope/bench/pg18, wait for it to finish`,
          { cause: error },
        );
      }
      rmSync(LOCK_FILE, { force: true }); // left by a run that was killed
    }
  }
  throw new Error(`cannot take ${LOCK_FILE}`);
}
