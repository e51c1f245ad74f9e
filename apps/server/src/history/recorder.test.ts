import { describe, expect, it } from 'vitest';
import type { AuditReport, HistoryEvent, TargetStatus } from '@aioscope/spec';
import { buildPayloads, recordedServers } from '@aioscope/core/testing';
import { AuditCache } from '../metrics/auditCache.ts';
import { MonitorEmitter } from '../sampler/monitorEvents.ts';
import { Recorder } from './recorder.ts';
import type { PendingRow } from './storeEngine.ts';

const payloads = buildPayloads(recordedServers()[0] ?? raise('no recorded server'));
const { server, capabilities } = payloads.summary;

function raise(message: string): never {
  throw new Error(message);
}

const statusOf = (state: TargetStatus['state'], since: number): TargetStatus => ({
  state,
  since,
  message: null,
  lastFrameAt: null,
  skippedTicks: 0,
});

/** A recorder on the monitor's own emitter and a real audit cache whose reads are counted. */
function recorderOf(reports: AuditReport[]) {
  const monitor = new MonitorEmitter(() => undefined);
  const rows: PendingRow[] = [];
  let reads = 0;
  const audits = new AuditCache(() =>
    Promise.resolve(reports[Math.min(reads++, reports.length - 1)] ?? payloads.audit),
  );
  const summary = { ...payloads.summary, status: statusOf('connecting', 1), server: null, capabilities: null };
  const recorder = new Recorder(
    { id: summary.id, on: monitor.on.bind(monitor) },
    { enqueue: (row) => rows.push(row) },
    summary,
    audits,
  );
  const events = (): HistoryEvent[] => rows.flatMap((row) => (row.table === 'event' ? [row.event] : []));
  return { monitor, recorder, audits, events, reads: () => reads };
}

describe('the recorder following the settings audit', () => {
  if (server === null || capabilities === null) throw new Error('the recording has no server info');

  it('reads the first audit once the target is live, though the server info came before', async () => {
    const { monitor, recorder, audits, reads } = recorderOf([payloads.audit]);
    recorder.start(null);
    // A monitor reads the server info on connecting, before its first live status.
    monitor.emit('serverInfo', { server, capabilities });
    expect(reads()).toBe(0);
    monitor.emit('status', statusOf('live', 2));
    await audits.settled();
    expect(reads()).toBe(1);
    expect(audits.current(false)).toEqual(payloads.audit);
    recorder.stop();
  });

  it('marks nothing for the first report, and each finding whose level changed after', async () => {
    const first = payloads.audit;
    const changed = present(first.findings[0]);
    const second: AuditReport = {
      ...first,
      checkedAt: first.checkedAt + 1,
      findings: first.findings.map((finding) =>
        finding === changed ? { ...finding, level: finding.level === 'warn' ? 'pass' : 'warn' } : finding,
      ),
    };
    const { monitor, recorder, audits, events } = recorderOf([first, second]);
    recorder.start(null);
    monitor.emit('status', statusOf('live', 2));
    await audits.settled();
    expect(events().filter((event) => event.kind === 'auditChanged')).toEqual([]);
    await audits.refresh();
    const was = changed.level;
    const is = was === 'warn' ? 'pass' : 'warn';
    expect(events().filter((event) => event.kind === 'auditChanged')).toEqual([
      { t: second.checkedAt, kind: 'auditChanged', message: `audit: ${changed.title} ${was} → ${is}` },
    ]);
    recorder.stop();
  });
});

function present<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('the recorded audit has no findings');
  return value;
}
