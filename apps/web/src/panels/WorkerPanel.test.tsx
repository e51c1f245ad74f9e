import { describe, expect, test } from 'vitest';
import { page } from 'vitest/browser';
import { render } from 'vitest-browser-react';
import { formatClockTime, formatPercent } from '../format.ts';
import { windowTextOf, WindowTextContext } from '../timeline/windowText.ts';
import { panelInputs, rollupInputs } from '../testing/panelInputs.ts';
import { recordedPayloads } from '../testing/recorded.ts';
import { WorkerPanel } from './WorkerPanel.tsx';

const panel = page.getByRole('region', { name: 'io worker saturation' });
const workerList = panel.getByRole('list', { name: 'busy fraction per io worker' });

describe('WorkerPanel', () => {
  test('before the server has answered it says it is waiting', async () => {
    const inputs = panelInputs(await recordedPayloads('pg19beta3-worker'), []);
    await render(<WorkerPanel {...inputs} target={undefined} />);
    await expect.element(panel).toHaveTextContent('Waiting for the first sample …');
  });

  test('a server aioscope refused says why it is not sampled', async () => {
    const inputs = panelInputs(await recordedPayloads('pg15.18'));
    await render(<WorkerPanel {...inputs} />);
    await expect.element(panel).toHaveTextContent('Not sampled: PostgreSQL 15.18 is not supported');
  });

  test('under io_uring there are no io workers to saturate, and it says where to look instead', async () => {
    const inputs = panelInputs(await recordedPayloads('pg18.6-io_uring'));
    await render(<WorkerPanel {...inputs} />);
    await expect.element(panel).toHaveTextContent('io_method = io_uring: the kernel runs the reads');
    await expect.element(workerList).not.toBeInTheDocument();
  });

  test('every io worker of the newest sample is listed with its busy share and what it does now', async () => {
    const inputs = panelInputs(await recordedPayloads('pg19beta3-worker'));
    const newest = inputs.frames.at(-1);
    await render(<WorkerPanel {...inputs} />);
    await expect.element(workerList).toBeVisible();
    expect(workerList.getByRole('listitem').elements()).toHaveLength(newest?.ioWorkers.length ?? -1);
    const busy = newest?.ioWorkers.filter((worker) => worker.busy).length;
    await expect
      .element(panel.getByTestId('worker-busy-now'))
      .toHaveTextContent(`${busy} of ${newest?.ioWorkers.length}`);
    // Live, the verdict's span is named as "last N s" (the recording is shorter than a second).
    await expect
      .element(panel.getByTestId('worker-verdict'))
      .toHaveTextContent(`${newest?.ioWorkers.length} io workers busy in`);
    await expect.element(panel.getByTestId('worker-verdict')).toHaveTextContent('(last 0 s)');
  });

  test('a role that cannot see the io workers in pg_stat_activity is told the GRANT', async () => {
    const payloads = await recordedPayloads('pg19beta3-worker');
    const hidden = payloads.frames.map((frame) => ({ ...frame, ioWorkers: [] }));
    await render(<WorkerPanel {...panelInputs(payloads, hidden)} />);
    await expect.element(panel).toHaveTextContent('No io worker is visible in pg_stat_activity');
    await expect.element(panel).toHaveTextContent('GRANT pg_read_all_stats (or pg_monitor)');
  });

  test('paused at a moment of a past range, "now" is that moment and the verdict names its time', async () => {
    const inputs = panelInputs(await recordedPayloads('pg19beta3-worker'));
    const moment = inputs.frames.slice(0, 10);
    const at = moment.at(-1);
    const [from, to] = inputs.domain;
    const text = windowTextOf({ mode: 'range', from, to, at: at?.t ?? to, speed: null }, null);
    await render(
      <WindowTextContext value={text}>
        <WorkerPanel {...inputs} momentFrames={moment} />
      </WindowTextContext>,
    );
    const busy = at?.ioWorkers.filter((worker) => worker.busy).length;
    await expect.element(panel.getByTestId('worker-busy-now')).toHaveTextContent(`${busy} of ${at?.ioWorkers.length}`);
    await expect.element(panel.getByTestId('worker-verdict')).toHaveTextContent(`up to ${formatClockTime(at?.t ?? 0)}`);
    await expect.element(panel.getByRole('button', { name: 'About busy, range' })).toBeVisible();
  });

  test('over a long range: the busy share of the range from roll-ups, and the backlog with its max per step', async () => {
    const payloads = await recordedPayloads('pg19beta3-worker');
    const inputs = rollupInputs(payloads, { stepMs: 2_000 });
    const pairs = payloads.frames.flatMap((frame) => frame.ioWorkers);
    const busy = pairs.filter((worker) => worker.busy).length / pairs.length;
    await render(<WorkerPanel {...inputs} />);
    await expect
      .element(panel.getByTestId('worker-busy-fraction'))
      .toHaveTextContent(formatPercent(busy).replace(/\s/g, ' '));
    await expect.element(panel).toHaveTextContent('merged per 2 s');
    await expect.element(panel).toHaveTextContent('submitted reads, max per step');
    await expect.element(panel.getByRole('img', { name: /^io worker backlog and pool size/ })).toBeVisible();
    // Per-worker strips and "now" need the samples: not drawn from roll-ups.
    await expect.element(workerList).not.toBeInTheDocument();
  });

  test('over a long range without io worker samples it says the range had none', async () => {
    await render(<WorkerPanel {...rollupInputs(await recordedPayloads('pg18.6-io_uring'))} />);
    await expect.element(panel).toHaveTextContent('No io worker was sampled in this range');
  });
});
