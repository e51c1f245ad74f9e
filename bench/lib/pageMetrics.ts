import type { CDPSession } from 'playwright-core';

/** Chromium's page metrics by name (CDP Performance.getMetrics): TaskDuration, Timestamp, JSHeapUsedSize, … */
export type PageMetrics = Record<string, number>;

/** Starts the metrics a page's main-thread busy share is read from; call once per CDP session. */
export async function enablePageMetrics(cdp: CDPSession): Promise<void> {
  await cdp.send('Performance.enable', { timeDomain: 'timeTicks' });
}

export async function readPageMetrics(cdp: CDPSession): Promise<PageMetrics> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return Object.fromEntries(metrics.map((metric) => [metric.name, metric.value]));
}
