import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { readersOfRange } from '@aioscope/core';
import { MAX_RAW_RANGE_MS, type HistoryReaders } from '@aioscope/spec';
import type { ReactNode } from 'react';
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { render } from 'vitest-browser-react';
import { answerRequests } from '../testing/fakeApi.ts';
import { recordedPayloads } from '../testing/recorded.ts';
import type { RangeView } from './useTimeTravel.ts';
import { WhoWasReading } from './WhoWasReading.tsx';

/** GET …/history/readers as the server answers it for the recorded embedded scan. */
let answer: HistoryReaders;
let view: RangeView;

beforeAll(async () => {
  const payloads = await recordedPayloads('pg18.4-embedded-worker');
  const from = Math.floor(payloads.frames[0]?.t ?? 0);
  const to = Math.ceil(payloads.frames.at(-1)?.t ?? 0) + 1;
  const readers = readersOfRange({ frames: payloads.frames, processes: payloads.processLists, blockSize: 8192 });
  const [scan] = readers.rows;
  if (scan === undefined) throw new Error('the recording has no reader');
  // A second, shorter statement, so that the order can be seen to change.
  const shorter = {
    ...scan,
    queryText: 'SELECT * FROM aioscope_demo.other',
    sampleSeconds: 0.001,
    firstReadAt: to - 1,
  };
  answer = { targetId: 'recorded', from, to, ...readers, rows: [scan, shorter] };
  view = { mode: 'range', from, to, at: to, speed: null };
});

afterEach(() => {
  vi.restoreAllMocks();
});

async function renderReaders(body: HistoryReaders, shown: RangeView = view): Promise<(at: number) => void> {
  answerRequests({ 'GET /api/targets/recorded/history/readers': () => ({ json: body }) });
  const onMoment = vi.fn<(at: number) => void>();
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const wrapper = ({ children }: { children: ReactNode }): ReactNode => (
    <QueryClientProvider client={client}>{children}</QueryClientProvider>
  );
  await render(<WhoWasReading targetId="recorded" view={shown} onMoment={onMoment} />, { wrapper });
  return onMoment;
}

const panel = page.getByRole('region', { name: 'Who was reading' });
const statements = panel.getByTestId('reader-row');

describe('WhoWasReading', () => {
  test('lists the statements longest first; the keyboard sorts them and chooses one, which moves the moment', async () => {
    const onMoment = await renderReaders(answer);
    await expect.element(statements.first()).toHaveTextContent('SELECT count(*) FROM aioscope_demo.scan_me');
    const sortButton = panel.getByRole('button', { name: 'sample-seconds', exact: true });
    const sortOrder = (): string | null | undefined => sortButton.element().closest('th')?.getAttribute('aria-sort');
    await expect.poll(sortOrder).toBe('descending');
    sortButton.element().focus();
    await userEvent.keyboard('{Enter}');
    await expect.poll(sortOrder).toBe('ascending');
    await expect.element(statements.first()).toHaveTextContent('aioscope_demo.other');

    const scan = statements.nth(1);
    scan.element().focus();
    await userEvent.keyboard('{Enter}');
    expect(onMoment).toHaveBeenCalledWith(answer.rows[0]?.firstReadAt);
    await expect.element(scan).toHaveAttribute('aria-pressed', 'true');
    await expect.element(panel.getByTestId('readers-strip')).toHaveTextContent('first at');
  });

  test('says so when nothing was in flight, and when pg_aios could not be read', async () => {
    await renderReaders({ ...answer, rows: [] });
    await expect.element(panel).toHaveTextContent('No reads in flight in this range.');
    vi.restoreAllMocks();
    await renderReaders({ ...answer, rows: [], framesWithInflight: 0 }, { ...view, to: view.to + 1 });
    await expect.element(panel.last()).toHaveTextContent('reads in flight are unknown, not zero');
  });

  test('asks for 15 minutes or less, without a request, on a longer range', async () => {
    const long = { ...view, from: view.to - MAX_RAW_RANGE_MS - 1 };
    answerRequests({});
    const fetched = vi.mocked(window.fetch);
    const client = new QueryClient();
    await render(
      <QueryClientProvider client={client}>
        <WhoWasReading targetId="recorded" view={long} onMoment={() => undefined} />
      </QueryClientProvider>,
    );
    await expect.element(panel).toHaveTextContent('choose 15 minutes or less');
    expect(fetched).not.toHaveBeenCalled();
  });
});
