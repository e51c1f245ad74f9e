import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../apps/server/src/config/config.ts';
import { runCli, waitForUrl, type CliRun } from '../apps/server/test/support/cliProcess.ts';
import { collectConsoleErrors, launchChromium, type LaunchedBrowser } from './support/browser.ts';
import { LabPanelPage } from './pages/LabPanelPage.ts';

const DATA_DIR = path.join(REPO_ROOT, '.aioscope/e2e-race');
// Screenshots go with the other e2e captures; the README's copies in docs/ are chosen by hand.
const SHOTS = path.join(REPO_ROOT, 'e2e/artifacts');
/** Building the 256 MB table on a fresh start, then 6 cold runs. */
const RACE_TIMEOUT_MS = 300_000;

/** Main-thread busy share over `seconds` of wall time, from CDP Performance.getMetrics TaskDuration. */
async function mainThreadBusy(page: Page, seconds: number): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const read = async (): Promise<number> => {
    const { metrics } = await cdp.send('Performance.getMetrics');
    return metrics.find((metric) => metric.name === 'TaskDuration')?.value ?? 0;
  };
  const before = await read();
  const started = Date.now();
  // A fixed wait on purpose: the measurement window itself.
  await page.waitForTimeout(seconds * 1000);
  const busy = (await read()) - before;
  await cdp.detach();
  return busy / ((Date.now() - started) / 1000);
}

describe('read-combining race in Chromium', () => {
  let app: CliRun;
  let url: string;
  let chromium: LaunchedBrowser;

  beforeAll(async () => {
    await rm(DATA_DIR, { recursive: true, force: true });
    app = runCli(['--embedded', '--no-demo', '--port', '0', '--data-dir', DATA_DIR]);
    url = await waitForUrl(app);
    chromium = await launchChromium();
  });

  afterAll(async () => {
    await chromium?.close();
    if (app?.child.exitCode === null) app.child.kill('SIGTERM');
    await app?.exited;
  });

  it('races on one click, replays, steps frames, presents by keyboard, and is found again after a reload', async () => {
    const context = await chromium.browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const consoleErrors = collectConsoleErrors(context);
    const lab = new LabPanelPage(await context.newPage());
    const { page } = lab;
    await lab.open(url);
    const dashboardBusy = await mainThreadBusy(page, 5);

    await lab.panel.getByRole('button', { name: 'Show read combining' }).click();
    const view = page.getByTestId('race-view');
    await view
      .getByRole('status')
      .filter({ hasText: /Racing: run/ })
      .waitFor({ timeout: 60_000 });
    // The race is in the URL from its start: a reload or a link finds it again.
    const raceId = /^Race ([a-z0-9]{12}):/.exec(await view.getByRole('heading', { level: 3 }).innerText())?.[1];
    expect(raceId).toBeDefined();
    expect(new URL(page.url()).hash).toBe(`#race-${raceId}`);
    const replay = page.getByTestId('race-replay');
    await replay.waitFor({ timeout: RACE_TIMEOUT_MS });
    expect(await page.getByTestId('race-lane').count()).toBe(2);
    expect(await replay.innerText()).toMatch(/16 blocks per read: one read where the other lane needs 16/);
    // The race completes on its own at 1×: the outcome names a winner and a margin.
    const outcome = page.getByTestId('race-outcome');
    await outcome.filter({ hasText: /finished first, \d+ ms sooner/ }).waitFor();
    expect(await page.getByTestId('race-medians').innerText()).toMatch(/icl=1\s+[\d.]+ ms/);

    // The margin is the lanes' own figures subtracted; EXPLAIN's figure for the same runs is named as such.
    const number = (text: string): number => Number(text.replace(/[^\d.]/g, ''));
    const elapsed = (await page.getByTestId('race-elapsed').allInnerTexts()).map(number);
    const margin = number(/(\d[\d,]*) ms sooner/.exec(await outcome.innerText())?.[1] ?? '');
    expect(margin).toBe(Math.max(...elapsed) - Math.min(...elapsed));
    expect(await outcome.innerText()).toMatch(
      /in elapsed time, as the lanes show it\. EXPLAIN's execution time of the same runs/,
    );
    expect(await page.locator('.race-lane-placing').allInnerTexts()).toContain(`+${margin} ms`);

    // Step frame by frame from the keyboard: ← goes back one frame, → forward again.
    const clock = page.getByTestId('race-clock');
    const atMs = async (): Promise<number> => Number((await clock.innerText()).split(' / ')[0]?.replace(/,/g, ''));
    const end = await atMs();
    await replay.focus();
    await page.keyboard.press('ArrowLeft');
    const back = await atMs();
    expect(back).toBeLessThan(end);
    await page.keyboard.press('ArrowLeft');
    expect(await atMs()).toBeLessThan(back);
    await page.keyboard.press('ArrowRight');
    expect(await atMs()).toBe(back);

    // Main thread while racing two lanes, at 1× and at 1/10× (measured over the replay).
    await replay.getByRole('button', { name: 'replay' }).click();
    const realSpeedBusy = await mainThreadBusy(page, 1);
    await replay.getByRole('button', { name: '1/10×' }).click();
    await replay.getByRole('button', { name: 'replay' }).click();
    const slowBusy = await mainThreadBusy(page, 5);
    console.log(
      `main thread busy: dashboard ${(dashboardBusy * 100).toFixed(1)} %, race 1× ${(realSpeedBusy * 100).toFixed(1)} %, race 1/10× ${(slowBusy * 100).toFixed(1)} %`,
    );
    // Stopped for the screenshots. On a fast machine the 1/10× replay may already have ended
    // (the button then says play): nothing to stop then.
    const pause = replay.getByRole('button', { name: 'pause' });
    if ((await pause.count()) > 0) await pause.click({ timeout: 2_000 }).catch(() => undefined);
    // Screenshots in both themes: race.png / presentation.png in the theme the browser starts with.
    const toggle = page.locator('.theme-toggle');
    const otherTheme = (await toggle.innerText()).startsWith('light') ? 'light' : 'dark';
    await view.screenshot({ path: path.join(SHOTS, 'race.png') });

    // Presentation mode by keyboard: f opens it on the race, waiting at its start for Space.
    await page.evaluate('document.activeElement?.blur()');
    await page.keyboard.press('f');
    const presentation = page.getByTestId('presentation');
    await presentation.waitFor();
    const heading = presentation.getByRole('heading', { level: 2 });
    expect(await heading.innerText()).toBe('The race');
    const presentedClock = presentation.getByTestId('race-clock');
    const presentedAt = async (): Promise<number> =>
      Number((await presentedClock.innerText()).split(' / ')[0]?.replace(/,/g, ''));
    expect(await presentedAt()).toBe(0);
    expect(await presentation.getByTestId('race-keys').innerText()).toMatch(/^Press Space to start\./);
    expect(await presentation.getByRole('button', { name: 'play', exact: true }).count()).toBe(1);
    // Evaluated as text: the e2e project is typed for Node, without the DOM's types.
    const figureSize = Number.parseFloat(
      String(
        await page.evaluate(
          "getComputedStyle(document.querySelector('[data-testid=presentation] .race-figures dd')).fontSize",
        ),
      ),
    );
    expect(figureSize).toBeGreaterThanOrEqual(32);
    await page.screenshot({ path: path.join(SHOTS, 'presentation.png') });
    // ← / → move between stories here too, as the buttons say; , and . step the race's frames.
    await page.keyboard.press('ArrowLeft');
    expect(await heading.innerText()).toBe('io workers busy');
    await page.screenshot({ path: path.join(SHOTS, 'presentation-story.png') });
    await page.keyboard.press('ArrowRight');
    expect(await heading.innerText()).toBe('The race');
    expect(await presentedAt()).toBe(0);
    await page.keyboard.press('.');
    const stepped = await presentedAt();
    expect(stepped).toBeGreaterThan(0);
    await page.keyboard.press(',');
    expect(await presentedAt()).toBeLessThan(stepped);
    expect(await heading.innerText()).toBe('The race');
    // Space starts it; it runs to its end and names the winner.
    await page.keyboard.press(' ');
    await presentation
      .getByTestId('race-outcome')
      .filter({ hasText: /finished first/ })
      .waitFor();
    await page.keyboard.press('Escape');
    await presentation.waitFor({ state: 'detached' });

    await toggle.click();
    await view.screenshot({ path: path.join(SHOTS, `race-${otherTheme}.png`) });

    // A reload finds the race again, from the URL.
    await page.reload();
    await page.getByTestId('race-replay').waitFor();
    expect(await view.getByRole('heading', { level: 3 }).innerText()).toMatch(new RegExp(`^Race ${raceId}:`));
    await outcome.filter({ hasText: /finished first, \d+ ms sooner/ }).waitFor();
    expect(consoleErrors).toEqual([]);

    // A race this server does not have says so, rather than showing nothing or another race.
    const stranger = await context.newPage();
    await stranger.goto(`${url}#race-zzzzzzzzzzzz`);
    await stranger
      .getByTestId('race-view')
      .getByRole('alert')
      .filter({ hasText: /^No race zzzzzzzzzzzz on this server/ })
      .waitFor();
    await context.close();
  });
});
