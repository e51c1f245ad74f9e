import type { AuditReport, IoStatDelta, LiveFrame, TargetSummary } from '@aioscope/spec';
import { MonitorEmitter } from '../sampler/monitorEvents.ts';
import type { MetricsSource } from './metricsExporter.ts';

/**
 * Test and bench only: a target that replays recorded payloads through the same typed emitter a
 * TargetMonitor uses, so /metrics is exercised with real servers' frames and no database.
 */
export class ReplaySource implements MetricsSource {
  readonly id: string;
  auditReads = 0;
  private readonly emitter = new MonitorEmitter((event, error) => {
    throw new Error(`a ${event} consumer failed: ${String(error)}`);
  });

  constructor(
    public target: TargetSummary,
    public auditReport: AuditReport,
    /** What the server answered to the version query; the summary's by default. */
    private readonly answeredVersion: string | null = target.server?.version ?? null,
  ) {
    this.id = target.id;
  }

  on: MetricsSource['on'] = (event, listener) => this.emitter.on(event, listener);

  summary(): TargetSummary {
    return this.target;
  }

  serverVersion(): string | null {
    return this.answeredVersion;
  }

  audit(): Promise<AuditReport> {
    this.auditReads++;
    return Promise.resolve(this.auditReport);
  }

  emitFrame(frame: LiveFrame): void {
    this.emitter.emit('frame', frame);
  }

  emitIoDelta(delta: IoStatDelta): void {
    this.emitter.emit('ioDelta', delta);
  }

  listenerCount(): number {
    return this.emitter.listenerCount('frame') + this.emitter.listenerCount('ioDelta');
  }
}
