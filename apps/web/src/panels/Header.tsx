import type { ReactNode } from 'react';
import type { TargetSummary } from '@aioscope/spec';
import { formatClockTime, formatDuration } from '../format.ts';
import { describeRange } from '../timeline/timeView.ts';
import { STALE_AFTER_MS, type LiveConnection } from '../live/liveStore.ts';
import { headerSettings, ioMethodOfTarget } from './ioMethodView.ts';
import { Explain } from './Panel.tsx';
import { UserBadge } from './UserBadge.tsx';
import { ThemeToggle } from '../app/ThemeToggle.tsx';

/** Settings shown in the header, in the order a DBA reads them. */
const HEADER_SETTINGS = [
  'io_method',
  'io_workers',
  'io_max_workers',
  'effective_io_concurrency',
  'maintenance_io_concurrency',
  'io_combine_limit',
  'io_max_combine_limit',
  'io_max_concurrency',
  'shared_buffers',
  'track_io_timing',
];

export interface HeaderProps {
  target: TargetSummary | undefined;
  /** The live store's connection as of this render (useBucketClock). */
  connection: LiveConnection;
  now: number;
  theme: 'dark' | 'light';
  onToggleTheme: () => void;
  /** Buttons for the whole page (present), at the right of the title row before the theme toggle. */
  actions?: ReactNode;
}

function connectionBadge(
  target: TargetSummary | undefined,
  store: LiveConnection,
  now: number,
): { label: string; tone: string; detail: string } {
  // A recording file has no live stream to connect to: the badge says what is shown instead.
  const file = target?.recording;
  if (file) {
    return {
      label: 'recording file',
      tone: 'muted',
      detail: `${file.fileName}: ${describeRange(file.from, file.to)} (${formatDuration(file.to - file.from, 'span')}), recorded earlier; no live stream.`,
    };
  }
  // Removed from the targets file: nothing is sampled any more, its recorded past is shown.
  if (target?.unwatchedSince !== undefined) {
    return {
      label: 'no longer watched',
      tone: 'muted',
      detail: `Removed from the targets file at ${formatClockTime(target.unwatchedSince)}: what was recorded stays readable; nothing new is sampled.`,
    };
  }
  if (store.socketState !== 'connected') {
    return {
      label: store.socketState === 'connecting' ? 'connecting to aioscope' : 'aioscope unreachable',
      tone: 'bad',
      detail: store.socketError ?? '',
    };
  }
  const status = store.status ?? target?.status;
  if (status === undefined) return { label: 'connecting', tone: 'warn', detail: '' };
  const age = store.lastReceivedAt === null ? null : now - store.lastReceivedAt;
  if (status.state === 'live' && age !== null && age > STALE_AFTER_MS) {
    return {
      label: `stale: last sample ${formatDuration(age, 'age')} ago`,
      tone: 'warn',
      detail: status.message ?? '',
    };
  }
  switch (status.state) {
    case 'live':
      return { label: 'live', tone: status.message === null ? 'good' : 'warn', detail: status.message ?? '' };
    case 'connecting':
      return { label: 'connecting to PostgreSQL', tone: 'warn', detail: status.message ?? '' };
    case 'reconnecting':
      return { label: 'reconnecting', tone: 'bad', detail: status.message ?? '' };
    case 'error':
      // The server answered and cannot be watched (older than 16, …): the overview's word for it.
      return { label: 'refused', tone: 'bad', detail: status.message ?? '' };
  }
}

export function Header({ target, connection, now, theme, onToggleTheme, actions }: HeaderProps): ReactNode {
  const badge = connectionBadge(target, connection, now);
  const settings = target?.server?.settings ?? [];
  // io_workers and friends do nothing under io_uring or sync: not shown as if they mattered.
  const shown = headerSettings(settings, HEADER_SETTINGS, ioMethodOfTarget(target));
  return (
    <header className="app-header">
      <div className="title-row">
        <h1>
          aioscope <span className="subtitle">live PostgreSQL asynchronous I/O</span>
        </h1>
        <div className="target" data-testid="target-name">
          {target?.name ?? '…'}
          {target?.server ? <span className="version"> · PostgreSQL {target.server.version}</span> : null}
          {target?.demoWorkload ? (
            <span className="demo-badge">
              demo workload{' '}
              <Explain label="the demo workload">
                aioscope runs cold sequential scans of its demo table on the embedded server, with pauses.
              </Explain>
            </span>
          ) : null}
        </div>
        {/* The badge's detail, when there is one, is the status line under the title row. */}
        <div className={`badge badge-${badge.tone}`} data-testid="connection-state">
          {badge.label}
        </div>
        <div className="rates">
          pg_aios + wait events: {target?.sampleRateHz ?? '–'} Hz · pg_stat_io: {target?.statRateHz ?? '–'} Hz
          {target?.replica !== undefined ? (
            <span data-testid="sampled-by"> · sampled by replica {target.replica}</span>
          ) : null}{' '}
          <Explain label="sample rates">
            How often each source is read. Every figure on this page comes from one of these.
            {target?.replica !== undefined
              ? ` Replicas share the servers to watch: replica ${target.replica} samples this one, and any replica shows it live.`
              : ''}
          </Explain>
        </div>
        <div className="header-actions">
          <UserBadge />
          {/* The buttons wrap as one: on a phone the name may take a line of its own, never one button. */}
          <div className="header-buttons">
            {actions}
            {/* Named by its visible text, so a voice user can say what they see. */}
            <ThemeToggle theme={theme} onToggle={onToggleTheme} />
          </div>
        </div>
      </div>
      {badge.detail !== '' ? <div className={`status-detail status-${badge.tone}`}>{badge.detail}</div> : null}
      <div className="settings-row">
        {/* One (i) for the whole row, before it: ten more tab stops would stand between a keyboard and the panels. */}
        <span className="settings-label">
          settings{' '}
          <Explain label="where these settings come from">
            From pg_settings; where each value was set:
            {shown.map((setting) => (
              <span key={setting.name} className="settings-source">
                {setting.name}: {setting.source}
                {setting.sourcefile ? ` (${setting.sourcefile})` : ''}
              </span>
            ))}
          </Explain>
        </span>
        <dl className="settings" aria-label="I/O settings">
          {shown.map((setting) => (
            <div key={setting.name} className="setting">
              <dt>{setting.name}</dt>
              <dd>{setting.display}</dd>
            </div>
          ))}
        </dl>
      </div>
    </header>
  );
}
