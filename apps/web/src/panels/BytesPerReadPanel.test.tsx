import { exactBytesPerRead, formatBytes } from '@aioscope/core';
import type { IoStatDelta } from '@aioscope/spec';
import { describe, expect, test } from 'vitest';
import { page } from 'vitest/browser';
import { render } from 'vitest-browser-react';
import { panelInputs, rollupInputs } from '../testing/panelInputs.ts';
import { recordedPayloads } from '../testing/recorded.ts';
import { BytesPerReadPanel } from './BytesPerReadPanel.tsx';

/** A size as the page writes it, its no-break space as the text content reads it. */
const spaced = (bytes: number | null | undefined): string => formatBytes(bytes).replace(/\s/g, ' ');
const exactOf = (deltas: readonly IoStatDelta[]): number | null => exactBytesPerRead(deltas).bytesPerRead;

const panel = page.getByRole('region', { name: 'Bytes per read (read combining)' });

describe('BytesPerReadPanel', () => {
  test('before the first sample: waiting, no live figure, no statement counted yet', async () => {
    const inputs = panelInputs(await recordedPayloads('pg18.4-embedded-worker'), []);
    await render(<BytesPerReadPanel {...inputs} deltas={[]} />);
    await expect.element(panel).toHaveTextContent('Waiting for the first sample …');
    await expect.element(panel.getByTestId('bytes-per-read-live')).toHaveTextContent('–');
    await expect.element(panel.getByTestId('bytes-per-read-exact')).toHaveTextContent('no statement finished');
  });

  test('a role that cannot read pg_aios is told the GRANT; the exact figure from pg_stat_io stays', async () => {
    const inputs = panelInputs(await recordedPayloads('pg18.6-io_uring-no-grants'));
    await render(<BytesPerReadPanel {...inputs} />);
    await expect.element(panel).toHaveTextContent('This role cannot read pg_aios. Fix: GRANT pg_read_all_stats');
    await expect.element(panel.getByTestId('bytes-per-read-live')).toHaveTextContent('–');
    await expect.element(panel.getByRole('button', { name: 'About exact, 60 s' })).toBeVisible();
  });

  test('a server aioscope refused: only why it is not sampled, no empty chart and no exact figure', async () => {
    const inputs = panelInputs(await recordedPayloads('pg15.18'));
    await render(<BytesPerReadPanel {...inputs} />);
    await expect.element(panel).toHaveTextContent('Not sampled: PostgreSQL 15.18 is not supported');
    await expect.element(panel.getByTestId('bytes-per-read-exact')).not.toBeInTheDocument();
    await expect.element(panel.getByRole('img')).not.toBeInTheDocument();
  });

  test('during a cold scan: the live mean size of new reads, and io_combine_limit as the server set it', async () => {
    const inputs = panelInputs(await recordedPayloads('pg18.6-io_uring'));
    await render(<BytesPerReadPanel {...inputs} />);
    await expect
      .element(panel.getByTestId('bytes-per-read-live'))
      .toHaveTextContent(spaced(inputs.summary.liveBytesPerRead));
    await expect.element(panel.getByTestId('bytes-per-read-exact')).toHaveTextContent(spaced(exactOf(inputs.deltas)));
    await expect.element(panel).toHaveTextContent(spaced(inputs.target.server?.ioCombineLimitBytes));
    await expect.element(panel).not.toHaveTextContent('Waiting for the first sample');
    await expect.element(panel.getByRole('img', { name: 'bytes per read over the last 60 seconds' })).toBeVisible();
  });

  test('over a long range: both figures of the whole range from the roll-ups, both lines per step', async () => {
    const payloads = await recordedPayloads('pg18.6-io_uring');
    const inputs = rollupInputs(payloads);
    const counted = payloads.ioDeltas.filter((delta) => !delta.reset);
    const exact = counted.reduce((sum, d) => sum + d.readBytes, 0) / counted.reduce((sum, d) => sum + d.reads, 0);
    await render(<BytesPerReadPanel {...inputs} />);
    await expect.element(panel.getByTestId('bytes-per-read-exact')).toHaveTextContent(spaced(exact));
    await expect.element(panel.getByTestId('bytes-per-read-live')).not.toHaveTextContent('–');
    await expect.element(panel).toHaveTextContent('1 s roll-ups of pg_aios at 20 Hz');
    await expect.element(panel).toHaveTextContent('exact: pg_stat_io at 1 Hz, Δread_bytes / Δreads per 1 s, all reads');
    await expect.element(panel.getByRole('img', { name: /^bytes per read over/ })).toBeVisible();
  });
});
