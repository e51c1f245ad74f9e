import { afterEach, describe, expect, it, vi } from 'vitest';
import { relayedTargets, REMOTE_LIST_SHARED_MS } from './remoteTargets.ts';

type RelayIo = Parameters<typeof relayedTargets>[0] extends () => infer T ? T : never;

/** An adapter's server that answers every serverSideEmit at once with no replies, and counts them. */
function countingIo(): { io: RelayIo; asked: string[] } {
  const asked: string[] = [];
  const io = {
    serverSideEmit: (event: string, ...args: unknown[]) => {
      asked.push(event);
      const answer = args.at(-1) as (error: Error | null, replies: unknown[]) => void;
      answer(null, []);
      return true;
    },
  } as unknown as RelayIo;
  return { io, asked };
}

describe('relayedTargets', () => {
  afterEach(() => vi.useRealTimers());

  it('asks the other replicas for their lists once per REMOTE_LIST_SHARED_MS, however many pages poll', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    const { io, asked } = countingIo();
    const remote = relayedTargets(() => io, undefined);
    await Promise.all(Array.from({ length: 10 }, () => remote.overviewRows()));
    await Promise.all(Array.from({ length: 10 }, () => remote.summaries()));
    expect(asked).toEqual(['overviewOf', 'summariesOf']);
    vi.advanceTimersByTime(REMOTE_LIST_SHARED_MS);
    await remote.overviewRows();
    await remote.summaries();
    expect(asked).toEqual(['overviewOf', 'summariesOf', 'overviewOf', 'summariesOf']);
  });
});
