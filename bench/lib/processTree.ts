import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { processCpuSeconds } from './proc.ts';

/** A process and its descendants (a PostgreSQL postmaster and its backends): CPU seconds now. */
export function treeCpuSeconds(rootPid: number): number {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      parents.set(Number(entry), Number(fields[1]));
    } catch {
      // gone meanwhile
    }
  }
  const tree = new Set([rootPid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, parent] of parents)
      if (tree.has(parent) && !tree.has(pid)) {
        tree.add(pid);
        grew = true;
      }
  }
  return [...tree].reduce((sum, pid) => sum + (processCpuSeconds(pid) ?? 0), 0);
}

/** The postmaster's pid of the embedded cluster under rootDir. */
export function postmasterPid(rootDir: string): number {
  for (const entry of readdirSync(rootDir, { recursive: true, encoding: 'utf8' })) {
    if (path.basename(entry) === 'postmaster.pid')
      return Number(readFileSync(path.join(rootDir, entry), 'utf8').split('\n')[0]);
  }
  throw new Error(`no postmaster.pid under ${rootDir}`);
}
