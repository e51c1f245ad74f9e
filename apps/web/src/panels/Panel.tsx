import type { ReactNode } from 'react';

export interface PanelProps {
  title: string;
  /** Where the figures come from and at what rate: shown under the title, always. */
  source: string;
  children: ReactNode;
  testId: string;
}

export function Panel({ title, source, children, testId }: PanelProps): ReactNode {
  return (
    <section className="panel" data-testid={testId} aria-label={title}>
      <header className="panel-header">
        <h2>{title}</h2>
        <p className="panel-source">{source}</p>
      </header>
      {children}
    </section>
  );
}

export interface FigureProps {
  label: string;
  value: string;
  /** What the figure is and where it comes from (shown on hover and to screen readers). */
  explain: string;
  testId?: string;
  tone?: 'normal' | 'warn' | 'muted';
}

export function Figure({ label, value, explain, testId, tone = 'normal' }: FigureProps): ReactNode {
  return (
    <div className={`figure figure-${tone}`} title={explain}>
      <span className="figure-label">
        {label}{' '}
        <span className="info" aria-hidden="true">
          i
        </span>
      </span>
      <span className="figure-value" data-testid={testId}>
        {value}
      </span>
    </div>
  );
}

export function EmptyState({ children }: { children: ReactNode }): ReactNode {
  return <div className="empty-state">{children}</div>;
}
