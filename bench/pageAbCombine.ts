/**
 * Pools the windows of several `page-ab` runs (copies of bench/results/page-ab.json) into one
 * comparison, for a difference too small for one run to settle:
 *
 *   npx tsx bench/pageAbCombine.ts run1.json run2.json run3.json
 *
 * Prints the same rows as the measurement; the builds of every file must be the same two.
 */
import { readFileSync } from 'node:fs';
import { TABLE_HEADER, tableLine } from './lib/common.ts';
import { pageAbRows } from './lib/pageAb.ts';
import { comparePages, pageWindowsOf, poolRuns } from './lib/pageCompare.ts';

interface PageAbFile {
  windowSeconds?: number;
  builds?: { before?: string; after?: string };
}

function main(files: string[]): number {
  if (files.length === 0) {
    process.stderr.write('usage: npx tsx bench/pageAbCombine.ts PAGE_AB_JSON...\n');
    return 2;
  }
  const runs = files.map((file) => {
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new Error(`${file}: ${(error as Error).message}`, { cause: error });
    }
    return { file, data: data as PageAbFile, windows: pageWindowsOf(data, file) };
  });
  const builds = new Set(runs.map((run) => `${run.data.builds?.before} → ${run.data.builds?.after}`));
  if (builds.size > 1) {
    process.stderr.write(`the files compare different builds: ${[...builds].join('; ')}\n`);
    return 2;
  }
  const comparison = comparePages(poolRuns(runs.map((run) => run.windows)));
  const seconds = new Set(runs.map((run) => run.data.windowSeconds));
  const condition = `${files.length} runs pooled, ${comparison.rounds} rounds × ${[...seconds].join('/')} s per build`;
  process.stdout.write(`${TABLE_HEADER}\n${pageAbRows(comparison, condition).map(tableLine).join('\n')}\n`);
  return 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exitCode = 2;
}
