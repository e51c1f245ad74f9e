/**
 * Waits for `work` at most `ms`, and never fails: for steps whose end is worth waiting for but
 * must not hold up what follows (a close that a lost server would queue, a listener stuck on a
 * slow one). What `work` does after the bound runs on unawaited.
 */
export function waitAtMost(work: () => Promise<unknown> | unknown, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void Promise.resolve()
      .then(work)
      .catch(() => undefined)
      .then(() => {
        clearTimeout(timer);
        resolve();
      });
  });
}
