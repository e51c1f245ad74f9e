import { useMemo, useState, type ReactNode } from 'react';
import { summarizeLiveWindow } from '@aioscope/core';
import { useTargets } from './api/targets.ts';
import { WINDOW_MS } from './live/liveStore.ts';
import { useBucketClock } from './live/useBucketClock.ts';
import { useLiveTarget } from './live/useLiveTarget.ts';
import { AuditPanel } from './panels/AuditPanel.tsx';
import { Banner } from './panels/Banner.tsx';
import { BytesPerReadPanel } from './panels/BytesPerReadPanel.tsx';
import { Header } from './panels/Header.tsx';
import { InflightPanel } from './panels/InflightPanel.tsx';
import { LabActivityBanner } from './panels/LabActivityBanner.tsx';
import { LabPanel } from './panels/LabPanel.tsx';
import { ProcessDetailPanel } from './panels/ProcessDetailPanel.tsx';
import { ProcessesPanel } from './panels/ProcessesPanel.tsx';
import { ReadCombiningPanel } from './panels/ReadCombiningPanel.tsx';
import { ScanMapPanel } from './panels/ScanMapPanel.tsx';
import { WaitEventsPanel } from './panels/WaitEventsPanel.tsx';
import { WorkerPanel } from './panels/WorkerPanel.tsx';
import { applyTheme, initialTheme, ThemeContext, type Theme } from './theme.ts';

/**
 * Chart buckets: at least one sample per bucket, 120 per 60 s chart. The charts redraw once per
 * bucket (2 Hz): half a second is fine detail on a 60 s axis, and the per-sample strip and "now"
 * figures show the newest samples at their own rate. At 200 ms buckets the page's main thread
 * was 26 % busy in npm run bench (target 20 %), at 500 ms 16 %.
 */
function bucketMsFor(sampleRateHz: number): number {
  return Math.max(500, Math.ceil(1000 / sampleRateHz));
}

export function App(): ReactNode {
  const targets = useTargets();
  const target = targets.data?.[0];
  const store = useLiveTarget(target?.id ?? null);
  const bucketMs = bucketMsFor(target?.sampleRateHz ?? 20);
  const { browserNow, domainEnd } = useBucketClock(store, bucketMs);
  const [theme, setTheme] = useState<Theme>(() => {
    const chosen = initialTheme();
    applyTheme(chosen);
    return chosen;
  });
  const [selectedPid, setSelectedPid] = useState<number | null>(null);
  const toggleTheme = (): void => {
    const next = theme === 'dark' ? 'light' : 'dark';
    applyTheme(next);
    setTheme(next);
  };

  const serverNow = store.serverNow(browserNow);
  const domain = useMemo<[number, number]>(() => [domainEnd - WINDOW_MS, domainEnd], [domainEnd]);
  // The window ends where the charts do, at the last complete bucket, so figures and charts agree.
  // A new array per clock tick on purpose: the store mutates in place.
  const frames = useMemo(
    () => store.frames.filter((frame) => frame.t >= domain[0] && frame.t < domain[1]),
    [store, domain],
  );
  const summary = useMemo(() => summarizeLiveWindow(frames), [frames]);
  const deltas = store.deltas.slice();
  const latest = frames[frames.length - 1];
  const processRows = store.processRows;

  return (
    <ThemeContext.Provider value={theme}>
      <div className="app">
        {/* First on the page for keyboards: past the header's controls, straight to the live charts. */}
        <a className="skip-link" href="#live">
          Skip to live panels
        </a>
        <Header target={target} store={store} now={browserNow} theme={theme} onToggleTheme={toggleTheme} />
        {targets.error ? (
          <div className="status-detail status-bad">Cannot load targets: {targets.error.message}</div>
        ) : null}
        <Banner target={target} />
        <LabActivityBanner />
        {/* tabIndex -1: the skip link moves focus here, so the next Tab continues inside the panels. */}
        <main className="panels" id="live" tabIndex={-1}>
          <InflightPanel
            frames={frames}
            domain={domain}
            bucketMs={bucketMs}
            target={target}
            store={store}
            stale={store.isStale(browserNow)}
          />
          <BytesPerReadPanel frames={frames} summary={summary} deltas={deltas} domain={domain} target={target} />
          <WorkerPanel frames={frames} summary={summary} domain={domain} bucketMs={bucketMs} target={target} />
        </main>
        <section className="panels panels-wide">
          <ScanMapPanel
            hasSample={latest !== undefined}
            scans={store.scans}
            target={target}
            selectedPid={selectedPid}
            onSelectPid={setSelectedPid}
          />
        </section>
        <section className="panels panels-split">
          <ProcessesPanel
            rows={processRows}
            target={target}
            serverNow={Math.floor(serverNow / 1000) * 1000}
            selectedPid={selectedPid}
            onSelectPid={setSelectedPid}
          />
          <ProcessDetailPanel
            pid={selectedPid}
            process={processRows.find((row) => row.process.pid === selectedPid)?.process}
            frames={frames}
            domain={domain}
            bucketMs={bucketMs}
            target={target}
            onClose={() => setSelectedPid(null)}
          />
        </section>
        <section className="panels">
          <ReadCombiningPanel frames={frames} summary={summary} deltas={deltas} target={target} />
          <WaitEventsPanel frames={frames} domain={domain} bucketMs={bucketMs} target={target} />
        </section>
        <section className="panels panels-wide">
          <AuditPanel target={target} />
        </section>
        <section className="panels panels-wide">
          <LabPanel target={target} />
        </section>
        <footer className="app-footer">
          Window: last {WINDOW_MS / 1000} s on the server&apos;s clock. Hover, focus or tap a figure&apos;s (i) for what
          it is and where it comes from.
        </footer>
      </div>
    </ThemeContext.Provider>
  );
}
