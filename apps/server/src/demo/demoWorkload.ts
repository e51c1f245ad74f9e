import pg from 'pg';
import type { ClientConfig } from 'pg';
import { DEMO_SCANNER_SETTINGS_SQL, DEMO_SCANS } from '@aioscope/core';
import { makeDemoTableCold, type DemoTableInfo } from './demoTable.ts';

/** Concurrent scanners per burst: two processes reading at once make worker sharing visible. */
export const DEMO_SCANNERS = 2;
/** Pause between bursts, so a newcomer sees reads start and stop. */
export const DEMO_PAUSE_MS = 1_500;

export interface DemoWorkloadEvents {
  onBurst?: (result: { ms: number; osResidencyBefore: number }) => void;
  onError?: (message: string) => void;
}

/**
 * The demo: cold sequential scans of the demo table in a loop. Each burst evicts the table from
 * shared buffers and the OS page cache, then runs DEMO_SCANNERS scans of the whole table at once.
 */
export class DemoWorkload {
  private stopped = false;
  private sessions: pg.Client[] = [];
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private paused = false;
  private idle: (() => void) | null = null;

  constructor(
    private readonly clientConfig: ClientConfig,
    private readonly table: DemoTableInfo,
    private readonly events: DemoWorkloadEvents = {},
  ) {}

  /** Stops starting new bursts and waits for the current one to end (the scan lab needs a quiet server). */
  async pause(): Promise<void> {
    this.paused = true;
    if (this.burstRunning) await new Promise<void>((resolve) => (this.idle = resolve));
  }

  resume(): void {
    this.paused = false;
    this.wake?.();
  }

  private burstRunning = false;

  start(): void {
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await Promise.all(this.sessions.map((client) => client.end().catch(() => undefined)));
    await this.loop?.catch(() => undefined);
  }

  private async connect(name: string): Promise<pg.Client> {
    const client = new pg.Client({ ...this.clientConfig, application_name: `aioscope demo ${name}` });
    client.on('error', () => undefined);
    await client.connect();
    // One process per scan: parallel workers would split it and blur the picture. Each scan reads
    // the table itself from block 0: a synchronized scan would ride the other's buffers (hits, no
    // I/O of its own) for part of its way.
    for (const sql of DEMO_SCANNER_SETTINGS_SQL) await client.query(sql);
    this.sessions.push(client);
    return client;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        const [control, ...scanners] = await Promise.all(
          ['control', ...Array.from({ length: DEMO_SCANNERS }, (_, i) => `scan ${i + 1}`)].map((name) =>
            this.connect(name),
          ),
        );
        while (!this.stopped && control !== undefined) {
          if (this.paused) {
            await this.sleep(DEMO_PAUSE_MS);
            continue;
          }
          this.burstRunning = true;
          const osResidencyBefore = await makeDemoTableCold(control, this.table);
          const started = performance.now();
          await Promise.all(
            scanners.map((scanner, index) => scanner.query(DEMO_SCANS[index % DEMO_SCANS.length] ?? '')),
          );
          this.events.onBurst?.({ ms: performance.now() - started, osResidencyBefore });
          this.burstRunning = false;
          this.idle?.();
          this.idle = null;
          await this.sleep(DEMO_PAUSE_MS);
        }
      } catch (error) {
        this.burstRunning = false;
        this.idle?.();
        this.idle = null;
        if (this.stopped) return;
        this.events.onError?.(error instanceof Error ? error.message : String(error));
        await Promise.all(this.sessions.splice(0).map((client) => client.end().catch(() => undefined)));
        await this.sleep(2_000);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
