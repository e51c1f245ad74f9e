import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Every series carries the target's id (stable) and its display name (for people). */
export const TARGET_LABELS = ['target', 'target_name'] as const;
type TargetLabel = (typeof TARGET_LABELS)[number];

const AIOS = 'pg_aios, sampled at the fast tick rate (default 20 Hz, --rate)';
const ACTIVITY = 'pg_stat_activity, sampled at the fast tick rate (default 20 Hz, --rate)';
const STAT_IO = 'pg_stat_io, read at 1 Hz; relation and temp relation reads, WAL left out';
const INTERVAL = 'over the interval since the previous scrape by the same scraper';
const SINCE_WATCHED = 'since aioscope started watching the target';
const SINCE_START = `${SINCE_WATCHED}; reset intervals skipped`;

/** Sample round trips are sub-millisecond on a quiet server and seconds on a stuck one. */
const SAMPLE_BUCKETS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

function defineFamilies(registry: Registry) {
  const registers = [registry];
  const gauge = <L extends string = never>(name: string, help: string, extra: readonly L[] = []) =>
    new Gauge<TargetLabel | L>({ name, help, labelNames: [...TARGET_LABELS, ...extra], registers });
  const counter = <L extends string = never>(name: string, help: string, extra: readonly L[] = []) =>
    new Counter<TargetLabel | L>({ name, help, labelNames: [...TARGET_LABELS, ...extra], registers });

  return {
    targetInfo: gauge(
      'aioscope_target_info',
      'A watched target (always 1): its kind, version (also of a server too old to watch) and io_method (absent before PostgreSQL 18) from pg_settings, re-read every 30 s.',
      ['kind', 'version', 'io_method'],
    ),
    connectionState: gauge(
      'aioscope_connection_state',
      "1 for the target's current connection state of the fast sampler, 0 for the others.",
      ['state'],
    ),
    rolePrivilege: gauge(
      'aioscope_role_privilege',
      "1 when aioscope's role has the privilege, 0 when not (GRANT pg_read_all_stats or pg_monitor): read_pg_aios (reads in flight; absent before 18), see_all_activity (other sessions' wait events). Re-read every 30 s (5 s while missing).",
      ['privilege'],
    ),
    sampleRate: gauge(
      'aioscope_sample_rate_hertz',
      'Configured fast tick rate (pg_aios + pg_stat_activity samples per second).',
    ),
    achievedRate: gauge(
      'aioscope_sample_achieved_rate_hertz',
      `Samples received per second of aioscope's clock, ${INTERVAL}.`,
    ),
    lastSampleAge: gauge(
      'aioscope_last_sample_age_seconds',
      'Seconds since the newest sample arrived (since aioscope started watching, if none did).',
    ),
    samples: counter('aioscope_samples_total', `Fast tick samples received ${SINCE_WATCHED}.`),
    skippedTicks: counter(
      'aioscope_skipped_ticks_total',
      'Fast ticks skipped because the previous sample was still running, since aioscope started.',
    ),
    sampleDuration: new Histogram<TargetLabel>({
      name: 'aioscope_sample_duration_seconds',
      help: 'Round trip of the fast tick query (pg_aios + pg_stat_activity in one statement), as aioscope measures it.',
      labelNames: [...TARGET_LABELS],
      buckets: SAMPLE_BUCKETS,
      registers,
    }),

    readsInFlight: gauge(
      'aioscope_reads_in_flight',
      `Read I/Os in flight in the newest sample (${AIOS}, operation readv).`,
    ),
    readsInFlightMax: gauge(
      'aioscope_reads_in_flight_max',
      `Most read I/Os in flight in one sample ${INTERVAL} (${AIOS}).`,
    ),
    readsInFlightMean: gauge(
      'aioscope_reads_in_flight_mean',
      `Mean read I/Os in flight per sample ${INTERVAL} (${AIOS}).`,
    ),
    bytesInFlight: gauge(
      'aioscope_reads_in_flight_bytes',
      `Bytes of the read I/Os in flight in the newest sample (${AIOS}, length).`,
    ),
    bytesInFlightMax: gauge(
      'aioscope_reads_in_flight_max_bytes',
      `Most bytes of reads in flight in one sample ${INTERVAL} (${AIOS}).`,
    ),
    bytesInFlightMean: gauge(
      'aioscope_reads_in_flight_mean_bytes',
      `Mean bytes of reads in flight per sample ${INTERVAL} (${AIOS}).`,
    ),
    liveReadSize: gauge(
      'aioscope_aios_read_size_bytes',
      `Mean length of the distinct reads first seen ${INTERVAL} (${AIOS}); absent when none was seen.`,
    ),
    // "sampled": a read that starts and ends between two samples is never seen, so these are the
    // share of reads that pg_aios showed, not throughput (pg_stat_io_read_bytes_total is).
    newReads: counter(
      'aioscope_aios_sampled_reads_total',
      `Distinct read I/Os seen in flight in pg_aios samples (a read seen in several samples counts once): the sampled share of reads, not all of them (pg_stat_io_reads_total counts all), ${SINCE_WATCHED}.`,
    ),
    newReadBytes: counter(
      'aioscope_aios_sampled_read_bytes_total',
      `Bytes of the distinct read I/Os seen in flight in pg_aios samples: the sampled share, not throughput (pg_stat_io_read_bytes_total is), ${SINCE_WATCHED}.`,
    ),
    exactReadSize: gauge(
      'aioscope_stat_io_read_size_bytes',
      `Bytes per read, exact: read_bytes / reads over the last 10 s (${STAT_IO}); absent without reads.`,
    ),
    ioCombineLimit: gauge(
      'aioscope_io_combine_limit_bytes',
      'io_combine_limit from pg_settings (re-read every 30 s): the largest read AIO combines adjacent blocks into.',
    ),

    ioWorkers: gauge(
      'aioscope_io_workers',
      `io workers in the newest sample (${ACTIVITY}); only under io_method = worker.`,
    ),
    workerBusy: gauge(
      'aioscope_io_worker_busy_ratio',
      `Share of (io worker x sample) pairs with the worker busy (any wait but IoWorkerMain) ${INTERVAL} (${ACTIVITY}).`,
    ),
    workerSamples: counter(
      'aioscope_io_worker_samples_total',
      `io worker x sample pairs seen (${ACTIVITY}); busy_samples / samples is the busy share over any range.`,
    ),
    workerBusySamples: counter(
      'aioscope_io_worker_busy_samples_total',
      `io worker x sample pairs with the worker busy (${ACTIVITY}).`,
    ),
    backlog: gauge(
      'aioscope_io_worker_backlog',
      `SUBMITTED reads waiting for an io worker in the newest sample (${AIOS}); only under io_method = worker.`,
    ),
    backlogMax: gauge(
      'aioscope_io_worker_backlog_max',
      `Largest io worker backlog in one sample ${INTERVAL} (${AIOS}).`,
    ),
    backlogMean: gauge('aioscope_io_worker_backlog_mean', `Mean io worker backlog per sample ${INTERVAL} (${AIOS}).`),

    waiting: gauge(
      'aioscope_aio_waiting_processes',
      `Processes in an AIO-related wait event in the newest sample (${ACTIVITY}); idle io workers (IoWorkerMain) left out: see io_workers and io_worker_busy_ratio.`,
      ['backend_type', 'wait_event'],
    ),
    waitingMean: gauge(
      'aioscope_aio_waiting_processes_mean',
      `Mean processes in an AIO-related wait event per sample ${INTERVAL} (${ACTIVITY}); idle io workers (IoWorkerMain) left out.`,
      ['backend_type', 'wait_event'],
    ),

    statReads: counter(
      'aioscope_pg_stat_io_reads_total',
      `Read operations by backend_type, object and context, e.g. context bulkread for large sequential scans (${STAT_IO}), ${SINCE_START}.`,
      ['backend_type', 'object', 'context'],
    ),
    statReadBytes: counter(
      'aioscope_pg_stat_io_read_bytes_total',
      `Bytes read by backend_type, object and context (${STAT_IO}), ${SINCE_START}.`,
      ['backend_type', 'object', 'context'],
    ),
    statReadTime: counter(
      'aioscope_pg_stat_io_read_time_seconds_total',
      `Time spent waiting for reads by backend_type, object and context, needs track_io_timing (${STAT_IO}), ${SINCE_START}.`,
      ['backend_type', 'object', 'context'],
    ),
    statResets: counter(
      'aioscope_pg_stat_io_reset_intervals_total',
      `pg_stat_io intervals skipped because the counters were reset or went backwards (${STAT_IO}).`,
    ),

    // The state is the value and the labels name the rule only, so a setting that changes keeps
    // its series; what the rule saw is in audit_rule_info.
    auditWarning: gauge(
      'aioscope_audit_rule_warning',
      '1 when a settings audit rule warns, 0 when it passes or informs (pg_settings, pg_tablespace; refreshed at most every 30 s while scraped).',
      ['rule', 'title'],
    ),
    auditInfo: gauge(
      'aioscope_audit_rule_info',
      'A settings audit rule (always 1): its level (pass, warn, info) and the value it looked at, as PostgreSQL shows it; join on rule and title with audit_rule_warning.',
      ['rule', 'title', 'level', 'value'],
    ),
    auditCheckedAt: gauge(
      'aioscope_audit_checked_timestamp_seconds',
      "Server clock when the settings audit's inputs were read, seconds since the epoch.",
    ),
  };
}

export type MetricFamilies = ReturnType<typeof defineFamilies>;

/** The aioscope_ metrics, registered on one registry. Names and units follow Prometheus conventions. */
export function createMetricFamilies(registry: Registry): MetricFamilies {
  return defineFamilies(registry);
}
