import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import type { CompareResult, CompareScan, CompareSide, TargetSummary } from '@aioscope/spec';
import { useCompare } from '../api/compare.ts';
import { useTargets } from '../api/targets.ts';
import { RangeFields, readRangeFields, toLocalInput } from '../app/RangeFields.tsx';
import { formatBytes, formatDuration, formatNumber, formatPercent } from '../format.ts';
import { useThemeChoice } from '../theme.ts';
import { COMPARE_PATH, compareHref, parseCompareLocation, sameLengthBefore, type CompareSides } from './compareLink.ts';
import { FIGURE_ROWS, figureText, settingRows, sourceText, waitText } from './compareRows.ts';
import './compare.css';
import { FormError } from '../app/FormError.tsx';
import { ThemeToggle } from '../app/ThemeToggle.tsx';

/** Wait events shown per side in the table (the answer holds up to five). */
const WAITS_SHOWN = 3;

function rangeLink(side: { targetId: string; from: number; to: number }): string {
  return `/t/${encodeURIComponent(side.targetId)}?from=${Math.round(side.from)}&to=${Math.round(side.to)}`;
}

/** Where B comes from: any target or opened recording, any range; by default the same length before A. */
function SideChooser({
  sides,
  targets,
  onChoose,
}: {
  sides: CompareSides;
  targets: readonly TargetSummary[];
  onChoose: (sides: CompareSides) => void;
}): ReactNode {
  const [targetId, setTargetId] = useState(sides.b.targetId);
  const [from, setFrom] = useState(toLocalInput(sides.b.from));
  const [to, setTo] = useState(toLocalInput(sides.b.to));
  const [error, setError] = useState<string | null>(null);
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    const range = readRangeFields(from, to);
    if ('error' in range) return setError(range.error);
    setError(null);
    onChoose({ a: sides.a, b: { targetId, from: range.from, to: range.to } });
  };
  const before = sameLengthBefore(sides.a);
  const known = targets.some((target) => target.id === targetId);
  return (
    <form className="compare-chooser" onSubmit={submit} aria-label="Compare against">
      <label>
        B: target{' '}
        <select
          className="toolbar-control"
          value={targetId}
          onChange={(event) => setTargetId(event.target.value)}
          data-testid="compare-b-target"
        >
          {known ? null : <option value={targetId}>{targetId}</option>}
          {targets.map((target) => (
            <option key={target.id} value={target.id}>
              {target.name}
              {target.kind === 'recording' ? ' (recording file)' : ''}
            </option>
          ))}
        </select>
      </label>
      <RangeFields from={from} to={to} onFrom={setFrom} onTo={setTo} />
      <button type="submit" className="time-button primary">
        Compare
      </button>
      <button
        type="button"
        className="time-button"
        onClick={() => {
          setTargetId(before.targetId);
          setFrom(toLocalInput(before.from));
          setTo(toLocalInput(before.to));
          onChoose({ a: sides.a, b: before });
        }}
      >
        the same length just before A
      </button>
      <FormError error={error} />
    </form>
  );
}

function SideHeading({ name, side }: { name: 'A' | 'B'; side: CompareSide }): ReactNode {
  return (
    <th scope="col">
      <span className="compare-side-name">{name}</span> <a href={rangeLink(side)}>{side.label}</a>
      <span className="compare-side-about">
        PostgreSQL {side.serverVersion ?? 'unknown'} · io_method {side.ioMethod ?? '—'} · samples{' '}
        {formatNumber(side.sampleRateHz)} Hz, pg_stat_io {formatNumber(side.statRateHz)} Hz
      </span>
    </th>
  );
}

function waitsCell(side: CompareSide): string {
  if (side.waits.length === 0) return 'no AIO waits sampled';
  return side.waits
    .slice(0, WAITS_SHOWN)
    .map((wait) => `${waitText(wait.event)} ${formatPercent(wait.share)}`)
    .join(', ');
}

function FiguresTable({ result }: { result: CompareResult }): ReactNode {
  const { a, b } = result;
  return (
    <section className="panel" aria-label="Figures">
      <header className="panel-header">
        <h2>Figures</h2>
        <p className="panel-source">
          Over each whole range; a figure a side cannot report says why instead of showing a number.
        </p>
      </header>
      <div className="table-wrap">
        <table className="compare-table" data-testid="compare-figures">
          <thead>
            <tr>
              <th scope="col" className="compare-wide-only">
                figure
              </th>
              <SideHeading name="A" side={a} />
              <SideHeading name="B" side={b} />
              <th scope="col" className="compare-wide-only">
                source · rate
              </th>
            </tr>
          </thead>
          <tbody>
            {FIGURE_ROWS.map((row) => (
              <tr key={row.key} data-testid={`compare-figure-${row.key}`}>
                <th scope="row">{row.label}</th>
                <td className={a.figures[row.key]?.value === null ? 'compare-none' : 'num'} data-label="A">
                  {figureText(a, row.key, row.format)}
                </td>
                <td className={b.figures[row.key]?.value === null ? 'compare-none' : 'num'} data-label="B">
                  {figureText(b, row.key, row.format)}
                </td>
                <td className="compare-source">{sourceText(a, b, row.key)}</td>
              </tr>
            ))}
            <tr>
              <th scope="row">wait-event mix</th>
              <td data-label="A">{waitsCell(a)}</td>
              <td data-label="B">{waitsCell(b)}</td>
              <td className="compare-source">
                pg_stat_activity AIO wait events at each sample · {formatNumber(a.sampleRateHz)} Hz
              </td>
            </tr>
          </tbody>
        </table>
      </div>
    </section>
  );
}

function SettingsTable({ result }: { result: CompareResult }): ReactNode {
  const rows = settingRows(result.a, result.b, result.settingsDiffer);
  const caveats = [result.a, result.b].flatMap((side, index) =>
    side.settingsCaveat === null ? [] : [`${index === 0 ? 'A' : 'B'}: ${side.settingsCaveat}`],
  );
  return (
    <section className="panel" aria-label="Settings">
      <header className="panel-header">
        <h2>Settings</h2>
        <p className="panel-source">
          pg_settings as aioscope read them for each side ({result.settingsDiffer.length} differ, listed first)
        </p>
      </header>
      <div className="table-wrap">
        <table className="compare-table" data-testid="compare-settings">
          <thead>
            <tr>
              <th scope="col">setting</th>
              <th scope="col" className="compare-wide-only">
                A
              </th>
              <th scope="col" className="compare-wide-only">
                B
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.name} className={row.differs ? 'compare-differs' : undefined}>
                <th scope="row">
                  {row.name}
                  {row.differs ? <span className="compare-differs-mark"> · differs</span> : null}
                </th>
                <td data-label="A">{row.a ?? 'not read'}</td>
                <td data-label="B">{row.b ?? 'not read'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {caveats.map((caveat) => (
        <p key={caveat} className="caveat">
          {caveat}
        </p>
      ))}
    </section>
  );
}

function ScanList({ name, side }: { name: 'A' | 'B'; side: CompareSide }): ReactNode {
  const body =
    side.scans === null ? (
      <p className="caveat">{side.scansReason}</p>
    ) : side.scans.length === 0 ? (
      <p className="caveat">The scan map saw no relation scan in this range.</p>
    ) : (
      <div className="table-wrap">
        <table className="compare-table compare-scans-table" data-testid={`compare-scans-${name}`}>
          <thead>
            <tr>
              <th scope="col">relation</th>
              <th scope="col" className="compare-wide-only">
                read
              </th>
              <th scope="col" className="compare-wide-only">
                duration
              </th>
              <th scope="col" className="compare-wide-only">
                throughput
              </th>
            </tr>
          </thead>
          <tbody>
            {side.scans.map((scan: CompareScan) => (
              <tr key={`${scan.pid}-${scan.relation}`}>
                <th scope="row">
                  {scan.relation}
                  <span className="compare-side-about">
                    pid {scan.pid}
                    {scan.processes > 1 ? ` with ${scan.processes - 1} parallel workers` : ''}
                    {scan.executions > 1 ? ` · ${scan.executions} scans, added up` : ''}
                  </span>
                </th>
                <td className="num" data-label="read">
                  {formatBytes(scan.bytes)}
                </td>
                <td className="num" data-label="duration">
                  {formatDuration(scan.durationMs, 'age')}
                </td>
                <td className="num" data-label="throughput">
                  {scan.bytesPerSecond === null ? '—' : `${formatBytes(scan.bytesPerSecond)}/s`}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    );
  return (
    <div className="compare-scan-side">
      <h3>
        {name}: {side.targetName}
      </h3>
      {body}
    </div>
  );
}

function ScansSection({ result }: { result: CompareResult }): ReactNode {
  return (
    <section className="panel" aria-label="Scans">
      <header className="panel-header">
        <h2>Scans</h2>
        <p className="panel-source">
          The scan map (5 Hz): blocks each scan advanced in the range × block size, over the time it was seen reading
        </p>
      </header>
      <div className="compare-scans">
        <ScanList name="A" side={result.a} />
        <ScanList name="B" side={result.b} />
      </div>
    </section>
  );
}

function CompareBody({ sides }: { sides: CompareSides }): ReactNode {
  const compared = useCompare(sides);
  if (compared.error !== null) {
    return (
      <div className="status-detail status-bad" role="alert">
        Cannot compare: {compared.error.message}
      </div>
    );
  }
  const result = compared.data;
  if (result === undefined) return <div className="empty-state">Reading both ranges…</div>;
  return (
    <>
      <p className="compare-sentence" role="status" data-testid="compare-sentence">
        <span className="compare-sentence-lead">A against B: </span>
        {result.sentence}
      </p>
      <div className="compare-grid">
        <FiguresTable result={result} />
        <SettingsTable result={result} />
        <ScansSection result={result} />
      </div>
    </>
  );
}

/** The Compare view of two given sides: B's chooser, the sentence, figures, settings and scans. */
export function CompareView({
  sides,
  onChoose,
}: {
  sides: CompareSides;
  onChoose: (sides: CompareSides) => void;
}): ReactNode {
  const targets = useTargets();
  return (
    <main>
      <SideChooser
        key={`${sides.b.targetId}-${sides.b.from}-${sides.b.to}`}
        sides={sides}
        targets={targets.data ?? []}
        onChoose={onChoose}
      />
      <CompareBody sides={sides} />
    </main>
  );
}

/**
 * Compare: two recorded ranges side by side (a watched target's, an opened recording's or an
 * opened baseline's), the sentence of how A differs from B on top. Its URL names both sides by
 * target id and range (compareHref), so any view can link to it.
 */
export function ComparePage(): ReactNode {
  const [sides, setSides] = useState(() => parseCompareLocation(window.location.search));
  const [theme, toggleTheme] = useThemeChoice();
  useEffect(() => {
    const onPop = (): void => setSides(parseCompareLocation(window.location.search));
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const choose = (next: CompareSides): void => {
    window.history.pushState(null, '', compareHref(next));
    setSides(next);
  };
  return (
    <div className="app compare-page">
      <header className="app-header">
        <div className="title-row">
          <h1>
            aioscope <span className="subtitle">Compare two ranges</span>
          </h1>
          <div className="header-actions">
            {sides === null ? null : (
              <a className="time-button" href={rangeLink(sides.a)}>
                Back to A&apos;s range
              </a>
            )}
            <ThemeToggle theme={theme} onToggle={toggleTheme} />
          </div>
        </div>
      </header>
      {sides === null ? (
        <div className="empty-state">
          Nothing to compare: open Compare from a past range (&quot;Compare…&quot; in the time bar), or link to{' '}
          {COMPARE_PATH}?aTarget=…&amp;aFrom=…&amp;aTo=… (epoch ms).
        </div>
      ) : (
        <CompareView sides={sides} onChoose={choose} />
      )}
    </div>
  );
}
