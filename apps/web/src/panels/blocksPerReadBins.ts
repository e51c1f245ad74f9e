/** One bar of the read-size histogram: reads of `x` blocks, `count` of them. */
export interface BlocksBin {
  x: number;
  count: number;
}

/**
 * The histogram of blocks per read from a window's counts by size (LiveWindowSummary.readsByBlocks):
 * one bin per size from 1 block up to the larger of the combine limits and the largest read seen,
 * so the limits always have their place on the axis.
 */
export function blocksPerReadBins(counts: ReadonlyMap<number, number>, limitBlocks: readonly number[]): BlocksBin[] {
  const top = Math.max(...limitBlocks, ...counts.keys());
  return Array.from({ length: top }, (_, index) => ({ x: index + 1, count: counts.get(index + 1) ?? 0 }));
}

/** Whether two histograms show the same bars: a redraw of the same picture is skipped. */
export function sameBins(a: readonly BlocksBin[], b: readonly BlocksBin[]): boolean {
  return a.length === b.length && a.every((bin, index) => bin.x === b[index]?.x && bin.count === b[index]?.count);
}
