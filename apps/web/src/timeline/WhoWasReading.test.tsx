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
// The page's own rules too: its one-line query cell (max-width 0) once hid a card's statement.
import '../styles.css';

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

afterEach(async () => {
  vi.restoreAllMocks();
  await page.viewport(414, 896);
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

  test('at 420 px each statement is a card of labelled figures, its action reached by Tab; at 1920 px a table', async () => {
    await page.viewport(1920, 1000);
    await renderReaders(answer);
    const action = panel.getByText('Show its moments on the timeline').first();
    const statementHeader = panel.getByText('statement', { exact: true });
    await expect.element(statements.first()).toBeVisible();
    await expect.element(statementHeader).toBeVisible();
    await expect.element(action).not.toBeVisible();

    await page.viewport(420, 900);
    await expect.element(action).toBeVisible();
    await expect.element(statementHeader).not.toBeVisible();
    const wrap = panel.element().querySelector('.table-wrap');
    expect(wrap?.scrollWidth).toBeLessThanOrEqual(wrap?.clientWidth ?? 0);
    // The statement's text heads the card, inside it and wide enough to read.
    const text = statements.first().element().querySelector('.readers-query-text')?.getBoundingClientRect();
    const box = wrap?.getBoundingClientRect();
    expect(text?.width).toBeGreaterThan(200);
    expect(text?.right).toBeLessThanOrEqual(box?.right ?? 0);
    const cardCells = statements.first().element().closest('tr')?.querySelectorAll('td[data-label]') ?? [];
    const labels = [...cardCells].map((cell) => getComputedStyle(cell, '::before').content);
    expect(labels).toEqual([
      '"processes"',
      '"sample-seconds"',
      '"reads in flight, mean / peak"',
      '"bytes per read"',
      '"scans advanced"',
      '"main waits"',
      '"first read"',
    ]);

    // Tab from the top of the panel reaches the first card's action (past the sort buttons).
    const first = statements.first().element();
    (panel.element() as HTMLElement).tabIndex = -1;
    (panel.element() as HTMLElement).focus();
    for (let presses = 0; presses < 30 && document.activeElement !== first; presses += 1) await userEvent.tab();
    expect(document.activeElement).toBe(first);
    await userEvent.keyboard('{Enter}');
    await expect.element(statements.first()).toHaveAttribute('aria-pressed', 'true');
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
