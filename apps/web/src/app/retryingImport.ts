/** Waits before each new attempt, in ms: quick at first, then every few seconds. */
export const RETRY_DELAYS_MS: readonly number[] = [500, 1000, 2000, 4000, 8000, 8000, 8000, 8000];

/**
 * The script a failed dynamic import names: Chromium says "Failed to fetch dynamically imported
 * module: URL", Firefox "error loading dynamically imported module: URL". Null when it names none.
 */
export function failedModuleUrl(error: unknown): string | null {
  const message = error instanceof Error ? error.message : String(error);
  return /\b(https?:\/\/\S+)/.exec(message)?.[1] ?? null;
}

/** The same script under a URL of its own, which the browser has not seen fail. */
export function freshUrl(url: string, attempt: number): string {
  const fresh = new URL(url);
  fresh.searchParams.set('retry', String(attempt));
  return fresh.href;
}

const importByUrl = (url: string): Promise<unknown> => import(/* @vite-ignore */ url);

/**
 * A lazily loaded chunk comes from the aioscope process that served the page. While that process
 * restarts (an upgrade, a crash, Ctrl-C and `npm start` again) the fetch fails, and React.lazy
 * keeps the failure for good: the panel would stay broken until a reload. The load is tried again
 * with growing pauses instead, about a minute in all, and only then does the failure show.
 *
 * The browser keeps a failed import too (Chromium answers each later import of that URL with the
 * same failure, without fetching it): a retry imports the script its error named under a URL of
 * its own (`?retry=N`), whose imports are the same shared chunks, already loaded or fetched now.
 */
export async function retryingImport<M>(
  importModule: () => Promise<M>,
  delaysMs: readonly number[] = RETRY_DELAYS_MS,
  wait: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  byUrl: (url: string) => Promise<unknown> = importByUrl,
): Promise<M> {
  let failedUrl: string | null = null;
  for (let attempt = 0; ; attempt += 1) {
    try {
      // The same module under another URL: what the bundler's import would have given.
      return failedUrl === null ? await importModule() : ((await byUrl(freshUrl(failedUrl, attempt))) as M);
    } catch (error) {
      failedUrl = failedModuleUrl(error) ?? failedUrl;
      const delay = delaysMs[attempt];
      if (delay === undefined) throw error;
      await wait(delay);
    }
  }
}
