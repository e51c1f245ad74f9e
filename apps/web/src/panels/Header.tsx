import type { ReactNode } from 'react';
import type { TargetSummary } from '@aioscope/spec';
import { formatAge } from '../format.ts';
import { STALE_AFTER_MS, type LiveStore } from '../live/liveStore.ts';

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
  store: LiveStore;
  now: number;
  theme: 'dark' | 'light';
  onToggleTheme: () => void;
}

function connectionBadge(
  target: TargetSummary | undefined,
  store: LiveStore,
  now: number,
): { label: string; tone: string; detail: string } {
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
    return { label: `stale: last sample ${formatAge(age)} ago`, tone: 'warn', detail: status.message ?? '' };
  }
  switch (status.state) {
    case 'live':
      return { label: 'live', tone: status.message === null ? 'good' : 'warn', detail: status.message ?? '' };
    case 'connecting':
      return { label: 'connecting to PostgreSQL', tone: 'warn', detail: status.message ?? '' };
    case 'reconnecting':
      return { label: 'reconnecting', tone: 'bad', detail: status.message ?? '' };
    case 'error':
      return { label: 'error', tone: 'bad', detail: status.message ?? '' };
  }
}

export function Header({ target, store, now, theme, onToggleTheme }: HeaderProps): ReactNode {
  const badge = connectionBadge(target, store, now);
  const settings = target?.server?.settings ?? [];
  const shown = HEADER_SETTINGS.flatMap((name) => settings.filter((setting) => setting.name === name));
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
            <span
              className="demo-badge"
              title="aioscope runs cold sequential scans of its demo table on the embedded server, with pauses."
            >
              demo workload
            </span>
          ) : null}
        </div>
        <div className={`badge badge-${badge.tone}`} data-testid="connection-state" title={badge.detail}>
          {badge.label}
        </div>
        <div
          className="rates"
          title="How often each source is read. Every figure on this page comes from one of these."
        >
          pg_aios + wait events: {target?.sampleRateHz ?? '–'} Hz · pg_stat_io: {target?.statRateHz ?? '–'} Hz
        </div>
        <button type="button" className="theme-toggle" onClick={onToggleTheme} aria-label="switch colour theme">
          {theme === 'dark' ? 'light theme' : 'dark theme'}
        </button>
      </div>
      {badge.detail !== '' ? <div className={`status-detail status-${badge.tone}`}>{badge.detail}</div> : null}
      <dl className="settings" aria-label="I/O settings">
        {shown.map((setting) => (
          <div
            key={setting.name}
            className="setting"
            title={`${setting.name} = ${setting.display} (source: ${setting.source}${setting.sourcefile ? `, ${setting.sourcefile}` : ''}; from pg_settings)`}
          >
            <dt>{setting.name}</dt>
            <dd>{setting.display}</dd>
          </div>
        ))}
      </dl>
    </header>
  );
}
