import { openBenchPage } from './dashboard.ts';
import type { BenchAioscope } from './aioscope.ts';
import { log, sleep, using, verdict, writeResult, type BenchOptions, type Cleanups, type TableRow } from './common.ts';
import { PAINT_HOOK_COLLECT, PAINT_HOOK_SCRIPT, PAINT_HOOK_START } from './pageScripts.ts';
import { fmt, percentiles, type Percentiles } from './stats.ts';
import { ViewerPool } from './viewerPool.ts';

const TARGET_SOCKET_MS = 50;
const TARGET_PAINT_MS = 100;

export interface PaintAnalysis {
  framesSeen: number;
  framesPainted: number;
  paints: number;
  /** Per frame: first paint that included it − frame.t. */
  paintLatencyMs: Percentiles;
  /** Per frame: arrival at the page's WebSocket − frame.t. */
  pageArrivalMs: Percentiles;
  /** Per paint: paint − t of the newest frame in it. */
  freshnessMs: Percentiles;
  /** Per paint: paint − the commit (mutation) that led to it. */
  commitToPaintMs: Percentiles;
  /** Interval between paints that changed the DOM. */
  paintIntervalMs: Percentiles;
}

/** Per frame: the first paint that included it − frame.t (frames after the last paint have none). */
export function paintLatencies(frames: [number, number][], paints: [number, number, number][]): number[] {
  const paintLatency: number[] = [];
  let cursor = 0;
  for (let index = 0; index < frames.length; index++) {
    while (cursor < paints.length && (paints[cursor] as [number, number, number])[2] <= index) cursor++;
    const paint = paints[cursor];
    if (paint === undefined) break; // arrived after the last paint of the window
    paintLatency.push(paint[1] - (frames[index] as [number, number])[1]);
  }
  return paintLatency;
}

export function analysePaints(frames: [number, number][], paints: [number, number, number][]): PaintAnalysis {
  const paintLatency = paintLatencies(frames, paints);
  const freshness = paints
    .filter((paint) => paint[2] > 0)
    .map((paint) => paint[1] - (frames[paint[2] - 1] as [number, number])[1]);
  return {
    framesSeen: frames.length,
    framesPainted: paintLatency.length,
    paints: paints.length,
    paintLatencyMs: percentiles(paintLatency),
    pageArrivalMs: percentiles(frames.map(([arrivedAt, t]) => arrivedAt - t)),
    freshnessMs: percentiles(freshness),
    commitToPaintMs: percentiles(paints.map(([committedAt, paintedAt]) => paintedAt - committedAt)),
    paintIntervalMs: percentiles(
      paints.slice(1).map((paint, index) => paint[1] - (paints[index] as [number, number, number])[1]),
    ),
  };
}

/**
 * Latency: frame.t (PostgreSQL's clock_timestamp() at the sample) → received by a socket.io client
 * in the viewer process, and → painted in Chromium (see PAINT_HOOK_SCRIPT for the method). Same
 * machine, same clock.
 */
export async function runLatency(options: BenchOptions, app: BenchAioscope, parent: Cleanups): Promise<TableRow[]> {
  return using(async (cleanups) => {
    const windowSeconds = options.quick ? 8 : 30;

    log(`latency: 1 socket.io viewer for ${windowSeconds} s at ${app.rateHz} Hz ...`);
    const pool = await ViewerPool.start(cleanups);
    await pool.setViewers(app.url, 1);
    await sleep(2_000);
    await pool.measureStart();
    await sleep(windowSeconds * 1000);
    const socket = await pool.measureStop();
    await pool.stop();

    log(`latency: Chromium painting the dashboard for ${windowSeconds} s ...`);
    const { chromium, page } = await openBenchPage(app.url, app.web, [PAINT_HOOK_SCRIPT], cleanups);
    await sleep(5_000); // snapshot processed, first renders done
    await page.evaluate(PAINT_HOOK_START);
    await sleep(windowSeconds * 1000);
    const collected = (await page.evaluate(PAINT_HOOK_COLLECT)) as {
      frames: [number, number][];
      paints: [number, number, number][];
    };
    await chromium.close();
    const paint = analysePaints(collected.frames, collected.paints);

    const socketMet = socket.latency.p95 <= TARGET_SOCKET_MS;
    const paintMet = paint.paintLatencyMs.p95 <= TARGET_PAINT_MS;
    writeResult('latency', {
      measurement: 'latency from frame.t (server clock at sample) to socket.io client and to Chromium paint',
      rateHz: app.rateHz,
      windowSeconds,
      socket: { latencyMs: socket.latency, frames: socket.framesPerViewer[0], disconnects: socket.disconnects },
      paint,
      method:
        'socket: Date.now() in the viewer process at the frame event − frame.t. paint: WebSocket wrapper notes arrivals; ' +
        'MutationObserver and clearRect note each change; rAF + MessageChannel task after the first gives the paint time, and ' +
        'the paint includes the frames known at the last change before it (changes made while it waits count).',
      target: { socketP95Ms: TARGET_SOCKET_MS, paintP95Ms: TARGET_PAINT_MS },
      met: { socket: socketMet, paint: paintMet },
    });
    return [
      {
        measurement: '3. latency → socket.io client',
        condition: `${app.rateHz} Hz, 1 viewer (child process), ${windowSeconds} s, scans running`,
        result: `p50 ${fmt(socket.latency.p50)} ms, p95 ${fmt(socket.latency.p95)} ms, p99 ${fmt(socket.latency.p99)} ms (n=${socket.latency.n})`,
        target: `p95 ≤ ${TARGET_SOCKET_MS} ms`,
        verdict: verdict(socketMet),
      },
      {
        measurement: '3. latency → painted in Chromium',
        condition: `${app.rateHz} Hz, headless Chromium, ${windowSeconds} s`,
        result:
          `per frame p50 ${fmt(paint.paintLatencyMs.p50)} ms, p95 ${fmt(paint.paintLatencyMs.p95)} ms; ` +
          `page arrival p95 ${fmt(paint.pageArrivalMs.p95)} ms; newest frame at paint p95 ${fmt(paint.freshnessMs.p95)} ms; ` +
          `paints every ${fmt(paint.paintIntervalMs.p50, 0)} ms (p50)`,
        target: `p95 ≤ ${TARGET_PAINT_MS} ms`,
        verdict: verdict(paintMet),
      },
    ];
  }, parent);
}
