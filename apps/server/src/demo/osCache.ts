import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** PostgreSQL splits a relation into 1 GB segment files: base, base.1, base.2, ... */
export const SEGMENT_BYTES = 1024 ** 3;

export function segmentPaths(basePath: string, relationBytes: number): string[] {
  const segments = Math.max(1, Math.ceil(relationBytes / SEGMENT_BYTES));
  return Array.from({ length: segments }, (_, index) => (index === 0 ? basePath : `${basePath}.${index}`)).filter(
    (file) => existsSync(file),
  );
}

/**
 * Drops files from the OS page cache. Node has no posix_fadvise binding; coreutils does it on every
 * Linux machine: `sync FILE` writes dirty pages (DONTNEED skips those), then
 * `dd iflag=nocache count=0` is documented to advise POSIX_FADV_DONTNEED on the whole file.
 */
export async function dropFromOsCache(files: readonly string[]): Promise<void> {
  if (files.length === 0) return;
  await execFileAsync('sync', [...files]);
  await Promise.all(
    files.map((file) => execFileAsync('dd', [`if=${file}`, 'iflag=nocache', 'count=0', 'status=none'])),
  );
}

/** Share of the files' pages resident in the OS page cache (0..1), measured with util-linux fincore. */
export async function osCacheResidency(files: readonly string[]): Promise<number> {
  let resident = 0;
  let total = 0;
  for (const file of files) {
    const { stdout } = await execFileAsync('fincore', [
      '--bytes',
      '--noheadings',
      '--raw',
      '--output',
      'RES,SIZE',
      file,
    ]);
    const [res, size] = stdout.trim().split(/\s+/).map(Number);
    resident += res ?? 0;
    total += size ?? 0;
  }
  return total === 0 ? 0 : resident / total;
}
