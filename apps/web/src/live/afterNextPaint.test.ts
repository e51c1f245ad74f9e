import { afterEach, describe, expect, it, vi } from 'vitest';
import { afterNextPaint } from './afterNextPaint.ts';

/** Animation frames run only when the test says so; the log notes each frame's end (its paint). */
function manualFrames(log: string[]): { run: () => void } {
  let pending = new Map<number, FrameRequestCallback>();
  let nextId = 1;
  vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) => {
    pending.set(nextId, callback);
    return nextId++;
  });
  vi.stubGlobal('cancelAnimationFrame', (id: number) => pending.delete(id));
  return {
    run: () => {
      const due = pending;
      pending = new Map();
      for (const callback of due.values()) callback(performance.now());
      log.push('paint');
    },
  };
}

/** Lets every task posted so far (MessageChannel messages included) run. */
const nextTasks = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 5));

describe('afterNextPaint', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('runs after the next tick has painted, not inside it', async () => {
    const log: string[] = [];
    const frames = manualFrames(log);
    afterNextPaint(() => log.push('bucket render'));
    requestAnimationFrame(() => log.push('strip'));

    await nextTasks();
    expect(log).toEqual([]); // no tick yet: nothing runs

    frames.run();
    expect(log).toEqual(['strip', 'paint']);
    await nextTasks();
    expect(log).toEqual(['strip', 'paint', 'bucket render']);
  });

  it('runs once per request', async () => {
    const log: string[] = [];
    const frames = manualFrames(log);
    afterNextPaint(() => log.push('render'));
    frames.run();
    await nextTasks();
    frames.run();
    await nextTasks();
    expect(log.filter((entry) => entry === 'render')).toHaveLength(1);
  });

  it('does nothing once cancelled, before the tick or between the tick and the task', async () => {
    const log: string[] = [];
    const frames = manualFrames(log);
    const beforeTick = afterNextPaint(() => log.push('cancelled before the tick'));
    beforeTick();
    const betweenTickAndTask = afterNextPaint(() => log.push('cancelled after the tick'));
    frames.run();
    betweenTickAndTask();
    betweenTickAndTask(); // twice is harmless
    await nextTasks();
    expect(log).toEqual(['paint']);
  });
});
