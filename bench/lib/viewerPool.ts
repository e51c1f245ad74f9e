import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { BENCH_ROOT, withTimeout, type Cleanups } from './common.ts';
import type { ViewerReply, ViewerRequest, ViewerStats } from './viewerProtocol.ts';

type RequestBody = ViewerRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/** The parent's handle on bench/viewers.ts: one child process holding N socket.io viewers. */
export class ViewerPool {
  private nextId = 1;
  private readonly pending = new Map<number, (reply: ViewerReply) => void>();
  private exited = false;

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (raw) => {
      const message = raw as ViewerReply;
      this.pending.get(message.id)?.(message);
      this.pending.delete(message.id);
    });
    child.once('exit', () => {
      this.exited = true;
      for (const resolve of this.pending.values()) resolve({ id: 0, ok: false, error: 'viewer process exited' });
      this.pending.clear();
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  static async start(cleanups: Cleanups): Promise<ViewerPool> {
    const child = fork(path.join(BENCH_ROOT, 'viewers.ts'), [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const pool = new ViewerPool(child);
    cleanups.add('viewer process', () => pool.stop());
    await withTimeout(
      new Promise<void>((resolve, reject) => {
        child.once('spawn', () => resolve());
        child.once('error', reject);
      }),
      30_000,
      'viewer process start',
    );
    return pool;
  }

  private async request(body: RequestBody, timeoutMs: number): Promise<ViewerReply> {
    if (this.exited) throw new Error('viewer process exited');
    const id = this.nextId++;
    const reply = new Promise<ViewerReply>((resolve) => this.pending.set(id, resolve));
    this.child.send({ ...body, id } as ViewerRequest);
    const message = await withTimeout(reply, timeoutMs, `viewer request ${body.type}`);
    if (!message.ok) throw new Error(`viewers: ${message.error}`);
    return message;
  }

  /** Viewer i joins targetIds[i % length]: one target ('embedded') unless given; followOwner: as the page does. */
  async setViewers(
    url: string,
    count: number,
    targetIds?: string[],
    followOwner = false,
    headers?: Record<string, string>,
  ): Promise<void> {
    await this.request(
      {
        type: 'setViewers',
        url,
        count,
        ...(targetIds === undefined ? {} : { targetIds }),
        followOwner,
        ...(headers === undefined ? {} : { headers }),
      },
      90_000,
    );
  }

  async measureStart(): Promise<void> {
    await this.request({ type: 'measureStart' }, 10_000);
  }

  async measureStop(): Promise<ViewerStats> {
    const reply = await this.request({ type: 'measureStop' }, 10_000);
    if (reply.ok && reply.type === 'stats') return reply.stats;
    throw new Error('viewers: unexpected reply to measureStop');
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    await this.request({ type: 'exit' }, 5_000).catch(() => undefined);
    await withTimeout(
      new Promise<void>((resolve) => (this.exited ? resolve() : this.child.once('exit', () => resolve()))),
      5_000,
      'viewer process exit',
    ).catch(() => {
      this.child.kill('SIGKILL');
    });
  }
}
