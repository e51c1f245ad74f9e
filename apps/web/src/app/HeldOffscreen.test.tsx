import { describe, expect, test } from 'vitest';
import { page } from 'vitest/browser';
import { render } from 'vitest-browser-react';
import { HeldOffscreen, OFF_SCREEN_RENDER_MS } from './HeldOffscreen.tsx';
import { NEAR_SCREEN_MARGIN } from './useNearScreen.ts';

/** A page taller than the screen: a spacer, then a held figure, far below the fold. */
function Page({ value, urgent, spacer }: { value: number; urgent?: string; spacer: number }) {
  return (
    <div>
      <div style={{ height: spacer }} />
      <HeldOffscreen urgent={urgent}>
        <p data-testid="held">value {value}</p>
      </HeldOffscreen>
    </div>
  );
}

const nextPaint = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));

/**
 * Once the held panel's own observer has said it is off screen: an observer made after it, with the
 * same margin, is told after it, and the page's render of that comes within a paint or two. Two
 * paints alone were not always enough on a busy machine (the observer's report came later).
 */
async function reportedOffScreen(): Promise<void> {
  // From the top: an earlier test scrolled its panel into view, and the page may keep that scroll.
  window.scrollTo(0, 0);
  const node = page.getByTestId('held').element();
  await new Promise<void>((resolve) => {
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => !entry.isIntersecting)) {
          observer.disconnect();
          resolve();
        }
      },
      { rootMargin: NEAR_SCREEN_MARGIN },
    );
    observer.observe(node);
  });
  await nextPaint();
  await nextPaint();
}

describe('HeldOffscreen', () => {
  test('on screen it renders with every update', async () => {
    const screen = await render(<Page value={1} spacer={0} />);
    await screen.rerender(<Page value={2} spacer={0} />);
    await expect.element(page.getByTestId('held')).toHaveTextContent('value 2');
  });

  test('off screen it keeps what it drew, catches up after a while, at once for an urgent change or when scrolled into view', async () => {
    const screen = await render(<Page value={1} spacer={5_000} />);
    await expect.element(page.getByTestId('held')).toHaveTextContent('value 1');
    await reportedOffScreen();
    await screen.rerender(<Page value={2} spacer={5_000} />);
    await nextPaint();
    expect(page.getByTestId('held').element().textContent).toBe('value 1');

    // An urgent change (another server, a selection) goes through off screen too.
    await screen.rerender(<Page value={3} spacer={5_000} urgent="other server" />);
    await expect.element(page.getByTestId('held')).toHaveTextContent('value 3');

    // Held again; after OFF_SCREEN_RENDER_MS the next page render catches up.
    await screen.rerender(<Page value={4} spacer={5_000} urgent="other server" />);
    await nextPaint();
    expect(page.getByTestId('held').element().textContent).toBe('value 3');
    await new Promise((resolve) => setTimeout(resolve, OFF_SCREEN_RENDER_MS)); // the wait is what is tested
    await screen.rerender(<Page value={5} spacer={5_000} urgent="other server" />);
    await expect.element(page.getByTestId('held')).toHaveTextContent('value 5');

    await screen.rerender(<Page value={6} spacer={5_000} urgent="other server" />);
    await nextPaint();
    expect(page.getByTestId('held').element().textContent).toBe('value 5');
    // Scrolled into view: it renders what the page has now, without another page render.
    page.getByTestId('held').element().scrollIntoView();
    await expect.element(page.getByTestId('held')).toHaveTextContent('value 6');
  });

  test('off screen, a change held while the page then stops changing shows within OFF_SCREEN_RENDER_MS', async () => {
    const screen = await render(<Page value={1} spacer={5_000} />);
    await reportedOffScreen();
    await screen.rerender(<Page value={2} spacer={5_000} />);
    await nextPaint();
    expect(page.getByTestId('held').element().textContent).toBe('value 1');
    // No further page render: the held change still comes (a paused replay, a range that loaded).
    await expect
      .element(page.getByTestId('held'), { timeout: OFF_SCREEN_RENDER_MS + 1_000 })
      .toHaveTextContent('value 2');
  });
});
