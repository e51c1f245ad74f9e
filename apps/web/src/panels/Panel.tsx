import { useEffect, useId, useLayoutEffect, useRef, useState, type ReactNode } from 'react';

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

/**
 * An (i) that explains a figure to everyone: a real button (keyboard, touch, screen readers), not
 * a title attribute only a mouse can reach. Opens on hover, focus or click; Escape closes it.
 */
export function Explain({ label, children }: { label: string; children: ReactNode }): ReactNode {
  const [open, setOpen] = useState(false);
  const [pinned, setPinned] = useState(false);
  const id = useId();
  const root = useRef<HTMLSpanElement>(null);
  const tip = useRef<HTMLSpanElement>(null);
  useLayoutEffect(() => {
    // Centred on the (i) unless that puts it past the screen's edge (an (i) near the right on a
    // phone): then it slides back inside, before it is painted. The page never scrolls sideways.
    const element = tip.current;
    if (!open || element === null) return;
    const margin = 8;
    const rect = element.getBoundingClientRect();
    const overRight = rect.right - (document.documentElement.clientWidth - margin);
    const overLeft = margin - rect.left;
    const shift = overRight > 0 ? -overRight : overLeft > 0 ? overLeft : 0;
    element.style.setProperty('--explain-shift', `${shift}px`);
  }, [open]);
  useEffect(() => {
    if (!pinned) return undefined;
    // A pinned explanation closes when the person clicks or taps elsewhere.
    const close = (event: PointerEvent): void => {
      if (root.current !== null && !root.current.contains(event.target as Node)) {
        setPinned(false);
        setOpen(false);
      }
    };
    document.addEventListener('pointerdown', close);
    return () => document.removeEventListener('pointerdown', close);
  }, [pinned]);
  return (
    <span
      className="explain"
      ref={root}
      onMouseEnter={() => setOpen(true)}
      onMouseLeave={() => setOpen(pinned)}
      onKeyDown={(event) => {
        if (event.key === 'Escape' && open) {
          event.stopPropagation();
          setPinned(false);
          setOpen(false);
        }
      }}
    >
      <button
        type="button"
        className="info"
        aria-label={`About ${label}`}
        aria-expanded={open}
        aria-describedby={open ? id : undefined}
        onFocus={() => setOpen(true)}
        onBlur={() => setOpen(pinned)}
        onClick={(event) => {
          // Inside a clickable row or scan, the explanation must not also select it.
          event.stopPropagation();
          setPinned(!pinned);
          setOpen(!pinned);
        }}
      >
        i
      </button>
      {open ? (
        <span role="tooltip" id={id} className="explain-text" ref={tip}>
          {children}
        </span>
      ) : null}
    </span>
  );
}

export function Figure({ label, value, explain, testId, tone = 'normal' }: FigureProps): ReactNode {
  return (
    <div className={`figure figure-${tone}`}>
      <span className="figure-label">
        {label} <Explain label={label}>{explain}</Explain>
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
