import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT_PREFIX = 'aioscope-opened-';
const OWNER_FILE = 'owner.pid';
/** A root without its owner file may be one another process is making this very moment. */
const NEW_ROOT_GRACE_MS = 60_000;

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Folders for opened recordings (an upload, its database), under one root per process in the OS's
 * temporary folder: never the data folder, which `open FILE` must not touch. The root names its
 * owner's pid, so roots left by a process that was killed are removed by the next one.
 */
export class TemporaryFolders {
  private root: Promise<string> | null = null;
  private made = 0;

  constructor(private readonly parent: string = tmpdir()) {}

  async create(): Promise<string> {
    const folder = path.join(await this.ensureRoot(), String(++this.made));
    await mkdir(folder);
    return folder;
  }

  async remove(folder: string): Promise<void> {
    await rm(folder, { recursive: true, force: true });
  }

  async removeAll(): Promise<void> {
    const root = this.root;
    this.root = null;
    if (root !== null) await rm(await root, { recursive: true, force: true }).catch(() => undefined);
  }

  private ensureRoot(): Promise<string> {
    this.root ??= (async () => {
      await removeAbandonedRoots(this.parent);
      const root = await mkdtemp(path.join(this.parent, ROOT_PREFIX));
      await writeFile(path.join(root, OWNER_FILE), String(process.pid));
      return root;
    })();
    return this.root;
  }
}

/** Roots whose owner is no longer running (a kill -9, a crash): what they hold is nobody's. */
export async function removeAbandonedRoots(parent: string): Promise<string[]> {
  const names = await readdir(parent).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(ROOT_PREFIX)) continue;
    const root = path.join(parent, name);
    const owner = await readFile(path.join(root, OWNER_FILE), 'utf8').catch(() => null);
    if (owner === null) {
      const made = await stat(root).catch(() => null);
      if (made === null || Date.now() - made.mtimeMs < NEW_ROOT_GRACE_MS) continue;
    } else {
      const pid = Number(owner);
      if (Number.isInteger(pid) && pid > 0 && isRunning(pid)) continue;
    }
    await rm(root, { recursive: true, force: true }).catch(() => undefined);
    removed.push(root);
  }
  return removed;
}
