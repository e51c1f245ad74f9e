import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { HistoryFrames, LiveFrame } from '@aioscope/spec';
import type { ReactNode } from 'react';
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { render } from 'vitest-browser-react';
import { answerRequests } from '../testing/fakeApi.ts';
import { recordedPayloads } from '../testing/recorded.ts';
import { parseLocation } from './timeView.ts';
import { useTimeTravel, type TimeTravel } from './useTimeTravel.ts';
import { useViewLocation } from './useViewLocation.ts';

/** GET …/history/frames as the server answers it for the recorded embedded scan. */
let answer: HistoryFrames;
let frames: LiveFrame[];

beforeAll(async () => {
  const payloads = await recordedPayloads('pg18.4-embedded-worker');
  frames = payloads.frames;
  const from = Math.floor(frames[0]?.t ?? 0);
  const to = Math.ceil(frames.at(-1)?.t ?? 0) + 1;
  answer = {
    targetId: 'recorded',
    from,
    to,
    frames,
    ioDeltas: payloads.ioDeltas,
    processes: payloads.processLists,
    scansBefore: null,
    processesBefore: null,
  };
});

afterEach(() => {
  vi.restoreAllMocks();
  window.history.replaceState(null, '', '/');
});

/** The moment the URL holds: what a shared link or a reload would open. */
function momentInUrl(): number | null {
  const { view } = parseLocation(window.location.search, window.location.pathname);
  return view.mode === 'range' ? view.at : null;
}

/** The moment a sample is shown from: its time rounded up to a whole ms, as a step leaves it. */
const momentOfSample = (index: number): number => Math.ceil(frames[index]?.t ?? Number.NaN);

/** useTimeTravel as the page holds it, on the recorded range; returns the newest render's handle. */
async function renderTimeTravel(): Promise<() => TimeTravel> {
  answerRequests({ 'GET /api/targets/recorded/history/frames': () => ({ json: answer }) });
  window.history.replaceState(null, '', `/t/recorded?from=${answer.from}&to=${answer.to}&at=${answer.from}`);
  let latest: TimeTravel | null = null;
  function Harness(): ReactNode {
    const [location, setLocation] = useViewLocation();
    latest = useTimeTravel(location, setLocation, 'recorded', 20);
    return <output>{latest.at}</output>;
  }
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  await render(
    <QueryClientProvider client={client}>
      <Harness />
    </QueryClientProvider>,
  );
  const current = (): TimeTravel => {
    if (latest === null) throw new Error('not rendered');
    return latest;
  };
  await expect.poll(() => current().past !== null, { timeout: 5_000 }).toBe(true);
  return current;
}

describe('useTimeTravel', () => {
  test.each([
    ['next', 1, 11],
    ['previous', -1, 9],
  ] as const)(
    'a %s-sample step made before the last move was drawn steps from that move, not from the drawn moment',
    async (_name, direction, expectedIndex) => {
      const current = await renderTimeTravel();
      // Both in one task, as a click right after a replay tick on a busy page: React has not drawn
      // the move when the step reads the moment.
      const drawn = current();
      drawn.setMoment(momentOfSample(10));
      drawn.step(direction);
      expect(momentInUrl()).toBe(momentOfSample(expectedIndex));
      await expect.poll(() => current().at).toBe(momentOfSample(expectedIndex));
    },
  );

  test('replays from the newest moment: a step while playing pauses there', async () => {
    const current = await renderTimeTravel();
    current().setView({ mode: 'range', from: answer.from, to: answer.to, at: answer.from, speed: 1 });
    current().setPlaying(true);
    await expect.poll(() => momentInUrl() ?? 0, { timeout: 5_000 }).toBeGreaterThan(answer.from);
    const playing = current();
    playing.setMoment(momentOfSample(10));
    playing.step(1);
    expect(momentInUrl()).toBe(momentOfSample(11));
    await expect.poll(() => current().playing).toBe(false);
    // Paused: no tick moves it on.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(momentInUrl()).toBe(momentOfSample(11));
    expect(current().at).toBe(momentOfSample(11));
  });
});
