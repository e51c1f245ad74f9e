import { describe, expect, it } from 'vitest';
import type { LiveFrame } from '@aioscope/spec';
import { summarizeLiveWindow } from '@aioscope/core';
import { buildPayloads, recordedServers } from '@aioscope/core/testing';
import { blocksPerReadBins, sameBins } from './blocksPerReadBins.ts';

// A cold scan on the embedded PostgreSQL 18 (io_combine_limit 16 blocks), as recorded.
const frames: LiveFrame[] = buildPayloads(recordedServers()[0] as Parameters<typeof buildPayloads>[0]).frames;
const countsOf = (some: readonly LiveFrame[]): ReadonlyMap<number, number> => summarizeLiveWindow(some).readsByBlocks;
const readsSeen = frames.reduce((sum, frame) => sum + (frame.newReads?.count ?? 0), 0);

describe('blocksPerReadBins', () => {
  it("counts every read seen once (the window summary's counts by size), in the bin of its size", () => {
    const bins = blocksPerReadBins(countsOf(frames), [16]);
    expect(readsSeen).toBeGreaterThan(0);
    expect(bins.reduce((sum, bin) => sum + bin.count, 0)).toBe(readsSeen);
    expect(bins.map((bin) => bin.x)).toEqual(Array.from({ length: 16 }, (_, index) => index + 1));
    // The recorded scan was combined: its reads are 16 blocks.
    expect(bins.at(-1)?.count).toBeGreaterThan(0);
  });

  it('reaches the largest limit, or the largest read when a limit is lower', () => {
    expect(blocksPerReadBins(countsOf(frames), [16, 128])).toHaveLength(128);
    expect(blocksPerReadBins(countsOf(frames), [4])).toHaveLength(16);
    expect(blocksPerReadBins(new Map(), [16]).every((bin) => bin.count === 0)).toBe(true);
  });
});

describe('sameBins', () => {
  it('is true for the same bars in another array, false for any other count or size', () => {
    const bins = blocksPerReadBins(countsOf(frames), [16]);
    expect(sameBins(bins, blocksPerReadBins(countsOf(frames), [16]))).toBe(true);
    expect(sameBins(bins, blocksPerReadBins(countsOf(frames.slice(1)), [16]))).toBe(
      (frames[0]?.newReads?.count ?? 0) === 0,
    );
    expect(
      sameBins(
        bins,
        bins.map((bin, index) => (index === 3 ? { ...bin, count: bin.count + 1 } : bin)),
      ),
    ).toBe(false);
    expect(sameBins(bins, blocksPerReadBins(countsOf(frames), [32]))).toBe(false);
  });
});
