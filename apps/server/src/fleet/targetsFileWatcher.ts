import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { TargetsFileState } from '@aioscope/spec';
import { parseTargetsFile, type FleetTarget } from '../targets/targetsFile.ts';

/** Editors write a file in several steps (truncate, write, rename): read it once they are done. */
export const RELOAD_DEBOUNCE_MS = 300;

/** Reads a targets file into targets, or throws an error whose message names file, line and target. */
export async function readTargetsFile(file: string): Promise<FleetTarget[]> {
  let text: string;
  try {
    text = await readFile(path.resolve(file), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new Error(`${file}: cannot read the targets file (${code})`, { cause: error });
  }
  return parseTargetsFile(text, file);
}

export interface TargetsFileWatcherOptions {
  file: string;
  apply: (targets: FleetTarget[]) => Promise<{ added: string[]; removed: string[] }>;
  log: { info(message: string): void; warn(message: string): void };
  now?: () => number;
}

/**
 * Re-reads the targets file on SIGHUP and when it changes. A file that cannot be used changes
 * nothing: the running set stays and `state.rejected` says why (GET /api/overview shows it).
 * The folder is watched, not the file: an editor that saves by renaming replaces the inode.
 */
export class TargetsFileWatcher {
  private current: TargetsFileState;
  private watcher: FSWatcher | null = null;
  private debounce: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private again = false;
  private readonly now: () => number;
  private readonly onHangUp = (): void => this.schedule(0);

  constructor(private readonly options: TargetsFileWatcherOptions) {
    this.now = options.now ?? Date.now;
    this.current = { path: options.file, loadedAt: this.now(), rejected: null, rejectedAt: null };
  }

  get state(): TargetsFileState {
    return { ...this.current };
  }

  start(): void {
    const resolved = path.resolve(this.options.file);
    const name = path.basename(resolved);
    this.watcher = watch(path.dirname(resolved), (_event, changed) => {
      if (changed === null || changed === name) this.schedule(RELOAD_DEBOUNCE_MS);
    });
    this.watcher.on('error', (error) => this.options.log.warn(`watching ${this.options.file}: ${error.message}`));
    process.on('SIGHUP', this.onHangUp);
  }

  /** Reads the file now (SIGHUP and tests); resolves when this reload and any queued one are done. */
  async reload(): Promise<void> {
    if (this.running !== null) {
      this.again = true;
      return this.running;
    }
    this.running = this.readAndApply().finally(() => (this.running = null));
    await this.running;
    if (this.again) {
      this.again = false;
      await this.reload();
    }
  }

  async close(): Promise<void> {
    clearTimeout(this.debounce);
    process.off('SIGHUP', this.onHangUp);
    this.watcher?.close();
    this.watcher = null;
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.watcher === null) return;
    clearTimeout(this.debounce);
    this.debounce = setTimeout(() => void this.reload(), delayMs);
  }

  private async readAndApply(): Promise<void> {
    let targets: FleetTarget[];
    try {
      targets = await readTargetsFile(this.options.file);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.current = { ...this.current, rejected: message, rejectedAt: this.now() };
      this.options.log.warn(`${message}; the targets already running are kept`);
      return;
    }
    const { added, removed } = await this.options.apply(targets);
    this.current = { path: this.options.file, loadedAt: this.now(), rejected: null, rejectedAt: null };
    if (added.length > 0 || removed.length > 0)
      this.options.log.info(
        `${this.options.file} reloaded: ${added.length} started, ${removed.length} stopped (${targets.length} targets)`,
      );
  }
}
