import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { ClientConfig } from 'pg';
import { sleep, type Cleanups } from './common.ts';

/** The nearest peer's fastest refresh (its `--refresh` accepts 0.5 at the least). */
export const PEER_REFRESH_SECONDS = 0.5;

export interface PeerMonitor {
  /** The peer's own process (not the pseudo-terminal's `script` around it). */
  pid: number;
  stop(): Promise<void>;
}

function onPath(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Whether pg_activity (Debian's pg-activity) and util-linux's `script` for its terminal are installed. */
export function peerMonitorAvailable(): boolean {
  return onPath('pg_activity') && onPath('script');
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * pg_activity at its fastest refresh watching the cluster, at its defaults otherwise (it also reads
 * the local system's and processes' figures, as a user running it on the database host sees them).
 * It draws with curses, so it runs in a pseudo-terminal of 200 × 50 from `script`. The password travels in PGPASSWORD, not on a command line `ps` shows.
 */
export async function startPeerMonitor(config: ClientConfig, cleanups: Cleanups): Promise<PeerMonitor> {
  const command =
    `stty cols 200 rows 50; exec pg_activity --refresh ${PEER_REFRESH_SECONDS} ` +
    `-h ${String(config.host)} -p ${String(config.port)} -U ${String(config.user)} -d ${String(config.database)}`;
  const script = spawn('script', ['-qfec', command, '/dev/null'], {
    env: { ...process.env, TERM: 'xterm', PGPASSWORD: String(config.password ?? '') },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  // The terminal's last output: where pg_activity says why it ended, if it does.
  let output = '';
  script.stdout.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-2_000)));
  const exited = new Promise<void>((resolve) => script.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (script.exitCode !== null || script.signalCode !== null) return;
    script.kill('SIGTERM');
    await exited;
  };
  cleanups.add('pg_activity', stop);
  const deadline = Date.now() + 15_000;
  for (;;) {
    const pid = script.pid === undefined ? undefined : childrenOf(script.pid)[0];
    const cmdline = pid === undefined ? '' : readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    // Running for a second and still there: it connected (a refused connection exits at once).
    if (pid !== undefined && cmdline.includes('pg_activity')) {
      await sleep(1_000);
      if (childrenOf(script.pid ?? 0).includes(pid)) return { pid, stop };
    }
    if (script.exitCode !== null || Date.now() > deadline) {
      throw new Error(`own cost: pg_activity did not start: ${output.slice(-300).trim() || 'no output'}`);
    }
    await sleep(200);
  }
}
