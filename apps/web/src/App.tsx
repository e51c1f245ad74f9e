import { useCallback, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { OpenedRecording } from '@aioscope/spec';
import { useHistoryExtent } from './api/history.ts';
import { TargetSwitcher } from './fleet/TargetSwitcher.tsx';
import { UnknownTarget } from './fleet/UnknownTarget.tsx';
import { useTargetLookup } from './fleet/useTargetLookup.ts';
import { PresentButton } from './present/PresentButton.tsx';
import { SelectRangeContext, TimeAxisContext } from './charts/TimeSeriesChart.tsx';
import { HistoryOverview } from './timeline/HistoryOverview.tsx';
import { LongRange } from './timeline/LongRange.tsx';
import { WhoWasReading } from './timeline/WhoWasReading.tsx';
import { TimeControls } from './timeline/TimeControls.tsx';
import { readsRawFrames } from './timeline/timeView.ts';
import './timeline/timeline.css';
import './fleet/fleet.css';
import { useOpenRecording, useOpenRecordingsOnLive } from './timeline/useOpenRecording.ts';
import { useTimeTravel } from './timeline/useTimeTravel.ts';
import { useViewLocation } from './timeline/useViewLocation.ts';
import { WindowTextContext, windowTextOf } from './timeline/windowText.ts';
import { WindowSummarizer } from '@aioscope/core';
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
import { ProcessDetailPanel } from './panels/ProcessDetailPanel.tsx';
import { ProcessesPanel } from './panels/ProcessesPanel.tsx';
import { ReadCombiningPanel } from './panels/ReadCombiningPanel.tsx';
import { refusedReason } from './panels/reasons.ts';
import { ScanMapPanel } from './panels/ScanMapPanel.tsx';
import { WaitEventsPanel } from './panels/WaitEventsPanel.tsx';
import { WorkerPanel } from './panels/WorkerPanel.tsx';
import { UserBadge } from './panels/UserBadge.tsx';
import { ThemeContext, useThemeChoice } from './theme.ts';
import { HeldOffscreen } from './app/HeldOffscreen.tsx';
import { lazyComponent } from './app/lazyComponent.tsx';
import { ThemeToggle } from './app/ThemeToggle.tsx';

/** The overview of several servers: a page of its own, its script only where it is shown. */
const OverviewPage = lazyComponent(
  'overview',
  () => import('./fleet/OverviewPage.tsx'),
  (module) => module.OverviewPage,
  () => <div className="empty-state" aria-busy="true" />,
);
/** The lab (and the race it runs) is below the fold: its script comes after the first paint. */
const LabPanel = lazyComponent(
  'lab',
  () => import('./panels/LabPanel.tsx'),
  (module) => module.LabPanel,
  () => <div className="panel lab-loading" aria-busy="true" />,
);

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
  const [location, setLocation] = useViewLocation();
  // Several servers: the overview is the landing page, each server has its own page (/t/:id).
  // One removed from the targets file is still listed (its past stays readable) but not watched.
  const servers = (targets.data ?? []).filter(
    (candidate) => candidate.kind !== 'recording' && candidate.unwatchedSince === undefined,
  );
  const showOverview = servers.length > 1 && location.targetId === null;
  // An id it does not know is said to be unknown, never shown as another server.
  const lookup = useTargetLookup(targets, location.targetId);
  const unknownTarget = location.targetId !== null && lookup.unknown;
  const target = showOverview
    ? undefined
    : (lookup.target ?? (location.targetId === null ? targets.data?.[0] : undefined));
  const targetId = target?.id ?? null;
  // A recording file, or a target no longer watched, has no live edge: its page opens on the recorded range.
  const hasLive = target !== undefined && target.kind !== 'recording' && target.unwatchedSince === undefined;
  const liveStore = useLiveTarget(hasLive ? targetId : null, target?.replica);
  const sampleRateHz = target?.sampleRateHz ?? 20;
  const bucketMs = bucketMsFor(sampleRateHz);
  const time = useTimeTravel(location, setLocation, targetId, sampleRateHz);
  const live = time.view.mode === 'live';
  // While a past range is shown, the live clock only keeps the header's ages current.
  const clock = useBucketClock(liveStore, bucketMs, live);
  const { browserNow, domainEnd } = clock;
  const extent = useHistoryExtent(targetId);
  // An opened file or baseline: straight to it, at its end like a paused live view (its "now"
  // figures show its last samples).
  const showOpened = (opened: OpenedRecording): void =>
    setLocation({
      targetId: opened.targetId,
      pid: null,
      view: { mode: 'range', from: opened.from, to: opened.to, at: opened.to, speed: null },
    });
  const openFile = useOpenRecording(showOpened);
  const [theme, toggleTheme] = useThemeChoice();
  const selectedPid = location.pid;
  const setSelectedPid = (pid: number | null): void => setLocation({ ...location, pid }, 'replace');
  useOpenRecordingsOnLive(hasLive, target, extent.data, time);

  const past = time.past;
  const store = past?.store ?? liveStore;
  const serverNow = past !== null ? (time.at ?? 0) : clock.serverNow;
  const liveDomain = useMemo<[number, number]>(() => [domainEnd - WINDOW_MS, domainEnd], [domainEnd]);
  const domain = past?.domain ?? liveDomain;
  const shownBucketMs = past?.bucketMs ?? bucketMs;
  // The live window ends where the charts do, at the last complete bucket, so figures and charts agree.
  const frames = past?.frames ?? clock.frames;
  // Kept for the page's lifetime: it holds each bucket's sums, so a new bucket adds its own frames only.
  const [summarizer] = useState(() => new WindowSummarizer());
  const summary = useMemo(() => summarizer.summarize(frames, shownBucketMs), [summarizer, frames, shownBucketMs]);
  const deltas = past?.deltas ?? clock.deltas;
  const latest = frames[frames.length - 1];
  const processRows = past?.processRows ?? clock.processRows;
  const scans = past?.scans ?? clock.scans;
  const longRange = time.view.mode === 'range' && !readsRawFrames(time.view);
  // What a panel held off screen in the live view renders for at once: another server (HeldOffscreen).
  const shownKey = targetId ?? '';
  // Stable across renders: every time chart reads it from context, and a new function would
  // re-render each of them at every bucket. Written after the commit, never while rendering.
  const setViewRef = useRef(time.setView);
  useLayoutEffect(() => {
    setViewRef.current = time.setView;
  });
  const selectRange = useCallback(
    (from: number, to: number): void =>
      setViewRef.current({
        mode: 'range',
        from: Math.round(from),
        to: Math.round(to),
        at: Math.round(to),
        speed: null,
      }),
    [],
  );

  const openTarget = (id: string | null): void => setLocation({ targetId: id, view: { mode: 'live' }, pid: null });
  if (showOverview || unknownTarget) {
    return (
      <ThemeContext.Provider value={theme}>
        <div className="app">
          <a className="skip-link" href="#live">
            {unknownTarget ? 'Skip to the list of servers' : 'Skip to the servers'}
          </a>
          <header className="app-header">
            <div className="title-row">
              <h1>
                aioscope <span className="subtitle">live PostgreSQL asynchronous I/O</span>
              </h1>
              <div className="header-actions">
                <UserBadge />
                <ThemeToggle theme={theme} onToggle={toggleTheme} />
              </div>
            </div>
          </header>
          {unknownTarget && location.targetId !== null ? (
            <UnknownTarget id={location.targetId} targets={targets.data ?? []} onOpen={openTarget} />
          ) : (
            <OverviewPage onOpen={openTarget} />
          )}
        </div>
      </ThemeContext.Provider>
    );
  }

  return (
    <ThemeContext.Provider value={theme}>
      <TimeAxisContext.Provider value={past?.axis ?? (live ? 'relative' : 'clock')}>
        <SelectRangeContext.Provider value={selectRange}>
          <WindowTextContext.Provider value={windowTextOf(time.view, past)}>
            <div className="app" {...openFile.dropZone}>
              {/* First on the page for keyboards: past the header's controls, straight to the live charts. */}
              <a className="skip-link" href="#live">
                Skip to live panels
              </a>
              <Header
                target={target}
                connection={clock.connection}
                now={browserNow}
                theme={theme}
                onToggleTheme={toggleTheme}
                actions={<PresentButton frames={frames} summary={summary} target={target} />}
              />
              {targets.error ? (
                <div className="status-detail status-bad">Cannot load targets: {targets.error.message}</div>
              ) : null}
              {servers.length > 1 || target?.kind === 'recording' ? (
                <TargetSwitcher targets={targets.data ?? []} current={targetId} onOpen={openTarget} />
              ) : null}
              <Banner target={target} />
              <LabActivityBanner />
              <TimeControls
                view={time.view}
                targetId={targetId}
                hasLive={hasLive}
                extent={extent.data}
                extentError={extent.error?.message ?? null}
                notSampled={refusedReason(target, 'Not sampled')}
                // A recording file has no live edge: its presets end where the file does.
                serverNow={target?.recording?.to ?? clock.serverNow}
                at={time.at ?? domainEnd}
                playing={time.playing}
                onView={time.setView}
                onPause={() => time.pause(liveStore, domainEnd)}
                onPlay={time.setPlaying}
                onStep={time.step}
                onMoment={time.setMoment}
                onOpenFile={openFile.open}
                onOpenBaseline={showOpened}
              />
              {openFile.message !== null ? (
                <div
                  className={`status-detail status-${openFile.tone}`}
                  role="status"
                  data-testid="open-recording-message"
                >
                  {openFile.message}
                </div>
              ) : null}
              {targetId !== null ? (
                <HistoryOverview targetId={targetId} extent={extent.data} view={time.view} onView={time.setView} />
              ) : null}
              {time.pastError !== null ? (
                <div className="status-detail status-bad" role="alert">
                  Cannot read this range: {time.pastError}
                </div>
              ) : null}
              {longRange && targetId !== null && time.view.mode === 'range' ? (
                <LongRange targetId={targetId} view={time.view} target={target} />
              ) : !live && past === null ? (
                <div className="empty-state" data-testid="range-loading">
                  {time.pastLoading ? 'Reading the recorded samples…' : 'No samples for this range.'}
                </div>
              ) : (
                <>
                  {/* tabIndex -1: the skip link moves focus here, so the next Tab continues inside the panels. */}
                  <main className="panels" id="live" tabIndex={-1}>
                    <HeldOffscreen live={live} urgent={shownKey}>
                      <InflightPanel
                        frames={frames}
                        summary={summary}
                        domain={domain}
                        bucketMs={shownBucketMs}
                        target={target}
                        store={store}
                        newest={past !== null ? past.momentFrames.at(-1) : clock.newest}
                        stale={past === null && clock.stale}
                      />
                    </HeldOffscreen>
                    <HeldOffscreen live={live} urgent={shownKey}>
                      <BytesPerReadPanel
                        frames={frames}
                        summary={summary}
                        deltas={deltas}
                        domain={domain}
                        target={target}
                      />
                    </HeldOffscreen>
                    <HeldOffscreen live={live} urgent={shownKey}>
                      <WorkerPanel
                        frames={frames}
                        momentFrames={past?.momentFrames}
                        summary={summary}
                        domain={domain}
                        bucketMs={shownBucketMs}
                        target={target}
                      />
                    </HeldOffscreen>
                  </main>
                  <section className="panels panels-wide">
                    <HeldOffscreen live={live} urgent={`${shownKey} ${selectedPid ?? ''}`}>
                      <ScanMapPanel
                        hasSample={latest !== undefined}
                        scans={scans}
                        target={target}
                        selectedPid={selectedPid}
                        onSelectPid={setSelectedPid}
                      />
                    </HeldOffscreen>
                  </section>
                  <section className="panels panels-split">
                    <HeldOffscreen live={live} urgent={`${shownKey} ${selectedPid ?? ''}`}>
                      <ProcessesPanel
                        rows={processRows}
                        target={target}
                        serverNow={Math.floor(serverNow / 1000) * 1000}
                        selectedPid={selectedPid}
                        onSelectPid={setSelectedPid}
                      />
                    </HeldOffscreen>
                    <ProcessDetailPanel
                      pid={selectedPid}
                      process={processRows.find((row) => row.process.pid === selectedPid)?.process}
                      frames={frames}
                      domain={domain}
                      bucketMs={shownBucketMs}
                      target={target}
                      onClose={() => setSelectedPid(null)}
                    />
                  </section>
                  <section className="panels">
                    <HeldOffscreen live={live} urgent={shownKey}>
                      <ReadCombiningPanel frames={frames} summary={summary} deltas={deltas} target={target} />
                    </HeldOffscreen>
                    <HeldOffscreen live={live} urgent={shownKey}>
                      <WaitEventsPanel frames={frames} domain={domain} bucketMs={shownBucketMs} target={target} />
                    </HeldOffscreen>
                  </section>
                </>
              )}
              {targetId !== null && time.view.mode === 'range' ? (
                <section className="panels panels-wide">
                  <WhoWasReading targetId={targetId} view={time.view} onMoment={time.setMoment} />
                </section>
              ) : null}
              {/* A recording file has no server to audit or to run the lab on. */}
              {hasLive ? (
                <>
                  <section className="panels panels-wide">
                    <AuditPanel target={target} connected={clock.reachable} />
                  </section>
                  <section className="panels panels-wide">
                    <LabPanel target={target} />
                  </section>
                </>
              ) : null}
              <footer className="app-footer">
                Window: {windowTextOf(time.view, past).long} on the server&apos;s clock. Hover, focus or tap a
                figure&apos;s (i) for what it is and where it comes from. Drop a recording file on the page to open it.
              </footer>
            </div>
          </WindowTextContext.Provider>
        </SelectRangeContext.Provider>
      </TimeAxisContext.Provider>
    </ThemeContext.Provider>
  );
}
