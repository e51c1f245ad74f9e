import { describe, expect, it } from 'vitest';
import { DrawQueue } from './drawQueue.ts';

/** A queue whose tasks run when the test says, one at a time. */
function manualQueue(): { queue: DrawQueue; runTask: () => boolean; pending: () => number } {
  const tasks: (() => void)[] = [];
  const queue = new DrawQueue((run) => tasks.push(run));
  return {
    queue,
    runTask: () => {
      const task = tasks.shift();
      task?.();
      return task !== undefined;
    },
    pending: () => tasks.length,
  };
}

describe('DrawQueue', () => {
  it('runs one draw per task, in the order the charts were queued', () => {
    const { queue, runTask, pending } = manualQueue();
    const drawn: string[] = [];
    const [a, b, c] = [{}, {}, {}];
    queue.add(a, () => drawn.push('a'));
    queue.add(b, () => drawn.push('b'));
    queue.add(c, () => drawn.push('c'));
    expect(drawn).toEqual([]);
    expect(pending()).toBe(1);
    runTask();
    expect(drawn).toEqual(['a']);
    runTask();
    runTask();
    expect(drawn).toEqual(['a', 'b', 'c']);
    expect(runTask()).toBe(false);
  });

  it('draws a chart queued twice once, with its newest data, in its first place', () => {
    const { queue, runTask } = manualQueue();
    const drawn: string[] = [];
    const [a, b] = [{}, {}];
    queue.add(a, () => drawn.push('a1'));
    queue.add(b, () => drawn.push('b'));
    queue.add(a, () => drawn.push('a2'));
    while (runTask());
    expect(drawn).toEqual(['a2', 'b']);
  });

  it('drops what was taken out, and a stale cancel leaves the newer draw queued', () => {
    const { queue, runTask } = manualQueue();
    const drawn: string[] = [];
    const [a, b] = [{}, {}];
    const cancelFirst = queue.add(a, () => drawn.push('a1'));
    queue.add(a, () => drawn.push('a2'));
    cancelFirst();
    queue.add(b, () => drawn.push('b'));
    queue.remove(b);
    while (runTask());
    expect(drawn).toEqual(['a2']);
    expect(queue.size).toBe(0);
  });

  it('goes on with the next chart when a draw throws', () => {
    const { queue, runTask } = manualQueue();
    const drawn: string[] = [];
    queue.add({}, () => {
      throw new Error('canvas gone');
    });
    queue.add({}, () => drawn.push('b'));
    expect(() => runTask()).toThrow('canvas gone');
    while (runTask());
    expect(drawn).toEqual(['b']);
  });
});
