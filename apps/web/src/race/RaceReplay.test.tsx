import type { LiveFrame, Race } from '@aioscope/spec';
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { render } from 'vitest-browser-react';
import { labRun, raceLane, raceOf } from '../testing/raceFixtures.ts';
import { recordedPayloads } from '../testing/recorded.ts';
import { RaceReplay } from './RaceReplay.tsx';
import { REPLAY_TEXT_INTERVAL_MS } from './useReplay.ts';

/**
 * Two lanes of a real scan: the first 197 ms of the recorded embedded server's frames (a sample
 * every 1–3 ms while it read), the second lane the same frames at another server time, as a later
 * run's would be.
 */
let race: Race;
let longRace: Race;

beforeAll(async () => {
  const frames: LiveFrame[] = (await recordedPayloads('pg18.4-embedded-worker')).frames.slice(0, 41);
  const later = frames.map((frame) => ({ ...frame, t: frame.t + 60_000 }));
  race = raceOf([
    raceLane('icl=16', frames, labRun('icl=16', 150)),
    raceLane('icl=1', later.slice(0, 30), labRun('icl=1', 120, 8192)),
  ]);
  const whole = (await recordedPayloads('pg18.4-embedded-worker')).frames;
  longRace = raceOf([
    raceLane('icl=16', whole, labRun('icl=16', 10_500)),
    raceLane('icl=1', later.slice(0, 30), labRun('icl=1', 120, 8192)),
  ]);
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** Every bar drawing, per canvas: the share of its width the fill was drawn at (the track is drawn first, the fill last). */
function watchBars(): {
  shares: (canvas: HTMLCanvasElement) => number[];
  share: (canvas: HTMLCanvasElement) => number | undefined;
} {
  const prototype = CanvasRenderingContext2D.prototype;
  const clearRect = prototype.clearRect;
  const fillRect = prototype.fillRect;
  const draws = new Map<HTMLCanvasElement, number[][]>();
  vi.spyOn(prototype, 'clearRect').mockImplementation(function (this: CanvasRenderingContext2D, ...args) {
    const canvas = this.canvas as HTMLCanvasElement;
    draws.set(canvas, [...(draws.get(canvas) ?? []), []]);
    clearRect.apply(this, args);
  });
  vi.spyOn(prototype, 'fillRect').mockImplementation(function (this: CanvasRenderingContext2D, ...args) {
    draws
      .get(this.canvas as HTMLCanvasElement)
      ?.at(-1)
      ?.push(args[2] / this.canvas.width);
    fillRect.apply(this, args);
  });
  const shares = (canvas: HTMLCanvasElement): number[] => (draws.get(canvas) ?? []).map((fills) => fills.at(-1) ?? 0);
  return { shares, share: (canvas) => shares(canvas).at(-1) };
}

/** When an element's text changed (ms, performance.now()). */
function watchText(element: Element): { changedAt: () => number[]; stop: () => void } {
  const changedAt: number[] = [];
  let text = element.textContent;
  const observer = new MutationObserver(() => {
    if (element.textContent === text) return;
    text = element.textContent;
    changedAt.push(performance.now());
  });
  observer.observe(element, { characterData: true, childList: true, subtree: true });
  return { changedAt: () => changedAt, stop: () => observer.disconnect() };
}

describe('RaceReplay', () => {
  test('while playing, the bars move with the frames and the figures change at most twice a second', async () => {
    await render(<RaceReplay race={race} />);
    const replay = page.getByTestId('race-replay');
    // At 1× the 197 ms race is over at once; at 1/10× it lasts about 2 s.
    await expect.element(page.getByTestId('race-outcome')).toBeVisible();
    // The clock says, without a mouse, where its figures come from and how often they change.
    await expect
      .element(page.getByTestId('race-clock'))
      .toHaveAccessibleDescription(/^Captured at 100 Hz\. While it plays, .* the figures twice; paused or stepped/);
    const bars = watchBars();
    await replay.getByRole('button', { name: '1/10×' }).click();
    const clock = watchText(page.getByTestId('race-clock').element());
    await replay.getByRole('button', { name: 'replay', exact: true }).click();
    // Who won is not told before the finish; its place says when it will be.
    await expect.element(page.getByTestId('race-outcome')).not.toBeVisible();
    await expect.element(replay.getByText('shows here when both lanes finish')).toBeVisible();
    await expect.element(replay.getByRole('button', { name: 'play again' }), { timeout: 10_000 }).toBeVisible();
    clock.stop();
    await expect.element(page.getByTestId('race-outcome')).toHaveTextContent(/icl=1 finished first/);
    await expect.element(replay.getByText('shows here when both lanes finish')).not.toBeVisible();
    // The clock's text: back to 0 at the click, then at most one change per interval, then the
    // end whenever it comes (timers only run late, never early).
    // The scan's frames come 139 ms into the race (1.4 s at 1/10×), then every 1–3 ms.
    const changes = clock.changedAt();
    expect(changes.length).toBeGreaterThanOrEqual(3);
    const seconds = ((changes.at(-1) ?? 0) - (changes[0] ?? 0)) / 1000;
    expect(changes.length).toBeLessThanOrEqual(Math.ceil((seconds * 1000) / REPLAY_TEXT_INTERVAL_MS) + 2);
    const gaps = changes.slice(1, -1).map((at, i) => at - (changes[i] ?? 0));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(REPLAY_TEXT_INTERVAL_MS - 5);
    // The bars: the icl=16 lane's scan progress moves in the race's last 42 ms (0.4 s at 1/10×); the
    // bar goes through it at the 20 Hz draws, not at the text's refreshes, and ends full (its run returned).
    const [canvas] = page.getByTestId('race-bar').elements() as HTMLCanvasElement[];
    if (canvas === undefined) throw new Error('no bar');
    const between = new Set(bars.shares(canvas).filter((share) => share > 0 && share < 1));
    expect(between.size).toBeGreaterThanOrEqual(3);
    for (const bar of page.getByTestId('race-bar').elements()) expect(bars.share(bar as HTMLCanvasElement)).toBe(1);
  });

  test('paused, the figures show the frame the bars stopped at; a step moves both', async () => {
    // The whole recording: the scan's first 197 ms sampled densely, then its end 10.4 s later.
    await render(<RaceReplay race={longRace} />);
    const replay = page.getByTestId('race-replay');
    const bars = watchBars();
    await replay.getByRole('button', { name: '1/10×' }).click();
    await replay.getByRole('button', { name: 'replay', exact: true }).click();
    const [canvas] = page.getByTestId('race-bar').elements() as HTMLCanvasElement[];
    if (canvas === undefined) throw new Error('no bar');
    // Paused as soon as the bar has moved: the text, refreshed every 250 ms, is then behind it.
    await expect.poll(() => bars.share(canvas) ?? 0, { timeout: 10_000, interval: 10 }).toBeGreaterThan(0);
    await replay.getByRole('button', { name: 'pause' }).click();
    const bar = page.getByRole('progressbar', { name: 'icl=16: table read' });
    const share = bars.share(canvas) ?? 0;
    expect(share).toBeLessThan(1);
    await expect.element(bar).toHaveAttribute('aria-valuenow', String(Math.round(share * 100)));
    // Stepping moves the bars and the text together (progress is sampled every 4–9 ms of the scan).
    for (let i = 0; i < 6; i++) {
      await userEvent.keyboard('{ArrowRight}');
      await expect.element(bar).toHaveAttribute('aria-valuenow', String(Math.round((bars.share(canvas) ?? 0) * 100)));
    }
    expect(bars.share(canvas)).toBeGreaterThan(share);
  });
});
