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

/** The counters a busy share and its split are read from, in seconds of the page's clock. */
export interface TaskClock {
  /** Main-thread task time (TaskDuration). */
  task: number;
  /** The page's clock (Timestamp). */
  wall: number;
  script: number;
  style: number;
  layout: number;
}

export async function readTaskClock(cdp: CDPSession): Promise<TaskClock> {
  const metrics = await readPageMetrics(cdp);
  return {
    task: metrics.TaskDuration ?? Number.NaN,
    wall: metrics.Timestamp ?? Number.NaN,
    script: metrics.ScriptDuration ?? Number.NaN,
    style: metrics.RecalcStyleDuration ?? Number.NaN,
    layout: metrics.LayoutDuration ?? Number.NaN,
  };
}

/** What a window's main thread did between two readings: busy and wall seconds, and the busy split. */
export function taskTimes(
  start: TaskClock,
  end: TaskClock,
): { busySeconds: number; wallSeconds: number; splitSeconds: { script: number; style: number; layout: number } } {
  return {
    busySeconds: end.task - start.task,
    wallSeconds: end.wall - start.wall,
    splitSeconds: {
      script: end.script - start.script,
      style: end.style - start.style,
      layout: end.layout - start.layout,
    },
  };
}
