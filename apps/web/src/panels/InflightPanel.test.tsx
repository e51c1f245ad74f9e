import { describe, expect, test } from 'vitest';
import { page } from 'vitest/browser';
import { render } from 'vitest-browser-react';
import { windowTextOf, WindowTextContext } from '../timeline/windowText.ts';
import { panelInputs, rollupInputs } from '../testing/panelInputs.ts';
import { recordedPayloads } from '../testing/recorded.ts';
import { InflightPanel } from './InflightPanel.tsx';

const panel = page.getByRole('region', { name: 'Reads in flight' });

describe('InflightPanel', () => {
  test('before the first sample it says it is waiting, and shows no figures', async () => {
    const inputs = panelInputs(await recordedPayloads('pg18.4-embedded-worker'), []);
    await render(<InflightPanel {...inputs} />);
    await expect.element(panel).toHaveTextContent('Waiting for the first sample …');
    await expect.element(panel.getByRole('button', { name: 'About now' })).not.toBeInTheDocument();
  });

  test('a role without pg_read_all_stats is told the GRANT, not left waiting', async () => {
    const inputs = panelInputs(await recordedPayloads('pg18.6-io_uring-no-grants'));
    await render(<InflightPanel {...inputs} />);
    await expect
      .element(panel)
      .toHaveTextContent(
        'This role cannot read pg_aios. Fix: GRANT pg_read_all_stats TO <role>; (or GRANT pg_monitor).',
      );
    await expect.element(panel).not.toHaveTextContent('Waiting for the first sample');
  });

  test('a server aioscope refused says why it is not sampled', async () => {
    const inputs = panelInputs(await recordedPayloads('pg15.18'));
    await render(<InflightPanel {...inputs} />);
    await expect.element(panel).toHaveTextContent('Not sampled: PostgreSQL 15.18 is not supported');
  });

  test('during a cold scan under io workers: the newest sample, the window peak and the worker backlog', async () => {
    const payloads = await recordedPayloads('pg19beta3-worker');
    const inputs = panelInputs(payloads);
    const newest = inputs.frames.at(-1)?.inflight;
    const peak = Math.max(...inputs.frames.map((frame) => frame.inflight?.total.count ?? 0));
    await render(<InflightPanel {...inputs} />);
    await expect.element(panel.getByTestId('inflight-now')).toHaveTextContent(String(newest?.total.count));
    await expect.element(panel.getByTestId('inflight-peak')).toHaveTextContent(String(peak));
    await expect.element(panel.getByRole('button', { name: 'About peak, 60 s' })).toBeVisible();
    await expect.element(panel.getByTestId('inflight-worker-backlog')).toHaveTextContent(String(newest?.workerBacklog));
    await expect
      .element(panel.getByRole('img', { name: 'reads in flight by state over the last 60 seconds' }))
      .toBeVisible();
  });

  test('under io_uring there is no worker backlog: a submitted read is in the kernel', async () => {
    const inputs = panelInputs(await recordedPayloads('pg18.6-io_uring'));
    await render(<InflightPanel {...inputs} />);
    await expect.element(panel.getByTestId('inflight-peak')).toHaveTextContent('15');
    await expect.element(panel.getByRole('button', { name: 'About worker backlog now' })).not.toBeInTheDocument();
  });

  test('a stale newest sample is not shown as "now"', async () => {
    const inputs = panelInputs(await recordedPayloads('pg19beta3-worker'));
    await render(<InflightPanel {...inputs} stale />);
    await expect.element(panel.getByTestId('inflight-now')).toHaveTextContent('–');
    await expect.element(panel.getByTestId('inflight-peak')).not.toHaveTextContent('–');
  });

  test('in a past range the figures and captions name the range, not "the last 60 s"', async () => {
    const inputs = panelInputs(await recordedPayloads('pg19beta3-worker'));
    const [from, to] = inputs.domain;
    const text = windowTextOf({ mode: 'range', from, to, at: to, speed: null }, null);
    await render(
      <WindowTextContext value={text}>
        <InflightPanel {...inputs} />
      </WindowTextContext>,
    );
    await expect.element(panel.getByRole('button', { name: 'About peak, range' })).toBeVisible();
    await expect.element(panel).toHaveTextContent('up to the moment shown');
    await expect.element(panel).not.toHaveTextContent('the last 60 s');
  });

  test('over a long range it draws the same charts from roll-ups, and says they are roll-ups and their step', async () => {
    const payloads = await recordedPayloads('pg19beta3-worker');
    const inputs = rollupInputs(payloads);
    const { from, to } = inputs.rollups;
    const peak = Math.max(...payloads.frames.map((frame) => frame.inflight?.total.count ?? 0));
    await render(
      <WindowTextContext value={windowTextOf({ mode: 'range', from, to, at: to, speed: null }, null)}>
        <InflightPanel {...inputs} />
      </WindowTextContext>,
    );
    await expect
      .element(panel)
      .toHaveTextContent('1 s roll-ups of pg_aios (reads, operation readv) at 20 Hz, merged per 1 s');
    await expect.element(panel.getByTestId('inflight-peak')).toHaveTextContent(String(peak));
    await expect.element(panel.getByRole('img', { name: /^reads in flight by state over the range/ })).toBeVisible();
    await expect.element(panel.getByRole('img', { name: /^bytes in flight over the range/ })).toBeVisible();
    await expect.element(panel.getByRole('img', { name: 'reads in flight, max and mean per 1 s' })).toBeVisible();
    // No "now" and no per-sample strip: a roll-up is not a sample.
    await expect.element(panel.getByTestId('inflight-now')).not.toBeInTheDocument();
    await expect.element(panel.getByRole('button', { name: 'About peak, range' })).toBeVisible();
  });

  test('over a long range of a role without pg_aios it says so instead of drawing zeros', async () => {
    const inputs = rollupInputs(await recordedPayloads('pg18.6-io_uring-no-grants'));
    await render(<InflightPanel {...inputs} />);
    await expect.element(panel).toHaveTextContent('No sample of this range could read pg_aios');
    await expect.element(panel.getByTestId('inflight-peak')).not.toBeInTheDocument();
  });
});
