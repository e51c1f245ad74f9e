import { useEffect, useId, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { explainShift, type Span } from './explainPlacement.ts';

/** An explanation keeps this far from the edges of the room it is shown in. */
const EXPLAIN_MARGIN_PX = 8;

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
    // phone) or out of a table that scrolls sideways (which would cut it off): then it slides back
    // inside, before it is painted. The page never scrolls sideways.
    const element = tip.current;
    if (!open || element === null) return;
    const shift = explainShift(element.getBoundingClientRect(), visibleRoom(element), EXPLAIN_MARGIN_PX);
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
  // A layout effect: listening from the commit that shows the explanation, so an Escape pressed as
  // soon as it is seen finds the listener.
  useLayoutEffect(() => {
    if (!open) return undefined;
    // Escape closes an open explanation wherever the focus is, also one opened by a resting
    // pointer (WCAG 1.4.13), and only it: the press goes no further (a detail behind stays open).
    const closeOnEscape = (event: KeyboardEvent): void => {
      if (event.key !== 'Escape') return;
      event.stopPropagation();
      setPinned(false);
      setOpen(false);
    };
    window.addEventListener('keydown', closeOnEscape, { capture: true });
    return () => window.removeEventListener('keydown', closeOnEscape, { capture: true });
  }, [open]);
  return (
    <span className="explain" ref={root} onMouseEnter={() => setOpen(true)} onMouseLeave={() => setOpen(pinned)}>
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

/** Where `element` can be seen across: the screen, narrowed by every ancestor that clips its overflow. */
function visibleRoom(element: HTMLElement): Span {
  const room = { left: 0, right: document.documentElement.clientWidth };
  for (let node = element.parentElement; node !== null && node !== document.body; node = node.parentElement) {
    if (getComputedStyle(node).overflowX === 'visible') continue;
    const left = node.getBoundingClientRect().left + node.clientLeft;
    room.left = Math.max(room.left, left);
    room.right = Math.min(room.right, left + node.clientWidth);
  }
  return room;
}
