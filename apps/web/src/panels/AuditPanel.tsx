import { memo, type ReactNode } from 'react';
import type { TargetSummary } from '@aioscope/spec';
import { useAudit } from '../api/targetDetails.ts';
import { formatClockTime } from '../format.ts';
import { EmptyState, Panel } from './Panel.tsx';
import { refusedReason } from './reasons.ts';

const LEVEL_LABEL = { pass: 'pass', warn: 'warn', info: 'info' } as const;

/** Memoized: it changes with the audit's REST data, not with the 10 Hz page renders. */
export const AuditPanel = memo(function AuditPanel({
  target,
  connected,
}: {
  target: TargetSummary | undefined;
  /** Whether aioscope's session to the server is up: the audit is asked for only then. */
  connected: boolean;
}): ReactNode {
  const audit = useAudit(target?.id, connected);
  return (
    <Panel
      title="Settings audit"
      testId="panel-audit"
      source={`pg_settings (source, sourcefile), pg_tablespace, pg_db_role_setting, pg_config · re-read every 30 s${audit.data ? ` · checked ${formatClockTime(audit.data.checkedAt)}` : ''}`}
    >
      {audit.isError ? (
        <EmptyState>{audit.error.message}</EmptyState>
      ) : audit.data === undefined ? (
        <EmptyState>
          {connected
            ? 'Loading …'
            : (refusedReason(target, 'Not audited') ?? 'Waiting for the connection to the server …')}
        </EmptyState>
      ) : (
        // On a narrow screen each finding becomes a stacked card (styles.css), not five squeezed columns.
        <table className="audit">
          <thead>
            <tr>
              <th>check</th>
              <th>setting</th>
              <th>value</th>
              <th>from</th>
              <th>why</th>
            </tr>
          </thead>
          <tbody>
            {audit.data.findings.map((finding, index) => (
              <tr key={`${finding.rule}-${index}`} data-testid={`audit-${finding.rule}`} data-level={finding.level}>
                <td>
                  <span className={`level level-${finding.level}`}>{LEVEL_LABEL[finding.level]}</span>
                </td>
                <td>{finding.title}</td>
                <td className="num">{finding.value}</td>
                <td className="source">{finding.source}</td>
                <td className="why">{finding.why}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Panel>
  );
});
