import type { ReactNode } from 'react';
import { describe, expect, test } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { render } from 'vitest-browser-react';
import { Figure, Panel } from './Panel.tsx';

const EXPLANATION = 'Read I/Os listed in pg_aios at the latest sample.';

function FigurePanel(): ReactNode {
  return (
    <Panel title="Reads in flight" source="pg_aios, sampled at 20 Hz" testId="panel">
      <Figure label="now" value="12" explain={EXPLANATION} />
      <button type="button">elsewhere</button>
    </Panel>
  );
}

describe('Panel and Figure', () => {
  test('a panel is a region named by its title, its source always shown', async () => {
    await render(<FigurePanel />);
    const panel = page.getByRole('region', { name: 'Reads in flight' });
    await expect.element(panel.getByRole('heading', { name: 'Reads in flight' })).toBeVisible();
    await expect.element(panel).toHaveTextContent('pg_aios, sampled at 20 Hz');
    await expect.element(panel).toHaveTextContent('12');
  });

  test("a figure's (i) opens its explanation on focus, and Escape closes it", async () => {
    await render(<FigurePanel />);
    const info = page.getByRole('button', { name: 'About now' });
    await expect.element(page.getByRole('tooltip')).not.toBeInTheDocument();
    await userEvent.tab();
    await expect.element(info).toHaveFocus();
    await expect.element(page.getByRole('tooltip')).toHaveTextContent(EXPLANATION);
    await expect.element(info).toHaveAttribute('aria-expanded', 'true');
    await expect.element(info).toHaveAccessibleDescription(EXPLANATION);
    await userEvent.keyboard('{Escape}');
    await expect.element(page.getByRole('tooltip')).not.toBeInTheDocument();
    await expect.element(info).toHaveAttribute('aria-expanded', 'false');
  });

  test('a click pins the explanation; a click elsewhere closes it', async () => {
    await render(<FigurePanel />);
    await page.getByRole('button', { name: 'About now' }).click();
    await expect.element(page.getByRole('tooltip')).toHaveTextContent(EXPLANATION);
    await page.getByRole('button', { name: 'elsewhere' }).click();
    await expect.element(page.getByRole('tooltip')).not.toBeInTheDocument();
  });
});
