import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { render } from 'vitest-browser-react';
import type { Baseline, OpenedRecording } from '@aioscope/spec';
import { compareHref } from '../compare/compareLink.ts';
import { formatClockTime } from '../format.ts';
import { answerRequests, type Answer, type SentRequest } from '../testing/fakeApi.ts';
import { timeControlsProps } from '../testing/timeControlsProps.ts';
import { BaselineList } from './Baselines.tsx';
import { TimeControls, type TimeControlsProps } from './TimeControls.tsx';
import { describeRange } from './timeView.ts';

const FROM = Date.UTC(2026, 11, 1, 22, 0, 0);
const TO = FROM + 5 * 60_000;
const RANGE = { mode: 'range' as const, from: FROM, to: TO, at: TO, speed: null };

const kept: Baseline = {
  id: 'baseline-0f1e',
  targetId: 'reporting',
  targetName: 'reporting (16)',
  name: 'before the upgrade',
  from: FROM - 86_400_000,
  to: FROM - 86_400_000 + 10 * 60_000,
  bytes: 3 * 1024 * 1024,
  createdBy: 'alice',
  createdAt: FROM - 86_000_000,
};
const opened: OpenedRecording = {
  targetId: 'recording-3',
  name: 'reporting (16) · before the upgrade',
  from: kept.from,
  to: kept.to,
};

function wrapper({ children }: { children: ReactNode }): ReactNode {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}

async function renderBar(routes: Record<string, (request: SentRequest) => Answer>): Promise<{
  sent: SentRequest[];
  props: TimeControlsProps;
}> {
  const sent = answerRequests(routes);
  const props = timeControlsProps(TO, { view: RANGE, targetId: 'reporting' });
  await render(<TimeControls {...props} />, { wrapper });
  return { sent, props };
}

const rows = page.getByTestId('baseline-row');

afterEach(() => {
  vi.restoreAllMocks();
});

describe('baselines in the time bar', () => {
  test('marks the shown range by keyboard: its name, then the list with the new one', async () => {
    let list: Baseline[] = [];
    const { sent } = await renderBar({
      'POST /api/targets/reporting/baselines': (request) => {
        const body = request.body as { name: string; from: number; to: number };
        const made = { ...kept, id: 'baseline-aa', ...body, createdBy: null, createdAt: TO };
        list = [made, kept];
        return { status: 201, json: made };
      },
      'GET /api/baselines': () => ({ json: { baselines: list } }),
    });
    await page.getByTestId('mark-baseline').click();
    const name = page.getByTestId('baseline-name');
    await expect.element(name).toHaveFocus();
    // An empty name is refused before anything is sent.
    await userEvent.keyboard('{Enter}');
    await expect.element(page.getByRole('alert')).toHaveTextContent('Give the baseline a name');
    await userEvent.keyboard('after the upgrade{Enter}');
    await expect.element(rows.first()).toHaveTextContent('after the upgrade');
    expect(sent.filter((request) => request.method === 'POST')).toEqual([
      {
        method: 'POST',
        path: '/api/targets/reporting/baselines',
        body: { name: 'after the upgrade', from: FROM, to: TO },
      },
    ]);
    await expect.element(rows.first()).toHaveAttribute('aria-current', 'true');
    // The form is gone: the focus is on the row just kept, and Tab goes on to its actions.
    await expect.element(rows.first()).toHaveFocus();
    await userEvent.tab();
    await expect.element(rows.first().getByRole('button', { name: 'Open' })).toHaveFocus();
    await expect.element(rows.nth(1)).toHaveTextContent('3 MB');
    await expect.element(rows.nth(1)).toHaveTextContent('by alice');
    // Kept beyond retention, so likely another day's: its day is said, and its times in 24 hours as elsewhere.
    const day = new Date(kept.from).toLocaleDateString();
    await expect.element(rows.nth(1)).toHaveTextContent(`${day} ${describeRange(kept.from, kept.to)}`);
    await expect
      .element(rows.nth(1))
      .toHaveTextContent(
        `marked by alice ${new Date(kept.createdAt).toLocaleDateString()} ${formatClockTime(kept.createdAt)}`,
      );
  });

  test("says the server's reason when it refuses, and Escape closes the form", async () => {
    await renderBar({
      'POST /api/targets/reporting/baselines': () => ({
        status: 409,
        json: { error: 'reporting (16) already has a baseline named "before the upgrade": choose another name' },
      }),
    });
    await page.getByTestId('mark-baseline').click();
    await userEvent.keyboard('before the upgrade{Enter}');
    await expect
      .element(page.getByRole('alert'))
      .toHaveTextContent('already has a baseline named "before the upgrade"');
    // Another name is not refused yet: the refusal goes as soon as the name changes.
    await userEvent.keyboard(' 2');
    await expect.element(page.getByRole('alert')).not.toBeInTheDocument();
    await userEvent.keyboard('{Escape}');
    await expect.element(page.getByTestId('baseline-name')).not.toBeInTheDocument();
    await expect.element(page.getByTestId('mark-baseline')).toHaveFocus();
  });

  test('opens one as a recording target; Keep cancels a delete', async () => {
    const { sent, props } = await renderBar({
      'GET /api/baselines': () => ({ json: { baselines: [kept] } }),
      'POST /api/baselines/baseline-0f1e/open': () => ({ status: 201, json: opened }),
    });
    await page.getByTestId('show-baselines').click();
    await expect.element(rows.first()).toHaveTextContent('reporting (16)');
    const exportLink = rows.first().getByRole('link', { name: 'Export' });
    await expect.element(exportLink).toHaveAttribute('href', '/api/baselines/baseline-0f1e/export');

    await rows.first().getByRole('button', { name: 'Delete…' }).click();
    const confirm = rows.first().getByRole('button', { name: 'Delete', exact: true });
    await expect.element(confirm).toHaveFocus();
    await rows.first().getByRole('button', { name: 'Keep' }).click();
    expect(sent.some((request) => request.method === 'DELETE')).toBe(false);

    await rows.first().getByRole('button', { name: 'Open' }).click();
    await vi.waitFor(() => expect(props.onOpenBaseline).toHaveBeenCalledWith(opened));
  });

  test('deletes once confirmed, and the list says when it is empty', async () => {
    let list = [kept];
    const { sent } = await renderBar({
      'GET /api/baselines': () => ({ json: { baselines: list } }),
      'DELETE /api/baselines/baseline-0f1e': () => {
        list = [];
        return { status: 200, json: {} };
      },
    });
    await page.getByTestId('show-baselines').click();
    await rows.first().getByRole('button', { name: 'Delete…' }).click();
    await userEvent.keyboard('{Enter}');
    await expect.element(page.getByText('None yet')).toBeInTheDocument();
    await expect.element(page.getByTestId('baseline-list')).toHaveFocus();
    expect(sent.filter((request) => request.method === 'DELETE').map((request) => request.path)).toEqual([
      '/api/baselines/baseline-0f1e',
    ]);
  });

  test('"Compare with this" opens the baseline and compares the shown range with it', async () => {
    answerRequests({
      'GET /api/baselines': () => ({ json: { baselines: [kept] } }),
      'POST /api/baselines/baseline-0f1e/open': () => ({ status: 201, json: opened }),
    });
    const onNavigate = vi.fn<(href: string) => void>();
    const current = { targetId: 'reporting', from: FROM, to: TO };
    await render(<BaselineList current={current} onOpened={vi.fn()} onNavigate={onNavigate} onClose={vi.fn()} />, {
      wrapper,
    });
    await rows.first().getByRole('button', { name: 'Compare with this' }).click();
    await vi.waitFor(() =>
      expect(onNavigate).toHaveBeenCalledWith(
        compareHref({ a: current, b: { targetId: 'recording-3', from: kept.from, to: kept.to } }),
      ),
    );
  });

  test('says baselines need the store when recording is off', async () => {
    const reason = 'baselines are kept in the history store, and recording is off in this process (--no-record)';
    answerRequests({ 'GET /api/baselines': () => ({ json: { baselines: [], unavailable: reason } }) });
    await render(<BaselineList current={null} onOpened={vi.fn()} onClose={vi.fn()} />, { wrapper });
    await expect.element(page.getByText(reason)).toBeInTheDocument();
    await expect.element(page.getByText('None yet')).not.toBeInTheDocument();
  });
});
