import { describe, expect, test } from 'vitest';
import { page } from 'vitest/browser';
import { render } from 'vitest-browser-react';
import { recordedPayloads } from '../testing/recorded.ts';
import { Banner } from './Banner.tsx';

describe('Banner', () => {
  test('a role that cannot read pg_aios is told the GRANT that fixes it', async () => {
    const { summary } = await recordedPayloads('pg18.6-io_uring-no-grants');
    await render(<Banner target={summary} />);
    await expect.element(page.getByRole('status')).toHaveTextContent('GRANT pg_read_all_stats');
  });
});
