import type { Logger } from '../system/logger.ts';

/** What the long-running commands (`start`, `open`) print to the terminal they were started from. */
export const consoleLog: Logger = {
  info: (message) => console.log(`aioscope: ${message}`),
  warn: (message) => console.warn(`aioscope: ${message}`),
};

/** How long a graceful shutdown may take before the process exits anyway. */
export const SHUTDOWN_GRACE_MS = 15_000;
