/** Waits before each new attempt, in ms: quick at first, then every few seconds. */
export const RETRY_DELAYS_MS: readonly number[] = [500, 1000, 2000, 4000, 8000, 8000, 8000, 8000];

/**
 * A lazily loaded chunk comes from the aioscope process that served the page. While that process
 * restarts (an upgrade, a crash, Ctrl-C and `npm start` again) the fetch fails, and React.lazy
 * keeps the failure for good: the panel would stay broken until a reload. The load is tried again
 * with growing pauses instead, about a minute in all, and only then does the failure show.
 */
export async function retryingImport<T>(
  load: () => Promise<T>,
  delaysMs: readonly number[] = RETRY_DELAYS_MS,
  wait: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await load();
    } catch (error) {
      const delay = delaysMs[attempt];
      if (delay === undefined) throw error;
      await wait(delay);
    }
  }
}
