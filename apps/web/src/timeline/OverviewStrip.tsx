import { useMemo, useRef, useState, type PointerEvent, type ReactNode } from 'react';
import type { HistoryEvent, RollupPoint } from '@aioscope/spec';
import { formatDuration, formatNumber } from '../format.ts';
import { eventPlaces } from './overviewRange.ts';
import type { TimeView } from './timeView.ts';

export interface OverviewStripProps {
  /** The whole kept range, epoch ms. */
  from: number;
  to: number;
  points: readonly RollupPoint[];
  stepMs: number;
  events: readonly HistoryEvent[];
  view: TimeView;
  onView: (view: TimeView) => void;
}

/** Width of the SVG's coordinate system; it stretches to the page. */
const WIDTH = 1000;
const HEIGHT = 44;
/** A click on a marker shows this much around it. */
const AROUND_EVENT_MS = 30_000;
/** A drag shorter than this is a click: it shows the minute around that point. */
const MIN_DRAG_PX = 4;

const EVENT_LABELS: Record<HistoryEvent['kind'], string> = {
  connected: 'connected',
  disconnected: 'disconnected',
  serverRestarted: 'server restarted',
  statsReset: 'statistics reset',
  privilegeLost: 'privilege lost',
  privilegeRegained: 'privilege regained',
  settingsChanged: 'settings changed',
  auditChanged: 'audit changed',
  labRunStarted: 'lab run started',
  labRunEnded: 'lab run ended',
  rateChanged: 'sample rate changed',
  recordingPaused: 'recording paused',
  recordingResumed: 'recording resumed',
};

/**
 * The whole kept history in one strip: peak reads in flight per step (roll-ups), the range on
 * screen, and the target's events as markers a person clicks (or tabs to) to go there. Dragging
 * across the strip shows that range.
 */
export function OverviewStrip(props: OverviewStripProps): ReactNode {
  const { from, to, points, stepMs, events, view, onView } = props;
  const span = Math.max(1, to - from);
  const xOf = (t: number): number => ((t - from) / span) * WIDTH;
  const svg = useRef<SVGSVGElement>(null);
  const [drag, setDrag] = useState<{ start: number; end: number } | null>(null);

  const { path, peak } = useMemo(() => {
    const top = Math.max(1, ...points.map((point) => point.readsInFlight.max));
    let d = '';
    let previousT = -Infinity;
    for (const point of points) {
      const x = xOf(point.t + stepMs / 2).toFixed(1);
      const y = (HEIGHT - (point.readsInFlight.max / top) * (HEIGHT - 4)).toFixed(1);
      // A step with no sample breaks the line: a gap in recording is drawn as one.
      d += `${point.t - previousT > stepMs * 1.5 ? 'M' : 'L'}${x},${y}`;
      previousT = point.t;
    }
    return { path: d, peak: top };
    // xOf depends on from and span only.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [points, stepMs, from, span]);

  const timeAt = (clientX: number): number => {
    const rect = svg.current?.getBoundingClientRect();
    if (rect === undefined || rect.width === 0) return from;
    return from + Math.min(1, Math.max(0, (clientX - rect.left) / rect.width)) * span;
  };
  const onPointerDown = (event: PointerEvent<SVGSVGElement>): void => {
    event.currentTarget.setPointerCapture(event.pointerId);
    setDrag({ start: event.clientX, end: event.clientX });
  };
  const onPointerMove = (event: PointerEvent<SVGSVGElement>): void => {
    if (drag !== null) setDrag({ ...drag, end: event.clientX });
  };
  const onPointerUp = (event: PointerEvent<SVGSVGElement>): void => {
    if (drag === null) return;
    setDrag(null);
    const a = timeAt(drag.start);
    const b = timeAt(event.clientX);
    if (Math.abs(event.clientX - drag.start) < MIN_DRAG_PX) {
      onView({ mode: 'range', from: a - AROUND_EVENT_MS, to: a + AROUND_EVENT_MS, at: a, speed: null });
    } else {
      onView({ mode: 'range', from: Math.min(a, b), to: Math.max(a, b), at: Math.max(a, b), speed: null });
    }
  };

  const shown = view.mode === 'range' ? [xOf(view.from), xOf(view.to)] : [xOf(to - 60_000), WIDTH];
  const dragBox = drag === null ? null : [drag.start, drag.end].map((x) => xOf(timeAt(x)));
  return (
    <div className="overview" data-testid="overview-strip">
      <div className="overview-caption">
        <span>
          All kept history: {formatDuration(span, 'span')}, peak reads in flight per {formatDuration(stepMs, 'span')}{' '}
          (roll-ups; top {formatNumber(peak, 0)}). Drag to show a range; markers are events.
        </span>
      </div>
      <div className="overview-plot">
        <svg
          ref={svg}
          viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
          preserveAspectRatio="none"
          role="img"
          aria-label={`peak reads in flight over the ${formatDuration(span, 'span')} kept`}
          onPointerDown={onPointerDown}
          onPointerMove={onPointerMove}
          onPointerUp={onPointerUp}
        >
          <rect
            className="overview-shown"
            x={Math.max(0, Math.min(...shown))}
            width={Math.max(2, Math.abs((shown[1] ?? 0) - (shown[0] ?? 0)))}
            y={0}
            height={HEIGHT}
          />
          <path className="overview-line" d={path} vectorEffect="non-scaling-stroke" />
          {dragBox !== null ? (
            <rect
              className="overview-drag"
              x={Math.min(...dragBox)}
              width={Math.abs((dragBox[1] ?? 0) - (dragBox[0] ?? 0))}
              y={0}
              height={HEIGHT}
            />
          ) : null}
        </svg>
        <ol className="overview-events" aria-label="Events">
          {eventPlaces(events, { from, to }).map(({ event, fraction }) => (
            <li key={`${event.t}-${event.kind}`} style={{ left: `${fraction * 100}%` }}>
              <button
                type="button"
                className={`event-marker event-${event.kind}`}
                data-testid="event-marker"
                aria-label={`${EVENT_LABELS[event.kind]} at ${new Date(event.t).toLocaleString()}: ${event.message}`}
                title={`${EVENT_LABELS[event.kind]}: ${event.message}`}
                onClick={() =>
                  onView({
                    mode: 'range',
                    from: event.t - AROUND_EVENT_MS,
                    to: event.t + AROUND_EVENT_MS,
                    at: event.t,
                    speed: null,
                  })
                }
              />
            </li>
          ))}
        </ol>
      </div>
    </div>
  );
}
