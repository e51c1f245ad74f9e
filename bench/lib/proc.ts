import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';

/** Kernel clock ticks per second, the unit of utime/stime in /proc/<pid>/stat. */
export const CLOCK_TICKS: number = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime in seconds of a /proc stat file (a process's or one thread's). */
function cpuSecondsOf(statFile: string): number {
  const stat = readFileSync(statFile, 'utf8');
  // The command name (field 2) may contain spaces and parentheses: split after its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the name: field 3 (state) is index 0, so utime (14) is index 11 and stime (15) index 12.
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** utime + stime of a process in seconds, or null when it is gone or unreadable. */
export function processCpuSeconds(pid: number): number | null {
  try {
    return cpuSecondsOf(`/proc/${pid}/stat`);
  } catch {
    return null;
  }
}

/** One thread of a process: its name (Node 22+ names its V8Worker and libuv-worker threads) and CPU. */
export interface ThreadCpu {
  tid: number;
  name: string;
  seconds: number;
}

/** utime + stime of each thread of a process (the main thread's tid is the pid); empty when it is gone. */
export function threadCpuSeconds(pid: number): ThreadCpu[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((entry) => {
      try {
        const dir = `/proc/${pid}/task/${entry}`;
        return [
          {
            tid: Number(entry),
            name: readFileSync(`${dir}/comm`, 'utf8').trim(),
            seconds: cpuSecondsOf(`${dir}/stat`),
          },
        ];
      } catch {
        return []; // the thread ended between the listing and the read
      }
    });
  } catch {
    return [];
  }
}

/** Resident set size of a process in bytes (VmRSS), or null. */
export function processRssBytes(pid: number = process.pid): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match === null ? null : Number(match[1]) * 1024;
  } catch {
    return null;
  }
}

/** Total CPU time of the whole machine (all cores, busy + idle) in seconds, for a load-share figure. */
export function machineCpuSeconds(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  const total = values.reduce((sum, value) => sum + value, 0);
  return { busy: (total - idle) / CLOCK_TICKS, total: total / CLOCK_TICKS };
}

export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  memory: string;
  node: string;
  kernel: string;
  loadAverage: number[];
}

export function machineInfo(): MachineInfo {
  let memory = `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`;
  try {
    const free = execFileSync('free', ['-h'], { encoding: 'utf8' }).split('\n')[1] ?? '';
    const total = free.trim().split(/\s+/)[1];
    if (total !== undefined) memory = total;
  } catch {
    // free is missing: os.totalmem() will do
  }
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  return {
    cpus: os.availableParallelism(),
    cpuModel: /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? os.cpus()[0]?.model ?? 'unknown',
    memory,
    node: process.version,
    kernel: `${os.type()} ${os.release()}`,
    loadAverage: os.loadavg().map((value) => Math.round(value * 100) / 100),
  };
}

/** A CPU-time meter for this process: share of one core between start() and read(). */
export class SelfCpuMeter {
  private startedAt = performance.now();
  private startUsage = process.cpuUsage();

  restart(): void {
    this.startedAt = performance.now();
    this.startUsage = process.cpuUsage();
  }

  /** Percent of one core since start(), user + system. */
  read(): { percentOfCore: number; seconds: number; wallSeconds: number } {
    const usage = process.cpuUsage(this.startUsage);
    const seconds = (usage.user + usage.system) / 1e6;
    const wallSeconds = (performance.now() - this.startedAt) / 1000;
    return { percentOfCore: (100 * seconds) / wallSeconds, seconds, wallSeconds };
  }
}
