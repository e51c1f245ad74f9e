import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { CompareResult } from '@aioscope/spec';
import type { ReactNode } from 'react';
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { render } from 'vitest-browser-react';
import { answerRequests } from '../testing/fakeApi.ts';
import { recordedCompare, recordedPayloads } from '../testing/recorded.ts';
import { sameLengthBefore, type CompareSides } from './compareLink.ts';
import { CompareView } from './ComparePage.tsx';

let against17: CompareResult;
let workerAgainstUring: CompareResult;
let sides: CompareSides;

beforeAll(async () => {
  against17 = await recordedCompare('pg18.4-embedded-worker', 'pg17.10');
  workerAgainstUring = await recordedCompare('pg18.4-embedded-worker', 'pg18.6-io_uring');
  const a = { targetId: against17.a.targetId, from: against17.a.from, to: against17.a.to };
  sides = { a, b: sameLengthBefore(a) };
});

afterEach(() => {
  vi.restoreAllMocks();
});

async function renderCompare(answer: { status?: number; json: unknown }): Promise<(sides: CompareSides) => void> {
  const { summary } = await recordedPayloads('pg18.4-embedded-worker');
  answerRequests({
    'GET /api/compare': () => answer,
    'GET /api/targets': () => ({ json: [{ ...summary, id: sides.a.targetId }] }),
  });
  const onChoose = vi.fn<(sides: CompareSides) => void>();
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const wrapper = ({ children }: { children: ReactNode }): ReactNode => (
    <QueryClientProvider client={client}>{children}</QueryClientProvider>
  );
  await render(<CompareView sides={sides} onChoose={onChoose} />, { wrapper });
  return onChoose;
}

const sentence = page.getByTestId('compare-sentence');

describe('CompareView', () => {
  test('18 against 17: the sentence makes no 16× claim, and 17 cannot measure bytes per read', async () => {
    await renderCompare({ json: against17 });
    await expect.element(sentence).toHaveTextContent('bytes per read cannot be compared: 17 counts blocks');
    expect(sentence.element().textContent).not.toMatch(/×\s*(larger|smaller)/);
    const bytesPerRead = page.getByTestId('compare-figure-bytesPerRead');
    await expect.element(bytesPerRead).toHaveTextContent('124.6');
    await expect.element(bytesPerRead).toHaveTextContent('cannot be measured on 17: pg_stat_io counts blocks');
    await expect.element(bytesPerRead).toHaveTextContent('pg_stat_io read_bytes / reads over the range · 1 Hz');
    const settings = page.getByTestId('compare-settings');
    await expect.element(settings.getByRole('row', { name: /io_combine_limit · differs/ })).toBeInTheDocument();
    await expect.element(page.getByTestId('compare-scans-A')).toHaveTextContent('aioscope_demo.scan_me');
  });

  test('names io_method between the worker and io_uring recordings', async () => {
    await renderCompare({ json: workerAgainstUring });
    await expect.element(sentence).toHaveTextContent('io_method worker instead of io_uring');
  });

  test('the keyboard chooses B: the same length before A, or another range', async () => {
    const onChoose = await renderCompare({ json: against17 });
    await expect.element(sentence).toBeInTheDocument();
    const before = page.getByRole('button', { name: 'the same length just before A' });
    before.element().focus();
    await userEvent.keyboard('{Enter}');
    expect(onChoose).toHaveBeenLastCalledWith({ a: sides.a, b: sameLengthBefore(sides.a) });
    const compare = page.getByRole('button', { name: 'Compare', exact: true });
    compare.element().focus();
    await userEvent.keyboard('{Enter}');
    expect(onChoose).toHaveBeenCalledTimes(2);
    expect(document.activeElement).toBe(compare.element());
  });

  test('says why it cannot compare', async () => {
    await renderCompare({ status: 404, json: { error: 'bTarget: unknown target "gone"' } });
    await expect.element(page.getByRole('alert')).toHaveTextContent('unknown target "gone"');
  });
});
