import { constants } from 'node:fs';
import { access, mkdir, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * Makes `folder` (and its parents) if missing and checks this process may write in it; null when
 * it can be used, else why not, in one line. A data folder found unusable only once recording
 * starts would retry forever in the time bar, or stall a plugin's start.
 */
export async function whyFolderUnusable(folder: string): Promise<string | null> {
  try {
    await makeFolders(path.resolve(folder));
    if (!(await stat(folder)).isDirectory()) return 'ENOTDIR (it is a file)';
    await access(folder, constants.W_OK);
    return null;
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    return code === undefined ? message : `${code} (${message.replace(/^\w+: /, '')})`;
  }
}

/**
 * mkdir -p one level at a time: node's recursive mkdir never returns for a path under /proc
 * (it retries the parent it cannot make), which is how a start once stalled.
 */
async function makeFolders(folder: string): Promise<void> {
  const missing: string[] = [];
  for (let current = folder; !(await exists(current)); current = path.dirname(current)) {
    missing.unshift(current);
    if (path.dirname(current) === current) break;
  }
  for (const level of missing) {
    await mkdir(level).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
