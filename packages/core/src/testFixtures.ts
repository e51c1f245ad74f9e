import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LiveFrame } from '@aioscope/spec';
import { buildLiveFrame, parseFastTickRow, type FastTickQueryRow } from './fastTick.ts';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');

/** Reads a fixture recorded from a real server by `npm run record-fixtures`. Test-only. */
export function loadFixture<T>(name: string): T {
  return JSON.parse(readFileSync(path.join(FIXTURES, name), 'utf8')) as T;
}

/** Frames built from consecutive recorded fast-tick rows, as the sampler builds them. Test-only. */
export function framesOfRows(rows: readonly FastTickQueryRow[], ioMethod: string | null = 'worker'): LiveFrame[] {
  let previousIoKeys = new Set<string>();
  return rows.map((row) => {
    const built = buildLiveFrame(parseFastTickRow(row), { previousIoKeys, sampleMs: 1, skippedTicks: 0, ioMethod });
    previousIoKeys = built.ioKeys;
    return built.frame;
  });
}
