import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { applyRetention } from '../src/history/retention.ts';
import { closeStoreFile, openStoreFile, type OpenStore } from '../src/history/storeFile.ts';
import { RAW_KIND, type PendingRow } from '../src/history/storeEngine.ts';
import { RAW_CHUNK_MS, rawChunkOf } from '../src/history/storeSchema.ts';
import { writeBatch } from '../src/history/storeWriter.ts';
import { freshDataDir } from './support/historyTarget.ts';

const HOUR = 3_600_000;
const MB = 1024 * 1024;

/** Rows of random text: DuckDB cannot compress them, so each chunk really takes its megabytes. */
function chunkRows(chunk: number, rows: number): PendingRow[] {
  return Array.from({ length: rows }, (_, index) => ({
    table: 'raw' as const,
    target: 't',
    kind: RAW_KIND.frame,
    t: chunk * RAW_CHUNK_MS + index,
    hasScans: false,
    body: JSON.stringify({ noise: randomBytes(600).toString('base64') }),
  }));
}

describe('history retention on a real DuckDB store', () => {
  let store: OpenStore | null = null;
  afterEach(() => {
    if (store !== null) closeStoreFile(store);
    store = null;
  });

  it('drops raw chunks by age, then the oldest first until under the size cap, never the live one', async () => {
    store = await openStoreFile(await freshDataDir('history-retention'));
    const now = Date.now();
    const current = rawChunkOf(now);
    const chunks = new Set<number>();
    const ancient = rawChunkOf(now - 30 * HOUR);
    for (const chunk of [ancient, current - 3, current - 2, current - 1, current]) {
      await writeBatch(store.writer, chunkRows(chunk, 3_000), chunks);
    }
    await writeBatch(
      store.writer,
      [{ table: 'event', target: 't', event: { t: now - 40 * 86_400_000, kind: 'connected', message: 'old' } }],
      chunks,
    );
    await store.writer.run('CHECKPOINT');

    const byAge = await applyRetention(
      store.writer,
      chunks,
      { rawMs: 24 * HOUR, rollupMs: 30 * 24 * HOUR, maxBytes: 1024 * MB },
      now,
    );
    expect(byAge.droppedChunks).toEqual([ancient]);
    const events = await store.reader.runAndReadAll('SELECT count(*) FROM events');
    expect(Number(events.getRowsJS()[0]?.[0])).toBe(0);

    // Four chunks of the same size are left: a cap one and a half chunks lower needs two dropped.
    const cap = byAge.usedBytes - 1.5 * (byAge.usedBytes / 4);
    expect(byAge.usedBytes).toBeGreaterThan(4 * MB);
    const bySize = await applyRetention(
      store.writer,
      chunks,
      { rawMs: 24 * HOUR, rollupMs: 30 * 24 * HOUR, maxBytes: cap },
      now,
    );
    expect(bySize.droppedChunks).toEqual([current - 3, current - 2]);
    expect(bySize.usedBytes).toBeLessThanOrEqual(cap);
    expect([...chunks].sort()).toEqual([current - 1, current]);

    const tiny = await applyRetention(
      store.writer,
      chunks,
      { rawMs: 24 * HOUR, rollupMs: 30 * 24 * HOUR, maxBytes: 1 },
      now,
    );
    expect(tiny.droppedChunks).toEqual([current - 1]);
    expect([...chunks]).toEqual([current]);
  });
});
