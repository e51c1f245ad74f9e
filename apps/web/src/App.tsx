import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { useTargets } from './api/targets.ts';
import { WINDOW_MS } from './live/liveStore.ts';
import { useLiveTarget, useThrottledClock } from './live/useLiveTarget.ts';
import { AuditPanel } from './panels/AuditPanel.tsx';
import { Banner } from './panels/Banner.tsx';
import { BytesPerReadPanel } from './panels/BytesPerReadPanel.tsx';
import { Header } from './panels/Header.tsx';
import { InflightPanel } from './panels/InflightPanel.tsx';
import { LabPanel } from './panels/LabPanel.tsx';
import { ProcessDetailPanel } from './panels/ProcessDetailPanel.tsx';
import { ProcessesPanel } from './panels/ProcessesPanel.tsx';
import { ReadCombiningPanel } from './panels/ReadCombiningPanel.tsx';
import { ScanMapPanel } from './panels/ScanMapPanel.tsx';
import { WaitEventsPanel } from './panels/WaitEventsPanel.tsx';
import { WorkerPanel } from './panels/WorkerPanel.tsx';

type Theme = 'dark' | 'light';
const THEME_KEY = 'aioscope.theme';

function initialTheme(): Theme {
  const saved = localStorage.getItem(THEME_KEY);
  if (saved === 'dark' || saved === 'light') return saved;
  return window.matchMedia('(prefers-color-scheme: light)').matches ? 'light' : 'dark';
}

/** Chart buckets: at least one sample per bucket, at most 300 points per chart. */
function bucketMsFor(sampleRateHz: number): number {
  return Math.max(200, Math.ceil(1000 / sampleRateHz));
}

export function App(): ReactNode {
  const targets = useTargets();
  const target = targets.data?.[0];
  const store = useLiveTarget(target?.id ?? null);
  const now = useThrottledClock(store);
  const [theme, setTheme] = useState<Theme>(initialTheme);
  const [selectedPid, setSelectedPid] = useState<number | null>(null);

  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem(THEME_KEY, theme);
  }, [theme]);

  const serverNow = store.serverNow(now);
  const domain = useMemo<[number, number]>(() => [serverNow - WINDOW_MS, serverNow], [serverNow]);
  // A new array each render on purpose: the store mutates in place and `now` marks a new view of it.
  const frames = useMemo(() => store.frames.filter((frame) => frame.t >= domain[0]), [store, domain]);
  const deltas = store.deltas.slice();
  const bucketMs = bucketMsFor(target?.sampleRateHz ?? 20);
  const latest = frames[frames.length - 1];
  const processes = store.processes;

  return (
    <div className="app">
      <Header
        target={target}
        store={store}
        now={now}
        theme={theme}
        onToggleTheme={() => setTheme(theme === 'dark' ? 'light' : 'dark')}
      />
      {targets.error ? (
        <div className="status-detail status-bad">Cannot load targets: {targets.error.message}</div>
      ) : null}
      <Banner target={target} />
      <main className="panels" id="live">
        <InflightPanel frames={frames} domain={domain} bucketMs={bucketMs} target={target} />
        <BytesPerReadPanel frames={frames} deltas={deltas} domain={domain} target={target} />
        <WorkerPanel frames={frames} domain={domain} bucketMs={bucketMs} target={target} />
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
          processes={processes}
          target={target}
          serverNow={Math.floor(serverNow / 1000) * 1000}
          selectedPid={selectedPid}
          onSelectPid={setSelectedPid}
        />
        <ProcessDetailPanel
          pid={selectedPid}
          process={processes.find((process) => process.pid === selectedPid)}
          frames={frames}
          domain={domain}
          bucketMs={bucketMs}
          target={target}
          onClose={() => setSelectedPid(null)}
        />
      </section>
      <section className="panels">
        <ReadCombiningPanel frames={frames} deltas={deltas} target={target} />
        <WaitEventsPanel frames={frames} domain={domain} bucketMs={bucketMs} target={target} />
      </section>
      <section className="panels panels-wide">
        <AuditPanel target={target} />
      </section>
      <section className="panels panels-wide">
        <LabPanel target={target} />
      </section>
      <footer className="app-footer">
        Window: last {WINDOW_MS / 1000} s on the server&apos;s clock. Hover a figure marked (i) for what it is and where
        it comes from.
      </footer>
    </div>
  );
}
